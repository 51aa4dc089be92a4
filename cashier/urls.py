from django.urls import path

from cashier import views

app_name = "cashier"

urlpatterns = [
    path("", views.wallet, name="wallet"),
    path("deposit/", views.deposit, name="deposit"),
    path("withdraw/", views.withdraw, name="withdraw"),
    path("refill/", views.refill, name="refill"),
]
