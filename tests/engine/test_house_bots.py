"""The house bots' poker (tables.botplay, issue 34), engine only: legal moves in every game, only what their
seat may see, the same choices from the same seed, the charts' basics (fold trash to a shove, push aces, open
tighter under the gun than on the button, push-or-fold when short), styles that differ, a think time like a
person's, and sit-and-gos of bots that last as long as one among people."""

from __future__ import annotations

import dataclasses
import random
import statistics
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.bots import sit_and_go
from tables.botplay import STYLE_BY_NAME, STYLES, Seen, decide, observe, style_for, think_seconds
from tables.botplay.equity import board_lows, omaha_low
from tables.botplay.ranges import HAND_ORDER
from tables.engine import Action, Hand, HandConfig, PostKind, start_hand
from tables.engine.cards import FULL_DECK, omaha_low_strength
from tests.engine.engine_helpers import stacked_deck
from tests.engine.test_properties import configs


def play_out(hand: Hand, rng: random.Random, seen_log: list[tuple[Seen, tuple[str, int | None]]]) -> None:
    """Every seat a house bot (styles in turn), each move checked against the legal list before it is made."""
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        seen = observe(hand, seat)
        choice = decide(seen, STYLES[seat % len(STYLES)], rng)
        seen_log.append((seen, choice))
        kind, amount = choice
        legal = {str(item["action"]): item for item in hand.legal_actions()}
        assert kind in legal, (kind, legal)
        if amount is not None:
            assert legal[kind]["min"] <= amount <= legal[kind]["max"], (amount, legal[kind])
            assert amount % hand.config.chip == 0
        if kind == "fold":
            assert "check" not in legal, "a bot folded when checking was free"
        hand.act(Action(seat, kind, amount))  # IllegalAction would fail the test


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**32))
def test_a_house_bot_only_ever_makes_a_legal_move_and_never_folds_when_checking_is_free(config, seed):
    """Random hands of every game (Hold'em No-Limit, Pot-Limit, Fixed-Limit; Omaha Pot-Limit; Omaha Hi-Lo
    Pot-Limit and Fixed-Limit), 2 to 10 players, blinds, straddles, antes, bomb pots, short stacks: played to
    the end by bots alone, every move is in the engine's legal list and within its amounts, in whole chips."""
    log: list = []
    play_out(start_hand(config=config), random.Random(seed), log)


def test_what_a_bot_sees_has_no_field_for_other_players_cards_and_its_move_does_not_depend_on_them():
    """`Seen` (the bots' only input) has the seat's own cards and the board, nothing else hidden; two hands
    that differ only in the opponents' hole cards give the same moves from the same seed."""
    fields = {field.name for field in dataclasses.fields(Seen)}
    assert fields == {
        "variant", "structure", "seat", "hole", "board", "street", "order", "button", "stacks", "bets", "pot",
        "folded", "small_blind", "big_blind", "chip", "moves", "legal", "showdown",
    }  # fmt: skip
    order = (1, 2, 3, 0)
    moves_by_deal = []
    for others in (("7c7d", "2h3h", "KdQd"), ("AdAh", "9s8s", "5c4c")):
        holes = {0: "JsJh", 1: others[0], 2: others[1], 3: others[2]}
        deck = stacked_deck(order=order, holes=holes, board="Jd8h2cTs6d")
        hand = start_hand(config=_config(deck=deck, stacks=dict.fromkeys(range(4), 20_000), button=0))
        rng = random.Random(5)
        moves = []
        while not hand.is_over:
            seat = hand.to_act
            if seat == 0:  # the bot; the others check or call whatever they hold
                seen = observe(hand, 0)
                assert seen.hole == (FULL_DECK.index("Js"), FULL_DECK.index("Jh"))
                kind, amount = decide(seen, STYLES[0], rng)
                moves.append((kind, amount))
            else:
                legal = {item["action"] for item in hand.legal_actions()}
                kind, amount = next(k for k in ("show", "check", "call") if k in legal), None
            hand.act(Action(seat, kind, amount))
        moves_by_deal.append(moves)
    assert len(moves_by_deal[0]) >= 3, "the bot acted on several streets"
    assert moves_by_deal[0] == moves_by_deal[1]


def test_the_same_seed_gives_the_same_tournament():
    """Two sit-and-gos from the same seed: the same number of hands, the same decisions."""
    assert sit_and_go(11, _Timer()) == sit_and_go(11, _Timer())


class _Timer:
    def bot(self, hand, seat, rng, style_index):
        return decide(observe(hand, seat), STYLES[style_index % len(STYLES)], rng)


