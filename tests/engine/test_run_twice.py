"""Run it twice (issue 16): when every player still in is all-in (or all but one) before the river and all of
them agreed, the rest of the board is dealt twice from the same deck, the rake is taken once, and each pot's
net is halved (the odd chip to the first run) and settled on each board."""

from __future__ import annotations

import pytest
from engine_helpers import make_config, new_hand, play

from tables.engine import ConfigError, HandConfig, room_schedule, start_hand
from tables.engine.phh import export_phh, load_phh, play_recorded

BOARD = "2c7d9s3h4c"  # no straight, no flush: aces beat kings beat queens
KINGS_RUN = "KhJc5d8h3s"  # a king for the kings, nothing for anyone else


def _runs(pot):
    return [(run.run, "".join(run.board), run.amount, dict(run.winners)) for run in pot.runs]


def _streets(hand):
    return [
        (e.data["street"], e.data.get("run"), "".join(e.data["board"]))
        for e in hand.events
        if e.kind == "street"
    ]


def _heads_up_all_in_preflop(stacks=None, **kwargs):
    hand = new_hand(
        stacks=stacks or {0: 100, 1: 100},
        button=1,
        holes={0: "AsAd", 1: "KsKd"},
        board=BOARD,
        run_twice={0, 1},
        **kwargs,
    )
    return play(hand, (1, "all_in"), (0, "call"))


def test_heads_up_all_in_preflop_the_board_is_dealt_twice_and_each_run_pays_half():
    hand = _heads_up_all_in_preflop(second_run=KINGS_RUN)
    assert hand.is_over and hand.runs_twice
    assert hand.boards == [["2c", "7d", "9s", "3h", "4c"], ["Kh", "Jc", "5d", "8h", "3s"]]
    assert _streets(hand) == [
        ("flop", 1, "2c7d9s"),
        ("turn", 1, "2c7d9s3h"),
        ("river", 1, "2c7d9s3h4c"),
        ("flop", 2, "KhJc5d"),
        ("turn", 2, "KhJc5d8h"),
        ("river", 2, "KhJc5d8h3s"),
    ]
    (pot,) = hand.settlement.pots
    assert (pot.amount, pot.rake, pot.net) == (200, 0, 200)
    assert _runs(pot) == [(1, "2c7d9s3h4c", 100, {0: 100}), (2, "KhJc5d8h3s", 100, {1: 100})]
    assert dict(pot.winners) == {0: 100, 1: 100} and pot.high_winners == (0, 1)
    assert hand.settlement.finishing_stacks == {0: 100, 1: 100}
    assert pot.as_dict()["runs"][1] == {
        "run": 2,
        "board": ["Kh", "Jc", "5d", "8h", "3s"],
        "amount": 100,
        "winners": {"1": 100},
        "high_winners": [1],
        "low_winners": [],
        "high_amount": 100,
        "low_amount": 0,
    }


def test_the_second_run_is_dealt_after_the_first_with_its_own_burns_and_every_card_is_opened():
    hand = _heads_up_all_in_preflop(second_run=KINGS_RUN)
    deck = hand.deck_map
    assert deck.hole == {0: (0, 2), 1: (1, 3)}
    assert deck.board == (5, 6, 7, 9, 11) and deck.second_board == (13, 14, 15, 17, 19)
    assert deck.burn == (4, 8, 10, 12, 16, 18)
    assert [hand.config.deck[p] for p in deck.second_board] == ["Kh", "Jc", "5d", "8h", "3s"]
    assert hand.public_positions() == sorted([0, 1, 2, 3, *deck.board, *deck.second_board])
    view = hand.view(seat=None)
    assert view["board"] == hand.boards[0] and view["boards"] == hand.boards


def test_all_in_on_the_flop_the_turn_and_river_are_dealt_twice_on_the_shared_flop():
    # Seat 1 covers: all but one player all-in, no more betting possible.
    hand = new_hand(
        stacks={0: 100, 1: 300},
        button=1,
        holes={0: "AhKh", 1: "QsQd"},
        board="Kc7d2s3h4c",
        second_run="Qh5d",
        run_twice={0, 1},
    )
    play(hand, (1, "call"), (0, "check"))
    play(hand, (0, "all_in"), (1, "call"))
    assert hand.boards == [["Kc", "7d", "2s", "3h", "4c"], ["Kc", "7d", "2s", "Qh", "5d"]]
    assert _streets(hand) == [
        ("flop", None, "Kc7d2s"),
        ("turn", 1, "Kc7d2s3h"),
        ("river", 1, "Kc7d2s3h4c"),
        ("turn", 2, "Kc7d2sQh"),
        ("river", 2, "Kc7d2sQh5d"),
    ]
    (pot,) = hand.settlement.pots
    assert _runs(pot) == [(1, "Kc7d2s3h4c", 100, {0: 100}), (2, "Kc7d2sQh5d", 100, {1: 100})]
    assert hand.settlement.returned == {} and hand.settlement.finishing_stacks == {0: 100, 1: 300}
    assert hand.deck_map.burn == (4, 8, 10, 12, 14) and hand.deck_map.second_board == (13, 15)


