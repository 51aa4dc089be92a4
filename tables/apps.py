from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = _("Tables and games")

    def ready(self) -> None:
        from cashier import hooks
        from tables import services

        hooks.hand_in_progress_register(services.hook_hand_in_progress)
        hooks.seat_released_register(services.hook_seat_released)
