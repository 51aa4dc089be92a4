"""Read-only queries about tables: the lobby page, the API and the lobby's live updates, and what the table's
services read (the running hand, seats, stacks, the rake schedule in the engine's form)."""

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db.models import Avg, Count, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from cashier.models import SeatSession
from tables.engine.rake import RakeCap as EngineRakeCap
from tables.engine.rake import RakeRule
from tables.engine.rake import RakeSchedule as EngineRakeSchedule
from tables.models import Hand, RakeSchedule, Seat, Table

STATS_WINDOW = timedelta(hours=1)


def _annotated(queryset):
    return queryset.annotate(
        players=Count(
            "seat_set", filter=Q(seat_set__user__isnull=False) & ~Q(seat_set__status=Seat.Status.EMPTY)
        ),
        bots=Count(
            "seat_set", filter=Q(seat_set__user__is_bot=True) & ~Q(seat_set__status=Seat.Status.EMPTY)
        ),
    )


def table_list_open() -> list[dict]:
    """Every open table as PROTOCOL.md's `/api/tables/` entry with the lobby's figures, in two queries."""
    # Ordered here: Django leaves Meta.ordering out of a query that groups (the counts), so the order wandered.
    tables = list(
        _annotated(Table.objects.filter(is_open=True, kind=Table.Kind.CASH)).order_by(
            "currency", "big_blind", "structure", "name"
        )
    )
    stats = table_stats(table_ids=[t.id for t in tables])
    return [
        {**table_as_json(table=t, players=t.players, bots=t.bots), **stats.get(t.id, EMPTY_STATS)}
        for t in tables
    ]


EMPTY_STATS = {"avg_pot": None, "players_per_flop": None, "hands_per_hour": 0}


def table_stats(*, table_ids: list[int]) -> dict[int, dict]:
    """Over the last hour of complete hands: average pot, share of players who saw the flop (percent),
    hands per hour (what lobbies of online rooms show to help players pick a table)."""
    since = timezone.now() - STATS_WINDOW
    rows = (
        Hand.objects.filter(table_id__in=table_ids, status=Hand.Status.COMPLETE, ended_at__gte=since)
        .values("table_id")
        .annotate(
            hands=Count("id"),
            avg_pot=Avg("pot_total"),
            dealt=Sum("players_dealt"),
            saw_flop=Sum("players_saw_flop"),
        )
    )
    return {
        row["table_id"]: {
            "avg_pot": int(row["avg_pot"] or 0),
            "players_per_flop": round(100 * row["saw_flop"] / row["dealt"]) if row["dealt"] else None,
            "hands_per_hour": row["hands"],
        }
        for row in rows
    }


def table_get(*, table_id: int) -> dict | None:
    table = _annotated(Table.objects.filter(pk=table_id)).first()
    return None if table is None else table_as_json(table=table, players=table.players, bots=table.bots)


def table_players(*, table_id: int) -> list[dict] | None:
    """Who sits at an open table, for the lobby's preview: seat, name, bot, stack (chips in the seat between
    hands) and status; None when there is no such open table."""
    table = Table.objects.filter(pk=table_id, is_open=True).first()
    if table is None:
        return None
    stacks = seat_stacks(table=table)
    return [
        {
            "seat": seat.number,
            "name": seat.user.username,
            "bot": seat.user.is_bot,
            "stack": stacks.get(seat.number, 0),
            "status": seat.status,
        }
        for seat in table_seats(table=table)
        if seat.user_id is not None
    ]


def table_as_json(*, table: Table, players: int, bots: int) -> dict:
    """A table as the lobby, the table page and `state.table` give it; a tournament's table says so (`kind`,
    and the big-blind `ante` of the level in force), so a page knows its chips are a tournament's from the
    start."""
    data = {
        "id": table.id,
        "name": table.name,
        "game": table.game,
        "structure": table.structure,
        "currency": table.currency,
        "chip": table.chip,
        "small_blind": table.small_blind,
        "big_blind": table.big_blind,
        "min_buy_in": table.min_buy_in,
        "max_buy_in": table.effective_max_buy_in,
        "seats": table.seats,
        "players": players,
        "bots": bots,
        "stakes": table.stakes_label,
        "straddle": table.allow_straddle and table.structure != "fl",
        "bomb_pot": table_bomb_pot_json(table=table),
        "time_bank": {
            "start_seconds": table.time_bank_seconds,
            "max_seconds": table.time_bank_max_seconds,
            "refill_seconds": table.time_bank_refill_seconds,
            "refill_every_hands": table.time_bank_refill_hands,
        },
        "waiting": table.waiting_count,
        "paused": table.paused,
        "pause_notice": table.pause_notice if table.paused else "",
    }
    if table.is_tournament:
        data.update(kind=table.kind, ante=table.ante)
    return data


