"""Playing a tournament at the room's tables (phase 2): its tables are room tables (`Table.kind` tournament),
dealt by the same table services and engine; this module is the tournament's floor.

- The chip store (`EntryChipStore`): a tournament table's stacks are its players' `Entry.chips`; a hand's
  settlement changes them (no ledger, no rake), and the chips of the tournament add up to entrants x the
  starting stack after every hand.
- Seating at the start (`tournament_tables_seat`): the draw (`rules.seating.tables_draw`) on new tables.
- The floor (`tournament_floor`), run by the workers after every hand of the tournament and by the sweep:
  the blind clock (each level's start stored, so a killed worker resumes at the right level), the busts of
  the hands just ended (`tournament_busts_record`: places and prizes), balancing (`tables_rebalance`: moved
  players, broken tables, a `moved` event naming the new table), hand-for-hand on the bubble, and the next
  deal at each table the gate (`table_gate`) lets deal, at the level's blinds and ante.

Locks: the floor takes the tournament's row, then its tables' rows in id order, then entries; a table's
hand takes the table's row, then its entries. Nothing takes a table before its tournament's row and then
that row, so the two never wait on each other in a circle.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from tables import broadcast, clock
from tables.engine.positions import MissedBlinds, Positions, SeatState, dealing_order
from tables.models import Hand, Seat, Table
from tournaments.models import Entry, Tournament, TournamentTable
from tournaments.rules.payouts import Bust
from tournaments.rules.seating import (
    Gate,
    TableSeats,
    hand_for_hand,
    hand_for_hand_round,
    table_gate,
    tables_draw,
    tables_rebalance,
)

log = logging.getLogger(__name__)

_rng = random.SystemRandom()
SWEEP_GRACE_SECONDS = 2.0
Status = Tournament.Status


class ChipsNotConserved(AssertionError):
    """A settlement that would create or lose tournament chips: refused, the hand's transaction rolls back."""


# --- the chip store ------------------------------------------------------------------------------


class EntryChipStore:
    """A tournament table's chips: each seated entry's `chips`; a settlement is keyed by entry id."""

    def sessions_and_stacks(self, *, table: Table) -> tuple[dict[int, int], dict[int, int]]:
        rows = Entry.objects.filter(table=table, status=Entry.Status.PLAYING).values_list(
            "seat", "id", "chips"
        )
        sessions, stacks = {}, {}
        for seat, entry, chips in rows:
            sessions[seat], stacks[seat] = entry, chips
        return sessions, stacks

    def stacks(self, *, table: Table) -> dict[int, int]:
        return dict(
            Entry.objects.filter(table=table, status=Entry.Status.PLAYING).values_list("seat", "chips")
        )

    def settle(
        self, *, table: Table, hand_ref: str, deltas: Mapping[int, int], put_in: Mapping[int, int], rake: int
    ) -> None:
        if rake or sum(deltas.values()):
            raise ChipsNotConserved(
                f"{hand_ref}: chips {sum(deltas.values())}, rake {rake} (tournaments take none)"
            )
        for entry_id, delta in deltas.items():
            if delta:
                Entry.objects.filter(pk=entry_id).update(chips=F("chips") + delta)


class TournamentHooks:
    store = EntryChipStore()

    def state_fields(self, *, table: Table, stacks: Mapping[int, int]) -> dict | None:
        return table_tournament_fields(table=table)

    def hand_over(self, *, table: Table) -> None:
        tournament_id = (
            TournamentTable.objects.filter(table=table).values_list("tournament_id", flat=True).first()
        )
        if tournament_id is not None:
            # The players see how the hand ended before the next deal (the table services' pause).
            from tables.services import DEAL_PAUSE_SECONDS

            transaction.on_commit(lambda: floor_later(tournament_id, delay=DEAL_PAUSE_SECONDS))


def floor_later(tournament_id: int, *, delay: float) -> None:
    """Have a worker run the tournament's floor in `delay` seconds (the workers' clock, `tournament` kind), or
    sooner if it is already asked for sooner: one entry a tournament however many of its tables end a hand
    (`clock.later`'s `once`); a floor that finds tables still in their pause asks again for the first of them
    to end."""
    clock.later("tournament", (tournament_id,), delay=delay, once=True)


