"""SPEC 1.1: a blind posted short by an all-in player does not lower the price of entering.

Pre-flop a caller puts in the full big blind (the straddle, where there is one), what the all-in player did
not cover forms a side pot, and the minimum raise is by a full big blind. When nobody else could still put a
chip in, the call is to what the all-in player posted: more would only come straight back.
"""

from __future__ import annotations

from engine_helpers import legal_map, new_hand, play

from tables.engine import PostKind, room_schedule

DRY_BOARD = "2c7d9s3h4c"  # no straight, no flush: pairs and high cards decide


def _pots(hand):
    return [(pot.amount, pot.eligible) for pot in hand.settlement.pots]


def test_a_short_big_blind_is_called_at_the_full_big_blind_and_raised_by_a_full_one():
    # 5/10, button 3: seat 0 posts 5, seat 1 is all-in for 7 as the big blind.
    hand = new_hand(stacks={0: 500, 1: 7, 2: 500, 3: 500}, button=3, blinds=(5, 10))
    assert hand.bets == {0: 5, 1: 7, 2: 0, 3: 0} and hand.to_act == 2
    assert legal_map(hand) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 500), "all_in": (500, 500)}
    play(hand, (2, "raise", 20))  # by a full big blind over 10, not over 7
    assert legal_map(hand)["raise"] == (30, 500)


def test_the_callers_form_a_side_pot_above_the_short_big_blind():
    holes = {0: "KsKd", 1: "AsAd", 2: "QsQd", 3: "JsJd"}
    hand = new_hand(
        stacks={0: 500, 1: 7, 2: 500, 3: 500}, button=3, blinds=(5, 10), holes=holes, board=DRY_BOARD
    )
    play(hand, (2, "call"), (3, "call"))
    assert legal_map(hand)["call"] == (10, 10)  # the small blind completes to the full big blind
    play(hand, (0, "call"))
    assert hand.street == "flop"  # the all-in big blind has no option
    assert [(pot.amount, pot.eligible) for pot in hand.pots()] == [(28, (0, 1, 2, 3)), (9, (0, 2, 3))]
    for _ in range(3):
        play(hand, (0, "check"), (2, "check"), (3, "check"))
    assert _pots(hand) == [(28, (0, 1, 2, 3)), (9, (0, 2, 3))]
    assert dict(hand.settlement.pots[0].winners) == {1: 28}  # aces: only what they covered
    assert dict(hand.settlement.pots[1].winners) == {0: 9}  # kings: the side pot
    assert hand.settlement.returned == {}
    assert hand.settlement.finishing_stacks == {0: 499, 1: 28, 2: 490, 3: 490}


def test_one_caller_of_a_short_big_blind_gets_back_what_nobody_else_matched():
    hand = new_hand(stacks={0: 500, 1: 7, 2: 500, 3: 500}, button=3, blinds=(5, 10), board=DRY_BOARD)
    play(hand, (2, "call"), (3, "fold"), (0, "fold"))
    assert hand.is_over
    assert hand.settlement.returned == {2: 3}
    assert _pots(hand) == [(19, (1, 2))]  # 7 + 7 + the small blind's 5
    returned = [e.data for e in hand.events if e.kind == "uncalled_returned"]
    assert returned == [{"seat": 2, "amount": 3}]


def test_when_nobody_else_can_match_the_call_is_to_the_all_in_amount():
    # The button folds; the small blind is the only one left who can put chips in.
    hand = new_hand(stacks={0: 500, 1: 7, 2: 500}, button=2, blinds=(5, 10))
    assert legal_map(hand)["call"] == (10, 10)  # the button: the small blind could still match
    play(hand, (2, "fold"))
    assert legal_map(hand) == {"fold": (0, 0), "call": (7, 7)}
    play(hand, (0, "call"))
    assert hand.is_over and hand.settlement.returned == {}
    assert _pots(hand) == [(14, (0, 1))]


def test_the_full_price_applies_only_while_someone_else_could_match_it():
    # The small blind has 1 chip behind its 5: it cannot put in more than the big blind's 7 either.
    hand = new_hand(stacks={0: 6, 1: 7, 2: 500}, button=2, blinds=(5, 10))
    assert legal_map(hand) == {"fold": (0, 0), "call": (7, 7)}


