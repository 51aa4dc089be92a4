"""SPEC 1.1 showdown and settlement, 1.2 rake, 1.4 Hi-Lo: hand-made cases with known answers."""

from __future__ import annotations

import pytest
from engine_helpers import new_hand, play

from tables.engine import Action, IllegalAction, room_schedule, visible_events
from tables.engine.rake import ROOM_RAKE_001, ROOM_RAKE_005, RakeCap, RakeRule, RakeSchedule, spread_rake
from tables.engine.settlement import split_evenly

# No straight, no flush: 2 3 4 7 9 in four suits.
DRY_BOARD = "2c7d9s3h4c"


def test_three_all_ins_for_different_amounts_side_pots_and_a_split():
    hand = new_hand(
        stacks={0: 50, 1: 100, 2: 200},
        button=2,
        holes={0: "AhAd", 1: "KsKd", 2: "KcKh"},
        board=DRY_BOARD,
    )
    play(hand, (2, "all_in"), (0, "all_in"), (1, "all_in"))
    s = hand.settlement
    assert s.returned == {2: 100}  # nobody covered the last 100
    assert [(p.amount, p.eligible, dict(p.winners)) for p in s.pots] == [
        (150, (0, 1, 2), {0: 150}),  # aces win the main pot
        (100, (1, 2), {1: 50, 2: 50}),  # the kings split the side pot
    ]
    assert s.finishing_stacks == {0: 150, 1: 50, 2: 150}
    assert len(hand.board) == 5 and hand.shown_cards() == {0: ["Ah", "Ad"], 1: ["Ks", "Kd"], 2: ["Kc", "Kh"]}


def test_odd_chip_goes_to_the_first_winner_clockwise_after_the_button():
    # Seat 0 folds its small blind: the pot is 5, the royal flush on the board plays for 1 and 2.
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100}, button=2, board="AsKsQsJsTs")
    play(hand, (2, "call"), (0, "fold"), (1, "check"))
    for _ in range(3):
        play(hand, (1, "check"), (2, "check"))
    pot = hand.settlement.pots[0]
    assert pot.amount == 5 and dict(pot.winners) == {1: 3, 2: 2}


def test_odd_chip_heads_up_goes_to_the_big_blind():
    # Heads-up the big blind (seat 0) is first after the button; an ante makes the pot odd.
    hand = new_hand(stacks={0: 100, 1: 100}, button=1, board="AsKsQsJsTs", antes={0: 1})
    play(hand, (1, "call"), (0, "check"))
    for _ in range(3):
        play(hand, (0, "check"), (1, "check"))
    assert dict(hand.settlement.pots[0].winners) == {0: 3, 1: 2}


def test_split_evenly_odd_chips_one_each_in_order_and_in_chip_units():
    assert split_evenly(amount=11, winners=[4, 1, 2], order=[1, 2, 3, 4], chip=1) == {1: 4, 2: 4, 4: 3}
    assert split_evenly(amount=35, winners=[2, 1], order=[2, 1], chip=5) == {2: 20, 1: 15}


def _hilo(stacks, holes, board, **kwargs):
    hand = new_hand(
        stacks=stacks,
        button=max(stacks),
        holes=holes,
        board=board,
        variant="omaha_hilo",
        structure="pl",
        **kwargs,
    )
    while not hand.is_over:
        legal = {entry["action"] for entry in hand.legal_actions()}
        play(hand, (hand.to_act, "check" if "check" in legal else "call"))
    return hand


HIGH = "AhKh9c9d"  # kings full? no: trips kings with the board's pair, no low (only the ace is low)
LOW_B = "3c5cQhJh"  # 7-5-4-3-2 low
LOW_C = "3h5sQdJd"  # the same low
LOW_BOARD = "2s4d7hKcKd"


def test_hi_lo_high_and_low_halves_odd_chip_to_the_high():
    hand = _hilo({0: 100, 1: 100}, {1: HIGH, 0: LOW_B}, LOW_BOARD, antes={0: 1})
    pot = hand.settlement.pots[0]
    assert pot.amount == 5 and pot.high_winners == (1,) and pot.low_winners == (0,)
    assert dict(pot.winners) == {1: 3, 0: 2}


def test_hi_lo_without_a_qualifying_low_the_high_scoops():
    hand = _hilo({0: 100, 1: 100}, {1: HIGH, 0: LOW_B}, "Ts8dJsKcKd")
    pot = hand.settlement.pots[0]
    assert pot.low_winners == () and dict(pot.winners) == {1: 4}