# --- the state's tournament fields ---------------------------------------------------------------


def table_tournament_fields(*, table: Table) -> dict | None:
    """`state.tournament` (docs/protocol.md): the tournament, its level and blinds, when the next level
    starts, players left of the entrants, the average stack and each seated player's place by chips."""
    link = (
        TournamentTable.objects.select_related("tournament", "tournament__blind_structure")
        .filter(table=table)
        .first()
    )
    if link is None:
        return None
    tournament = link.tournament
    seated = list(
        Entry.objects.filter(table=table, status=Entry.Status.PLAYING, seat__isnull=False).values_list(
            "seat", "chips"
        )
    )
    playing = Q(status=Entry.Status.PLAYING)
    figures = Entry.objects.filter(tournament=tournament).aggregate(
        entrants=Count("pk", filter=Q(status__in=Entry.IN_TOURNAMENT)),
        left=Count("pk", filter=playing),
        chips_total=Sum("chips", filter=playing, default=0),
        **{f"above_{seat}": Count("pk", filter=playing & Q(chips__gt=chips)) for seat, chips in seated},
    )  # one statement, whatever the field: a place is one more than the players with more chips
    places = {str(seat): figures[f"above_{seat}"] + 1 for seat, _chips in seated}
    left = figures["left"]
    level = next_at = None
    if tournament.level:
        schedule = tournament.blind_structure.schedule()
        level = schedule.level(tournament.level)
        if tournament.level < len(schedule.levels) and tournament.level_started_at:
            next_at = (tournament.level_started_at + timedelta(seconds=level.seconds)).isoformat()
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "status": tournament.status,
        "table_number": link.number,
        "level": tournament.level,
        "small_blind": level.small_blind if level else table.small_blind,
        "big_blind": level.big_blind if level else table.big_blind,
        "ante": level.ante if level else table.ante,
        "next_level_at": next_at,
        "entrants": figures["entrants"],
        "players_left": left,
        "average_stack": figures["chips_total"] // left if left else 0,
        "places": places,
        "hand_for_hand": tournament.hand_for_hand_round > 0,
        "currency": tournament.currency,
    }


# --- the start -----------------------------------------------------------------------------------


def _table_name(tournament: Tournament, number: int) -> str:
    return _("%(tournament)s · table %(number)s (#%(id)s)") % {
        "tournament": tournament.name[:50],
        "number": number,
        "id": tournament.pk,
    }


def tournament_tables_seat(*, tournament: Tournament, now: datetime) -> list[TournamentTable]:
    """Seat the tournament's playing entries at new tables by the draw. Caller holds the tournament's lock
    (`tournament_start`)."""
    entries = {
        entry.pk: entry
        for entry in tournament.entries.filter(status=Entry.Status.PLAYING).select_related("user")
    }
    drawn = tables_draw(entries=list(entries), seats_per_table=tournament.seats_per_table, rng=_rng)
    level = tournament.blind_structure.schedule().level(1)
    links = []
    for drawn_table in drawn:
        table = Table.objects.create(
            name=_table_name(tournament, drawn_table.table),
            kind=Table.Kind.TOURNAMENT,
            game=tournament.game,
            structure=tournament.structure,
            currency="play",
            chip=1,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            min_buy_in=tournament.starting_stack,
            max_buy_in=tournament.starting_stack,
            seats=tournament.seats_per_table,
            action_seconds=max(5, tournament.action_seconds),
            time_bank_seconds=tournament.time_bank_seconds,
            bots_allowed=False,
        )
        links.append(
            TournamentTable.objects.create(
                tournament=tournament,
                table=table,
                number=drawn_table.table,
                first_button=drawn_table.first_button,
            )
        )
        for seat, entry_id in drawn_table.players.items():
            _seat_fill(
                table=table,
                number=seat + 1,
                entry=entries[entry_id],
                tournament=tournament,
                now=now,
                just_posted_big_blind=False,
            )
    return links


