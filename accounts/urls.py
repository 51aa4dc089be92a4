from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import two_factor_views, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", two_factor_views.TwoFactorLoginView.as_view(), name="login"),
    path("login/code/", two_factor_views.two_factor_code, name="two_factor_code"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    # Forgotten password: Django's own views, the link by email (EMAIL_* settings; the console by default).
    path("password/reset/", views.RoomPasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
    path("profile/", views.profile, name="profile"),
    path("two-factor/", two_factor_views.two_factor_manage, name="two_factor"),
    path("language/", views.language_choose, name="language_choose"),
    path("email/verify/<str:token>/", views.email_verify_view, name="email_verify"),
    path("email/verify/", views.email_verify_resend, name="email_verify_resend"),
]
