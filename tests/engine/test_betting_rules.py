"""SPEC 1.1 betting, one hand-made case per rule: turn order, minimum raises, short all-ins, Pot-Limit
and Fixed-Limit limits, straddle, bomb pot, forced posts, legal lists and refused actions."""

from __future__ import annotations

import pytest
from engine_helpers import legal_map, new_hand, play

from tables.engine import Action, IllegalAction, PostKind, replay

SIX = {seat: 100 for seat in range(6)}  # button 5: seat 0 small blind, 1 big blind, 2 first to act


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after():
    hand = new_hand(stacks={0: 100, 1: 100}, button=1)
    assert hand.bets == {0: 2, 1: 1}  # seat 0 big blind, the button (1) the small blind
    assert hand.to_act == 1
    assert legal_map(hand) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 100), "all_in": (100, 100)}
    play(hand, (1, "call"))
    assert hand.to_act == 0 and "check" in legal_map(hand)  # the big blind's option
    play(hand, (0, "check"))
    assert hand.street == "flop" and hand.to_act == 0  # big blind first after the flop
    # Dealing: first card to the big blind (first seat clockwise of the button), button last.
    assert hand.deck_map.hole == {0: (0, 2), 1: (1, 3)}
    assert hand.deck_map.burn == (4,) and hand.deck_map.board == (5, 6, 7)


def test_preflop_order_and_minimum_raise_by_the_last_full_raise():
    hand = new_hand(stacks=SIX, button=5)
    assert hand.to_act == 2
    assert legal_map(hand)["raise"] == (4, 100)
    play(hand, (2, "raise", 6))  # raise by 4
    assert legal_map(hand)["raise"] == (10, 100)
    with pytest.raises(IllegalAction, match="minimum raise is to 10"):
        hand.act(Action(3, "raise", 9))
    play(hand, (3, "raise", 20))  # raise by 14
    assert legal_map(hand)["raise"] == (34, 100)


def test_fold_is_allowed_when_check_is_free():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100}, button=2)
    play(hand, (2, "call"), (0, "call"))
    assert "fold" in legal_map(hand) and "check" in legal_map(hand)
    play(hand, (1, "fold"))
    assert hand.street == "flop"


def _to_flop(hand, *seats_in_order):
    for seat in seats_in_order:
        legal = legal_map(hand)
        play(hand, (seat, "check" if "check" in legal else "call"))
    assert hand.street == "flop"
    return hand


def test_a_short_all_in_does_not_reopen_the_betting():
    # Seat 1 has 15 behind on the flop: its all-in over a bet of 10 is 5 short of a full raise.
    hand = _to_flop(new_hand(stacks={0: 100, 1: 17, 2: 100}, button=2), 2, 0, 1)
    play(hand, (0, "bet", 10), (1, "all_in"))
    assert hand.bets == {0: 10, 1: 15, 2: 0}
    assert legal_map(hand)["raise"] == (25, 98)  # seat 2 has not acted: may raise, by a full 10
    play(hand, (2, "call"))
    assert legal_map(hand) == {"fold": (0, 0), "call": (15, 15)}  # seat 0 only faces 5 more
    before = hand.log[:], len(hand.events)
    with pytest.raises(IllegalAction, match="not reopened"):
        hand.act(Action(0, "raise", 30))
    assert (hand.log, len(hand.events)) == before


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_it():
    stacks = {0: 100, 1: 18, 2: 23, 3: 100}
    hand = _to_flop(new_hand(stacks=stacks, button=3), 2, 3, 0, 1)
    play(hand, (0, "bet", 10), (1, "all_in"), (2, "all_in"))  # 16 (+6) then 21 (+5): together +11
    play(hand, (3, "call"))
    assert legal_map(hand)["raise"] == (31, 98)  # reopened; the full raise is still 10

    hand = _to_flop(new_hand(stacks=stacks, button=3), 2, 3, 0, 1)
    play(hand, (0, "bet", 10), (1, "all_in"), (2, "fold"), (3, "call"))
    assert "raise" not in legal_map(hand) and "all_in" not in legal_map(hand)


