"""Names of poker hands as PokerStars writes them in its hand histories ("two pair, Aces and Kings").

The best five cards are picked with the engine's own evaluator (``tables.engine.cards``); this module only
puts them into words, for Hold'em (any five of seven) and Omaha (two hole cards and three of the board), and
the 8-or-better low ("8,5,4,2,A"). The words are PokerStars' English: the text format is read by programs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from tables.engine.cards import RANKS, card_id, high_strength, omaha_low_strength

_SINGULAR = (
    "Deuce",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)
_PLURAL = (
    "Deuces",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Sevens",
    "Eights",
    "Nines",
    "Tens",
    "Jacks",
    "Queens",
    "Kings",
    "Aces",
)
_ACE = 12
_LOW_DIGITS = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8"}


def best_five(*, hole: Sequence[str], board: Sequence[str], omaha: bool) -> tuple[str, ...]:
    """The five cards that make the best high hand (Omaha: exactly two from the hole, three from the board)."""
    if omaha:
        candidates = (pair + triple for pair in combinations(hole, 2) for triple in combinations(board, 3))
    else:
        candidates = combinations((*hole, *board), 5)
    return max(candidates, key=lambda five: high_strength([card_id(card) for card in five]))


def five_card_name(cards: Sequence[str]) -> str:
    """PokerStars' words for a five-card hand."""
    ranks = sorted((RANKS.index(card[0]) for card in cards), reverse=True)
    counts = Counter(ranks)
    # Groups by size, then by rank: (3, 10), (2, 5) for "Queens full of Sevens".
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    flush = len({card[1] for card in cards}) == 1
    straight_high = _straight_high(ranks)
    if straight_high is not None and flush:
        if straight_high == _ACE:
            return "a Royal Flush"
        return f"a straight flush, {_straight_words(straight_high)}"
    if groups[0][1] == 4:
        return f"four of a kind, {_PLURAL[groups[0][0]]}"
    if groups[0][1] == 3 and groups[1][1] == 2:
        return f"a full house, {_PLURAL[groups[0][0]]} full of {_PLURAL[groups[1][0]]}"
    if flush:
        return f"a flush, {_SINGULAR[ranks[0]]} high"
    if straight_high is not None:
        return f"a straight, {_straight_words(straight_high)}"
    if groups[0][1] == 3:
        return f"three of a kind, {_PLURAL[groups[0][0]]}"
    if groups[0][1] == 2 and groups[1][1] == 2:
        return f"two pair, {_PLURAL[groups[0][0]]} and {_PLURAL[groups[1][0]]}"
    if groups[0][1] == 2:
        return f"a pair of {_PLURAL[groups[0][0]]}"
    return f"high card {_SINGULAR[ranks[0]]}"


def _straight_high(ranks: Sequence[int]) -> int | None:
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [_ACE, 3, 2, 1, 0]:  # the wheel: the ace plays low
        return 3
    return None


def _straight_words(high: int) -> str:
    low = "Ace" if high == 3 else _SINGULAR[high - 4]
    return f"{low} to {_SINGULAR[high]}"


def low_name(*, hole: Sequence[str], board: Sequence[str]) -> str | None:
    """The best Omaha 8-or-better low as PokerStars writes it ("8,5,4,2,A"), or ``None`` without one."""
    value = omaha_low_strength([card_id(card) for card in hole], [card_id(card) for card in board])
    if value is None:
        return None
    digits = []
    while value:  # the engine packs the five ranks highest first, four bits each
        digits.append(value % 16)
        value //= 16
    return ",".join(_LOW_DIGITS[rank] for rank in reversed(digits))


def hand_name(*, hole: Sequence[str], board: Sequence[str], game: str) -> str:
    """What a shown hand is, as PokerStars writes it after ``shows [..]`` and ``with`` in the summary:
    the high hand, and for Omaha Hi-Lo "HI: ...; LO: ..." (the low only when it qualifies)."""
    if len(board) < 3:
        return ""
    omaha = game in ("omaha", "omaha_hilo")
    high = five_card_name(best_five(hole=hole, board=board, omaha=omaha))
    if game != "omaha_hilo":
        return high
    low = low_name(hole=hole, board=board)
    return f"HI: {high}; LO: {low}" if low else f"HI: {high}"
