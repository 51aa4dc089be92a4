"""Seats of a tournament (SPEC 1.3, seed 004): tables drawn at random, balancing, broken tables,
hand-for-hand and the final table.

Pure: the standard library and ``tables.engine.positions`` (pure too). Seats are engine seats
``0 .. seat_count - 1``; an entry is the integer the caller names a player by; a table is named by an integer
as well.

Who posts what is never guessed here: it is what ``plan_hand(tournament=True)`` plans. "The player who would
be big blind next" at the fuller table is the big blind of that table's next plan; "the seat that will post
the big blind soonest" at the emptier table is found by playing that table's next hands plan after plan with
the moved player in each empty seat (nobody else coming or going), and taking the seat whose big blind comes
first, among the seats where the player does not post the small blind before it. A player who has just
posted the big blind is moved with ``just_posted_big_blind``, so the plan makes them wait for the button to
pass instead of posting it twice in a row.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from tables.engine.positions import HandPlan, Positions, SeatState, clockwise_from, plan_hand

MOVED_IN = -1  # the entry a simulated newcomer is known by while seats are tried for them


@dataclass(frozen=True, slots=True)
class TableSeats:
    """One table of a tournament as the floor sees it.

    ``players`` maps each occupied seat to its entry. ``previous``: the positions of the last hand dealt here
    (the one in play when ``in_hand``), ``None`` before the first, whose button is the first occupied seat at
    or after ``first_button``. ``states``: the seats whose state is not the plain one (a player moved in and
    not yet dealt a hand here is ``new``, perhaps ``just_posted_big_blind``). ``round``: the last
    hand-for-hand round this table dealt in."""

    table: int
    seat_count: int
    players: Mapping[int, int]
    previous: Positions | None = None
    states: Mapping[int, SeatState] = field(default_factory=dict)
    in_hand: bool = False
    first_button: int | None = None
    round: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", MappingProxyType(dict(self.players)))
        object.__setattr__(
            self, "states", MappingProxyType({s: v for s, v in self.states.items() if s in self.players})
        )
        if any(not 0 <= seat < self.seat_count for seat in self.players):
            raise ValueError(f"table {self.table}: a seat outside 0..{self.seat_count - 1}")
        if len(set(self.players.values())) != len(self.players):
            raise ValueError(f"table {self.table}: a player in two seats")

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def empty_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(self.seat_count) if seat not in self.players)

    def seat_states(self) -> dict[int, SeatState]:
        return {seat: self.states.get(seat, SeatState()) for seat in self.players}

    def plan(self) -> HandPlan:
        """The next hand's plan (raises ``NotEnoughPlayers`` below two players)."""
        return plan_hand(
            seat_count=self.seat_count,
            previous=self.previous,
            seats=self.seat_states(),
            first_button=self.first_button,
            tournament=True,
        )

    def dealt(self, plan: HandPlan) -> TableSeats:
        """The table once ``plan`` is dealt: in a hand, with the plan's positions and states."""
        states = plan.seat_states_after(seats=self.seat_states())
        return replace(self, previous=plan.positions, states=states, in_hand=True)

    def seat_player(self, *, seat: int, entry: int, state: SeatState) -> TableSeats:
        if seat in self.players or not 0 <= seat < self.seat_count:
            raise ValueError(f"table {self.table}: seat {seat} is not free")
        return replace(self, players={**self.players, seat: entry}, states={**self.states, seat: state})

    def unseat(self, *seats: int) -> TableSeats:
        return replace(
            self,
            players={s: e for s, e in self.players.items() if s not in seats},
            states={s: v for s, v in self.states.items() if s not in seats},
        )


# --- the draw --------------------------------------------------------------------------------------------


