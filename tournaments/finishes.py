"""The places and prizes of players who bust (a service of `tournaments.services`, kept in a module of its own
so that the floor, `tournaments.play`, can record busts without importing the services that start it)."""

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from itertools import groupby

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from cashier import services as cashier
from tournaments.errors import TournamentError, WrongStatus
from tournaments.models import Entry, Tournament
from tournaments.rules.payouts import Bust, Finish, busts_finish
from tournaments.selectors import late_registration_open, players_left, prize_pool

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

    Places go by order of elimination over the final field (the k-th out of N finishes N-k+1). While late
    registration stays open after these busts (`late_registration_open`), the places are provisional (each
    late entry moves them down one, `provisional_places_shift`) and nothing is paid; the busts that close it
    (the field reaching the money) are recorded on the final field, and every provisional place is settled
    with them (`late_places_settle`, also run by the floor when the last late-registration level ends).

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
        left = players_left(tournament=tournament)
        if late_registration_open(tournament=tournament, leaving=len(busts)):
            finishes = tuple(
                replace(finish, provisional=True)
                for finish in busts_finish(busts=busts, players_left=left, prizes=())
            )
            for finish in finishes:
                _entry_finish(tournament, playing[finish.entry], finish, now)
            return finishes
        prizes = _prizes(tournament)
        finishes = busts_finish(busts=busts, players_left=left, prizes=prizes)
        if left - len(finishes) == 1:
            (winner,) = (pk for pk in playing if pk not in {bust.entry for bust in busts})
            finishes += (Finish(winner, 1, prizes[0]),)
            tournament.status, tournament.finished_at = Status.FINISHED, now
            tournament.save(update_fields=["status", "finished_at"])
        for finish in finishes:
            _entry_finish(tournament, playing[finish.entry], finish, now)
        _provisional_settle(tournament, prizes)
        return finishes


def _prizes(tournament: Tournament) -> tuple[int, ...]:
    entrants = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count()
    return tournament.payout_table.schedule().prizes(
        entrants=entrants, pool=prize_pool(tournament=tournament)
    )


def provisional_places_shift(*, tournament: Tournament) -> int:
    """A late entry comes in above the players already out: their provisional places move down one. Caller
    holds the tournament's lock (`tournament_register`)."""
    return tournament.entries.filter(status=Entry.Status.FINISHED, prize__isnull=True).update(
        place=F("place") + 1
    )


def late_places_settle(*, tournament_id: int) -> list[Entry]:
    """Late registration has closed (its last level ended, or the field reached the money): the provisional
    places of the players out so far are final, and so are their prizes (none: late registration closes
    before a place it leaves provisional can be paid, `PayoutSchedule.late_registration_closes_at`). Returns
    the entries settled; nothing when late registration is still open or nobody waits.

    Lock: none held by the caller, or the tournament's row (the floor)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Status.RUNNING or late_registration_open(tournament=tournament):
            return []
        if not tournament.entries.filter(status=Entry.Status.FINISHED, prize__isnull=True).exists():
            return []
        return _provisional_settle(tournament, _prizes(tournament))


def _provisional_settle(tournament: Tournament, prizes: Sequence[int]) -> list[Entry]:
    """Pay the provisional places on the final field: players who shared a place share its prizes (the odd
    cents one each by entry, in the order they registered)."""
    waiting = list(
        tournament.entries.select_for_update()
        .filter(status=Entry.Status.FINISHED, prize__isnull=True)
        .select_related("user")
        .order_by("place", "pk")
    )
    for place, group_iter in groupby(waiting, key=lambda entry: entry.place):
        group = list(group_iter)
        shared = sum(prizes[p - 1] for p in range(place, place + len(group)) if p <= len(prizes))
        each, odd = divmod(shared, len(group))
        for index, entry in enumerate(group):
            _prize_pay(tournament, entry, each + (index < odd))
    return waiting


def _entry_finish(tournament: Tournament, entry: Entry, finish: Finish, now: datetime) -> None:
    entry.status, entry.place, entry.prize, entry.finished_at = (
        Entry.Status.FINISHED,
        finish.place,
        None if finish.provisional else finish.prize,
        now,
    )
    entry.save(update_fields=["status", "place", "prize", "finished_at"])
    if not finish.provisional:
        _prize_pay(tournament, entry, finish.prize)


def _prize_pay(tournament: Tournament, entry: Entry, prize: int) -> None:
    if entry.prize != prize:
        entry.prize = prize
        entry.save(update_fields=["prize"])
    cashier.tournament_prize_pay(
        user=entry.user,
        currency=tournament.currency,
        pool_ref=tournament.pool_ref,
        amount=prize,
        idempotency_key=f"tournament-prize:{entry.pk}",
        memo=_("%(tournament)s: place %(place)s") % {"tournament": tournament.name, "place": entry.place},
    )
