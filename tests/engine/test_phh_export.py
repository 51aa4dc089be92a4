"""A hand exported as PHH and read back is the same hand: same actions, same settlement."""

from __future__ import annotations

import random

import pytest
from engine_helpers import make_config

from tables.engine import Action, start_hand
from tables.engine.phh import export_phh, load_phh, play_recorded


@pytest.mark.parametrize("seed", range(25))
def test_export_then_replay_gives_the_same_settlement(seed):
    rng = random.Random(seed)
    players = rng.randint(2, 6)
    structure = rng.choice(["nl", "pl", "fl"])
    variant = "omaha" if structure == "pl" and rng.random() < 0.3 else "holdem"
    config = make_config(
        stacks={seat: rng.randint(10, 200) for seat in range(players)},
        button=players - 1,
        seat_count=players,
        structure=structure,
        variant=variant,
    )
    hand = start_hand(config=config)
    while not hand.is_over:
        entry = rng.choice(hand.legal_actions())
        amount = entry["max"] if entry["action"] in ("bet", "raise") else None
        hand.act(Action(hand.to_act, entry["action"], amount))
    text = export_phh(hand, players=[f"player {seat}" for seat in hand.order])
    again = play_recorded(load_phh(text))
    assert [again.settlement.finishing_stacks[i] for i in range(players)] == [
        hand.settlement.finishing_stacks[seat] for seat in hand.order
    ]

    def moves(h):
        return [(h.order.index(e.data["seat"]), e.data["amount"]) for e in h.events if e.kind == "acted"]

    assert moves(again) == moves(hand)
