"""Shared helpers for the engine tests (no fixtures: plain functions, importable by any test here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tables.engine import Action, Hand, HandConfig, PostKind, start_hand
from tables.engine.cards import FULL_DECK

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""The recorded hands the tests replay, carried in the repository (tests/data/README.md)."""


def stacked_deck(
    *,
    order: Sequence[int],
    holes: Mapping[int, str],
    board: str = "",
    hole_count: int = 2,
    second_run: str = "",
) -> tuple[str, ...]:
    """A deck that deals ``holes`` (seat -> "AsKd") and ``board`` ("2c3c4c5c6c") in the room's order:
    one card at a time from ``order[0]`` (first seat after the button), a burn before each street.
    ``second_run``: the cards a board run twice deals on its second run, after the first (five when the
    players were all-in before the flop, two on the flop, one on the turn), a burn before each street."""
    n = len(order)
    slots: list[str | None] = [None] * 52
    for seat, text in holes.items():
        cards = [text[i : i + 2] for i in range(0, len(text), 2)]
        assert len(cards) == hole_count
        for round_, card in enumerate(cards):
            slots[round_ * n + order.index(seat)] = card
    board_cards = [board[i : i + 2] for i in range(0, len(board), 2)]
    second_cards = [second_run[i : i + 2] for i in range(0, len(second_run), 2)]
    assert not second_cards or len(board_cards) == 5, "a second run follows the first run's whole board"
    position = hole_count * n
    targets = []
    for count in (3, 1, 1) + {0: (), 1: (1,), 2: (1, 1), 5: (3, 1, 1)}[len(second_cards)]:
        position += 1
        targets.extend(range(position, position + count))
        position += count
    for target, card in zip(targets, board_cards + second_cards, strict=False):
        slots[target] = card
    used = [card for card in slots if card]
    assert len(used) == len(set(used)), "a card twice"
    spare = iter(card for card in FULL_DECK if card not in set(used))
    return tuple(card or next(spare) for card in slots)


def make_config(
    *,
    stacks: Mapping[int, int],
    button: int,
    sb: int | None = None,
    bb: int | None = None,
    seat_count: int = 10,
    blinds: tuple[int, int] = (1, 2),
    holes: Mapping[int, str] | None = None,
    board: str = "",
    variant: str = "holdem",
    structure: str = "nl",
    extra_posts: Iterable[tuple[int, PostKind]] = (),
    second_run: str = "",
    **kwargs: object,
) -> HandConfig:
    """A hand with the usual blinds: by default the two seats after the button post them (heads-up
    the button posts the small blind)."""
    order = sorted(stacks, key=lambda seat: (seat - button - 1) % seat_count)
    if bb is None:
        bb = order[0] if len(order) == 2 else order[1]
    if sb is None and len(order) == 2:
        sb = button
    elif sb is None:
        sb = order[0]
    posts: list[tuple[int, PostKind]] = []
    if sb != -1:
        posts.append((sb, PostKind.SMALL_BLIND))
    if bb != -1:
        posts.append((bb, PostKind.BIG_BLIND))
    posts.extend(extra_posts)
    hole_count = 2 if variant == "holdem" else 4
    deck = stacked_deck(
        order=order, holes=holes or {}, board=board, hole_count=hole_count, second_run=second_run
    )
    return HandConfig(
        variant=variant,
        structure=structure,
        seat_count=seat_count,
        stacks=dict(stacks),
        button=button,
        small_blind=blinds[0],
        big_blind=blinds[1],
        deck=deck,
        posts=tuple(posts),
        **kwargs,  # type: ignore[arg-type]
    )


def play(hand: Hand, *moves: tuple) -> Hand:
    """Apply (seat, kind[, amount]) moves in place; returns the hand for chaining."""
    for move in moves:
        hand.act(Action(*move))
    return hand


def new_hand(**kwargs: object) -> Hand:
    return start_hand(config=make_config(**kwargs))  # type: ignore[arg-type]


def legal_map(hand: Hand) -> dict[str, tuple[int, int]]:
    return {entry["action"]: (entry["min"], entry["max"]) for entry in hand.legal_actions()}  # type: ignore[misc]
