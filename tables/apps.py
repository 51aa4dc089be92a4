from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = _("Tables and games")

    def ready(self) -> None:
        from cashier import hooks
        from tables import services

        hooks.seat_release_register(services.hook_seat_release)
        hooks.player_barred_register(services.hook_player_barred)