def tables_draw(
    *, entries: Sequence[int], seats_per_table: int, rng: random.Random
) -> tuple[TableSeats, ...]:
    """As few tables as seat everyone (numbered 1, 2, ...), of sizes within one of each other, players and
    seats drawn at random, and each table's first button drawn among its players. Several tables seat at
    least three each, so none starts with a player alone."""
    if len(set(entries)) != len(entries) or len(entries) < 2:
        raise ValueError("a tournament starts with at least two different players")
    count = -(-len(entries) // seats_per_table)
    if count > 1 and seats_per_table < 3:
        # Tables of two would leave a player alone at a table with an odd field: heads-up is a sit-and-go.
        raise ValueError("a tournament of several tables seats at least three a table")
    shuffled = list(entries)
    rng.shuffle(shuffled)
    tables = []
    for number in range(1, count + 1):
        group = shuffled[number - 1 :: count]
        seats = rng.sample(range(seats_per_table), len(group))
        tables.append(
            TableSeats(
                table=number,
                seat_count=seats_per_table,
                players=dict(zip(seats, group, strict=True)),
                first_button=rng.choice(seats),
            )
        )
    return tuple(tables)


# --- who moves, and where to -----------------------------------------------------------------------------


def big_blind_wait(table: TableSeats, seat: int) -> int | None:
    """How many hands after the next one the player in ``seat`` posts the big blind if nobody comes or goes
    (0: in the next hand); ``None`` when they would post the small blind first or not within two orbits."""
    previous, states = table.previous, table.seat_states()
    for hands in range(2 * table.seat_count + 2):
        plan = plan_hand(
            seat_count=table.seat_count,
            previous=previous,
            seats=states,
            first_button=table.first_button,
            tournament=True,
        )
        if plan.big_blind == seat:
            return hands
        if plan.small_blind_seat == seat:
            return None
        previous, states = plan.positions, plan.seat_states_after(seats=states)
    return None


def seat_for_moved_player(table: TableSeats, *, just_posted_big_blind: bool) -> int:
    """The empty seat of ``table`` where a player moved in posts the big blind soonest, never the small
    blind first (SPEC 1.3). When no seat can promise that (a table of one), the first empty seat after the
    last big blind."""
    empty = table.empty_seats
    if not empty:
        raise ValueError(f"table {table.table} has no empty seat")
    arrival = SeatState(new=True, just_posted_big_blind=just_posted_big_blind)
    after_big_blind = table.previous.big_blind if table.previous else (table.first_button or 0)
    order = clockwise_from(seat_count=table.seat_count, after=after_big_blind, seats=empty)

    def soonest(seat: int) -> tuple[bool, int, int]:
        wait = big_blind_wait(table.seat_player(seat=seat, entry=MOVED_IN, state=arrival), seat)
        # A table's first hand deals everyone in: there a player who just posted could get it again.
        refused = wait is None or (just_posted_big_blind and wait == 0)
        return (refused, wait or 0, order.index(seat))

    if table.size < 2:
        return order[0]
    return min(empty, key=soonest)


class MoveReason(StrEnum):
    BALANCE = "balance"
    BREAK = "break"


@dataclass(frozen=True, slots=True)
class Move:
    entry: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    just_posted_big_blind: bool
    reason: MoveReason


@dataclass(frozen=True, slots=True)
class Rebalance:
    """The tables after the moves (broken tables left out), the moves in the order made, the broken tables."""

    tables: tuple[TableSeats, ...]
    moves: tuple[Move, ...]
    broken: tuple[int, ...]


def tables_rebalance(*, tables: Sequence[TableSeats], rng: random.Random) -> Rebalance:
    """Break a table when the others can seat its players, then move players until the fullest table has at
    most one more player than the emptiest, each from a table between hands (a table in a hand gives its
    player when the hand is over). A broken table's players are seated by random draw in the emptiest tables;
    a balancing move takes the fuller table's next big blind to the seat of the emptiest table where they post
    the big blind soonest. Every table deals its first hand at the start, before anyone moves: a first hand
    deals everyone in, and a player who had just posted the big blind could get it again there."""
    state = {table.table: table for table in tables}
    moves: list[Move] = []
    broken: list[int] = []
    while True:
        victim = _table_to_break(state)
        if victim is not None:
            moves += _break(state, victim, rng)
            broken.append(victim)
            continue
        move = _balance_move(state, rng)
        if move is None:
            return Rebalance(tables=tuple(state.values()), moves=tuple(moves), broken=tuple(broken))
        moves.append(move)


def _table_to_break(state: dict[int, TableSeats]) -> int | None:
    """The table between hands with the fewest players (the highest number among equals) whose players the
    other tables have empty seats for."""
    if len(state) < 2:
        return None
    free = sum(len(table.empty_seats) for table in state.values())
    breakable = [
        table for table in state.values() if not table.in_hand and free - len(table.empty_seats) >= table.size
    ]
    if not breakable:
        return None
    return min(breakable, key=lambda table: (table.size, -table.table)).table


def _break(state: dict[int, TableSeats], victim: int, rng: random.Random) -> list[Move]:
    table = state.pop(victim)
    seats = list(table.players)
    rng.shuffle(seats)
    moves = []
    for seat in seats:
        just_posted = _just_posted_big_blind(table, seat)
        target = rng.choice(_emptiest(table for table in state.values() if table.empty_seats))
        to_seat = rng.choice(target.empty_seats)
        moves.append(_seat(state, table, seat, target, to_seat, just_posted, MoveReason.BREAK))
    return moves


def _balance_move(state: dict[int, TableSeats], rng: random.Random) -> Move | None:
    emptiest = _emptiest(state.values())
    smallest = emptiest[0].size
    fuller = [table for table in state.values() if not table.in_hand and table.size > smallest + 1]
    if not fuller:
        return None
    source = max(fuller, key=lambda table: (table.size, -table.table))
    seat = source.plan().big_blind
    just_posted = _just_posted_big_blind(source, seat)
    target = rng.choice(emptiest)
    to_seat = seat_for_moved_player(target, just_posted_big_blind=just_posted)
    return _seat(state, source, seat, target, to_seat, just_posted, MoveReason.BALANCE)


def _just_posted_big_blind(table: TableSeats, seat: int) -> bool:
    """The player posted the big blind in the last hand played here, or arrived having just posted it
    elsewhere and has not been dealt in or waited out a hand since."""
    posted_here = table.previous is not None and seat == table.previous.big_blind
    return posted_here or table.states.get(seat, SeatState()).just_posted_big_blind


def _emptiest(tables) -> list[TableSeats]:
    tables = list(tables)
    smallest = min(table.size for table in tables)
    return sorted((table for table in tables if table.size == smallest), key=lambda table: table.table)


def _seat(
    state: dict[int, TableSeats],
    source: TableSeats,
    seat: int,
    target: TableSeats,
    to_seat: int,
    just_posted: bool,
    reason: MoveReason,
) -> Move:
    entry = source.players[seat]
    if source.table in state:
        state[source.table] = source.unseat(seat)
    arrival = SeatState(new=True, just_posted_big_blind=just_posted)
    state[target.table] = target.seat_player(seat=to_seat, entry=entry, state=arrival)
    return Move(entry, source.table, seat, target.table, to_seat, just_posted, reason)


# --- may a table deal? -----------------------------------------------------------------------------------


class Gate(StrEnum):
    DEAL = "deal"
    BALANCING = "balancing"
    """A table holds more than one player more than this one: wait for it to give one when its hand ends."""
    HAND_FOR_HAND = "hand_for_hand"
    """This table has played the round: wait until every table has (SPEC 1.3)."""
    TOO_FEW = "too_few"


def hand_for_hand(*, players_left: int, places_paid: int, tables: int) -> bool:
    """Hand-for-hand on the bubble: more than one table, and one bust away from the money."""
    return tables > 1 and players_left == places_paid + 1


def hand_for_hand_round(*, tables: Sequence[TableSeats], current: int) -> int:
    """The hand-for-hand round the tables deal in now: the next one once every table that can deal (two
    players or more) has dealt the current one and finished it."""
    if all(not table.in_hand and (table.round >= current or table.size < 2) for table in tables):
        return current + 1
    return current


def table_gate(*, tables: Sequence[TableSeats], table: int, hand_for_hand_round: int | None = None) -> Gate:
    """Whether ``table`` (between hands, after ``tables_rebalance``) may deal its next hand: it has two
    players, no table holds more than one player more or less than it, and in hand-for-hand play
    (``hand_for_hand_round`` given) it has not dealt in the current round yet."""
    this = next(candidate for candidate in tables if candidate.table == table)
    if this.in_hand:
        raise ValueError(f"table {table} is in a hand")
    if this.size < 2:
        return Gate.TOO_FEW
    if any(abs(other.size - this.size) > 1 for other in tables):
        return Gate.BALANCING
    if hand_for_hand_round is not None and this.round >= hand_for_hand_round:
        return Gate.HAND_FOR_HAND
    return Gate.DEAL
