"""Seats of a tournament as pure rules (SPEC 1.3, seed 004): the draw, balancing moves and their player and
seat, broken tables, hand-for-hand, and a property test over whole random tournaments."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine.positions import HandPlan, Positions, SeatState, big_blind_soonest_seat
from tournaments.rules.seating import (
    Gate,
    MoveReason,
    TableSeats,
    big_blind_wait,
    hand_for_hand,
    hand_for_hand_round,
    seat_for_moved_player,
    table_gate,
    tables_draw,
    tables_rebalance,
)


def test_the_draw_makes_tables_of_equal_size_and_seats_everyone_once() -> None:
    tables = tables_draw(entries=list(range(100, 160)), seats_per_table=9, rng=random.Random(1))
    assert [table.table for table in tables] == [1, 2, 3, 4, 5, 6, 7]
    assert sorted(table.size for table in tables) == [8, 8, 8, 9, 9, 9, 9]
    assert sorted(entry for table in tables for entry in table.players.values()) == list(range(100, 160))
    assert all(table.first_button in table.players for table in tables)
    other = tables_draw(entries=list(range(100, 160)), seats_per_table=9, rng=random.Random(2))
    assert [dict(t.players) for t in tables] != [dict(t.players) for t in other]  # drawn, not dealt in order
    with pytest.raises(ValueError):
        tables_draw(entries=[1], seats_per_table=9, rng=random.Random(1))
    with pytest.raises(ValueError):
        tables_draw(entries=[1, 2, 3], seats_per_table=2, rng=random.Random(1))


def test_a_sit_and_go_is_one_table() -> None:
    (table,) = tables_draw(entries=[1, 2, 3, 4, 5, 6], seats_per_table=6, rng=random.Random(3))
    assert table.size == 6 and table.empty_seats == ()
    (heads_up,) = tables_draw(entries=[1, 2], seats_per_table=2, rng=random.Random(3))
    assert heads_up.size == 2


def nine_max(number: int, *seats: int, previous: Positions | None, **kwargs) -> TableSeats:
    return TableSeats(
        table=number,
        seat_count=9,
        players={seat: number * 100 + seat for seat in seats},
        previous=previous,
        **kwargs,
    )


def test_the_moved_player_takes_the_seat_that_posts_the_big_blind_next() -> None:
    # Big blind last hand on seat 4: the next big blind is the first seat after it, so empty seat 5 posts it
    # in the next hand; seat 7 only after seat 6 has.
    table = nine_max(1, 0, 2, 4, 6, previous=Positions(button=0, small_blind=2, big_blind=4))
    assert seat_for_moved_player(table, just_posted_big_blind=False) == 5
    assert big_blind_wait(table.seat_player(seat=5, entry=-1, state=SeatState(new=True)), 5) == 0
    assert big_blind_wait(table.seat_player(seat=7, entry=-1, state=SeatState(new=True)), 7) == 1
    # Seat 3 is between the button and the big blind: the button must pass it first.
    assert big_blind_wait(table.seat_player(seat=3, entry=-1, state=SeatState(new=True)), 3) == 3


def test_a_player_who_just_posted_the_big_blind_is_not_given_it_again() -> None:
    table = nine_max(1, 0, 2, 4, 6, previous=Positions(button=0, small_blind=2, big_blind=4))
    seat = seat_for_moved_player(table, just_posted_big_blind=True)
    arrived = table.seat_player(seat=seat, entry=-1, state=SeatState(new=True, just_posted_big_blind=True))
    first = arrived.plan()
    assert first.big_blind != seat and seat not in first.dealt_in  # waits: no second big blind in a row
    wait = big_blind_wait(arrived, seat)
    for other in table.empty_seats:
        tried = table.seat_player(seat=other, entry=-1, state=SeatState(new=True, just_posted_big_blind=True))
        other_wait = big_blind_wait(tried, other)
        assert other_wait is None or other_wait >= wait


def test_balancing_moves_the_fuller_table_s_next_big_blind() -> None:
    full = nine_max(1, *range(9), previous=Positions(button=2, small_blind=3, big_blind=4))
    short = nine_max(
        2, 0, 1, 3, 5, 7, 8, previous=Positions(button=0, small_blind=1, big_blind=3), in_hand=True
    )
    result = tables_rebalance(tables=[full, short], rng=random.Random(0))
    (move,) = result.moves
    assert (move.entry, move.from_table, move.from_seat) == (105, 1, 5)  # seat 5 would be big blind next
    assert (move.to_table, move.to_seat, move.reason) == (2, 4, MoveReason.BALANCE)  # the seat after BB 3
    assert not move.just_posted_big_blind
    sizes = sorted(table.size for table in result.tables)
    assert sizes == [7, 8]


def test_a_table_in_a_hand_gives_nobody_until_the_hand_is_over() -> None:
    full = nine_max(1, *range(9), previous=Positions(button=2, small_blind=3, big_blind=4), in_hand=True)
    short = nine_max(2, 0, 1, 3, 5, 7, 8, previous=Positions(button=0, small_blind=1, big_blind=3))
    result = tables_rebalance(tables=[full, short], rng=random.Random(0))
    assert result.moves == ()
    assert table_gate(tables=result.tables, table=2) is Gate.BALANCING


def test_a_table_is_broken_when_the_others_can_seat_its_players() -> None:
    positions = Positions(button=0, small_blind=1, big_blind=2)
    tables = [
        TableSeats(table=n, seat_count=6, players={s: n * 10 + s for s in range(4)}, previous=positions)
        for n in (1, 2, 3)
    ]
    result = tables_rebalance(tables=tables, rng=random.Random(5))
    assert result.broken == (3,)  # equal sizes: the highest number
    assert sorted(table.size for table in result.tables) == [6, 6]
    assert {move.entry for move in result.moves} == {30, 31, 32, 33}
    assert all(move.reason is MoveReason.BREAK for move in result.moves)
    (posted,) = [move for move in result.moves if move.just_posted_big_blind]
    assert posted.entry == 32  # seat 2 posted the big blind in table 3's last hand


def test_no_table_is_broken_while_the_others_cannot_seat_everyone() -> None:
    positions = Positions(button=0, small_blind=1, big_blind=2)
    tables = [
        TableSeats(table=n, seat_count=6, players={s: n * 10 + s for s in range(5)}, previous=positions)
        for n in (1, 2, 3)
    ]
    assert tables_rebalance(tables=tables, rng=random.Random(5)).broken == ()


def test_hand_for_hand_on_the_bubble_deals_every_table_once_per_round() -> None:
    assert hand_for_hand(players_left=10, places_paid=9, tables=2)
    assert not hand_for_hand(players_left=11, places_paid=9, tables=2)
    assert not hand_for_hand(players_left=9, places_paid=9, tables=2)
    assert not hand_for_hand(players_left=10, places_paid=9, tables=1)  # the final table plays on
    positions = Positions(button=0, small_blind=1, big_blind=2)
    one = nine_max(1, 0, 1, 2, 3, 4, previous=positions)
    two = nine_max(2, 0, 1, 2, 3, 4, previous=positions, in_hand=True)
    # A hand still in play from before the bubble: round 1 opens only when it is over.
    assert hand_for_hand_round(tables=[one, two], current=0) == 0
    two = replace(two, in_hand=False)
    assert hand_for_hand_round(tables=[one, two], current=0) == 1
    assert table_gate(tables=[one, two], table=1, hand_for_hand_round=1) is Gate.DEAL
    one = replace(one.dealt(one.plan()), round=1)
    one = replace(one, in_hand=False)  # table 1 has played round 1; table 2 has not dealt it yet
    assert hand_for_hand_round(tables=[one, two], current=1) == 1
    assert table_gate(tables=[one, two], table=1, hand_for_hand_round=1) is Gate.HAND_FOR_HAND
    assert table_gate(tables=[one, two], table=2, hand_for_hand_round=1) is Gate.DEAL


# --- whole tournaments ---------------------------------------------------------------------------------------


@dataclass
class Tournament:
    """A tournament played by the floor's rules with random hands: tables deal and finish hands in a random
    interleaving, players lose chips and bust, and every rule is checked as it happens."""

    rng: random.Random
    tables: dict[int, TableSeats]
    stacks: dict[int, int]
    places_paid: int
    total_chips: int = 0
    playing: dict[int, HandPlan] = field(default_factory=dict)
    last_hand_big_blind: dict[int, bool] = field(default_factory=dict)
    awaiting_big_blind: set[int] = field(default_factory=set)
    round: int = 0
    hands: int = 0
    moves: int = 0
    hand_for_hand_hands: int = 0

    def __post_init__(self) -> None:
        self.total_chips = sum(self.stacks.values())

    def play(self) -> None:
        for number in self.tables:  # the start: every table deals its first hand
            self.deal(number, h4h=False)
        while len(self.stacks) > 1:
            assert self.hands < 5_000, "the tournament does not end"
            self.floor()
            h4h = hand_for_hand(
                players_left=len(self.stacks), places_paid=self.places_paid, tables=len(self.tables)
            )
            if h4h:
                self.round = hand_for_hand_round(tables=list(self.tables.values()), current=self.round)
            ready = [
                number
                for number, table in self.tables.items()
                if not table.in_hand
                and table_gate(
                    tables=list(self.tables.values()),
                    table=number,
                    hand_for_hand_round=self.round if h4h else None,
                )
                is Gate.DEAL
            ]
            choices = [("deal", number) for number in ready] + [("end", number) for number in self.playing]
            assert choices, f"every table waits: {self.tables}"
            what, number = self.rng.choice(choices)
            if what == "deal":
                self.deal(number, h4h)
            else:
                self.end(number)
        assert self.total_chips == sum(self.stacks.values())

    def floor(self) -> None:
        before = dict(self.tables)
        result = tables_rebalance(tables=list(self.tables.values()), rng=self.rng)
        for move in result.moves:
            self.moves += 1
            source, target = before[move.from_table], before.get(move.to_table)
            assert target is not None and move.to_table not in result.broken
            if move.reason is MoveReason.BALANCE:
                assert not source.in_hand
                assert source.plan().big_blind == move.from_seat, "the moved player is the next big blind"
                assert move.to_seat in target.empty_seats
                plain = not move.just_posted_big_blind and not any(
                    state.new for state in target.states.values()
                )
                if plain and target.previous is not None and target.size >= 2:
                    assert move.to_seat == big_blind_soonest_seat(
                        seat_count=target.seat_count, previous=target.previous, empty_seats=target.empty_seats
                    )
                self.awaiting_big_blind.add(move.entry)
            else:
                assert move.from_table in result.broken
                self.awaiting_big_blind.discard(move.entry)
            before[move.from_table] = source.unseat(move.from_seat)
            before[move.to_table] = target.seat_player(
                seat=move.to_seat,
                entry=move.entry,
                state=SeatState(new=True, just_posted_big_blind=move.just_posted_big_blind),
            )
        self.tables = {table.table: table for table in result.tables}
        seated = Counter(entry for table in self.tables.values() for entry in table.players.values())
        assert set(seated) == set(self.stacks) and set(seated.values()) == {1}, "everyone seated, once"
        smallest = min(table.size for table in self.tables.values())
        for table in self.tables.values():
            assert table.in_hand or table.size <= smallest + 1, "a table between hands gives its extra player"

    def deal(self, number: int, h4h: bool) -> None:
        table = self.tables[number]
        sizes = [other.size for other in self.tables.values()]
        assert all(abs(size - table.size) <= 1 for size in sizes), f"{table.size} players deal beside {sizes}"
        plan = table.plan()
        # "In a row": in two hands at a table in a row, a hand waited out counting as one (SPEC 1.3: a player
        # who just posted it waits until the button has passed). A hand needs a big blind: only when every
        # player dealt in posted it in their last hand (two tables merged into a heads-up, say) does one of
        # them post it again.
        for seat in plan.waiting:
            self.last_hand_big_blind[table.players[seat]] = False
        everyone_just_posted = all(
            self.last_hand_big_blind.get(table.players[seat]) for seat in plan.dealt_in
        )
        for seat in plan.dealt_in:
            entry = table.players[seat]
            big_blind = seat == plan.big_blind
            twice = big_blind and self.last_hand_big_blind.get(entry)
            assert not twice or everyone_just_posted, f"{entry}: big blind twice in a row"
            self.last_hand_big_blind[entry] = big_blind
            if entry in self.awaiting_big_blind:
                # Heads-up the button posts the small blind, whoever came last.
                assert plan.heads_up or seat != plan.small_blind_seat, (
                    f"{entry} moved in and posts the small blind"
                )
                if big_blind:
                    self.awaiting_big_blind.discard(entry)
        self.tables[number] = replace(table.dealt(plan), round=self.round if h4h else table.round)
        self.playing[number] = plan
        self.hands += 1
        self.hand_for_hand_hands += h4h

    def end(self, number: int) -> None:
        plan = self.playing.pop(number)
        table = self.tables[number]
        players = [table.players[seat] for seat in plan.dealt_in]
        winner = self.rng.choice(players)
        for entry in players:
            if entry != winner:
                lost = (
                    self.stacks[entry] if self.rng.random() < 0.2 else self.rng.randint(0, self.stacks[entry])
                )
                self.stacks[entry] -= lost
                self.stacks[winner] += lost
        busted = [seat for seat in plan.dealt_in if self.stacks[table.players[seat]] == 0]
        for seat in busted:
            del self.stacks[table.players[seat]]
        self.tables[number] = replace(table.unseat(*busted), in_hand=False)
        assert sum(self.stacks.values()) == self.total_chips, "chips conserved"


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    entrants=st.integers(2, 70),
    seats_per_table=st.integers(3, 10),
    paid_fraction=st.sampled_from([0.1, 0.15, 0.3]),
)
def test_random_tournaments_keep_every_seating_rule(
    seed: int, entrants: int, seats_per_table: int, paid_fraction: float
) -> None:
    rng = random.Random(seed)
    entries = list(range(1, entrants + 1))
    tournament = Tournament(
        rng=rng,
        tables={
            table.table: table
            for table in tables_draw(entries=entries, seats_per_table=seats_per_table, rng=rng)
        },
        stacks=dict.fromkeys(entries, 1_500),
        places_paid=max(1, int(entrants * paid_fraction)),
    )
    tournament.play()
    assert len(tournament.tables) == 1  # the final table


def test_a_sixty_player_tournament_on_ten_tables_moves_players_and_plays_hand_for_hand() -> None:
    rng = random.Random(62)
    entries = list(range(1, 61))
    tournament = Tournament(
        rng=rng,
        tables={table.table: table for table in tables_draw(entries=entries, seats_per_table=6, rng=rng)},
        stacks=dict.fromkeys(entries, 3_000),
        places_paid=9,
    )
    assert len(tournament.tables) == 10
    tournament.play()
    assert tournament.moves > 20 and tournament.hand_for_hand_hands >= 2  # both tables of the bubble round
