"""What a shown hand is, for the players: its high hand's category and five cards and, at Hi-Lo, its low.

Language-neutral (a category code, cards): one `hand_ended` goes to players of both languages, and each
client names the category in its own. Worked out only for hands already shown, from the engine's evaluators
(the same values the settlement compared)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from tables.engine.cards import card_id, card_text, high_strength, low_strength_any

# phevaluator's ranks, 1 (royal flush) to 7462 (7-5-4-3-2): the last rank of each category, best first. The
# codes are the table page's (static/js/hands.js), which names them in the player's language (an ace-high
# straight flush is the royal flush).
_CATEGORIES = (
    (10, "straight_flush"),
    (166, "quads"),
    (322, "full_house"),
    (1599, "flush"),
    (1609, "straight"),
    (2467, "trips"),
    (3325, "two_pair"),
    (6185, "pair"),
    (7462, "high_card"),
)
_WORST = 7463  # cards.high_strength is 7463 - phevaluator's rank
_WHEEL = {12, 0, 1, 2, 3}  # A 2 3 4 5 (ranks count from the deuce, 0, to the ace, 12)


def shown_hand_names(
    *, variant: str, board: Sequence[str], shown: Mapping[str, Sequence[str]]
) -> dict[str, dict]:
    """For each shown hand (keyed as `shown` is): `high` = {`category`, `cards`} and, at Omaha Hi-Lo, `low` =
    {`cards`} or None (no low of 8 or better). A hand shown before there are five cards to use has none."""
    names = {}
    for seat, cards in shown.items():
        named = hand_name(variant=variant, hole=cards, board=board)
        if named is not None:
            names[seat] = named
    return names


def hand_name(*, variant: str, hole: Sequence[str], board: Sequence[str]) -> dict | None:
    hole_ids, board_ids = [card_id(c) for c in hole], [card_id(c) for c in board]
    fives = list(_fives(variant=variant, hole=hole_ids, board=board_ids))
    if not fives:
        return None
    best = max(fives, key=high_strength)
    category = _category(high_strength(best))
    named: dict = {"high": {"category": category, "cards": _ordered_high(best, category=category)}}
    if variant == "omaha_hilo":
        lows = [(value, five) for five in fives if (value := low_strength_any(five)) is not None]
        named["low"] = {"cards": _ordered_low(min(lows)[1])} if lows else None
    return named


def _fives(*, variant: str, hole: list[int], board: list[int]) -> Iterable[tuple[int, ...]]:
    """The five-card hands a player may make: Hold'em any five; Omaha exactly two hole and three board cards."""
    if variant == "holdem":
        yield from combinations(hole + board, 5)
        return
    for pair in combinations(hole, 2):
        for triple in combinations(board, 3):
            yield pair + triple


def _category(strength: int) -> str:
    rank = _WORST - strength
    return next(name for last, name in _CATEGORIES if rank <= last)


def _ordered_high(cards: Sequence[int], *, category: str) -> list[str]:
    """The five cards as players read them: the biggest group first (K K 7 7 A), then by rank; a five-high
    straight from the five down (5 4 3 2 A)."""
    ranks = {card >> 2 for card in cards}
    if category in ("straight", "straight_flush") and ranks == _WHEEL:
        return _ordered_low(cards)
    counts = Counter(card >> 2 for card in cards)
    return [card_text(c) for c in sorted(cards, key=lambda c: (counts[c >> 2], c >> 2, c), reverse=True)]


def _ordered_low(cards: Sequence[int]) -> list[str]:
    """A low from its highest card down, the ace last (8-6-4-2-A)."""
    return [card_text(c) for c in sorted(cards, key=lambda c: -1 if c >> 2 == 12 else c >> 2, reverse=True)]