def test_preflop_all_in_below_the_big_blind_raise_is_short():
    """pokerkit counts the first pre-flop raise by less than the big blind as a full raise."""
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100, 3: 3, 4: 100, 5: 100}, button=5)
    play(hand, (2, "call"), (3, "all_in"))  # to 3: one chip over the big blind
    assert legal_map(hand)["raise"] == (5, 100)  # seat 4: by the big blind over 3
    play(hand, (4, "call"), (5, "call"), (0, "call"), (1, "call"))
    assert legal_map(hand) == {"fold": (0, 0), "call": (3, 3)}  # seat 2 limped: not reopened


def test_pot_limit_maximum():
    hand = new_hand(stacks=SIX, button=5, structure="pl")
    assert legal_map(hand)["raise"] == (4, 7)  # 2 + (3 on the table + 2 to call)
    play(hand, (2, "raise", 7))
    # 7 + (1 + 2 + 7 on the table + 7 to call) = 24
    assert legal_map(hand)["raise"] == (12, 24)
    play(hand, (3, "call"), (4, "fold"), (5, "fold"), (0, "fold"), (1, "fold"))
    assert hand.street == "flop"
    assert legal_map(hand)["bet"] == (2, 17)  # the pot: 1 + 2 + 7 + 7
    play(hand, (2, "bet", 17))
    assert legal_map(hand)["raise"] == (34, 68)  # 17 + (17 + 17 + 17)
    assert "all_in" not in legal_map(hand)
    with pytest.raises(IllegalAction, match="maximum raise is to 68"):
        hand.act(Action(3, "raise", 69))


def test_pot_limit_all_in_is_legal_when_within_the_pot():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 6}, button=2, structure="pl")
    assert legal_map(hand)["all_in"] == (6, 6)


def test_fixed_limit_four_bets_preflop_with_the_big_blind_as_the_first():
    hand = new_hand(stacks=SIX, button=5, structure="fl", small_bet=2, big_bet=4)
    assert legal_map(hand)["raise"] == (4, 4)
    play(hand, (2, "raise", 4), (3, "raise", 6), (4, "raise", 8))  # bets 2, 3 and 4
    assert legal_map(hand) == {"fold": (0, 0), "call": (8, 8)}  # capped: pokerkit would allow a fifth
    with pytest.raises(IllegalAction, match="capped"):
        hand.act(Action(5, "raise", 10))
    play(hand, (5, "call"), (0, "call"), (1, "call"), (2, "call"), (3, "call"))
    assert hand.street == "flop"
    assert legal_map(hand)["bet"] == (2, 2)
    play(hand, (0, "bet", 2), (1, "raise", 4), (2, "raise", 6), (3, "raise", 8))
    assert "raise" not in legal_map(hand)  # a bet and three raises
    play(hand, (4, "call"), (5, "call"), (0, "call"), (1, "call"), (2, "call"))
    assert hand.street == "turn" and legal_map(hand)["bet"] == (4, 4)  # the big bet


def _fl_flop(stacks):
    hand = new_hand(stacks=stacks, button=2, blinds=(5, 10), structure="fl", small_bet=10, big_bet=20)
    return _to_flop(hand, 2, 0, 1)


def test_fixed_limit_all_in_of_half_a_bet_is_a_raise():
    hand = _fl_flop({0: 200, 1: 25, 2: 200})  # seat 1 has 15 on the flop: 10 + 5, half a bet more
    play(hand, (0, "bet", 10), (1, "all_in"))
    assert legal_map(hand)["raise"] == (25, 25)  # a full bet over the all-in
    play(hand, (2, "call"))
    assert legal_map(hand)["raise"] == (25, 25)  # reopened for the bettor


def test_fixed_limit_all_in_of_less_than_half_a_bet_is_a_call():
    hand = _fl_flop({0: 200, 1: 24, 2: 200})  # 14: four over the bet, less than half of 10
    play(hand, (0, "bet", 10), (1, "all_in"))
    assert legal_map(hand)["raise"] == (20, 20)  # the raise completes over the last full bet
    play(hand, (2, "call"))
    assert legal_map(hand) == {"fold": (0, 0), "call": (14, 14)}  # not reopened


def test_fixed_limit_all_in_below_half_a_bet_opening_a_round_is_called_or_completed_not_raised():
    hand = _fl_flop({0: 14, 1: 200, 2: 200})  # seat 0 has 4 left on the flop, less than half of 10
    play(hand, (0, "all_in"))
    assert legal_map(hand) == {"fold": (0, 0), "call": (4, 4), "raise": (10, 10)}
    play(hand, (1, "raise", 10))  # completed to the bet: the first of the round's four
    assert legal_map(hand) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 20)}


