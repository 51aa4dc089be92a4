"""Equity by Monte Carlo with the engine's evaluator (phevaluator's C functions, ``tables.engine.cards``).

Chosen by speed on this machine (docs/tables.md, "House bots"): phevaluator's 7-card evaluation costs 0.24 us
a call against eval7's 0.67 us a call from Python, a whole sample (deal, two evaluations) 4 us; eval7's
all-in-C hand-against-range loop is faster still (0.09 us a sample) but knows only Hold'em, one opponent and
its own range syntax, while the bots need Omaha, the Hi-Lo low, several opponents and ranges narrowed by the
betting. phevaluator is already the engine's dependency; eval7 would be a second one.

The budget is a number of samples, not wall time, so a seed gives the same decision on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from phevaluator import _pheval

_eval5: Callable[..., int] = _pheval.evaluate_5cards
_eval6: Callable[..., int] = _pheval.evaluate_6cards
_eval7: Callable[..., int] = _pheval.evaluate_7cards
_eval_omaha: Callable[..., int] = _pheval.evaluate_omaha_cards

PAIR = 6185
"""phevaluator's ranks 1 (royal flush) .. 7462: one pair or better is 6185 or below."""
TWO_PAIR = 3325


_LOW_RANK = tuple(1 if c >> 2 == 12 else (c >> 2) + 2 if (c >> 2) + 2 <= 8 else 0 for c in range(52))
"""Ace-to-five rank of each card for the 8-or-better low: ace 1, deuce 2 .. eight 8; 0 above eight."""


def board_lows(board: Sequence[int]) -> list[int]:
    """The board's different low ranks, smallest first."""
    return sorted({_LOW_RANK[c] for c in board} - {0})


def omaha_low(hole: Sequence[int], lows: list[int]) -> int | None:
    """The engine's ``omaha_low_strength`` (lower is better, ``None``: no low) of ``hole`` with a board whose
    low ranks are ``lows`` (``board_lows``), faster: for each pair of the hand's low ranks the three smallest
    other board ranks are the best low it makes."""
    hand = sorted({_LOW_RANK[c] for c in hole} - {0})
    best: int | None = None
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            a, b = hand[i], hand[j]
            rest = [r for r in lows if r != a and r != b]
            if len(rest) < 3:
                continue
            five = sorted((a, b, rest[0], rest[1], rest[2]), reverse=True)
            value = (((five[0] * 16 + five[1]) * 16 + five[2]) * 16 + five[3]) * 16 + five[4]
            if best is None or value < best:
                best = value
    return best


def holdem_rank(hole: Sequence[int], board: Sequence[int]) -> int:
    """phevaluator's rank (lower is better) of two hole cards with a board of 3 to 5 cards."""
    n = len(board)
    if n == 5:
        return _eval7(*board, *hole)
    if n == 4:
        return _eval6(*board, *hole)
    return _eval5(*board, *hole)


def omaha_rank(hole: Sequence[int], board: Sequence[int]) -> int:
    """The best rank with exactly two hole cards and three of a board of 3 to 5 cards (lower is better)."""
    if len(board) == 5:
        return _eval_omaha(*board, *hole)
    best = 7463
    for i in range(len(hole)):
        for j in range(i + 1, len(hole)):
            for a in range(len(board)):
                for b in range(a + 1, len(board)):
                    for c in range(b + 1, len(board)):
                        rank = _eval5(hole[i], hole[j], board[a], board[b], board[c])
                        if rank < best:
                            best = rank
    return best


def equity(
    *,
    hole: Sequence[int],
    board: Sequence[int],
    pools: Sequence[Sequence[tuple[int, ...]]],
    samples: int,
    rng: random.Random,
    omaha: bool = False,
    hi_lo: bool = False,
) -> float:
    """The share of the pot ``hole`` wins on average against one hand from each of ``pools`` (each pool: the
    hands an opponent is taken to hold, none using a known card), the board completed at random. Ties split;
    at Hi-Lo, half the pot to the best high and half to the best qualifying low (the whole pot to the high
    when no low qualifies). ``samples`` deals in all; a pool's hand that clashes with cards already dealt is
    drawn again (at most four times, then that opponent sits the deal out)."""
    known = set(hole) | set(board)
    deck = [c for c in range(52) if c not in known]
    count = len(deck)
    size = 4 if omaha else 2
    draw = rng.random
    won = 0.0
    done = 0
    for _ in range(samples):
        used: set[int] = set()
        hands: list[tuple[int, ...]] = []
        for pool in pools:
            for _try in range(4):
                if pool:
                    hand = pool[int(draw() * len(pool))]
                else:
                    hand = tuple(rng.sample(deck, size))
                if used.isdisjoint(hand):
                    used.update(hand)
                    hands.append(hand)
                    break
        full = list(board)
        while len(full) < 5:
            card = deck[int(draw() * count)]
            if card not in used:
                used.add(card)
                full.append(card)
        won += _share(hole, full, hands, omaha=omaha, hi_lo=hi_lo)
        done += 1
    return won / done if done else 0.0


def _share(
    hole: Sequence[int], board: Sequence[int], hands: list[tuple[int, ...]], *, omaha: bool, hi_lo: bool
) -> float:
    if omaha:
        mine = _eval_omaha(*board, *hole)
        ranks = [_eval_omaha(*board, *h) for h in hands]
    else:
        mine = _eval7(*board, *hole)
        ranks = [_eval7(*board, *h) for h in hands]
    best = min(ranks, default=7463)
    high = 0.0 if best < mine else 1.0 / (1 + ranks.count(mine)) if best == mine else 1.0
    if not hi_lo:
        return high
    on_board = board_lows(board)
    if len(on_board) < 3:
        return high
    my_low = omaha_low(hole, on_board)
    lows = [low for low in (omaha_low(h, on_board) for h in hands) if low is not None]
    if my_low is None and not lows:
        return high
    if my_low is None:
        return high / 2
    best_low = min(lows, default=my_low + 1)
    low = 0.0 if best_low < my_low else 1.0 / (1 + lows.count(my_low)) if best_low == my_low else 1.0
    return (high + low) / 2
