"""Pre-flop ranges as data: the 169 Hold'em starting hands in order, and the share of hands a player opens,
pushes or is taken to hold, by position and stack.

``HAND_ORDER``: the 169 hands best first, ordered by all-in equity against one random hand plus 1.6 times the
equity against three random hands (3,000 Monte Carlo deals each with the engine's evaluator, seeded; the blend
ranks suited connectors and small pairs, which play well in multi-way pots, nearer to where the usual charts
have them than heads-up equity alone does). A range "top p" is the best hands of this order up to a share p
of the 1,326 two-card combinations.

``OPEN``: the share of hands opened first in, by the number of players still to act behind (the blinds
included): about 11 % under the gun of a full table, 14 to 20 % in the middle, 28 % in the cut-off, 45 % on the
button and 42 % in the small blind, the widths of the commonly published six-max and full-ring opening charts;
heads-up the button opens 80 %.

``PUSH``: push-or-fold at 15 big blinds or fewer, first in: the share of hands to go all in with, by players
behind and stack. The figures follow the shape of the Nash push/fold equilibrium charts published for
sit-and-gos (HoldemResources' and SnapShove's "Nash push" tables, no ICM, no antes): the small blind against
the big blind pushes about 58 % at 10 big blinds, the button about 36 %, under the gun of a full table about
10 %; each row is rounded and read between the stacks listed. ``CALL_SHOVE`` is not a table: a bot calls an
all-in when its equity against the pusher's range (``PUSH`` of the pusher's spot) beats the pot's price.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Collection, Sequence
from itertools import combinations

RANKS = "23456789TJQKA"

HAND_ORDER: tuple[str, ...] = tuple(
    """
    AA KK QQ JJ TT 99 AKs AQs 88 AKo AJs ATs 77 KQs KTs AQo KJs AJo KQo A9s QJs KJo QTs ATo A8s A7s 66 A9o
    QJo K9s A5s A4s K8s A6s JTs Q9s KTo A8o A7o J9s A5o QTo 55 T9s K9o A3s Q8s K7s JTo A2s A4o K6s K5s A6o
    K8o Q9o Q7s T8s K4s Q6s 98s J8s 44 K3s J7s T9o J9o A3o K6o Q8o K2s K7o 87s A2o J6s 97s T7s Q4s T8o J8o
    Q5s K4o T6s K5o 33 Q2s Q3s Q6o J5s K2o Q7o 98o J4s J7o K3o 96s J3s 86s 76s T7o J2s T5s 22 Q4o Q5o 65s
    75s Q2o 85s T4s 87o J6o 95s T6o Q3o 97o J5o J4o T3s 64s 54s 96o 74s T2s 86o 94s 76o J3o 84s 93s 83s 95o
    T4o J2o 85o T5o 75o T2o 53s 65o 92s 82s 43s 63s T3o 73s 64o 84o 94o 42s 72s 54o 52s 62s 74o 53o 93o 63o
    32s 83o 92o 52o 73o 82o 72o 43o 62o 42o 32o
    """.split()
)

# players behind (blinds included) -> share of hands opened first in
OPEN: dict[int, float] = {
    0: 1.0,
    1: 0.42,
    2: 0.45,
    3: 0.28,
    4: 0.20,
    5: 0.17,
    6: 0.14,
    7: 0.13,
    8: 0.12,
    9: 0.11,
}

OPEN_HEADS_UP = 0.8

# players behind -> ((stack in big blinds, share of hands pushed), ...), stacks ascending
PUSH: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((2, 1.0), (4, 0.85), (6, 0.72), (8, 0.64), (10, 0.58), (12, 0.50), (15, 0.42)),
    2: ((2, 0.9), (4, 0.62), (6, 0.48), (8, 0.41), (10, 0.36), (12, 0.31), (15, 0.26)),
    3: ((2, 0.8), (4, 0.48), (6, 0.36), (8, 0.30), (10, 0.26), (12, 0.22), (15, 0.19)),
    4: ((2, 0.7), (4, 0.38), (6, 0.29), (8, 0.24), (10, 0.20), (12, 0.17), (15, 0.15)),
    5: ((2, 0.6), (4, 0.32), (6, 0.24), (8, 0.20), (10, 0.17), (12, 0.15), (15, 0.13)),
    6: ((2, 0.5), (4, 0.27), (6, 0.21), (8, 0.17), (10, 0.15), (12, 0.13), (15, 0.11)),
    7: ((2, 0.45), (4, 0.24), (6, 0.19), (8, 0.15), (10, 0.13), (12, 0.115), (15, 0.10)),
    8: ((2, 0.4), (4, 0.22), (6, 0.17), (8, 0.14), (10, 0.12), (12, 0.105), (15, 0.09)),
    9: ((2, 0.4), (4, 0.21), (6, 0.16), (8, 0.13), (10, 0.11), (12, 0.10), (15, 0.085)),
}
PUSH_MAX_BB = 15


def _combos(name: str) -> list[tuple[int, int]]:
    """The card pairs (engine integers: rank * 4 + suit) of a hand class like "AKs", "T9o", "77"."""
    high, low = RANKS.index(name[0]), RANKS.index(name[1])
    if len(name) == 2:
        return [(high * 4 + a, high * 4 + b) for a, b in combinations(range(4), 2)]
    if name[2] == "s":
        return [(high * 4 + s, low * 4 + s) for s in range(4)]
    return [(high * 4 + a, low * 4 + b) for a in range(4) for b in range(4) if a != b]


COMBOS: tuple[tuple[int, int], ...] = tuple(c for name in HAND_ORDER for c in _combos(name))
"""The 1,326 two-card hands, best class first."""
_CLASS_START: dict[str, int] = {}
_count = 0
for _name in HAND_ORDER:
    _CLASS_START[_name] = _count
    _count += len(_combos(_name))
_TOTAL = _count


def hand_class(cards: Sequence[int]) -> str:
    """ "AKs", "T9o", "77" for two cards."""
    a, b = sorted(cards, reverse=True)
    high, low = RANKS[a >> 2], RANKS[b >> 2]
    if high == low:
        return high + low
    return high + low + ("s" if a & 3 == b & 3 else "o")


def hand_share(cards: Sequence[int]) -> float:
    """Where two cards stand in ``HAND_ORDER``: the share of all combinations that are better (0 for aces,
    near 1 for 3-2 offsuit). A hand is in the range "top p" when this is below p."""
    return _CLASS_START[hand_class(cards)] / _TOTAL


def open_share(behind: int, *, players: int = 9) -> float:
    """The share of hands opened first in with ``behind`` players to act after; heads-up, the button (the
    small blind) opens ``OPEN_HEADS_UP``."""
    if players == 2 and behind == 1:
        return OPEN_HEADS_UP
    return OPEN[min(max(behind, 0), 9)]


def push_share(behind: int, stack_bb: float) -> float:
    """The share of hands pushed first in with ``stack_bb`` big blinds and ``behind`` players to act after."""
    if behind <= 0:
        return 1.0
    row = PUSH[min(behind, 9)]
    stacks = [s for s, _ in row]
    i = bisect_right(stacks, stack_bb)
    if i == 0:
        return row[0][1]
    if i == len(row):
        return row[-1][1]
    (s0, p0), (s1, p1) = row[i - 1], row[i]
    return p0 + (p1 - p0) * (stack_bb - s0) / (s1 - s0)


def top_combos(share: float, dead: Collection[int]) -> list[tuple[int, int]]:
    """The hands of the range "top ``share``" that do not use a ``dead`` card."""
    end = max(6, min(_TOTAL, round(share * _TOTAL)))
    return [c for c in COMBOS[:end] if c[0] not in dead and c[1] not in dead]


def random_hand(rng: random.Random, deck: Sequence[int], size: int) -> tuple[int, ...]:
    return tuple(rng.sample(deck, size))