def test_heads_up_the_button_facing_a_short_big_blind_calls_what_was_posted():
    # Heads-up the button (seat 1) posts the small blind and acts first; seat 0 is all-in for 7.
    hand = new_hand(stacks={0: 7, 1: 500}, button=1, blinds=(5, 10))
    assert hand.bets == {0: 7, 1: 5} and hand.to_act == 1
    assert legal_map(hand) == {"fold": (0, 0), "call": (7, 7)}
    play(hand, (1, "call"))
    assert hand.is_over and _pots(hand) == [(14, (0, 1))] and len(hand.board) == 5


def test_a_short_big_blind_below_the_small_blind():
    # The big blind is all-in for 3, less than the small blind's 5: the price is still 10.
    hand = new_hand(stacks={0: 500, 1: 3, 2: 500}, button=2, blinds=(5, 10), board=DRY_BOARD)
    assert legal_map(hand)["call"] == (10, 10) and legal_map(hand)["raise"] == (20, 500)
    play(hand, (2, "call"), (0, "call"))
    assert hand.street == "flop"
    assert [(pot.amount, pot.eligible) for pot in hand.pots()] == [(9, (0, 1, 2)), (14, (0, 2))]


def test_several_short_posts_make_one_side_pot_each():
    # Seat 0 is all-in for 3 as the small blind, seat 1 for 7 as the big blind.
    hand = new_hand(stacks={0: 3, 1: 7, 2: 500, 3: 500}, button=3, blinds=(5, 10), board=DRY_BOARD)
    assert hand.bets == {0: 3, 1: 7, 2: 0, 3: 0}
    assert legal_map(hand)["call"] == (10, 10)
    play(hand, (2, "call"), (3, "call"))
    assert hand.street == "flop"
    assert [(pot.amount, pot.eligible) for pot in hand.pots()] == [
        (12, (0, 1, 2, 3)),
        (12, (1, 2, 3)),
        (6, (2, 3)),
    ]


def test_an_entry_big_blind_posted_short_with_a_short_big_blind():
    # Seat 1 (the big blind) is all-in for 7 and seat 3, back with a live big blind, all-in for 6.
    posts = [(3, PostKind.ENTRY_BIG_BLIND)]
    hand = new_hand(
        stacks={0: 500, 1: 7, 2: 500, 3: 6, 4: 500},
        button=4,
        blinds=(5, 10),
        extra_posts=posts,
        board=DRY_BOARD,
    )
    assert hand.bets == {0: 5, 1: 7, 2: 0, 3: 6, 4: 0} and hand.to_act == 2
    assert legal_map(hand) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 500), "all_in": (500, 500)}
    play(hand, (2, "call"), (4, "call"), (0, "call"))
    assert hand.street == "flop"
    assert [(pot.amount, pot.eligible) for pot in hand.pots()] == [
        (30, (0, 1, 2, 3, 4)),
        (4, (0, 1, 2, 4)),
        (9, (0, 2, 4)),
    ]


def test_a_full_entry_big_blind_keeps_its_option_when_the_big_blind_is_short():
    posts = [(3, PostKind.ENTRY_BIG_BLIND)]
    hand = new_hand(
        stacks={0: 500, 1: 7, 2: 500, 3: 500, 4: 500}, button=4, blinds=(5, 10), extra_posts=posts
    )
    play(hand, (2, "call"))  # the live post acts in its seat's turn, with the option to check
    assert hand.to_act == 3 and legal_map(hand)["check"] == (0, 0) and legal_map(hand)["raise"] == (20, 500)
    play(hand, (3, "check"), (4, "call"), (0, "call"))
    assert hand.street == "flop"


def test_the_big_blinds_option_when_nobody_raises():
    hand = new_hand(stacks={0: 500, 1: 500, 2: 500}, button=2, blinds=(5, 10))
    play(hand, (2, "call"), (0, "call"))
    assert hand.to_act == 1 and legal_map(hand) == {
        "fold": (0, 0),
        "check": (0, 0),
        "raise": (20, 500),
        "all_in": (500, 500),
    }