def chat_recent(*, table_id: int, limit: int = 20) -> list[dict]:
    """The table's last `limit` chat lines, oldest first (what a player who joins or reloads sees)."""
    from tables.models import ChatLine

    lines = list(ChatLine.objects.filter(table_id=table_id).order_by("-id")[:limit])
    return [chat_line_json(line) for line in reversed(lines)]


def chat_line_json(line) -> dict:
    """A kept chat line as the `chat` event and `chat_history` carry it: the author as the server knows them."""
    return {
        "player": {"name": line.name, "bot": line.bot},
        "seat": line.seat,
        "text": line.text,
        "at": line.created_at.isoformat(),
    }


def table_bomb_pot_json(*, table: Table) -> dict | None:
    """The table's bomb pots: every `every` hands an ante of `ante_bb` big blinds (`ante`, in the smallest
    unit) from every player; `next_in` hands to the next one (1: the next hand). None: no bomb pots."""
    if not table.bomb_pot_every:
        return None
    return {
        "every": table.bomb_pot_every,
        "ante_bb": table.bomb_pot_ante_bb,
        "ante": table.bomb_pot_ante_amount,
        "next_in": table.bomb_pot_next_in,
    }


def table_seats(*, table: Table) -> list:
    """The table's seats in order, with their users (no join to the table)."""
    return list(Seat.objects.filter(table=table).select_related("user").order_by("number"))


def seat_stacks(*, table: Table) -> dict[int, int]:
    """Seat number -> chips between hands, from the table's chip store (tables.chips): the seat's ledger
    account at a cash table, the tournament's count at a tournament table."""
    from tables.chips import store_for

    return store_for(table).stacks(table=table)


def seat_sessions_and_stacks(*, table: Table) -> tuple[dict[int, int], dict[int, int]]:
    """Seat number -> the key a hand settles the seat by (the open seat session's id; a tournament entry's),
    and seat number -> its chips (as `seat_stacks`), in one read."""
    from tables.chips import store_for

    return store_for(table).sessions_and_stacks(table=table)


def table_people_seated(*, table: Table) -> list[str]:
    """The names of everyone who has a seat or chips at `table` now (a seat row or an open seat session)."""
    names = set(Seat.objects.filter(table=table, user__isnull=False).values_list("user__username", flat=True))
    names |= set(
        SeatSession.objects.filter(table=table, closed_at__isnull=True).values_list(
            "user__username", flat=True
        )
    )
    return sorted(names)


def table_faults(*, table: Table) -> list[str]:
    """Why `table`, as stored, cannot deal or pay its players out: what an edit made before the admin checked
    it could leave behind. [] for a sound table."""
    faults = []
    beyond = Seat.objects.filter(table=table, user__isnull=False, number__gt=table.seats).order_by("number")
    if beyond.exists():
        faults.append(
            _("Players sit at seat %(seat)s of a %(seats)s-seat table.")
            % {"seat": beyond.last().number, "seats": table.seats}
        )
    currencies = set(
        SeatSession.objects.filter(table=table, closed_at__isnull=True).values_list("currency", flat=True)
    )
    if currencies - {table.currency}:
        faults.append(_("Players' chips are in another currency than the table's."))
    if table.rake_schedule_id is not None:
        try:
            table.rake_schedule.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError:
            faults.append(_("The table's rake schedule cannot work out a rake."))
    return faults


def hand_running(*, table: Table) -> Hand | None:
    """The table's running hand, or None (at most one: a unique partial index)."""
    found = list(Hand.objects.filter(table=table, status=Hand.Status.RUNNING).order_by()[:1])
    return found[0] if found else None


def rake_schedule_for(*, table: Table) -> EngineRakeSchedule | None:
    """The engine's form of the table's rake schedule (staff edit it as data in the admin)."""
    schedule: RakeSchedule | None = table.rake_schedule
    if schedule is None:
        return None
    rows = list(schedule.caps.all())
    player_steps = sorted({row.players_min for row in rows})
    caps = []
    for row in rows:
        higher_players = [p for p in player_steps if p > row.players_min]
        higher_blinds = sorted(
            r.big_blind_min
            for r in rows
            if r.players_min == row.players_min and r.big_blind_min > row.big_blind_min
        )
        caps.append(
            EngineRakeCap(
                min_players=row.players_min,
                max_players=higher_players[0] - 1 if higher_players else None,
                min_big_blind=row.big_blind_min,
                max_big_blind=higher_blinds[0] if higher_blinds else None,
                cap=row.cap,
            )
        )
    if schedule.method == RakeSchedule.Method.PER_UNIT:
        return EngineRakeSchedule(
            rule=RakeRule.PER_UNIT,
            chip=table.chip,
            per_unit_amount=schedule.unit,
            per_unit_rake=table.chip,
            caps=tuple(caps),
            no_flop_no_drop=schedule.no_flop_no_drop,
        )
    return EngineRakeSchedule(
        rule=RakeRule.PER_MILLE,
        chip=table.chip,
        per_mille=schedule.per_mille,
        caps=tuple(caps),
        no_flop_no_drop=schedule.no_flop_no_drop,
    )
