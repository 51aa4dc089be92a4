"""Property tests over random legal play (hypothesis): chips are conserved, no stack goes below zero,
the legal list and the refusals agree, and replaying the log rebuilds the same hand."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.engine import (
    Action,
    HandConfig,
    IllegalAction,
    PostKind,
    replay,
    room_schedule,
    start_hand,
)
from tables.engine.cards import FULL_DECK

GAMES = [
    ("holdem", "nl"),
    ("holdem", "pl"),
    ("holdem", "fl"),
    ("omaha", "pl"),
    ("omaha_hilo", "pl"),
    ("omaha_hilo", "fl"),
]


@st.composite
def configs(draw) -> HandConfig:
    variant, structure = draw(st.sampled_from(GAMES))
    chip = draw(st.sampled_from([1, 5]))
    big_blind = chip * draw(st.sampled_from([2, 4, 10]))
    small_blind = big_blind // 2 // chip * chip
    seat_count = draw(st.integers(2, 10))
    players = draw(st.integers(2, seat_count))
    seats = sorted(draw(st.permutations(range(seat_count)))[:players])
    stacks = {seat: chip * draw(st.integers(1, 400)) for seat in seats}
    button = draw(st.sampled_from(range(seat_count)))
    order = sorted(seats, key=lambda seat: (seat - button - 1) % seat_count)
    deck = tuple(draw(st.permutations(FULL_DECK)))
    bomb = players > 2 and draw(st.integers(0, 9)) == 0
    posts: list[tuple[int, PostKind]] = []
    if not bomb:
        if players == 2:
            posts = [(order[1], PostKind.SMALL_BLIND), (order[0], PostKind.BIG_BLIND)]
        else:
            if draw(st.booleans()) or players == 3:
                posts.append((order[0], PostKind.SMALL_BLIND))
            posts.append((order[1], PostKind.BIG_BLIND))
            if players > 3 and structure != "fl" and draw(st.integers(0, 3)) == 0:
                posts.append((order[2], PostKind.STRADDLE))
            elif players > 3 and draw(st.integers(0, 3)) == 0:
                posts.append((order[3], PostKind.ENTRY_BIG_BLIND))
                if draw(st.booleans()):
                    posts.append((order[3], PostKind.DEAD_SMALL_BLIND))
    antes = {seat: chip for seat in seats} if not bomb and draw(st.integers(0, 5)) == 0 else {}
    return HandConfig(
        variant=variant,
        structure=structure,
        seat_count=seat_count,
        stacks=stacks,
        button=button,
        small_blind=small_blind,
        big_blind=big_blind,
        deck=deck,
        posts=tuple(posts),
        chip=chip,
        antes=antes,
        bomb_pot=big_blind if bomb else 0,
        rake=room_schedule(chip) if draw(st.booleans()) else None,
        auto_muck={seat: draw(st.booleans()) for seat in seats},
        run_twice={seat for seat in seats if draw(st.integers(0, 4))},
    )


def _is_legal(legal: dict[str, tuple[int, int]], action: Action, chip: int) -> bool:
    if action.kind not in legal:
        return False
    low, high = legal[action.kind]
    if action.kind in ("bet", "raise"):
        return type(action.amount) is int and low <= action.amount <= high and action.amount % chip == 0
    return action.amount is None or (type(action.amount) is int and action.amount == low)


def _candidate(draw, hand) -> Action:
    """Sometimes a legal action, sometimes anything at all (wrong seat, odd amounts, bad types)."""
    seat = hand.to_act if draw(st.integers(0, 4)) else draw(st.sampled_from([*hand.order, 11]))
    kind = draw(st.sampled_from(["fold", "check", "call", "bet", "raise", "all_in", "show", "muck"]))
    amount = draw(
        st.one_of(
            st.none(),
            st.integers(-5, max(hand.stacks.values()) + 20),
            st.sampled_from([2.0, True, "4"]),
        )
    )
    return Action(seat, kind, amount)


def _snapshot(hand):
    return (hand.to_act, hand.action_no, hand.stacks, hand.bets, len(hand.events), hand.legal_actions())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), data=st.data())
def test_random_legal_play(config, data):
    total = sum(config.stacks.values())
    hand = start_hand(config=config)
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 200
        assert hand.chips_total() == total
        assert min(hand.stacks.values()) >= 0
        legal = {entry["action"]: (entry["min"], entry["max"]) for entry in hand.legal_actions()}
        assert legal, "somebody must be able to act"
        # A random action, legal or not: the legal list and the engine must agree about it.
        probe = _candidate(data.draw, hand)
        if not (probe.seat == hand.to_act and _is_legal(legal, probe, config.chip)):
            before = _snapshot(hand)
            try:
                hand.act(probe)
            except IllegalAction:
                assert _snapshot(hand) == before
                probe = None
            else:  # accepted although not in the legal list: only all-in by its "to" amount may be
                assert probe.kind in ("bet", "raise") and legal.get("all_in", (None,))[0] == probe.amount
                continue
        else:
            hand.act(probe)
            continue
        kind = data.draw(st.sampled_from(sorted(legal)))
        low, high = legal[kind]
        amount = None
        if kind in ("bet", "raise"):
            amount = data.draw(st.integers(low // config.chip, high // config.chip)) * config.chip
            amount = min(max(amount, low), high)
        hand.act(Action(hand.to_act, kind, amount))
    settlement = hand.settlement
    assert sum(settlement.finishing_stacks.values()) + settlement.rake == total
    assert min(settlement.finishing_stacks.values()) >= 0
    for pot in settlement.pots:
        assert pot.net + pot.rake == pot.amount and sum(pot.winners.values()) == pot.net
        assert set(pot.winners) <= set(pot.eligible)
        assert len(pot.runs) == (2 if hand.runs_twice else 0)
        if pot.runs:  # halves of the net, the odd chip (of the table's smallest) to the first run
            first, second = pot.runs
            assert (
                first.amount + second.amount == pot.net and 0 <= first.amount - second.amount <= config.chip
            )
            assert all(sum(run.winners.values()) == run.amount for run in pot.runs)
    if hand.runs_twice:
        assert config.run_twice >= set(hand.order) - hand.folded and len(hand.boards) == 2
        assert len(set(hand.public_positions())) == len(hand.public_positions())
    if config.rake is None or len(hand.board) < 3:
        assert settlement.rake == 0
    again = replay(config=config, actions=[action.as_dict() for action in hand.log])
    assert again.events == hand.events
    assert again.settlement == settlement
