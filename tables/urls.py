from django.urls import include, path

from tables import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("api/tables/", views.api_tables, name="api_tables"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("api/hands/<int:hand_id>/", views.api_hand, name="api_hand"),
    path("", include("tables.history.urls")),
]