def test_everyone_folds_to_a_short_big_blind_who_gets_back_what_was_not_matched():
    hand = new_hand(stacks={0: 500, 1: 7, 2: 500}, button=2, blinds=(5, 10))
    play(hand, (2, "fold"), (0, "fold"))
    assert hand.settlement.returned == {1: 2}  # the small blind matched 5 of the 7
    assert _pots(hand) == [(10, (1,))]
    assert hand.settlement.finishing_stacks == {0: 495, 1: 12, 2: 500}


def test_a_walk_the_big_blind_gets_back_what_the_small_blind_did_not_match():
    hand = new_hand(stacks={0: 500, 1: 500, 2: 500}, button=2, blinds=(5, 10), rake=room_schedule(1))
    play(hand, (2, "fold"), (0, "fold"))
    assert hand.settlement.returned == {1: 5}
    assert _pots(hand) == [(10, (1,))] and hand.settlement.rake == 0  # no flop, no drop
    assert hand.settlement.finishing_stacks == {0: 495, 1: 505, 2: 500}


def test_a_short_straddle_does_not_lower_the_price_either():
    # 5/10 with a straddle of 20 posted short: seat 2 is all-in for 15.
    posts = [(2, PostKind.STRADDLE)]
    hand = new_hand(
        stacks={0: 500, 1: 500, 2: 15, 3: 500, 4: 500}, button=4, blinds=(5, 10), extra_posts=posts
    )
    assert hand.bets == {0: 5, 1: 10, 2: 15, 3: 0, 4: 0} and hand.to_act == 3
    assert legal_map(hand)["call"] == (20, 20) and legal_map(hand)["raise"] == (40, 500)


def test_a_straddle_over_a_short_big_blind():
    posts = [(2, PostKind.STRADDLE)]
    hand = new_hand(
        stacks={0: 500, 1: 7, 2: 500, 3: 500, 4: 500}, button=4, blinds=(5, 10), extra_posts=posts
    )
    assert legal_map(hand)["call"] == (20, 20) and legal_map(hand)["raise"] == (40, 500)
    play(hand, (3, "call"), (4, "call"), (0, "call"))
    assert hand.to_act == 2 and "check" in legal_map(hand)  # the straddle's option


def test_pot_limit_maximum_counts_the_full_big_blind_as_the_amount_to_match():
    hand = new_hand(stacks={0: 500, 1: 7, 2: 500, 3: 500}, button=3, blinds=(5, 10), structure="pl")
    # 10 to match + (5 + 7 on the table + 10 to call) = 32.
    assert legal_map(hand) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 32)}
    play(hand, (2, "call"))
    # 10 + (5 + 7 + 10 on the table + 10 to call) = 42
    assert legal_map(hand)["raise"] == (20, 42)


def test_fixed_limit_a_short_big_blind_is_called_at_the_small_bet():
    hand = new_hand(
        stacks={0: 500, 1: 7, 2: 500, 3: 500},
        button=3,
        blinds=(5, 10),
        structure="fl",
        small_bet=10,
        big_bet=20,
    )
    assert legal_map(hand) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 20)}
    # The blind and three raises: the cap.
    play(hand, (2, "call"), (3, "raise", 20), (0, "raise", 30), (2, "raise", 40))
    assert legal_map(hand) == {"fold": (0, 0), "call": (40, 40)}


def test_a_short_big_blind_hand_is_settled_and_raked_on_the_pots_together():
    holes = {0: "KsKd", 1: "AsAd", 2: "QsQd"}
    hand = new_hand(
        stacks={0: 5000, 1: 70, 2: 5000},
        button=2,
        blinds=(50, 100),
        holes=holes,
        board=DRY_BOARD,
        rake=room_schedule(1),
    )
    play(hand, (2, "call"), (0, "call"))
    for _ in range(3):
        play(hand, (0, "check"), (2, "check"))
    s = hand.settlement
    assert _pots(hand) == [(210, (0, 1, 2)), (60, (0, 2))]
    assert s.rake == 270 // 18 and [pot.rake for pot in s.pots] == [12, 3]
    assert dict(s.pots[0].winners) == {1: 198} and dict(s.pots[1].winners) == {0: 57}
    assert sum(s.finishing_stacks.values()) + s.rake == 10070
