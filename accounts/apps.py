from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Players and staff")

    def ready(self) -> None:
        from axes.signals import user_locked_out

        from accounts.login_throttle import login_failures_notify

        user_locked_out.connect(login_failures_notify, dispatch_uid="accounts.login_failures_notify")
