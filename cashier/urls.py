from django.urls import path

from cashier import views

app_name = "cashier"

urlpatterns = [
    path("", views.wallet, name="wallet"),
    path("deposit/", views.deposit, name="deposit"),
    path("withdraw/", views.withdraw, name="withdraw"),
    path("refill/", views.refill, name="refill"),
]

# On the player's account pages (under /accounts/, without the cashier's namespace).
responsible_gaming_urlpatterns = [
    path("limits/", views.deposit_limits, name="deposit_limits"),
    path("self-exclusion/", views.self_exclusion, name="self_exclusion"),
]
