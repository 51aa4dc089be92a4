from django.urls import include, path

from tables import views
from tables.payout import views as payout_views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("api/tables/", views.api_tables, name="api_tables"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("api/tables/<int:table_id>/players/", views.api_table_players, name="api_table_players"),
    path("api/tables/<int:table_id>/money/", views.api_table_money, name="api_table_money"),
    path("api/hands/<int:hand_id>/", views.api_hand, name="api_hand"),
    path("payout/", payout_views.payout_page, name="payout"),
    path("api/payout/", payout_views.api_payout, name="api_payout"),
    path("", include("tables.history.urls")),
]