def _seat_fill(
    *,
    table: Table,
    number: int,
    entry: Entry,
    tournament: Tournament,
    now: datetime,
    just_posted_big_blind: bool,
) -> None:
    Seat.objects.filter(table=table, number=number).update(
        user_id=entry.user_id,
        status=Seat.Status.ACTIVE,
        sat_down_at=now,
        is_new=True,
        post_now=False,
        missed_small=False,
        missed_big=False,
        just_posted_big_blind=just_posted_big_blind,
        sit_out_next=False,
        leave_after_hand=False,
        timeouts_in_row=0,
        time_bank_ms=tournament.time_bank_seconds * 1000,
        auto_muck=True,
        straddle=False,
    )
    entry.table, entry.seat = table, number
    entry.save(update_fields=["table", "seat"])


def seat_clear(*, table_id: int, number: int) -> None:
    """An empty chair, as the table's own services leave one (`tables.services._seat_reset`): nobody, no
    debts, no requests, the default options, not disconnected."""
    Seat.objects.filter(table_id=table_id, number=number).update(
        user=None,
        status=Seat.Status.EMPTY,
        auto_muck=True,
        straddle=False,
        run_twice=False,
        disconnected=False,
        sat_down_at=None,
        is_new=True,
        post_now=False,
        missed_small=False,
        missed_big=False,
        just_posted_big_blind=False,
        sit_out_next=False,
        leave_after_hand=False,
        timeouts_in_row=0,
        time_bank_ms=0,
        sat_out_at=None,
        remove_reason="",
    )


# --- the floor -----------------------------------------------------------------------------------


def level_advance(*, tournament: Tournament, now: datetime) -> bool:
    """Move the blind clock on to the level in force at `now`, each level starting when the one before ended
    (stored: a worker killed mid-level finds the right level and its start). Returns whether it moved."""
    if not tournament.level or tournament.level_started_at is None:
        return False
    schedule = tournament.blind_structure.schedule()
    moved = False
    while tournament.level < len(schedule.levels):
        ends = tournament.level_started_at + timedelta(seconds=schedule.level(tournament.level).seconds)
        if now < ends:
            break
        tournament.level, tournament.level_started_at = tournament.level + 1, ends
        moved = True
    if moved:
        tournament.save(update_fields=["level", "level_started_at"])
    return moved


def tournament_floor(*, tournament_id: int, now: datetime | None = None) -> dict:
    """Run the tournament's floor once (see the module's docstring); returns what it did. Idempotent: run
    twice, or late, it finds nothing more to do. Lock: none held by the caller."""
    from tables import services as table_services

    now = now or timezone.now()
    done = {"busts": 0, "moves": 0, "dealt": 0, "finished": False, "hand_for_hand": None}
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Status.RUNNING:
            return done
        links = list(TournamentTable.objects.filter(tournament=tournament, broken=False).order_by("table_id"))
        tables = {
            t.id: t
            for t in Table.objects.select_for_update()
            .filter(pk__in=[link.table_id for link in links])
            .order_by("id")
        }
        provisional = set(
            tournament.entries.filter(status=Entry.Status.FINISHED, prize__isnull=True).values_list(
                "pk", flat=True
            )
        )
        level_advance(tournament=tournament, now=now)
        if provisional:
            from tournaments.finishes import late_places_settle

            late_places_settle(tournament_id=tournament.pk)  # its last level has ended
        running = set(
            Hand.objects.filter(table_id__in=tables, status=Hand.Status.RUNNING).values_list(
                "table_id", flat=True
            )
        )
        done["seated_late"] = _late_entries_seat(tournament=tournament, links=links, tables=tables, now=now)
        done["busts"] = _busts_settle(tournament=tournament, links=links, running=running, now=now)
        if provisional:
            _settled_places_tell(tournament=tournament, links=links, provisional=provisional)
        tournament.refresh_from_db()
        if tournament.status == Status.FINISHED:
            _tables_close(links=links, tables=tables, tournament=tournament)
            done["finished"] = True
            return done
        seats = _table_seats_now(links=links, tables=tables, running=running)
        rebalance = tables_rebalance(tables=list(seats.values()), rng=_rng)
        done["moves"] = len(rebalance.moves)
        _moves_apply(tournament=tournament, rebalance=rebalance, links=links, tables=tables, now=now)
        links = [link for link in links if link.number not in rebalance.broken]
        after = {seated.table: seated for seated in rebalance.tables}
        round_now = _hand_for_hand_round(tournament=tournament, tables=list(after.values()))
        done["hand_for_hand"] = round_now
        pause_left = 0.0
        ended = dict(
            Hand.objects.filter(table_id__in=[link.table_id for link in links])
            .values("table_id")
            .annotate(last=Max("ended_at"))
            .values_list("table_id", "last")
        )
        for link in links:
            table = tables[link.table_id]
            if after[link.number].in_hand:  # in a hand, or its busts wait for the hand-for-hand round's end
                continue
            gate = table_gate(tables=list(after.values()), table=link.number, hand_for_hand_round=round_now)
            if gate != Gate.DEAL:
                continue
            wait = _pause_left(ended=ended.get(table.id), now=now, pause=table_services.DEAL_PAUSE_SECONDS)
            if wait > 0:
                pause_left = min(pause_left, wait) if pause_left else wait
                continue
            _blinds_set(table=table, tournament=tournament)
            hand = table_services.hand_deal(
                table_id=table.id, by_tournament=True, first_button=link.first_button
            )
            if hand is not None:
                done["dealt"] += 1
                if round_now:
                    link.round = round_now
                    link.save(update_fields=["round"])
        if pause_left:
            transaction.on_commit(lambda: floor_later(tournament_id, delay=pause_left + 0.05))
    return done


