"""Reads of tournaments: the list and the page players see, and the figures the services decide on."""

from datetime import timedelta

from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from tournaments.models import Entry, Tournament

LISTED_AFTER_THE_END = timedelta(hours=24)  # finished and cancelled tournaments stay listed this long

_IN = Q(entries__status__in=Entry.IN_TOURNAMENT)
_LEFT = Q(entries__status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING))


def tournaments_with_figures() -> QuerySet[Tournament]:
    """Tournaments with `entrants`, `players_left` and `prize_pool` (the buy-ins of the entries in it)."""
    return Tournament.objects.select_related("blind_structure").annotate(
        entrants=Count("entries", filter=_IN),
        players_left=Count("entries", filter=_LEFT),
        prize_pool=Sum("entries__buy_in", filter=_IN, default=0),
    )


def tournament_get(*, tournament_id: int) -> Tournament | None:
    return tournaments_with_figures().filter(pk=tournament_id).first()


def tournament_list(*, now=None, user=None) -> list[dict]:
    """`GET /api/tournaments/`: registering and running tournaments, and those that ended in the last day.
    For a logged-in `user` each row also says where they stand in it (`you`, `your_table`)."""
    since = (now or timezone.now()) - LISTED_AFTER_THE_END
    live = (Tournament.Status.REGISTERING, Tournament.Status.RUNNING)
    tournaments = tournaments_with_figures().filter(
        Q(status__in=live)
        | Q(finished_at__gte=since)
        | Q(status=Tournament.Status.CANCELLED, created_at__gte=since)
    )
    rows = [tournament_row(t) for t in sorted(tournaments, key=_listing_order)]
    if getattr(user, "is_authenticated", False):
        mine = {
            tournament_id: (status, table_id)
            for tournament_id, status, table_id in Entry.objects.filter(
                user=user, status__in=Entry.IN_TOURNAMENT, tournament_id__in=[row["id"] for row in rows]
            ).values_list("tournament_id", "status", "table_id")
        }
        for row in rows:
            status, table_id = mine.get(row["id"], (None, None))
            row["you"], row["your_table"] = status, table_id
    return rows


def _listing_order(tournament: Tournament) -> tuple:
    ended = tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    return (
        ended,
        tournament.starts_at is not None,
        tournament.starts_at or tournament.created_at,
        tournament.pk,
    )


def tournament_row(tournament: Tournament) -> dict:
    """A tournament as the list shows it (amounts in the smallest unit, times in ISO 8601)."""
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "kind": tournament.kind,
        "game": tournament.game,
        "structure": tournament.structure,
        "currency": tournament.currency,
        "buy_in": tournament.buy_in,
        "fee": tournament.fee,
        "status": tournament.status,
        "entrants": tournament.entrants,
        "max_entrants": tournament.max_entrants,
        "min_entrants": tournament.min_entrants,
        "prize_pool": tournament.prize_pool,
        "level": tournament.level,
        "starts_at": tournament.starts_at.isoformat() if tournament.starts_at else None,
        "speed": tournament.blind_structure.speed,
        "starting_stack": tournament.starting_stack,
        "players_left": tournament.players_left,
        "late_registration_levels": tournament.late_registration_levels,
        "late_registration_open": _in_late_levels(tournament)
        and _late_open(tournament, entrants=tournament.entrants, left=tournament.players_left),
        "practice": tournament.practice,
    }


def tournament_prizes(
    *, tournament: Tournament, entrants: int | None = None, pool: int | None = None
) -> tuple:
    """The prize of each place paid for this many entrants and this pool (default: as they stand; before
    the minimum is reached, as if it were)."""
    entrants = max(tournament.entrants if entrants is None else entrants, tournament.min_entrants)
    pool = tournament.prize_pool if pool is None else pool
    return tournament.payout_table.schedule().prizes(entrants=entrants, pool=pool)


def tournament_levels(*, tournament: Tournament) -> list[dict]:
    return [
        {"level": level.number, "small_blind": level.small_blind, "big_blind": level.big_blind,
         "ante": level.ante, "seconds": level.seconds}
        for level in tournament.blind_structure.levels.order_by("number")
    ]  # fmt: skip


