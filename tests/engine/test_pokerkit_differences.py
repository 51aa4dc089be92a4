"""What pokerkit 0.7.7 does on its own where the room's rules differ: the reasons for the wrapping in
``tables.engine.hand``. If one of these starts failing after a pokerkit upgrade, revisit the wrapper."""

from __future__ import annotations

from engine_helpers import legal_map, new_hand, play
from pokerkit import Automation, FixedLimitTexasHoldem, NoLimitTexasHoldem

from tables.engine import fixed_limit_small_blind

AUTOMATIC = tuple(Automation)


def test_pokerkit_allows_five_bets_preflop_in_fixed_limit_the_room_four():
    state = FixedLimitTexasHoldem.create_state(AUTOMATIC, True, 0, (1, 2), 2, 4, 200, 6)
    raises = 0
    while state.can_complete_bet_or_raise_to():
        state.complete_bet_or_raise_to()
        raises += 1
    assert raises == 4 and max(state.bets) == 10  # blind + four raises = five bets
    hand = new_hand(stacks={s: 200 for s in range(6)}, button=5, structure="fl", small_bet=2, big_bet=4)
    play(hand, (2, "raise", 4), (3, "raise", 6), (4, "raise", 8))
    assert "raise" not in legal_map(hand)


def test_pokerkit_reopens_the_betting_after_a_preflop_all_in_below_a_full_raise():
    state = NoLimitTexasHoldem.create_state(AUTOMATIC, True, 0, (1, 2), 2, (100, 100, 100, 3, 100, 100), 6)
    state.check_or_call()  # seat 2 limps
    state.complete_bet_or_raise_to(3)  # seat 3 all-in, one chip over the big blind
    for _ in range(4):
        state.check_or_call()
    assert state.actor_index == 2 and state.can_complete_bet_or_raise_to()  # the limper may re-raise
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100, 3: 3, 4: 100, 5: 100}, button=5)
    play(hand, (2, "call"), (3, "all_in"), (4, "call"), (5, "call"), (0, "call"), (1, "call"))
    assert "raise" not in legal_map(hand)


def test_fixed_limit_small_blind_is_half_the_small_bet_rounded_down_to_the_chip():
    assert fixed_limit_small_blind(small_bet=500, chip=1) == 250  # a 5/10 game posts 2.50 and 5
    assert fixed_limit_small_blind(small_bet=10, chip=5) == 5
    assert fixed_limit_small_blind(small_bet=25, chip=5) == 10
    assert fixed_limit_small_blind(small_bet=5, chip=1) == 2
