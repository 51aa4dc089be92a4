"""Cards as small integers, and hand strength from phevaluator.

A card is ``rank * 4 + suit`` (rank 0 = deuce .. 12 = ace; suit 0..3 = c, d, h, s): phevaluator's own
numbering, so evaluating a hand never converts anything. Strings ("As", "Td") are only for the outside
world. Strength values are integers where *higher is better* for the high hand; the 8-or-better low is a
separate integer where *lower is better* and ``None`` means no qualifying low.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from phevaluator import _pheval

RANKS = "23456789TJQKA"
SUITS = "cdhs"
FULL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_CARD_ID = {text: index for index, text in enumerate(FULL_DECK)}
# phevaluator ranks 1 (royal flush) .. 7462 (7-high); we flip it so that a bigger number wins.
_WORST = 7463

# phevaluator's C functions: cards as integers in, a rank (1 best .. 7462 worst) out.
_eval5: Callable[..., int] = _pheval.evaluate_5cards
_eval6: Callable[..., int] = _pheval.evaluate_6cards
_eval7: Callable[..., int] = _pheval.evaluate_7cards
_eval_omaha: Callable[..., int] = _pheval.evaluate_omaha_cards


def card_id(text: str) -> int:
    """The integer of a card written like "As"; ``ValueError`` for anything else."""
    try:
        return _CARD_ID[text]
    except (KeyError, TypeError):
        raise ValueError(f"not a card: {text!r}") from None


def card_ids(texts: Iterable[str]) -> list[int]:
    """The integers of cards written like "As"; ``ValueError`` if one is not a card."""
    try:
        return [_CARD_ID[text] for text in texts]
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a card: {error}") from None


def card_text(card: int) -> str:
    return FULL_DECK[card]


def parse_cards(text: str) -> list[int]:
    """ "AsKd" -> two cards (PHH writes hands without separators)."""
    if len(text) % 2:
        raise ValueError(f"not a list of cards: {text!r}")
    return [card_id(text[i : i + 2]) for i in range(0, len(text), 2)]


def high_strength(cards: Sequence[int]) -> int:
    """Best five-card high hand out of 5 to 7 cards, any combination (Hold'em)."""
    n = len(cards)
    if n == 7:
        return _WORST - _eval7(*cards)
    if n == 6:
        return _WORST - _eval6(*cards)
    if n == 5:
        return _WORST - _eval5(*cards)
    raise ValueError(f"a high hand needs 5 to 7 cards, not {n}")


def omaha_high_strength(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best high hand using exactly two hole cards and exactly three board cards."""
    if len(hole) == 4 and len(board) == 5:
        return _WORST - _eval_omaha(*board, *hole)
    best = 0
    for pair in combinations(hole, 2):
        for triple in combinations(board, 3):
            value = _WORST - _eval5(*pair, *triple)
            if value > best:
                best = value
    if not best:
        raise ValueError("an Omaha hand needs two hole cards and three board cards")
    return best


def _low_rank(card: int) -> int:
    """Ace-to-five rank: ace 1, deuce 2, ... eight 8; above eight 0 (never part of a low)."""
    rank = card >> 2
    if rank == 12:
        return 1
    value = rank + 2
    return value if value <= 8 else 0


def _low_value(ranks: Iterable[int]) -> int:
    """Five different low ranks -> one integer, lower is better (compares highest card first)."""
    value = 0
    for rank in sorted(ranks, reverse=True):
        value = value * 16 + rank
    return value


def omaha_low_strength(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best 8-or-better low with exactly two hole and three board cards, or ``None`` (no low).

    Straights and flushes do not count against a low, so only ranks matter: the best low is the
    smallest set of five different ranks of eight or lower, compared from the highest card down.
    """
    hole_ranks = sorted({r for r in map(_low_rank, hole) if r})
    board_ranks = sorted({r for r in map(_low_rank, board) if r})
    if len(hole_ranks) < 2 or len(board_ranks) < 3:
        return None
    best: int | None = None
    for pair in combinations(hole_ranks, 2):
        for triple in combinations(board_ranks, 3):
            if pair[0] in triple or pair[1] in triple:
                continue
            value = _low_value((*pair, *triple))
            if best is None or value < best:
                best = value
    return best


def low_strength_any(cards: Sequence[int]) -> int | None:
    """Best 8-or-better low from any five of the cards (for a Hold'em-style hi-lo, and for tests)."""
    ranks = sorted({r for r in map(_low_rank, cards) if r})
    if len(ranks) < 5:
        return None
    return min(_low_value(combo) for combo in combinations(ranks, 5))