def _late_entries_seat(
    *, tournament: Tournament, links: list[TournamentTable], tables: dict[int, Table], now: datetime
) -> int:
    """Late registration: each entry made since the start gets the starting stack and a seat drawn at random
    at the emptiest table (a new table when every seat is taken; balancing then fills it). They enter as new
    players: dealt in at once unless on the button or the small blind."""
    late = list(
        tournament.entries.filter(status=Entry.Status.REGISTERED).select_related("user").order_by("pk")
    )
    for entry in late:
        occupied: dict[int, set[int]] = {link.table_id: set() for link in links}
        for table_id, number in Seat.objects.filter(table_id__in=occupied, user__isnull=False).values_list(
            "table_id", "number"
        ):
            occupied[table_id].add(number)
        free = [link for link in links if len(occupied[link.table_id]) < tables[link.table_id].seats]
        if free:
            fewest = min(len(occupied[link.table_id]) for link in free)
            link = _rng.choice([link for link in free if len(occupied[link.table_id]) == fewest])
        else:
            number = (
                max(
                    (link.number for link in TournamentTable.objects.filter(tournament=tournament)), default=0
                )
                + 1
            )
            level = tournament.blind_structure.schedule().level(max(1, tournament.level))
            table = Table.objects.create(
                name=_table_name(tournament, number),
                kind=Table.Kind.TOURNAMENT,
                game=tournament.game,
                structure=tournament.structure,
                currency="play",
                chip=1,
                small_blind=level.small_blind,
                big_blind=level.big_blind,
                ante=level.ante,
                min_buy_in=tournament.starting_stack,
                max_buy_in=tournament.starting_stack,
                seats=tournament.seats_per_table,
                action_seconds=max(5, tournament.action_seconds),
                time_bank_seconds=tournament.time_bank_seconds,
            )
            link = TournamentTable.objects.create(tournament=tournament, table=table, number=number)
            links.append(link)
            tables[table.id] = table
            occupied[table.id] = set()
        table = tables[link.table_id]
        seat = _rng.choice([n for n in range(1, table.seats + 1) if n not in occupied[table.id]])
        entry.status, entry.chips = Entry.Status.PLAYING, tournament.starting_stack
        entry.save(update_fields=["status", "chips"])
        _seat_fill(
            table=table, number=seat, entry=entry, tournament=tournament, now=now, just_posted_big_blind=False
        )
        broadcast.table_publish_on_commit(
            table_id=table.id,
            events=[
                {
                    "event": "seat",
                    "seat": seat,
                    "player": {"name": entry.user.username, "bot": entry.user.is_bot},
                }
            ],
        )
    return len(late)


