from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = _("Cashier")

    def ready(self) -> None:
        from accounts.services import account_close_register, user_signed_up_register
        from cashier.services import play_chips_welcome, player_deactivate

        user_signed_up_register(play_chips_welcome)
        account_close_register(player_deactivate)
