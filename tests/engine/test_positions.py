"""Seats to players over a sequence of hands (SPEC 1.1, 1.2, 1.3): the dead-button rule as players
come, go, sit out and come back."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine.positions import (
    NO_MISSED_BLINDS,
    HandPlan,
    MissedBlinds,
    NotEnoughPlayers,
    Positions,
    PostKind,
    SeatState,
    big_blind_soonest_seat,
    clockwise_from,
    dealing_order,
    plan_hand,
    postflop_action_order,
    preflop_action_order,
)

SB = PostKind.SMALL_BLIND
BB = PostKind.BIG_BLIND
ENTRY = PostKind.ENTRY_BIG_BLIND
DEAD_SB = PostKind.DEAD_SMALL_BLIND


@dataclass
class Table:
    """A table as the room would drive it: seat states kept between hands, fed back from each plan."""

    seat_count: int
    seats: dict[int, SeatState] = field(default_factory=dict)
    previous: Positions | None = None
    tournament: bool = False
    first_button: int | None = None
    history: list[HandPlan] = field(default_factory=list)

    def join(self, seat: int, *, post_now: bool = False, just_posted_big_blind: bool = False) -> None:
        assert seat not in self.seats
        self.seats[seat] = SeatState(new=True, post_now=post_now, just_posted_big_blind=just_posted_big_blind)

    def leave(self, seat: int) -> None:
        del self.seats[seat]

    def sit_out(self, seat: int) -> None:
        self.seats[seat] = replace(self.seats[seat], sitting_out=True, post_now=False)

    def sit_in(self, seat: int, *, post_now: bool = False) -> None:
        self.seats[seat] = replace(self.seats[seat], sitting_out=False, post_now=post_now)

    def play(self) -> HandPlan:
        plan = plan_hand(
            seat_count=self.seat_count,
            previous=self.previous,
            seats=self.seats,
            first_button=self.first_button,
            tournament=self.tournament,
        )
        self.seats = plan.seat_states_after(seats=self.seats)
        self.previous = plan.positions
        self.history.append(plan)
        return plan


def table_with(seat_count: int, *occupied: int, **kwargs: object) -> Table:
    table = Table(seat_count=seat_count, **kwargs)  # type: ignore[arg-type]
    for seat in occupied:
        table.join(seat)
    return table


def summary(plan: HandPlan) -> tuple[int, int | None, int]:
    return plan.button, plan.small_blind_seat, plan.big_blind


# --- first hand, orders -----------------------------------------------------------------------


def test_first_hand_button_is_first_ready_seat_at_or_after_the_chosen_one() -> None:
    plan = table_with(6, 0, 2, 3, 5).play()
    assert summary(plan) == (0, 2, 3)
    assert plan.dealt_in == (2, 3, 5, 0)
    assert plan.posts_of(2) == (SB,) and plan.posts_of(3) == (BB,)
    assert plan.preflop_order() == (5, 0, 2, 3)
    assert plan.postflop_order() == (2, 3, 5, 0)
    assert not plan.heads_up and not plan.dead_button

    plan = table_with(6, 0, 2, 3, 5, first_button=4).play()
    assert summary(plan) == (5, 0, 2)
    assert plan.dealt_in == (0, 2, 3, 5)


def test_first_hand_skips_players_sitting_out_and_needs_two() -> None:
    table = table_with(4, 0, 1, 2)
    table.sit_out(0)
    assert summary(table.play()) == (1, 1, 2)  # heads-up: button posts the small blind
    table = table_with(4, 0, 1)
    table.sit_out(1)
    with pytest.raises(NotEnoughPlayers):
        table.play()


def test_orders_wrap_clockwise() -> None:
    assert clockwise_from(seat_count=9, after=7, seats=[0, 3, 7, 8]) == (8, 0, 3, 7)
    assert dealing_order(seat_count=9, button=7, dealt_in=[0, 3, 7, 8]) == (8, 0, 3, 7)
    assert preflop_action_order(seat_count=9, big_blind=0, dealt_in=[0, 3, 7, 8]) == (3, 7, 8, 0)
    assert preflop_action_order(seat_count=9, big_blind=0, dealt_in=[0, 3, 7, 8], straddle=3) == (7, 8, 0, 3)
    assert postflop_action_order(seat_count=9, button=7, in_hand=[0, 3]) == (0, 3)
    with pytest.raises(ValueError):
        clockwise_from(seat_count=9, after=9, seats=[0])


# --- heads-up -----------------------------------------------------------------------------------


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    table = table_with(6, 1, 4)
    for expected_button, expected_big_blind in [(1, 4), (4, 1), (1, 4), (4, 1)]:
        plan = table.play()
        assert plan.heads_up
        assert summary(plan) == (expected_button, expected_button, expected_big_blind)
        assert plan.posts_of(expected_button) == (SB,)
        assert plan.dealt_in == (expected_big_blind, expected_button)  # the big blind gets the first card
        assert plan.preflop_order() == (expected_button, expected_big_blind)
        assert plan.postflop_order() == (expected_big_blind, expected_button)


def test_three_to_two_nobody_posts_big_blind_twice_whoever_leaves() -> None:
    for leaver in (0, 1, 2):
        table = table_with(3, 0, 1, 2)
        first = table.play()
        assert summary(first) == (0, 1, 2)
        table.leave(leaver)
        plan = table.play()
        assert plan.heads_up
        assert plan.big_blind != 2, leaver  # seat 2 just posted it
        assert plan.button == plan.small_blind_seat
        assert set(plan.dealt_in) == {0, 1, 2} - {leaver}


def test_two_to_three_newcomer_waits_for_the_big_blind_then_three_handed() -> None:
    table = table_with(6, 0, 3)
    assert summary(table.play()) == (0, 0, 3)
    table.join(1)  # between the button and the big blind: the big blind reaches seat 1 last
    plan = table.play()
    assert plan.heads_up and summary(plan) == (3, 3, 0)
    assert plan.waiting == (1,)
    plan = table.play()  # the big blind moves clockwise from seat 0 and reaches seat 1
    assert summary(plan) == (3, 0, 1)
    assert plan.posts_of(1) == (BB,)
    assert plan.dealt_in == (0, 1, 3)
    assert summary(table.play()) == (0, 1, 3)
    assert summary(table.play()) == (1, 3, 0)


def test_two_to_three_newcomers_posting_at_once_after_heads_up() -> None:
    table = table_with(6, 0, 3)
    table.play()  # heads-up: button 0, big blind 3
    table.join(1, post_now=True)  # the big blind reaches seat 1 the hand after next: it waits
    table.join(2, post_now=True)
    plan = table.play()
    # The big blind goes to 0, the small blind's position is 3 (last big blind), and the button cannot
    # be on 0 too: it goes right before the small blind, to seat 2, whose newcomer posted to come in.
    assert (plan.button, plan.small_blind_seat, plan.big_blind) == (2, 3, 0)
    assert plan.posts_of(2) == (ENTRY,)
    assert plan.waiting == (1,)
    assert plan.dealt_in == (3, 0, 2)
    assert plan.preflop_order() == (2, 3, 0)
    plan = table.play()
    assert summary(plan) == (3, 0, 1) and plan.posts_of(1) == (BB,)
    assert summary(table.play()) == (0, 1, 2)


def test_heads_up_entrant_posting_at_once_is_dealt_in_on_the_button() -> None:
    table = table_with(6, 0, 3, 4)
    table.play()  # 0 / 3 / 4
    table.sit_out(4)
    table.play()  # heads-up 3 / 0 ... seat 4 on the small blind's position, dead
    table.leave(0)
    table.join(0)
    table.sit_in(4, post_now=True)
    plan = table.play()
    assert plan.heads_up
    assert set(plan.dealt_in) == {3, 4}


# --- the dead button and the dead small blind ----------------------------------------------------


def test_dead_button_when_the_small_blind_leaves() -> None:
    table = table_with(6, 0, 1, 2, 3, 4)
    assert summary(table.play()) == (0, 1, 2)
    table.leave(1)
    plan = table.play()
    assert summary(plan) == (1, 2, 3)  # the button goes to the empty seat that had the small blind
    assert plan.dead_button
    assert plan.dealt_in == (2, 3, 4, 0)
    assert [(post.seat, post.kind) for post in plan.posts] == [(2, SB), (3, BB)]
    assert plan.postflop_order() == (2, 3, 4, 0)
    plan = table.play()
    assert summary(plan) == (2, 3, 4) and not plan.dead_button


def test_dead_small_blind_when_the_big_blind_leaves_then_dead_button() -> None:
    table = table_with(6, 0, 1, 2, 3, 4)
    table.play()  # 0 / 1 / 2
    table.leave(2)
    plan = table.play()
    assert (plan.button, plan.positions.small_blind, plan.big_blind) == (1, 2, 3)
    assert plan.small_blind_seat is None  # nobody posts it
    assert [(post.seat, post.kind) for post in plan.posts] == [(3, BB)]
    assert plan.dealt_in == (3, 4, 0, 1)
    plan = table.play()
    assert (plan.button, plan.small_blind_seat, plan.big_blind) == (2, 3, 4)
    assert plan.dead_button
    assert summary(table.play()) == (3, 4, 0)


def test_dead_blinds_over_several_hands_with_joins_and_leaves() -> None:
    table = table_with(9, 0, 2, 4, 6, 8)
    assert summary(table.play()) == (0, 2, 4)
    table.leave(4)  # the big blind leaves: next small blind dead
    table.join(5)  # sits down where the big blind is going: posts it when it arrives
    plan = table.play()
    assert summary(plan) == (2, None, 5) and plan.posts_of(5) == (BB,)
    table.leave(2)  # the button leaves
    plan = table.play()
    assert summary(plan) == (4, 5, 6) and plan.dead_button
    table.join(3)  # between the button and the big blind (behind the button's path): waits
    plan = table.play()
    assert summary(plan) == (5, 6, 8) and plan.waiting == (3,)
    assert summary(table.play()) == (6, 8, 0)
    plan = table.play()
    assert summary(plan) == (8, 0, 3) and plan.posts_of(3) == (BB,)  # the big blind reached seat 3
    assert summary(table.play()) == (0, 3, 5)


# --- new players ----------------------------------------------------------------------------------


def test_newcomer_between_big_blind_and_button_waits_or_posts_now() -> None:
    base = table_with(9, 0, 2, 4, 6)
    base.play()  # button 0, small blind 2, big blind 4

    waiting = table_with(9, 0, 2, 4, 6)
    waiting.play()
    waiting.join(1)  # between the button and the small blind: the button has not passed it yet
    plans = [waiting.play() for _ in range(4)]
    assert [summary(plan) for plan in plans] == [(2, 4, 6), (4, 6, 0), (6, 0, 1), (0, 1, 2)]
    assert [1 in plan.dealt_in for plan in plans] == [False, False, True, True]
    assert plans[2].posts_of(1) == (BB,)

    posting = table_with(9, 0, 2, 4, 6)
    posting.play()
    posting.join(1, post_now=True)
    plan = posting.play()
    assert summary(plan) == (2, 4, 6)
    assert 1 in plan.dealt_in and plan.posts_of(1) == (ENTRY,)
    assert plan.dealt_in == (4, 6, 0, 1, 2)
    assert plan.preflop_order() == (0, 1, 2, 4, 6)  # a live big blind, but acts in its turn
    # Next hand it is a regular; the big blind reaches it only after going round.
    plan = posting.play()
    assert 1 in plan.dealt_in and plan.posts_of(1) == ()


def test_newcomer_whose_seat_gets_the_big_blind_next_hand_waits_rather_than_post_twice() -> None:
    table = table_with(9, 0, 2, 4, 6)
    table.play()  # 0 / 2 / 4
    table.join(8, post_now=True)  # the big blind goes to 6, then reaches 8
    table.join(1, post_now=True)  # the big blind reaches 1 only after going round
    plan = table.play()
    assert summary(plan) == (2, 4, 6)
    assert plan.waiting == (8,) and plan.posts_of(8) == ()
    assert plan.posts_of(1) == (ENTRY,)
    plan = table.play()
    assert summary(plan) == (4, 6, 8) and plan.posts_of(8) == (BB,)
    assert plan.posts_of(1) == ()


def test_newcomer_on_the_seat_just_left_by_the_big_blind() -> None:
    table = table_with(6, 0, 1, 2, 3)
    table.play()  # 0 / 1 / 2
    table.leave(2)
    table.join(2, post_now=True)
    plan = table.play()
    # Seat 2 is the small blind's position; the newcomer there enters with a big blind, not the small.
    assert (plan.positions.small_blind, plan.small_blind_seat, plan.big_blind) == (2, None, 3)
    assert plan.posts_of(2) == (ENTRY,)
    assert plan.missed_blinds[2] == NO_MISSED_BLINDS


# --- missed blinds --------------------------------------------------------------------------------


def test_missed_blinds_then_back_with_big_blind_live_and_small_blind_dead() -> None:
    table = table_with(6, 0, 1, 2, 3, 4)
    table.play()  # 0 / 1 / 2
    table.sit_out(4)
    plan = table.play()  # 1 / 2 / 3
    assert plan.sitting_out == (4,) and plan.missed_blinds[4] == NO_MISSED_BLINDS
    plan = table.play()  # 2 / 3 / 0: the big blind went over seat 4
    assert summary(plan) == (2, 3, 0)
    assert plan.missed_blinds[4] == MissedBlinds(big=True)
    table.sit_in(4, post_now=True)
    plan = table.play()
    assert summary(plan) == (3, 0, 1)
    assert plan.posts_of(4) == (ENTRY, DEAD_SB)
    assert 4 in plan.dealt_in and plan.missed_blinds[4] == NO_MISSED_BLINDS
    dead = [post for post in plan.posts if post.kind is DEAD_SB]
    assert [post.live for post in dead] == [False]


def test_missed_blinds_then_wait_for_the_big_blind() -> None:
    table = table_with(6, 0, 1, 2, 3, 4)
    table.play()  # 0 / 1 / 2
    table.sit_out(4)
    table.play()
    table.play()  # 2 / 3 / 0, seat 4 missed the big blind
    table.sit_in(4)  # waits
    plans = [table.play() for _ in range(4)]
    assert [summary(plan) for plan in plans] == [(3, 0, 1), (0, 1, 2), (1, 2, 3), (2, 3, 4)]
    assert [4 in plan.waiting for plan in plans] == [True, True, True, False]
    assert plans[-1].posts_of(4) == (BB,)  # no dead small blind: waiting settles the debt
    assert plans[-1].missed_blinds[4] == NO_MISSED_BLINDS


def test_sitting_out_after_the_big_blind_misses_the_small_blind_only() -> None:
    table = table_with(6, 0, 1, 2, 3, 4)
    table.play()  # 0 / 1 / 2
    table.sit_out(2)
    plan = table.play()
    assert (plan.positions.small_blind, plan.small_blind_seat) == (2, None)
    assert plan.missed_blinds[2] == MissedBlinds(small=True)
    table.sit_in(2, post_now=True)
    plan = table.play()
    assert summary(plan) == (2, 3, 4)  # back on the button, owing the small blind only
    assert plan.posts_of(2) == (DEAD_SB,)
    assert plan.missed_blinds[2] == NO_MISSED_BLINDS


def test_a_whole_orbit_sitting_out_owes_both_and_new_players_owe_nothing() -> None:
    table = table_with(5, 0, 1, 2, 3)
    table.play()  # 0 / 1 / 2
    table.sit_out(2)
    table.join(4)
    table.sit_out(4)
    for _ in range(5):
        plan = table.play()
    assert plan.missed_blinds[2] == MissedBlinds(small=True, big=True)
    assert plan.missed_blinds[4] == NO_MISSED_BLINDS
    table.sit_in(4, post_now=True)
    table.sit_in(2, post_now=True)
    plan = table.play()
    assert plan.posts_of(4) in ((ENTRY,), (BB,), ())
    assert plan.posts_of(2) in ((ENTRY, DEAD_SB), (BB,), ())


# --- restarts, heads-up entrants ------------------------------------------------------------------


def test_table_coming_back_to_life_deals_everyone_present() -> None:
    table = table_with(6, 0, 3)
    table.play()
    table.sit_out(3)
    with pytest.raises(NotEnoughPlayers):
        table.play()
    table.join(1)  # would wait for the big blind, but nobody else could play
    plan = table.play()
    assert plan.restarted and plan.heads_up
    assert summary(plan) == (1, 1, 0)
    assert plan.posts_of(1) == (SB,)
    table.sit_in(3)
    plan = table.play()
    assert not plan.restarted and summary(plan) == (5, 0, 1)  # after heads-up: dead button before the SB
    assert plan.dealt_in == (0, 1, 3) and plan.posts_of(3) == ()


# --- tournaments ----------------------------------------------------------------------------------


def test_tournament_moved_player_on_button_or_small_blind_waits_for_the_button_to_pass() -> None:
    table = table_with(9, 0, 2, 4, 6, 8, tournament=True)
    table.play()  # 0 / 2 / 4
    table.join(3)  # will be between the button (2) and the small blind (4)
    table.join(7)  # an ordinary seat: dealt in at once, free
    plan = table.play()
    assert summary(plan) == (2, 4, 6)
    assert plan.waiting == (3,) and 7 in plan.dealt_in and plan.posts_of(7) == ()
    plan = table.play()
    assert summary(plan) == (4, 6, 7) and plan.waiting == ()  # the button has passed seat 3
    assert 3 in plan.dealt_in and plan.posts_of(3) == ()


def test_tournament_moved_player_who_just_posted_the_big_blind_waits_two_hands() -> None:
    table = table_with(9, 0, 2, 4, 6, tournament=True)
    table.play()  # 0 / 2 / 4
    assert big_blind_soonest_seat(seat_count=9, previous=table.previous, empty_seats=[1, 3, 5, 7, 8]) == 5
    table.join(5, just_posted_big_blind=True)
    plan = table.play()
    assert plan.big_blind == 6 and plan.waiting == (5,)
    plan = table.play()
    assert summary(plan) == (4, 6, 0) and plan.waiting == (5,)
    plan = table.play()
    assert summary(plan) == (6, 0, 2) and 5 in plan.dealt_in
    with pytest.raises(ValueError):
        table.sit_out(0)
        table.play()


def test_tournament_heads_up_formed_by_a_move_gives_the_big_blind_to_who_did_not_just_post_it() -> None:
    # Seat 1 posted the big blind and busted; the player moved in on seat 2 had just posted it at the table
    # they came from. Too few can be dealt by the waiting rule, so both play: the one on seat 0 posts it.
    table = table_with(3, 0, 1, tournament=True)
    table.play()  # heads-up: button and small blind 0, big blind 1
    table.leave(1)
    table.join(2, just_posted_big_blind=True)
    plan = table.play()
    assert plan.restarted and plan.heads_up
    assert plan.big_blind == 0 and plan.button == plan.small_blind_seat == 2


# --- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seat_count": 1},
        {"seat_count": 11},
        {"seats": {6: SeatState()}},
        {"previous": Positions(button=0, small_blind=1, big_blind=7)},
        {"first_button": -1},
    ],
)
def test_bad_input_is_refused(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"seat_count": 6, "previous": None, "seats": {0: SeatState(), 1: SeatState()}}
    args.update(kwargs)
    with pytest.raises(ValueError):
        plan_hand(**args)  # type: ignore[arg-type]


# --- property: the big blind never skips anyone and never hits anyone twice in a row ---------------

event = st.tuples(
    st.sampled_from(["join", "join_post", "leave", "sit_out", "sit_in", "sit_in_post", "play"]),
    st.integers(min_value=0, max_value=9),
)


@settings(max_examples=200, deadline=None)
@given(
    seat_count=st.integers(min_value=2, max_value=10),
    starting=st.sets(st.integers(min_value=0, max_value=9), min_size=2, max_size=10),
    events=st.lists(event, min_size=1, max_size=80),
    tournament=st.booleans(),
)
def test_big_blind_goes_round_once_per_orbit_never_twice_in_a_row(
    seat_count: int, starting: set[int], events: list[tuple[str, int]], tournament: bool
) -> None:
    """Cash: players join (waiting or posting), leave, sit out and come back. Tournament: players
    are moved in (some having just posted the big blind elsewhere) and bust out."""
    table = table_with(seat_count, *sorted({seat % seat_count for seat in starting}), tournament=tournament)
    plans: list[HandPlan] = []
    excused: list[set[int]] = []

    def play() -> None:
        moved_after_big_blind = {seat for seat, state in table.seats.items() if state.just_posted_big_blind}
        try:
            plan = table.play()
        except NotEnoughPlayers:
            ready = [seat for seat, state in table.seats.items() if not state.sitting_out]
            assert len(ready) < 2
            return
        check_plan(table, plan)
        plans.append(plan)
        excused.append(moved_after_big_blind)

    play()
    for name, raw_seat in events:
        seat = raw_seat % seat_count
        occupied = seat in table.seats
        if tournament and name.startswith("sit"):
            pass
        elif name.startswith("join") and not occupied:
            if tournament:
                table.join(seat, just_posted_big_blind=name == "join_post")
            else:
                table.join(seat, post_now=name == "join_post")
        elif name == "leave" and occupied:
            table.leave(seat)
        elif name == "sit_out" and occupied:
            table.sit_out(seat)
        elif name.startswith("sit_in") and occupied:
            table.sit_in(seat, post_now=name == "sit_in_post")
        play()
        if len(plans) >= 2:
            check_transition(seat_count, plans[-2], plans[-1], excused=excused[-1])
    check_orbits(seat_count, plans)


def check_plan(table: Table, plan: HandPlan) -> None:
    n = plan.seat_count
    dealt = set(plan.dealt_in)
    assert len(dealt) >= 2 and plan.big_blind in dealt
    assert plan.dealt_in == dealing_order(seat_count=n, button=plan.button, dealt_in=dealt)
    assert dealt | set(plan.waiting) | set(plan.sitting_out) == set(table.seats)
    assert not dealt & (set(plan.waiting) | set(plan.sitting_out))
    if plan.heads_up:
        assert plan.button == plan.positions.small_blind == plan.small_blind_seat
        assert plan.button in dealt
    else:
        button, small, big = plan.button, plan.positions.small_blind, plan.big_blind
        assert 0 < (small - button) % n < (big - button) % n  # button, small blind, big blind clockwise
        if plan.small_blind_seat is not None:
            assert plan.small_blind_seat == small and small in dealt
        # Nobody dealt in sits between the button and the big blind except the small blind itself
        # (or an entrant there who posted to come in).
        for seat in dealt:
            if 0 < (seat - button) % n < (big - button) % n and seat != small:
                assert plan.posts_of(seat)
    kinds = [post.kind for post in plan.posts]
    assert kinds.count(BB) == 1 and kinds.count(SB) <= 1
    for post in plan.posts:
        assert post.seat in dealt


def check_transition(n: int, before: HandPlan, after: HandPlan, *, excused: set[int]) -> None:
    assert after.big_blind != before.big_blind
    # An entrant posts at once only when the big blind is not due on the seat next hand; it can still
    # come next hand if a seat the big blind would have gone to first was left (or sat out) meanwhile.
    if ENTRY in before.posts_of(after.big_blind):
        ready_before = set(before.dealt_in) | set(before.waiting)
        ready_after = set(after.dealt_in) | set(after.waiting)
        reach = (after.big_blind - before.big_blind) % n
        assert any(0 < (seat - before.big_blind) % n < reach for seat in ready_before - ready_after), (
            "entry big blind followed by the big blind"
        )
    # The big blind moved to the first seat clockwise that was willing to play: nobody dealt in now,
    # or waiting for it, sits strictly between where it was and where it is (but a player moved in
    # right after posting it at another table).
    travelled = (after.big_blind - before.big_blind) % n
    for seat in (set(after.dealt_in) | set(after.waiting)) - excused:
        assert not 0 < (seat - before.big_blind) % n < travelled


def check_orbits(n: int, plans: list[HandPlan]) -> None:
    """A player dealt in for a run of hands posts the big blind exactly as often as the big blind's
    clockwise travel over that run passes their seat: once per orbit."""
    if not plans:
        return
    travel = [0]
    for before, after in zip(plans, plans[1:], strict=False):
        travel.append(travel[-1] + (after.big_blind - before.big_blind) % n)
    origin = plans[0].big_blind
    for seat in range(n):
        start = None
        for index, plan in enumerate([*plans, None]):
            if plan is not None and seat in plan.dealt_in:
                if start is None:
                    start = index
                continue
            if start is not None:
                end = index - 1
                posted = sum(1 for p in plans[start + 1 : end + 1] if p.big_blind == seat)
                passes = sum(1 for t in range(travel[start] + 1, travel[end] + 1) if (origin + t) % n == seat)
                assert posted == passes, (seat, start, end)
                start = None
