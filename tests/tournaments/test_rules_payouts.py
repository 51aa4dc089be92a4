"""Prize money as pure rules (SPEC 1.3): the payout tables, a pool split to the cent with the remainder to
the higher place, and players who bust together finishing by their stacks, sharing places on equal stacks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.rules.payouts import (
    SHARE_TOTAL,
    Bust,
    Finish,
    PayoutBand,
    PayoutError,
    PayoutSchedule,
    busts_finish,
    multi_table_default,
    places_shares,
    pool_split,
    sit_and_go_default,
)


@pytest.mark.parametrize(
    ("entrants", "percent"),
    [(2, [100]), (5, [100]), (6, [65, 35]), (8, [65, 35]), (9, [50, 30, 20]), (10, [50, 30, 20])],
)
def test_sit_and_go_pays_as_spec_says(entrants: int, percent: list[int]) -> None:
    shares = sit_and_go_default().shares_for(entrants=entrants)
    assert [share * 100 // SHARE_TOTAL for share in shares] == percent


def test_a_field_outside_the_table_is_refused() -> None:
    with pytest.raises(PayoutError):
        sit_and_go_default().shares_for(entrants=11)


def test_the_remainder_of_a_split_goes_to_the_higher_place() -> None:
    assert pool_split(pool=1001, shares=(65_000, 35_000)) == (651, 350)
    assert pool_split(pool=1003, shares=(50_000, 30_000, 20_000)) == (503, 300, 200)
    assert pool_split(pool=0, shares=(100_000,)) == (0,)
    assert sit_and_go_default().prizes(entrants=6, pool=6 * 1_000) == (3_900, 2_100)


@settings(max_examples=300, deadline=None)
@given(pool=st.integers(0, 10**12), entrants=st.integers(2, 2000))
def test_prizes_add_up_to_the_pool_and_never_rise(pool: int, entrants: int) -> None:
    prizes = multi_table_default().prizes(entrants=entrants, pool=pool)
    assert sum(prizes) == pool
    assert all(later <= earlier for earlier, later in zip(prizes, prizes[1:], strict=False))


def test_multi_table_default_pays_about_fifteen_percent() -> None:
    schedule = multi_table_default()
    assert schedule.entrants_min == 2 and schedule.entrants_max == 2000
    for band in schedule.bands:
        places = len(band.shares)
        assert places <= max(3, 0.15 * band.entrants_min), band
        if band.entrants_min > 10:
            assert places >= 0.12 * band.entrants_max or places == 3, band
    # Up to 10 entrants it pays like a sit-and-go; 900 entrants: 135 places, the last above the buy-in.
    for entrants in range(2, 11):
        assert schedule.shares_for(entrants=entrants) == sit_and_go_default().shares_for(entrants=entrants)
    prizes = schedule.prizes(entrants=900, pool=900 * 1_000)
    assert len(prizes) == 135 and prizes[-1] > 1_000 and 0.15 < prizes[0] / 900_000 < 0.2


def test_places_shares_are_the_spec_ones_then_harmonic() -> None:
    assert places_shares(3) == (50_000, 30_000, 20_000)
    assert places_shares(4) == (48_000, 24_000, 16_000, 12_000)
    for places in (5, 7, 135, 300):
        shares = places_shares(places)
        assert sum(shares) == SHARE_TOTAL and len(shares) == places
        assert abs(shares[0] / shares[1] - 2) < 0.001


@pytest.mark.parametrize(
    "shares",
    [(), (60_000, 50_000), (40_000, 60_000), (100_000, 0), (99_999,), (50_000.0, 50_000)],
)
def test_bad_shares_are_refused(shares: tuple) -> None:
    with pytest.raises(PayoutError):
        PayoutBand(2, 10, shares)


def test_bands_with_a_gap_or_too_many_places_are_refused() -> None:
    with pytest.raises(PayoutError):
        PayoutSchedule(bands=(PayoutBand(2, 5, (100_000,)), PayoutBand(7, 8, (65_000, 35_000))))
    with pytest.raises(PayoutError):
        PayoutBand(2, 5, (50_000, 30_000, 20_000))


# --- players who bust together -------------------------------------------------------------------------


def test_busts_in_one_hand_finish_by_their_stacks_at_its_start() -> None:
    prizes = (5_000, 3_000, 2_000)
    finishes = busts_finish(
        busts=[
            Bust(entry=7, stack_at_start=50, after_button=1),
            Bust(entry=8, stack_at_start=900, after_button=3),
        ],
        players_left=4,
        prizes=prizes,
    )
    assert finishes == (Finish(8, 3, 2_000), Finish(7, 4, 0))


def test_equal_stacks_share_places_and_prizes_odd_cent_to_the_earlier_seat_after_the_button() -> None:
    prizes = (5_001, 3_001, 2_000)
    finishes = busts_finish(
        busts=[
            Bust(entry=1, stack_at_start=100, after_button=2),
            Bust(entry=2, stack_at_start=100, after_button=1),
            Bust(entry=3, stack_at_start=40, after_button=3),
        ],
        players_left=4,
        prizes=prizes,
    )
    # Places 2 and 3 shared (3,001 + 2,000 = 5,001: 2,501 to the seat first after the button), then 4th.
    assert finishes == (Finish(2, 2, 2_501), Finish(1, 2, 2_500), Finish(3, 4, 0))


def test_a_shared_place_on_the_bubble_splits_the_last_prize() -> None:
    prizes = (6_000, 3_000, 1_001)
    finishes = busts_finish(
        busts=[
            Bust(entry=1, stack_at_start=300, after_button=4, table=2),
            Bust(entry=2, stack_at_start=300, after_button=4, table=1),
        ],
        players_left=4,
        prizes=prizes,
    )
    # Places 3 and 4 on equal stacks at two tables of a hand-for-hand round: 1,001 shared, table 1 first.
    assert finishes == (Finish(2, 3, 501), Finish(1, 3, 500))


def test_busts_that_leave_nobody_are_refused() -> None:
    with pytest.raises(ValueError):
        busts_finish(busts=[Bust(1, 10, 1), Bust(2, 10, 2)], players_left=2, prizes=(100,))
    with pytest.raises(ValueError):
        busts_finish(busts=[Bust(1, 10, 1), Bust(1, 10, 2)], players_left=5, prizes=(100,))


@settings(max_examples=200, deadline=None)
@given(
    entrants=st.integers(2, 60),
    pool=st.integers(0, 10**9),
    data=st.data(),
)
def test_a_whole_tournament_pays_out_the_pool_exactly(entrants: int, pool: int, data: st.DataObject) -> None:
    """Random groups of busts, some on equal stacks, down to one winner: every place is taken once and the
    prizes paid add up to the pool."""
    prizes = multi_table_default().prizes(entrants=entrants, pool=pool)
    left = list(range(entrants))
    paid: list[Finish] = []
    while len(left) > 1:
        count = data.draw(st.integers(1, len(left) - 1))
        busted = data.draw(st.permutations(left))[:count]
        stacks = data.draw(st.lists(st.integers(1, 4), min_size=count, max_size=count))
        busts = [
            Bust(entry, stack, index + 1)
            for index, (entry, stack) in enumerate(zip(busted, stacks, strict=True))
        ]
        paid += busts_finish(busts=busts, players_left=len(left), prizes=prizes)
        left = [entry for entry in left if entry not in busted]
    paid.append(Finish(left[0], 1, prizes[0]))
    assert sum(finish.prize for finish in paid) == pool
    assert sorted(finish.entry for finish in paid) == list(range(entrants))


def test_late_registration_closes_when_the_field_reaches_the_money() -> None:
    schedule = multi_table_default()
    # 60 entrants (of up to 60) pay 9 places: late registration closes when 9 are left; 7 of up to 20 pay
    # 2 (65/35), and two more entries (9) would pay 3, but they enter above those out: still 2.
    assert schedule.late_registration_closes_at(entrants=60, max_entrants=60) == 9
    assert schedule.late_registration_closes_at(entrants=7, max_entrants=20) == 2
    assert schedule.late_registration_closes_at(entrants=4, max_entrants=20) == 1
    # A table that jumps from 1 place paid to 5 with one more entrant: a player out with 4 left (5th)
    # could be paid after one more entry, so late registration closes with 4 left already.
    jumpy = PayoutSchedule(
        bands=(PayoutBand(2, 9, (SHARE_TOTAL,)), PayoutBand(10, 20, (40_000, 25_000, 15_000, 10_000, 10_000)))
    )
    assert jumpy.late_registration_closes_at(entrants=9, max_entrants=20) == 4
    assert jumpy.late_registration_closes_at(entrants=9, max_entrants=9) == 1


@settings(max_examples=100, deadline=None)
@given(entrants=st.integers(2, 40), more=st.integers(0, 40), data=st.data())
def test_a_place_left_provisional_by_late_registration_is_never_paid(
    entrants: int, more: int, data: st.DataObject
) -> None:
    """A player out while late registration stays open (more players left than it closes at) finishes below
    the paid places however many enter afterwards: each later entry comes in above them."""
    schedule = multi_table_default(entrants_max=80)
    closes_at = schedule.late_registration_closes_at(entrants=entrants, max_entrants=entrants + more)
    if closes_at + 1 > entrants - 1:
        return  # late registration closes at the first bust
    left_after = data.draw(st.integers(closes_at + 1, entrants - 1))  # the bust left this many
    place_then = left_after + 1
    later = data.draw(st.integers(0, more))
    assert place_then + later > len(schedule.shares_for(entrants=entrants + later))


def test_a_cancelled_tournaments_pool_is_shared_by_chips_to_the_cent():
    from tournaments.rules.payouts import chips_share

    assert chips_share(pool=3_000, chips=[(7, 3_000), (8, 1_000), (9, 500)]) == {7: 2_000, 8: 667, 9: 333}
    assert chips_share(pool=100, chips=[(1, 1), (2, 1), (3, 1)]) == {1: 34, 2: 33, 3: 33}, (
        "earlier entry first"
    )
    for pool in (0, 1, 99, 10_001):
        shares = chips_share(pool=pool, chips=[(1, 2_345), (2, 17), (3, 9_999), (4, 1)])
        assert sum(shares.values()) == pool
        assert shares[3] >= shares[1] >= shares[2] >= shares[4]
    with pytest.raises(PayoutError):
        chips_share(pool=100, chips=[])