def _pause_left(*, ended: datetime | None, now: datetime, pause: float) -> float:
    """Seconds until a table whose last hand ended at `ended` may deal (players see how a hand ended)."""
    if ended is None:
        return 0.0
    left = pause - (now - ended).total_seconds()
    return left if left > 0.05 else 0.0


def _blinds_set(*, table: Table, tournament: Tournament) -> None:
    """The level in force applies from the next hand: the table row carries its blinds and ante."""
    level = tournament.blind_structure.schedule().level(tournament.level)
    if (table.small_blind, table.big_blind, table.ante) != (level.small_blind, level.big_blind, level.ante):
        table.small_blind, table.big_blind, table.ante = level.small_blind, level.big_blind, level.ante
        table.save(update_fields=["small_blind", "big_blind", "ante"])


def _hand_for_hand_round(*, tournament: Tournament, tables: list[TableSeats]) -> int | None:
    """The hand-for-hand round the tables deal in now, or None when not hand-for-hand (stored on the row)."""
    from tournaments.selectors import prize_pool

    entrants = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count()
    places_paid = len(
        tournament.payout_table.schedule().prizes(entrants=entrants, pool=prize_pool(tournament=tournament))
    )
    left = sum(table.size for table in tables)
    if not hand_for_hand(players_left=left, places_paid=places_paid, tables=len(tables)):
        if tournament.hand_for_hand_round:
            tournament.hand_for_hand_round = 0
            tournament.save(update_fields=["hand_for_hand_round"])
        return None
    current = tournament.hand_for_hand_round
    if current == 0:  # the bubble: every table plays the next round from here (rounds count on from the last)
        current = max((table.round for table in tables), default=0)
    following = hand_for_hand_round(tables=tables, current=current)
    if following != tournament.hand_for_hand_round:
        tournament.hand_for_hand_round = following
        tournament.save(update_fields=["hand_for_hand_round"])
    return following


def _table_seats_now(
    *, links: list[TournamentTable], tables: dict[int, Table], running: set[int]
) -> dict[int, TableSeats]:
    by_table: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(table_id__in=tables, user__isnull=False):
        by_table.setdefault(seat.table_id, []).append(seat)
    entry_of, pending = {}, set()
    for pk, table_id, seat, chips in Entry.objects.filter(
        table_id__in=tables, status=Entry.Status.PLAYING
    ).values_list("pk", "table_id", "seat", "chips"):
        entry_of[(table_id, seat)] = pk
        if not chips:  # a bust waiting for its hand-for-hand round to end: the table stays as it is till then
            pending.add(table_id)
    result = {}
    for link in links:
        table = tables[link.table_id]
        players, states = {}, {}
        for seat in by_table.get(table.id, []):
            entry = entry_of.get((table.id, seat.number))
            if entry is None:
                continue
            players[seat.number - 1] = entry
            states[seat.number - 1] = SeatState(
                new=seat.is_new,
                just_posted_big_blind=seat.just_posted_big_blind,
                missed=MissedBlinds(small=seat.missed_small, big=seat.missed_big),
            )
        result[link.number] = TableSeats(
            table=link.number,
            seat_count=table.seats,
            players=players,
            previous=Positions(**table.positions) if table.positions else None,
            states=states,
            in_hand=table.id in running or table.id in pending,
            first_button=link.first_button,
            round=link.round,
        )
    return result