def tournament_payouts(*, tournament: Tournament) -> list[dict]:
    return [
        {"place": place, "amount": amount}
        for place, amount in enumerate(tournament_prizes(tournament=tournament), start=1)
    ]


def tournament_detail(*, tournament: Tournament) -> dict:
    """`GET /api/tournaments/<id>/`: the row, the blind structure, the payouts as they stand, the standings."""
    level = tournament.blind_structure.schedule().level(tournament.level) if tournament.level else None
    return {
        **tournament_row(tournament),
        "seats_per_table": tournament.seats_per_table,
        "current_level": None if level is None else {
            "small_blind": level.small_blind, "big_blind": level.big_blind, "ante": level.ante,
            "started_at": tournament.level_started_at.isoformat() if tournament.level_started_at else None,
        },
        "levels": tournament_levels(tournament=tournament),
        "payouts": tournament_payouts(tournament=tournament),
        "tables": tournament_tables(tournament=tournament),
        "standings": [
            {"name": entry.user.username, "bot": entry.user.is_bot, "status": entry.status, "chips": entry.chips,
             "place": entry.place, "prize": entry.prize, "table": entry.table_id,
             "provisional": entry.status == Entry.Status.FINISHED and entry.prize is None}
            for entry in tournament_standings(tournament=tournament)
        ],
    }  # fmt: skip


def tournament_standings(*, tournament: Tournament) -> list[Entry]:
    """Players still in by chips (before the start: by registration), then those out by place."""
    entries = list(tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).select_related("user"))
    return sorted(entries, key=lambda e: (e.place is not None, e.place or 0, -e.chips, e.registered_at, e.pk))


def entry_of(*, tournament: Tournament, user) -> Entry | None:
    """The player's entry in the tournament (registered, playing or finished), or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    return tournament.entries.filter(user=user, status__in=Entry.IN_TOURNAMENT).first()


def players_left(*, tournament: Tournament) -> int:
    return tournament.entries.filter(status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING)).count()


def late_registration_open(*, tournament: Tournament, leaving: int = 0) -> bool:
    """Whether a running multi-table still takes entries (and `leaving` players busting now would leave it
    open): its level is one of the late-registration levels and the players left are above those at which
    the field reaches the money (`PayoutSchedule.late_registration_closes_at`). While it is open, a bust's
    place is provisional and nothing is paid; it closes for good (the players left only fall from there)."""
    if not _in_late_levels(tournament):
        return False
    entrants = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count()
    return _late_open(tournament, entrants=entrants, left=players_left(tournament=tournament) - leaving)


def _in_late_levels(tournament: Tournament) -> bool:
    return (
        tournament.status == Tournament.Status.RUNNING
        and tournament.kind == Tournament.Kind.MULTI_TABLE
        and 1 <= tournament.level <= tournament.late_registration_levels
    )


def _late_open(tournament: Tournament, *, entrants: int, left: int) -> bool:
    closes_at = tournament.payout_table.schedule().late_registration_closes_at(
        entrants=entrants, max_entrants=tournament.max_entrants
    )
    return left > closes_at


def prize_pool(*, tournament: Tournament) -> int:
    return tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).aggregate(pool=Sum("buy_in", default=0))[
        "pool"
    ]


def tournament_tables(*, tournament: Tournament) -> list[dict]:
    """The tournament's tables in play: number, room table id, players with chips and the biggest stack."""
    from tournaments.models import TournamentTable

    links = TournamentTable.objects.filter(tournament=tournament, broken=False, table__is_open=True).order_by(
        "number"
    )
    stacks: dict[int, list[int]] = {}
    for table_id, chips in tournament.entries.filter(
        status=Entry.Status.PLAYING, table__isnull=False
    ).values_list("table_id", "chips"):
        stacks.setdefault(table_id, []).append(chips)
    return [
        {"number": link.number, "table": link.table_id, "players": len(stacks.get(link.table_id, [])),
         "largest_stack": max(stacks.get(link.table_id, [0]))}
        for link in links
    ]  # fmt: skip