def test_hi_lo_quartering():
    hand = _hilo({0: 100, 1: 100, 2: 100}, {2: HIGH, 0: LOW_B, 1: LOW_C}, LOW_BOARD)
    pot = hand.settlement.pots[0]
    assert pot.amount == 6 and pot.high_winners == (2,) and pot.low_winners == (0, 1)
    assert dict(pot.winners) == {2: 3, 0: 2, 1: 1}  # a quarter each, the odd chip to seat 0
    assert hand.settlement.finishing_stacks == {0: 100, 1: 99, 2: 101}


def test_hi_lo_rake_comes_off_before_halving():
    schedule = RakeSchedule(rule=RakeRule.PER_MILLE, chip=1, per_mille=500)  # half the pot, for clarity
    hand = _hilo({0: 100, 1: 100}, {1: HIGH, 0: LOW_B}, LOW_BOARD, rake=schedule)
    pot = hand.settlement.pots[0]
    assert (pot.amount, pot.rake, pot.net) == (4, 2, 2) and dict(pot.winners) == {1: 1, 0: 1}


def test_spec_rake_example_button_raises_blinds_fold_4_returned_pot_5_no_rake():
    hand = new_hand(stacks={0: 20000, 1: 20000, 2: 20000}, button=2, blinds=(100, 200), rake=room_schedule(1))
    play(hand, (2, "raise", 600), (0, "fold"), (1, "fold"))
    s = hand.settlement
    assert s.returned == {2: 400}  # only the part of the raise nobody matched
    assert s.rake == 0 and [(pot.amount, pot.net, dict(pot.winners)) for pot in s.pots] == [
        (500, 500, {2: 500})
    ]
    assert s.finishing_stacks == {0: 19900, 1: 19800, 2: 20300}
    assert hand.winner_may_show == 2
    ends = [
        (e.kind, e.data.get("amount")) for e in hand.events if e.kind in ("uncalled_returned", "pot_awarded")
    ]
    assert ends == [("uncalled_returned", 400), ("pot_awarded", 500)]


def test_a_raise_everyone_folds_to_returns_only_the_unmatched_part_and_the_rest_is_raked():
    # 10/20, three players: pot 60 after the flop; 40 bet, raised to 200, both fold.
    hand = new_hand(stacks={0: 1000, 1: 1000, 2: 1000}, button=2, blinds=(10, 20), rake=room_schedule(1))
    play(hand, (2, "call"), (0, "call"), (1, "check"))
    assert hand.street == "flop" and hand.pots()[0].amount == 60
    play(hand, (0, "bet", 40), (1, "raise", 200), (2, "fold"), (0, "fold"))
    s = hand.settlement
    assert s.returned == {1: 160}
    assert [(pot.amount, pot.rake, pot.net, dict(pot.winners)) for pot in s.pots] == [(140, 7, 133, {1: 133})]
    assert s.rake == 140 // 18
    assert s.finishing_stacks == {0: 940, 1: 1073, 2: 980}
    assert [e.data for e in hand.events if e.kind == "uncalled_returned"] == [{"seat": 1, "amount": 160}]
    ended = next(e.data for e in hand.events if e.kind == "hand_ended")
    assert ended["rake"] == 7 and ended["stacks"] == {"0": 940, "1": 1073, "2": 980}


def test_spec_rake_example_heads_up_all_in_capped_winner_gets_399():
    hand = new_hand(
        stacks={0: 20000, 1: 20000},
        button=1,
        blinds=(100, 200),
        rake=room_schedule(1),
        holes={0: "AsAd", 1: "8h6d"},
        board=DRY_BOARD,
    )
    play(hand, (1, "all_in"), (0, "call"))
    s = hand.settlement
    assert s.rake == 100 and s.pots[0].amount == 40000 and s.pots[0].net == 39900
    assert s.finishing_stacks == {0: 39900, 1: 0}