def _busts_settle(
    *, tournament: Tournament, links: list[TournamentTable], running: set[int], now: datetime
) -> int:
    """Record the players whose chips ran out at tables between hands, one table's hand at a time in the order
    the hands ended (hand-for-hand: once every table has finished the round, all of it at once); their seats
    are emptied. Returns how many busted."""
    from tournaments.finishes import tournament_busts_record

    busted = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING, chips=0)
        .exclude(table_id__in=running)
        .select_related("user")
    )
    if not busted:
        return 0
    if tournament.hand_for_hand_round and running:
        return 0  # the round is not over: its busts count together once every table has finished
    numbers = {link.table_id: link.number for link in links}
    groups: dict[int, list[tuple[Entry, Bust]]] = {}
    ended_at = {}
    for entry in busted:
        hand = Hand.objects.filter(table_id=entry.table_id).order_by("-number").first()
        stacks = hand.config["stacks"] if hand else {}
        engine_seat = (entry.seat or 1) - 1
        order = (
            dealing_order(
                seat_count=hand.config["seat_count"],
                button=hand.config["button"],
                dealt_in=[int(s) for s in stacks],
            )
            if hand
            else ()
        )
        bust = Bust(
            entry=entry.pk,
            stack_at_start=int(stacks.get(str(engine_seat), 0)),
            after_button=order.index(engine_seat) + 1 if engine_seat in order else len(order) + 1,
            table=numbers.get(entry.table_id, 0),
        )
        key = 0 if tournament.hand_for_hand_round else entry.table_id
        groups.setdefault(key, []).append((entry, bust))
        ended_at[key] = min(ended_at.get(key, now), hand.ended_at if hand and hand.ended_at else now)
    for key in sorted(groups, key=lambda k: ended_at[k]):
        group = groups[key]
        finishes = tournament_busts_record(
            tournament_id=tournament.pk, busts=[bust for _e, bust in group], now=now
        )
        names = {entry.pk: entry.user.username for entry, _b in group}
        by_table: dict[int, list[dict]] = {}
        for entry, _bust in group:
            seat_clear(table_id=entry.table_id, number=entry.seat)
            by_table.setdefault(entry.table_id, [])
        winner = None
        places = []
        for finish in finishes:
            if finish.entry not in names:  # the last player left: the winner
                winner = Entry.objects.select_related("user").get(pk=finish.entry)
                names[finish.entry] = winner.user.username
            places.append(
                {
                    "player": names[finish.entry],
                    "place": finish.place,
                    "prize": None if finish.provisional else finish.prize,
                    "provisional": finish.provisional,
                }
            )
        Entry.objects.filter(pk__in=[entry.pk for entry, _b in group]).update(table=None, seat=None)
        event = {
            "event": "places",
            "places": places,
            "finished": winner is not None,
            "currency": tournament.currency,
        }
        tables_told = set(by_table) | ({winner.table_id} if winner is not None and winner.table_id else set())
        for table_id in tables_told:
            broadcast.table_publish_on_commit(table_id=table_id, events=[event])
    return len(busted)


def _settled_places_tell(
    *, tournament: Tournament, links: list[TournamentTable], provisional: set[int]
) -> None:
    """Late registration closed (its last level ended, or the field reached the money): the places of the
    players who were out with a provisional place are final; every table of the tournament is told (they
    left their tables, and may be watching any)."""
    settled = list(
        tournament.entries.filter(pk__in=provisional, prize__isnull=False)
        .select_related("user")
        .order_by("place", "pk")
    )
    if not settled:
        return
    event = {
        "event": "places",
        "places": [
            {"player": e.user.username, "place": e.place, "prize": e.prize, "provisional": False}
            for e in settled
        ],
        "finished": False,
        "currency": tournament.currency,
    }
    for link in links:
        broadcast.table_publish_on_commit(table_id=link.table_id, events=[event])


def _tables_close(*, links: list[TournamentTable], tables: dict[int, Table], tournament: Tournament) -> None:
    """The tournament is over: the winner leaves their seat and the tables close."""
    winner = tournament.entries.filter(status=Entry.Status.FINISHED, place=1).first()
    if winner is not None and winner.table_id:
        seat_clear(table_id=winner.table_id, number=winner.seat)
        Entry.objects.filter(pk=winner.pk).update(table=None, seat=None)
    for link in links:
        table = tables[link.table_id]
        table.is_open = False
        table.save(update_fields=["is_open"])
        broadcast.table_send_state_on_commit(table_id=table.id)