def _three_way(**kwargs):
    hand = new_hand(
        stacks={0: 50, 1: 100, 2: 100},
        button=2,
        holes={0: "AsAd", 1: "KsKd", 2: "QsQd"},
        board=BOARD,
        second_run="Qh8c5dJh6s",  # a queen for the queens
        run_twice={0, 1, 2},
        **kwargs,
    )
    return play(hand, (2, "all_in"), (0, "all_in"), (1, "call"))


def test_three_players_each_pot_is_halved_and_settled_on_each_board_among_its_players():
    hand = _three_way()
    main, side = hand.settlement.pots
    assert (main.amount, main.eligible, side.amount, side.eligible) == (150, (0, 1, 2), 100, (1, 2))
    assert _runs(main) == [(1, "2c7d9s3h4c", 75, {0: 75}), (2, "Qh8c5dJh6s", 75, {2: 75})]
    assert _runs(side) == [(1, "2c7d9s3h4c", 50, {1: 50}), (2, "Qh8c5dJh6s", 50, {2: 50})]
    assert hand.settlement.finishing_stacks == {0: 75, 1: 50, 2: 125}


def test_the_rake_is_taken_once_on_the_pots_together_then_each_net_is_halved():
    hand = _three_way(rake=room_schedule(1))
    s = hand.settlement
    main, side = s.pots
    assert s.rake == 250 // 18 and [main.rake, side.rake] == [
        8,
        5,
    ]  # in proportion, the leftover from the main
    assert [run.amount for run in main.runs] == [71, 71]
    assert [run.amount for run in side.runs] == [48, 47]  # 95: the odd chip to the first run
    assert s.finishing_stacks == {0: 71, 1: 48, 2: 71 + 47}
    assert sum(s.finishing_stacks.values()) + s.rake == 250


def test_the_odd_chip_of_a_pot_goes_to_the_first_run():
    hand = _heads_up_all_in_preflop({0: 101, 1: 100}, second_run=KINGS_RUN, antes={0: 1})  # a pot of 201
    (pot,) = hand.settlement.pots
    assert _runs(pot) == [(1, "2c7d9s3h4c", 101, {0: 101}), (2, "KhJc5d8h3s", 100, {1: 100})]
    assert hand.settlement.finishing_stacks == {0: 101, 1: 100}


def test_the_odd_chip_at_a_table_whose_smallest_chip_is_five():
    hand = new_hand(
        stacks={0: 1000, 1: 1000},
        button=1,
        blinds=(5, 10),
        chip=5,
        antes={0: 5},
        holes={0: "AsAd", 1: "KsKd"},
        board=BOARD,
        second_run=KINGS_RUN,
        run_twice={0, 1},
    )
    play(hand, (1, "all_in"), (0, "call"))
    (pot,) = hand.settlement.pots
    assert pot.net == 1995 and [run.amount for run in pot.runs] == [1000, 995]


def test_a_split_on_one_run_and_not_on_the_other():
    hand = new_hand(
        stacks={0: 100, 1: 100},
        button=1,
        holes={0: "AhKd", 1: "AsKc"},
        board=BOARD,
        second_run="Qh8hJh2h3s",  # hearts: a flush for seat 0 only
        run_twice={0, 1},
    )
    play(hand, (1, "all_in"), (0, "call"))
    (pot,) = hand.settlement.pots
    assert _runs(pot) == [(1, "2c7d9s3h4c", 100, {0: 50, 1: 50}), (2, "Qh8hJh2h3s", 100, {0: 100})]
    assert hand.settlement.finishing_stacks == {0: 150, 1: 50}


def test_omaha_hi_lo_quartered_on_one_run_and_scooped_on_the_other():
    hand = new_hand(
        stacks={0: 6, 1: 6, 2: 6},
        button=2,
        variant="omaha_hilo",
        structure="pl",
        holes={2: "AhKh9c9d", 0: "3c5cQhJh", 1: "3h5sQdJd"},
        board="2s4d7hKcKd",  # run 1: trip kings for seat 2, the same 7-5-4-3-2 low for seats 0 and 1
        second_run="Ts8dJsKsTd",  # run 2: no low, kings and tens for seat 2
        run_twice={0, 1, 2},
    )
    play(hand, (2, "all_in"), (0, "call"), (1, "call"))
    (pot,) = hand.settlement.pots
    first, second = pot.runs
    assert (first.amount, first.high_winners, first.low_winners) == (9, (2,), (0, 1))
    assert dict(first.winners) == {2: 5, 0: 2, 1: 2}  # 4 for the low quartered, the odd chip to the high
    assert (second.amount, second.high_winners, second.low_winners, dict(second.winners)) == (
        9,
        (2,),
        (),
        {2: 9},
    )
    assert pot.low_winners == (0, 1) and hand.settlement.finishing_stacks == {0: 2, 1: 2, 2: 14}
    # each half's high and low parts, as the table's clients are told them
    assert (first.low_amount, second.low_amount, pot.low_amount) == (4, 0, 4)
    told = pot.as_dict()
    assert (told["high_amount"], told["low_amount"]) == (14, 4)
    assert [(r["high_amount"], r["low_amount"]) for r in told["runs"]] == [(5, 4), (9, 0)]


