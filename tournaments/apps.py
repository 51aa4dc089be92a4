from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from cashier import hooks
        from tables import chips
        from tables.history.tournament import tournament_history_register
        from tables.tasks import later_task_register
        from tournaments.history import tournament_summaries_text, tournament_table_facts
        from tournaments.play import TournamentHooks
        from tournaments.services import hook_player_barred
        from tournaments.tasks import tournament_floor_task

        chips.tournament_hooks_register(TournamentHooks())
        later_task_register("tournament", tournament_floor_task)
        hooks.player_barred_register(hook_player_barred)
        tournament_history_register(facts=tournament_table_facts, summaries=tournament_summaries_text)
