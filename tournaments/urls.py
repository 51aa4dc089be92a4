from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("api/tournaments/", views.api_tournaments, name="api_list"),
    path("api/tournaments/<int:tournament_id>/", views.api_tournament, name="api_detail"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/register/", views.register, name="register"),
    path("tournaments/<int:tournament_id>/unregister/", views.unregister, name="unregister"),
]