def test_when_one_player_did_not_agree_the_board_is_run_once():
    hand = new_hand(
        stacks={0: 100, 1: 100},
        button=1,
        holes={0: "AsAd", 1: "KsKd"},
        board=BOARD,
        second_run=KINGS_RUN,
        run_twice={0},
    )
    play(hand, (1, "all_in"), (0, "call"))
    assert not hand.runs_twice and hand.boards == [["2c", "7d", "9s", "3h", "4c"]]
    assert all(run is None for _, run, _ in _streets(hand))
    assert hand.settlement.pots[0].runs == () and "runs" not in hand.settlement.pots[0].as_dict()
    assert hand.deck_map.second_board == () and hand.settlement.finishing_stacks == {0: 200, 1: 0}


def test_a_player_who_folded_need_not_agree():
    hand = new_hand(
        stacks={0: 100, 1: 100, 2: 100},
        button=2,
        holes={0: "AsAd", 1: "KsKd"},
        board=BOARD,
        second_run=KINGS_RUN,
        run_twice={0, 1},
    )
    play(hand, (2, "fold"), (0, "all_in"), (1, "call"))
    assert hand.runs_twice and [run.amount for run in hand.settlement.pots[0].runs] == [100, 100]


def test_the_river_is_never_run_twice_after_the_betting_on_it():
    hand = new_hand(stacks={0: 100, 1: 100}, button=1, board=BOARD, run_twice={0, 1})
    play(hand, (1, "call"), (0, "check"))
    for _ in range(2):
        play(hand, (0, "check"), (1, "check"))
    play(hand, (0, "all_in"), (1, "call"))
    assert hand.is_over and not hand.runs_twice


def test_when_the_deck_cannot_deal_two_runs_the_board_is_run_once():
    # Ten players of Omaha all-in before the flop: 40 hole cards, 8 for one run, 16 for two.
    hand = new_hand(
        stacks={seat: 2 for seat in range(10)},
        button=9,
        variant="omaha",
        structure="pl",
        run_twice=set(range(10)),
    )
    while not hand.is_over:
        play(hand, (hand.to_act, "call"))
    assert not hand.runs_twice and len(hand.board) == 5


def test_the_configuration_keeps_the_seats_that_agreed():
    config = make_config(stacks={0: 100, 1: 100}, button=1, run_twice=[1, 0])
    assert config.run_twice == frozenset({0, 1}) and config.as_dict()["run_twice"] == [0, 1]
    assert HandConfig.from_dict(config.as_dict()).run_twice == frozenset({0, 1})
    assert HandConfig.from_dict({**config.as_dict(), "run_twice": []}).run_twice == frozenset()
    with pytest.raises(ConfigError, match="seat 5 agrees to run it twice but is not dealt in"):
        make_config(stacks={0: 100, 1: 100}, button=1, run_twice={5})


def test_phh_export_writes_both_runs_and_reads_them_back():
    hand = _three_way(rake=None)
    text = export_phh(hand)
    assert "'d db Qh8c5d # run 2'" in text and "'d db 4c # run 1'" in text
    again = play_recorded(load_phh(text))
    assert again.runs_twice and again.boards == hand.boards
    assert again.settlement.finishing_stacks == hand.settlement.finishing_stacks


def test_phh_export_of_a_flop_all_in_run_twice_reads_back():
    hand = new_hand(
        stacks={0: 100, 1: 300},
        button=1,
        holes={0: "AhKh", 1: "QsQd"},
        board="Kc7d2s3h4c",
        second_run="Qh5d",
        run_twice={0, 1},
    )
    play(hand, (1, "call"), (0, "check"), (0, "all_in"), (1, "call"))
    again = play_recorded(load_phh(export_phh(hand)))
    assert again.boards == hand.boards and again.settlement.pots == hand.settlement.pots


def test_replaying_the_log_deals_the_same_two_runs():
    hand = _three_way()
    again = start_hand(config=hand.config)
    for action in hand.log:
        again.act(action)
    assert again.events == hand.events and again.settlement == hand.settlement