def _fl_six(stacks):
    return new_hand(stacks=stacks, button=5, blinds=(5, 10), structure="fl", small_bet=10, big_bet=20)


def test_fixed_limit_all_in_of_half_a_bet_counts_toward_the_cap():
    hand = _fl_six({0: 200, 1: 200, 2: 200, 3: 200, 4: 35, 5: 200})
    play(hand, (2, "raise", 20), (3, "raise", 30), (4, "all_in"))  # 35: half a bet over 30, the fourth bet
    assert legal_map(hand) == {"fold": (0, 0), "call": (35, 35)}


def test_fixed_limit_all_in_below_half_a_bet_may_be_completed_to_the_full_bet():
    hand = _fl_six({0: 200, 1: 200, 2: 200, 3: 200, 4: 34, 5: 200})
    play(hand, (2, "raise", 20), (3, "raise", 30), (4, "all_in"))  # 34: not a raise, the cap is not reached
    assert legal_map(hand) == {"fold": (0, 0), "call": (34, 34), "raise": (40, 40)}
    play(hand, (5, "raise", 40))  # the fourth bet
    assert legal_map(hand) == {"fold": (0, 0), "call": (40, 40)}


def test_straddle_acts_last_and_doubles_the_minimum_raise():
    hand = new_hand(stacks=SIX, button=5, extra_posts=[(2, PostKind.STRADDLE)])
    assert hand.bets == {0: 1, 1: 2, 2: 4, 3: 0, 4: 0, 5: 0}
    assert hand.to_act == 3
    assert legal_map(hand)["call"] == (4, 4) and legal_map(hand)["raise"] == (8, 100)
    play(hand, (3, "call"), (4, "call"), (5, "call"), (0, "call"), (1, "call"))
    assert hand.to_act == 2 and "check" in legal_map(hand)  # the straddler's option
    play(hand, (2, "raise", 12))
    assert legal_map(hand)["raise"] == (20, 100)


def test_bomb_pot_starts_on_the_flop():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100, 3: 100}, button=3, sb=-1, bb=-1, bomb_pot=10)
    assert len(hand.board) == 3 and hand.street == "flop"
    assert hand.pots()[0].amount == 40 and hand.bets == {0: 0, 1: 0, 2: 0, 3: 0}
    assert hand.to_act == 0 and legal_map(hand)["bet"] == (2, 90)
    assert hand.deck_map.burn == (8,) and hand.deck_map.board == (9, 10, 11)


def test_dead_small_blind_and_entry_big_blind():
    posts = [(3, PostKind.ENTRY_BIG_BLIND), (3, PostKind.DEAD_SMALL_BLIND)]
    hand = new_hand(stacks=SIX, button=5, extra_posts=posts)
    assert hand.bets == {0: 1, 1: 2, 2: 0, 3: 2, 4: 0, 5: 0}  # the dead small blind is not a bet
    assert hand.dead_money() == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0}
    assert hand.stacks[3] == 97
    assert hand.to_act == 2 and legal_map(hand)["raise"] == (4, 100)
    play(hand, (2, "call"))
    assert hand.to_act == 3 and "check" in legal_map(hand)  # a live post has the option
    play(hand, (3, "check"), (4, "fold"), (5, "fold"), (0, "call"), (1, "check"))
    assert hand.street == "flop" and hand.pots()[0].amount == 9  # 4 x 2 live + 1 dead


def test_no_small_blind_dead_small_blind_position():
    hand = new_hand(stacks={0: 100, 2: 100, 3: 100, 4: 100}, button=4, sb=-1, bb=0)
    assert hand.bets == {0: 2, 2: 0, 3: 0, 4: 0} and hand.to_act == 2


