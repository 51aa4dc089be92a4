from django.urls import path

from tables.history import views

urlpatterns = [
    path("hands/", views.my_hands, name="my_hands"),
    path("hands/download/", views.hands_download, name="hands_download"),
    path("hands/<int:hand_id>/", views.hand_replayer, name="hand_replayer"),
    path("hands/<int:hand_id>/download/", views.hand_download, name="hand_download"),
    path("hands/<int:hand_id>/verify/", views.hand_verify, name="hand_verify"),
    path("hands/shared/<str:token>/", views.hand_shared, name="hand_shared"),
    path("api/hands/mine/", views.api_my_hands, name="api_my_hands"),
    path("api/hands/<int:hand_id>/replay/", views.api_hand_replay, name="api_hand_replay"),
    path("api/hands/shared/<str:token>/", views.api_hand_shared, name="api_hand_shared"),
    path("api/tables/<int:table_id>/last-hands/", views.api_table_last_hands, name="api_table_last_hands"),
    path("fairness/", views.fairness, name="fairness"),
    path("fairness/verify_hand.py", views.verify_script, name="verify_script"),
]