def test_no_flop_no_drop_but_a_preflop_all_in_run_out_is_raked():
    hand = new_hand(stacks={0: 1000, 1: 1000, 2: 1000}, button=2, rake=room_schedule(1))
    play(hand, (2, "raise", 500), (0, "call"), (1, "fold"))
    assert hand.street == "flop"
    play(hand, (0, "check"), (2, "bet", 500), (0, "fold"))  # pot 1002 (500 + 500 + 2)
    assert hand.settlement.rake == 1002 // 18

    hand = new_hand(stacks={0: 1000, 1: 1000, 2: 1000}, button=2, rake=room_schedule(1))
    play(hand, (2, "all_in"), (0, "fold"), (1, "call"))
    assert len(hand.board) == 5 and hand.settlement.rake == min(2001 // 18, 100)


def test_rake_cap_spread_over_several_pots_in_proportion_leftover_to_the_main_pot():
    # BB 20 cents, 3 players: cap 2.00. Pots 3000 and 2666: uncapped 314 -> 200.
    hand = new_hand(
        stacks={0: 1000, 1: 2333, 2: 4000},
        button=2,
        blinds=(10, 20),
        rake=room_schedule(1),
        holes={0: "AsAd", 1: "KsKd", 2: "QsQd"},
        board=DRY_BOARD,
    )
    play(hand, (2, "all_in"), (0, "all_in"), (1, "all_in"))
    s = hand.settlement
    assert [pot.amount for pot in s.pots] == [3000, 2666]
    assert [pot.rake for pot in s.pots] == [106, 94] and s.rake == 200
    assert s.finishing_stacks == {0: 3000 - 106, 1: 2666 - 94, 2: 4000 - 2333}


def test_spread_rake_rounds_down_and_gives_leftovers_from_the_main_pot():
    assert spread_rake(pots=[100, 100, 100], rake=4) == [2, 1, 1]
    assert spread_rake(pots=[1000, 10], rake=0) == [0, 0]
    assert spread_rake(pots=[500, 300], rake=40, chip=5) == [25, 15]


@pytest.mark.parametrize(
    ("total", "players", "big_blind", "rake"),
    [
        (17, 2, 2, 0),  # under 0.18: nothing
        (18, 2, 2, 1),
        (3599, 6, 2, 199),
        (100000, 2, 2, 100),  # caps: 2 players, 1.00
        (100000, 4, 10, 100),  # 3-4 players, big blind under 0.20
        (100000, 4, 20, 200),
        (100000, 3, 400, 300),
        (100000, 6, 10, 200),  # 5 or more
        (100000, 9, 399, 300),
        (100000, 5, 1000, 300),
    ],
)
def test_room_schedule_per_unit_and_caps(total, players, big_blind, rake):
    assert ROOM_RAKE_001.rake_for(total=total, players=players, big_blind=big_blind, saw_flop=True) == rake


def test_room_schedule_for_005_chip_tables():
    assert room_schedule(5) is ROOM_RAKE_005
    assert ROOM_RAKE_005.rake_for(total=1000, players=6, big_blind=10, saw_flop=True) == 55
    assert ROOM_RAKE_005.rake_for(total=990, players=6, big_blind=10, saw_flop=True) == 50  # 54.45 -> 50
    assert ROOM_RAKE_005.rake_for(total=100000, players=6, big_blind=10, saw_flop=True) == 200
    assert ROOM_RAKE_005.rake_for(total=1000, players=6, big_blind=10, saw_flop=False) == 0
    with pytest.raises(ValueError):
        room_schedule(2)


def test_a_hand_at_a_005_table_splits_in_steps_of_005():
    hand = new_hand(
        stacks={0: 1000, 1: 1000, 2: 1000},
        button=2,
        blinds=(5, 10),
        chip=5,
        rake=room_schedule(5),
        board="AsKsQsJsTs",
    )
    play(hand, (2, "call"), (0, "fold"), (1, "check"))
    for _ in range(3):
        play(hand, (1, "check"), (2, "check"))
    pot = hand.settlement.pots[0]
    assert (pot.amount, pot.rake) == (25, 0)  # 5.5 % of 0.25 rounds down to nothing
    assert dict(pot.winners) == {1: 15, 2: 10}


def test_a_schedule_is_data():
    schedule = RakeSchedule(
        rule=RakeRule.PER_UNIT, per_unit_amount=10, per_unit_rake=1, caps=(RakeCap(2, None, 0, None, 5),)
    )
    assert schedule.rake_for(total=99, players=3, big_blind=2, saw_flop=True) == 5
    assert schedule.rake_for(total=45, players=3, big_blind=2, saw_flop=True) == 4


def _checked_to_river(stacks, holes, board, **kwargs):
    hand = new_hand(stacks=stacks, button=max(stacks), holes=holes, board=board, **kwargs)
    play(hand, *[(seat, "call") for seat in list(stacks)[2:]], (0, "call"), (1, "check"))
    for _ in range(2):
        for seat in sorted(stacks):
            play(hand, (seat, "check"))
    return hand


def test_showdown_last_river_aggressor_shows_first_and_losers_auto_muck():
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}
    hand = _checked_to_river({0: 100, 1: 100, 2: 100}, holes, DRY_BOARD)
    play(hand, (0, "check"), (1, "bet", 10), (2, "call"), (0, "call"))
    kinds = [(e.kind, e.data["seat"]) for e in hand.events if e.kind in ("showdown", "mucked")]
    # Seat 1 bet: it shows first; seat 2 cannot beat kings and mucks; seat 0 shows the winner.
    assert kinds == [("showdown", 1), ("mucked", 2), ("showdown", 0)]
    assert hand.shown_cards() == {0: ["Ah", "Ad"], 1: ["Kh", "Kd"]}
    assert all(
        "QhQd" not in str(e.data) and "Qh" not in e.data.get("cards", []) for e in hand.events if e.to is None
    )