def _config(
    *, deck, stacks, button, big_blind=100, structure="nl", variant="holdem", posts=None
) -> HandConfig:
    order = sorted(stacks, key=lambda seat: (seat - button - 1) % len(stacks))
    if posts is None:
        if len(stacks) == 2:
            posts = ((order[1], PostKind.SMALL_BLIND), (order[0], PostKind.BIG_BLIND))
        else:
            posts = ((order[0], PostKind.SMALL_BLIND), (order[1], PostKind.BIG_BLIND))
    return HandConfig(
        variant=variant,
        structure=structure,
        seat_count=len(stacks),
        stacks=stacks,
        button=button,
        small_blind=big_blind // 2,
        big_blind=big_blind,
        deck=tuple(deck),
        posts=posts,
    )


def _decide_for(
    holding: str, *, players: int, stack_bb: float, bot_seat: int, before=(), seed=1, style="tight"
):
    """The bot in ``bot_seat`` at a table of ``players`` (button on the last seat, big blind 100), with
    ``holding`` ("AsAd"); the seats before it act ``before`` (a list of (kind, amount)); returns its move."""
    stacks = dict.fromkeys(range(players), int(stack_bb * 100))
    button = players - 1
    order = tuple(sorted(stacks, key=lambda seat: (seat - button - 1) % players))
    rest = [c for c in FULL_DECK if c not in (holding[:2], holding[2:])]
    holes = {seat: rest[2 * i] + rest[2 * i + 1] for i, seat in enumerate(order) if seat != bot_seat}
    holes[bot_seat] = holding
    deck = stacked_deck(order=order, holes=holes)
    hand = start_hand(config=_config(deck=deck, stacks=stacks, button=button))
    for kind, amount in before:
        hand.act(Action(hand.to_act, kind, amount))
    assert hand.to_act == bot_seat
    return decide(observe(hand, bot_seat), STYLE_BY_NAME[style], random.Random(seed))


@pytest.mark.parametrize("style", [style.name for style in STYLES])
def test_seven_two_offsuit_folds_to_an_all_in_at_twenty_big_blinds(style):
    """Six-handed, 20 big blinds each: the first player moves all in; the bot on the button with 7-2
    offsuit folds (every style, several seeds)."""
    for seed in range(5):
        move = _decide_for("7h2c", players=6, stack_bb=20, bot_seat=5, before=[("all_in", None)] + [("fold", None)] * 2, seed=seed, style=style)  # fmt: skip
        assert move == ("fold", None)


@pytest.mark.parametrize("style", [style.name for style in STYLES])
def test_aces_go_all_in_at_ten_big_blinds_and_call_an_all_in(style):
    """10 big blinds: aces first in go all in from every position; aces facing an all-in call it."""
    for seat in range(2, 6):
        before = [("fold", None)] * (seat - 2)
        assert _decide_for("AsAd", players=6, stack_bb=10, bot_seat=seat, before=before, style=style) == (
            "all_in",
            None,
        )
    facing = _decide_for("AsAd", players=6, stack_bb=30, bot_seat=5, before=[("all_in", None), ("fold", None), ("fold", None)], style=style)  # fmt: skip
    assert facing[0] in ("call", "all_in")


def _every_class(**kwargs) -> dict[str, tuple[str, int | None]]:
    """The bot's move with one hand of each of the 169 classes."""
    moves = {}
    for name in HAND_ORDER:
        first = name[0] + "s"
        second = name[1] + ("s" if name.endswith("s") else "h" if len(name) == 3 else "h")
        moves[name] = _decide_for(first + second, **kwargs)
    return moves


def _combos(name: str) -> int:
    return 6 if len(name) == 2 else 4 if name.endswith("s") else 12


def _share_raised(moves: dict[str, tuple[str, int | None]]) -> float:
    return sum(_combos(n) for n, (kind, _) in moves.items() if kind in ("raise", "all_in")) / 1326


def test_a_bot_opens_tighter_under_the_gun_than_on_the_button_and_raises_to_two_or_three_big_blinds():
    """Nine-handed at 100 big blinds, folded to the bot: it opens about a tenth of hands under the gun and
    several times more on the button; each open is a raise to 2 to 3 big blinds, never a limp."""
    under_the_gun = _every_class(players=9, stack_bb=100, bot_seat=2)
    button = _every_class(players=9, stack_bb=100, bot_seat=8, before=[("fold", None)] * 6)
    assert 0.05 < _share_raised(under_the_gun) < 0.15
    assert _share_raised(button) > 2.5 * _share_raised(under_the_gun)
    for moves in (under_the_gun, button):
        for kind, amount in moves.values():
            assert kind in ("raise", "fold")
            if kind == "raise":
                assert 200 <= amount <= 300
    assert under_the_gun["AA"][0] == "raise" and under_the_gun["72o"][0] == "fold"


def test_at_fifteen_big_blinds_or_fewer_a_bot_first_in_pushes_or_folds():
    """12 big blinds, first in: all in or fold with every hand, wider on the button than under the gun;
    at 40 big blinds the same spots are opens to 2 to 3 big blinds."""
    early = _every_class(players=9, stack_bb=12, bot_seat=2)
    late = _every_class(players=9, stack_bb=12, bot_seat=8, before=[("fold", None)] * 6)
    for moves in (early, late):
        assert {kind for kind, _ in moves.values()} == {"all_in", "fold"}
    assert _share_raised(late) > 2 * _share_raised(early)
    deep = _every_class(players=9, stack_bb=40, bot_seat=8, before=[("fold", None)] * 6)
    assert {kind for kind, _ in deep.values()} == {"raise", "fold"}