def test_big_blind_posted_short_is_called_and_raised_by_the_full_big_blind():
    hand = new_hand(stacks={0: 100, 1: 1, 2: 100, 3: 100}, button=3)
    assert hand.bets == {0: 1, 1: 1, 2: 0, 3: 0}
    assert legal_map(hand)["call"] == (2, 2) and legal_map(hand)["raise"] == (4, 100)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action(3, "call"), "not your turn"),
        (Action(7, "call"), "not in this hand"),
        (Action(2, "raise", 3), "minimum raise is to 4"),
        (Action(2, "raise", 101), "you have only 100"),
        (Action(2, "raise", 6.0), "whole number"),
        (Action(2, "raise", True), "whole number"),
        (Action(2, "raise", "6"), "whole number"),
        (Action(2, "raise", -4), "negative"),
        (Action(2, "check"), "cannot check"),
        (Action(2, "bet", 6), "raise"),
        (Action(2, "raise"), "needs an amount"),
        (Action(2, "call", 3), "calling makes your bet 2"),
        (Action(2, "show"), "no showdown"),
        (Action(2, "dance"), "unknown action"),
        (Action(True, "call"), "seat must be an integer"),
        ("raise", "not an action"),
    ],
)
def test_illegal_actions_are_refused_and_change_nothing(action, message):
    hand = new_hand(stacks=SIX, button=5)
    snapshot = (hand.to_act, hand.legal_actions(), hand.stacks, hand.bets, len(hand.events), hand.action_no)
    with pytest.raises(IllegalAction, match=message):
        hand.act(action)
    assert (
        hand.to_act,
        hand.legal_actions(),
        hand.stacks,
        hand.bets,
        len(hand.events),
        hand.action_no,
    ) == snapshot


def test_amounts_must_be_multiples_of_the_smallest_chip():
    hand = new_hand(stacks={0: 1000, 1: 1000, 2: 1000}, button=2, blinds=(5, 10), chip=5)
    with pytest.raises(IllegalAction, match="steps of 5"):
        hand.act(Action(2, "raise", 22))
    play(hand, (2, "raise", 25))
    assert legal_map(hand)["raise"] == (40, 1000)


def test_acting_after_the_end_is_refused():
    hand = new_hand(stacks={0: 100, 1: 100}, button=1)
    play(hand, (1, "fold"))
    assert hand.is_over
    with pytest.raises(IllegalAction, match="over"):
        hand.act(Action(0, "check"))


def test_act_returns_its_events_and_replay_rebuilds_the_same_hand():
    hand = new_hand(stacks=SIX, button=5)
    events = hand.act(Action(2, "raise", 6))
    assert hand.action_no == 1 and hand.to_act == 3
    assert [event.kind for event in events] == ["acted"] and events == hand.events[-1:]
    again = replay(config=hand.config, actions=[action.as_dict() for action in hand.log])
    assert again.legal_actions() == hand.legal_actions() and again.events == hand.events


def test_legal_list_when_the_stack_cannot_cover_a_call_or_a_raise():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 50}, button=2)
    play(hand, (2, "call"), (0, "raise", 60))
    assert hand.to_act == 1
    play(hand, (1, "call"))
    assert hand.to_act == 2
    # 48 behind against a bet of 60: only fold, or call all-in.
    assert legal_map(hand) == {"fold": (0, 0), "call": (50, 50), "all_in": (50, 50)}


def test_omaha_deals_four_cards_one_at_a_time():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100}, button=2, variant="omaha", structure="pl")
    assert hand.deck_map.hole == {0: (0, 3, 6, 9), 1: (1, 4, 7, 10), 2: (2, 5, 8, 11)}
    assert all(len(hand.hole_cards(seat)) == 4 for seat in (0, 1, 2))


def test_view_shows_a_player_their_own_cards_and_legal_actions_only():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100}, button=2, holes={0: "AsAd", 1: "KsKd", 2: "QsQd"})
    mine = hand.view(seat=2)
    spectator = hand.view(seat=None)
    assert [s["cards"] for s in mine["seats"]] == [None, None, ["Qs", "Qd"]]
    assert [s["cards"] for s in spectator["seats"]] == [None, None, None]
    assert mine["legal"] == hand.legal_actions() and spectator["legal"] is None
    assert hand.view(seat=0)["legal"] is None  # not seat 0's turn
    assert [s["bet"] for s in mine["seats"]] == [1, 2, 0]
    play(hand, (2, "raise", 6), (0, "call"), (1, "fold"))
    view = hand.view(seat=None)
    assert view["street"] == "flop" and len(view["board"]) == 3
    assert view["pots"] == [{"amount": 14, "rake": 0, "net": 14, "eligible": [0, 2]}]
    assert [s["status"] for s in view["seats"]] == ["active", "folded", "active"]