def test_showdown_checked_river_first_active_after_the_button_shows_first():
    holes = {0: "QhQd", 1: "KhKd", 2: "AhAd"}
    hand = _checked_to_river({0: 100, 1: 100, 2: 100}, holes, DRY_BOARD)
    play(hand, (0, "check"), (1, "check"), (2, "check"))
    kinds = [(e.kind, e.data["seat"]) for e in hand.events if e.kind in ("showdown", "mucked")]
    assert kinds == [("showdown", 0), ("showdown", 1), ("showdown", 2)]  # each beats the last


def test_without_auto_muck_the_player_decides_and_a_muck_is_never_shown():
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}
    hand = _checked_to_river({0: 100, 1: 100, 2: 100}, holes, DRY_BOARD, auto_muck={2: False})
    play(hand, (0, "bet", 10), (1, "call"), (2, "call"))
    assert hand.to_act == 2 and hand.phase == "showdown"
    assert [entry["action"] for entry in hand.legal_actions()] == ["show", "muck"]
    with pytest.raises(IllegalAction):
        hand.act(Action(1, "muck"))
    play(hand, (2, "muck"))
    assert hand.is_over and 2 in hand.mucked and 2 not in hand.shown_cards()
    public = visible_events(hand.events, seat=None)
    assert not any("Qh" in e.data.get("cards", []) for e in public)
    assert any("Qh" in e.data.get("cards", []) for e in visible_events(hand.events, seat=2))


def test_a_player_may_show_a_losing_hand():
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}
    hand = _checked_to_river({0: 100, 1: 100, 2: 100}, holes, DRY_BOARD, auto_muck={2: False})
    play(hand, (0, "bet", 10), (1, "call"), (2, "call"), (2, "show"))
    assert hand.shown_cards()[2] == ["Qh", "Qd"]
    assert dict(hand.settlement.pots[0].winners) == {0: 36}


def test_uncontested_winner_mucks_by_default_and_may_show():
    hand = new_hand(stacks={0: 100, 1: 100}, button=1, holes={0: "AsAd", 1: "7c2h"})
    play(hand, (1, "fold"))
    assert hand.shown_cards() == {} and hand.winner_may_show == 0
    play(hand, (0, "show"))
    assert hand.shown_cards() == {0: ["As", "Ad"]} and hand.winner_may_show is None
    with pytest.raises(IllegalAction):
        hand.act(Action(0, "show"))


def test_hole_cards_go_only_to_their_owner():
    hand = new_hand(stacks={0: 100, 1: 100, 2: 100}, button=2, holes={0: "AsAd", 1: "KsKd", 2: "QsQd"})
    for seat, cards in ((0, ["As", "Ad"]), (1, ["Ks", "Kd"]), (2, ["Qs", "Qd"])):
        mine = [e for e in visible_events(hand.events, seat=seat) if e.kind == "dealt" and "cards" in e.data]
        assert [e.data["cards"] for e in mine] == [cards]
    assert not [e for e in visible_events(hand.events, seat=None) if "cards" in e.data]


def test_public_positions_are_board_and_shown_hands_only():
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}
    hand = _checked_to_river({0: 100, 1: 100, 2: 100}, holes, DRY_BOARD)
    play(hand, (0, "check"), (1, "bet", 10), (2, "call"), (0, "call"))
    deck = hand.deck_map
    assert hand.public_positions() == sorted([*deck.board, *deck.hole[0], *deck.hole[1]])
    assert [hand.config.deck[p] for p in deck.board] == ["2c", "7d", "9s", "3h", "4c"]