def _moves_apply(
    *,
    tournament: Tournament,
    rebalance,
    links: list[TournamentTable],
    tables: dict[int, Table],
    now: datetime,
) -> None:
    """Carry out the moves of a rebalance: the seat left, the seat taken (the player posts the big blind when
    the plan says, `just_posted_big_blind` carried), a `moved` event at the old table naming the new one;
    broken tables close."""
    if not rebalance.moves and not rebalance.broken:
        return
    by_number = {link.number: link for link in links}
    entries = {
        entry.pk: entry
        for entry in Entry.objects.filter(pk__in=[move.entry for move in rebalance.moves]).select_related(
            "user"
        )
    }
    told: dict[int, list[dict]] = {}
    for move in rebalance.moves:
        entry = entries[move.entry]
        source, target = by_number[move.from_table], by_number[move.to_table]
        seat_clear(table_id=source.table_id, number=move.from_seat + 1)
        Entry.objects.filter(pk=entry.pk).update(table=None, seat=None)
        _seat_fill(
            table=tables[target.table_id],
            number=move.to_seat + 1,
            entry=entry,
            tournament=tournament,
            now=now,
            just_posted_big_blind=move.just_posted_big_blind,
        )
        told.setdefault(source.table_id, []).append(
            {
                "event": "moved",
                "player": entry.user.username,
                "table": target.table_id,
                "table_number": target.number,
                "seat": move.to_seat + 1,
                "reason": move.reason.value,
            }
        )
        told.setdefault(target.table_id, []).append(
            {
                "event": "seat",
                "seat": move.to_seat + 1,
                "player": {"name": entry.user.username, "bot": entry.user.is_bot},
                "moved_from": source.number,
            }
        )
    for number in rebalance.broken:
        link = by_number[number]
        link.broken = True
        link.save(update_fields=["broken"])
        table = tables[link.table_id]
        table.is_open = False
        table.save(update_fields=["is_open"])
        told.setdefault(table.id, [])
    for table_id, events in told.items():
        broadcast.table_publish_on_commit(table_id=table_id, events=events)


# --- the sweep -----------------------------------------------------------------------------------


def tournaments_due(*, now: datetime | None = None) -> tuple[list[int], list[int]]:
    """Multi-table tournaments whose start time has come (to start), and running tournaments whose floor has
    something waiting for it (a worker killed with the next deal in memory, a late entry)."""
    now = now or timezone.now()
    starting = list(
        Tournament.objects.filter(
            status=Status.REGISTERING, kind=Tournament.Kind.MULTI_TABLE, starts_at__lte=now
        ).values_list("pk", flat=True)
    )
    # The floor runs after every hand by itself; the sweep runs it only where something waits for it: a table
    # between hands whose last hand ended more than a few seconds ago (or never dealt), or a late entry. So
    # it does not take every table's lock every few seconds for nothing.
    from tables.services import DEAL_PAUSE_SECONDS

    quiet = now - timedelta(seconds=DEAL_PAUSE_SECONDS + SWEEP_GRACE_SECONDS)
    running_hand = Hand.objects.filter(table_id=OuterRef("table_id"), status=Hand.Status.RUNNING)
    recent_end = Hand.objects.filter(table_id=OuterRef("table_id"), ended_at__gt=quiet)
    waiting = TournamentTable.objects.filter(
        tournament=OuterRef("pk"), broken=False, table__is_open=True
    ).filter(~Exists(running_hand), ~Exists(recent_end))
    late = Entry.objects.filter(tournament=OuterRef("pk"), status=Entry.Status.REGISTERED)
    running = list(
        Tournament.objects.filter(status=Status.RUNNING)
        .filter(Q(Exists(waiting)) | Q(Exists(late)))
        .values_list("pk", flat=True)
    )
    return starting, running


def chips_in_play(*, tournament: Tournament) -> int:
    """Every chip of the tournament: those of players still in, which is entrants x the starting stack."""
    return tournament.entries.filter(status=Entry.Status.PLAYING).aggregate(total=Sum("chips", default=0))[
        "total"
    ]