def test_the_styles_differ_measurably():
    """On the button at 100 big blinds, the loose and aggressive bots open more hands than the tight one;
    facing an open, the aggressive one 3-bets more often than the tight one."""
    opens = {s.name: _share_raised(_every_class(players=9, stack_bb=100, bot_seat=8, before=[("fold", None)] * 6, style=s.name)) for s in STYLES}  # fmt: skip
    assert opens["tight"] + 0.05 < opens["aggressive"] < opens["loose"]
    three_bets = {
        s.name: _share_raised(
            _every_class(
                players=6,
                stack_bb=100,
                bot_seat=5,
                before=[("raise", 250)] + [("fold", None)] * 2,
                style=s.name,
            )
        )  # fmt: skip
        for s in STYLES
    }
    assert three_bets["aggressive"] > 1.5 * three_bets["tight"]
    assert {style_for(user_id).name for user_id in range(3)} == {"tight", "loose", "aggressive"}


def test_an_omaha_hi_lo_bot_counts_its_low_draw():
    """Omaha Hi-Lo Pot-Limit heads-up, a pot-sized bet on the flop 3-6-K: with A-2-9-T (nut low draw, no
    pair) the bot stays in; with 9-T-J-Q offsuit (no low, no pair, no flush draw) it folds."""
    moves = {}
    for name, holding in (("low draw", "Ac2d9hTs"), ("nothing", "9cTdJsQh")):
        order = (0, 1)
        deck = stacked_deck(order=order, holes={0: holding, 1: "KcKd7h8s"}, board="3s6hKh4c5d", hole_count=4)
        hand = start_hand(config=_config(deck=deck, stacks={0: 5_000, 1: 5_000}, button=1, variant="omaha_hilo", structure="pl"))  # fmt: skip
        hand.act(Action(1, "call"))
        hand.act(Action(0, "check"))
        assert hand.street == "flop" and hand.to_act == 0
        hand.act(Action(0, "check"))
        pot = next(item for item in hand.legal_actions() if item["action"] == "bet")["max"]
        hand.act(Action(1, "bet", pot))
        votes = [
            decide(observe(hand, 0), STYLE_BY_NAME["tight"], random.Random(seed))[0] for seed in range(5)
        ]
        moves[name] = Counter(votes).most_common(1)[0][0]
    assert moves["low draw"] in ("call", "raise", "all_in")
    assert moves["nothing"] == "fold"


def test_the_bots_fast_low_is_the_engines_low():
    """The bots' Monte Carlo reads the Hi-Lo low with its own faster function: it gives the engine's value
    (``omaha_low_strength``) on 3,000 random Omaha hands and boards."""
    rng = random.Random(8)
    for _ in range(3_000):
        cards = rng.sample(range(52), 9)
        hole, board = cards[:4], cards[4:]
        assert omaha_low(hole, board_lows(board)) == omaha_low_strength(hole, board)


def test_a_bots_think_time_is_a_persons_and_shorter_in_practice_tournaments():
    """At a cash table 0.9 to 4 s, longer on average when a third of the stack is at stake; at a practice
    tournament's table 60 % of that."""
    rng = random.Random(3)
    quiet = start_hand(config=_config(deck=FULL_DECK, stacks=dict.fromkeys(range(3), 10_000), button=2))
    big = start_hand(config=_config(deck=FULL_DECK, stacks=dict.fromkeys(range(3), 10_000), button=2))
    big.act(Action(big.to_act, "all_in"))
    cash_quiet = [think_seconds(quiet, tournament=False, rng=rng) for _ in range(400)]
    cash_big = [think_seconds(big, tournament=False, rng=rng) for _ in range(400)]
    tournament = [think_seconds(quiet, tournament=True, rng=rng) for _ in range(400)]
    assert 0.9 <= min(cash_quiet) and max(cash_big) <= 4.0
    assert statistics.mean(cash_big) > statistics.mean(cash_quiet) + 1.0
    assert max(tournament) < 0.6 * max(cash_quiet) + 0.01


def test_twenty_sit_and_gos_of_bots_last_as_long_as_among_people_with_few_crowded_all_ins():
    """20 ten-player hyper-turbo sit-and-gos of house bots (bench/bots.py's, fixed seeds): the median hands to
    the winner between 40 and 100, under 2 % of hands with four or more players all in."""
    runs = [sit_and_go(100_003 + n, _Timer()) for n in range(20)]
    hands = [run["hands"] for run in runs]
    assert 40 <= statistics.median(hands) <= 100, hands
    assert sum(run["crowded"] for run in runs) < 0.02 * sum(hands)
