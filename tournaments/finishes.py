"""The places and prizes of players who bust (a service of `tournaments.services`, kept in a module of its own
so that the floor, `tournaments.play`, can record busts without importing the services that start it)."""

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cashier import services as cashier
from tournaments.errors import TournamentError, WrongStatus
from tournaments.models import Entry, Tournament
from tournaments.rules.payouts import Bust, Finish, busts_finish
from tournaments.selectors import players_left, prize_pool

Status = Tournament.Status


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError(_("There is no such tournament."))
    return tournament


def tournament_busts_record(
    *, tournament_id: int, busts: Sequence[Bust], now: datetime | None = None
) -> tuple:
    """Record the players who lost their last chip in one hand (or one hand-for-hand round): their places and
    prizes by SPEC 1.3 (`tournaments.rules.payouts.busts_finish`), each prize paid from the pool to the
    wallet at once; when one player is left, they win first place and the tournament is over. Returns the
    finishes, the winner's last.

    Lock: none held by the caller (the table code calls it after its hand's transaction)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Status.RUNNING:
            raise WrongStatus(_("This tournament is not running."))
        playing = {
            e.pk: e for e in tournament.entries.select_for_update().filter(status=Entry.Status.PLAYING)
        }
        if any(bust.entry not in playing or playing[bust.entry].chips != 0 for bust in busts):
            raise ValueError("a bust names an entry that is not playing or still has chips")
        entrants = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count()
        prizes = tournament.payout_table.schedule().prizes(
            entrants=entrants, pool=prize_pool(tournament=tournament)
        )
        left = players_left(tournament=tournament)
        finishes = busts_finish(busts=busts, players_left=left, prizes=prizes)
        if left - len(finishes) == 1:
            (winner,) = (pk for pk in playing if pk not in {bust.entry for bust in busts})
            finishes += (Finish(winner, 1, prizes[0]),)
            tournament.status, tournament.finished_at = Status.FINISHED, now
            tournament.save(update_fields=["status", "finished_at"])
        for finish in finishes:
            _entry_finish(tournament, playing[finish.entry], finish, now)
        return finishes


def _entry_finish(tournament: Tournament, entry: Entry, finish: Finish, now: datetime) -> None:
    entry.status, entry.place, entry.prize, entry.finished_at = (
        Entry.Status.FINISHED,
        finish.place,
        finish.prize,
        now,
    )
    entry.save(update_fields=["status", "place", "prize", "finished_at"])
    cashier.tournament_prize_pay(
        user=entry.user,
        currency=tournament.currency,
        pool_ref=tournament.pool_ref,
        amount=finish.prize,
        idempotency_key=f"tournament-prize:{entry.pk}",
        memo=_("%(tournament)s: place %(place)s") % {"tournament": tournament.name, "place": finish.place},
    )
