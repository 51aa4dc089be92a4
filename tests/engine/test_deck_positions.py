"""The deck-position map against the fairness commitment: every position opened to a viewer verifies
against the root published before the first card and holds the card the hand really used; nobody else's
unshown hole cards are ever opened."""

from __future__ import annotations

import random

import pytest
from engine_helpers import make_config

from tables.engine import Action, start_hand

fairness = pytest.importorskip("tables.engine.fairness")


@pytest.mark.parametrize("seed", range(30))
def test_openings_verify_and_match_the_hand(seed):
    rng = random.Random(seed)
    players = rng.randint(2, 9)
    variant = rng.choice(["holdem", "omaha", "omaha_hilo"])
    structure = "pl" if variant != "holdem" else rng.choice(["nl", "pl", "fl"])
    config = make_config(
        stacks={seat: rng.randint(5, 300) for seat in range(players)},
        button=rng.randrange(players),
        seat_count=players,
        variant=variant,
        structure=structure,
        auto_muck={0: False},
    )
    deck = list(config.deck)
    rng.shuffle(deck)
    config = type(config)(**{**config.__dict__, "deck": tuple(deck)})
    secret = fairness.commit_deck(deck=deck)
    hand = start_hand(config=config)
    while not hand.is_over:
        entry = rng.choice(hand.legal_actions())
        amount = entry["min"] if entry["action"] in ("bet", "raise") else None
        hand.act(Action(hand.to_act, entry["action"], amount))
    deck_map = hand.deck_map
    shown = hand.shown_cards()
    assert [deck[p] for p in deck_map.board] == hand.board
    for viewer in [None, *hand.order]:
        openings = fairness.openings_for_viewer(
            secret=secret,
            hole_positions=deck_map.hole,
            board_positions=deck_map.board,
            shown_seats=list(shown),
            viewer_seat=viewer,
            burn_positions=deck_map.burn,
        )
        opened = {o.position: o.card for o in openings}
        assert all(fairness.verify_opening(root_hex=secret.root_hex, opening=o.to_json()) for o in openings)
        expected = set(deck_map.board) | {p for s in shown for p in deck_map.hole[s]}
        if viewer is not None:
            expected |= set(deck_map.hole[viewer])
        assert set(opened) == expected
        for s in hand.order:
            if s in shown or s == viewer:
                assert [opened[p] for p in deck_map.hole[s]] == hand.hole_cards(s)
        assert not set(deck_map.burn) & set(opened)
    assert hand.public_positions() == sorted(
        set(deck_map.board) | {p for s in shown for p in deck_map.hole[s]}
    )
    for seat in hand.order:
        cards = hand.view(seat=None)["seats"][hand.order.index(seat)]["cards"]
        assert cards == (hand.hole_cards(seat) if seat in shown else None)
        assert hand.view(seat=seat)["seats"][hand.order.index(seat)]["cards"] == hand.hole_cards(seat)
