"""How a house bot chooses its move from what its seat sees (``Seen``): pre-flop by ranges (``ranges``),
after the flop by its equity against the hands the betting says each opponent holds (``equity``).

Pre-flop, Hold'em: first in, a bot opens the top share of hands for its position (``ranges.OPEN``, widest on
the button) to 2.5 big blinds (3 when aggressive, one more per limper); at 15 big blinds or fewer (No-Limit) it
plays push-or-fold (``ranges.PUSH``). Facing one raise it 3-bets the top few per cent (to three times the raise,
more out of position), calls with the next band, folds the rest; facing a 3-bet it 4-bets or calls only the very
top. Facing an all-in or a bet of a third of its stack or more, it calls (or goes all in) when its equity
against the range the betting implies beats the pot's price, and folds otherwise. Omaha and Omaha Hi-Lo rate a
hand by its equity against one random hand (a low counts at Hi-Lo) and use the same steps.

After the flop: a value bet of half to three quarters of the pot when its equity is well above its share of
the pot, a continuation bet of a third of the pot as the pre-flop raiser, a bluff now and then, a raise with a
strong hand, a call when the equity beats the price, a fold otherwise: big bets get folds without a hand,
because a bettor's range is narrowed to hands that connect with the board.

Every amount goes through ``_legal_move``: the engine's min and max (Pot-Limit's pot, Fixed-Limit's one bet)
and the table's chip; the bot never folds when checking is free.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from tables.botplay import ranges
from tables.botplay.equity import PAIR, TWO_PAIR, equity, holdem_rank, omaha_rank
from tables.botplay.seen import Seen
from tables.engine.config import Structure, Variant
from tables.engine.hand import Hand

HOLDEM_EVALUATIONS = 600
OMAHA_EVALUATIONS = 450
HILO_EVALUATIONS = 240
MIN_SAMPLES = 60
OMAHA_PREFLOP_SAMPLES = 120
POOL_HOLDEM = 120
POOL_OMAHA = 40


class Style(NamedTuple):
    """A bot's way of playing: widths are multipliers on the charts', ``margin`` the equity over the pot's
    price it wants to call, ``value`` how much equity beyond its share it wants to bet (negative: bets more),
    ``bluff`` how often it bets without a hand, ``size`` a multiplier on its bet sizes."""

    name: str
    open: float
    push: float
    three_bet: float
    call: float
    margin: float
    value: float
    bluff: float
    size: float


STYLES: tuple[Style, ...] = (
    Style("tight", open=0.8, push=0.85, three_bet=0.03, call=0.75, margin=0.04, value=0.04, bluff=0.05, size=1.0),
    Style("loose", open=1.35, push=1.1, three_bet=0.035, call=1.5, margin=-0.01, value=0.0, bluff=0.1, size=0.9),
    Style("aggressive", open=1.15, push=1.15, three_bet=0.07, call=1.0, margin=0.02, value=-0.05, bluff=0.2, size=1.2),
)  # fmt: skip
STYLE_BY_NAME = {style.name: style for style in STYLES}


def style_for(user_id: int) -> Style:
    """The style a bot always plays (from its user id, so the same bot plays the same way every day)."""
    return STYLES[user_id % len(STYLES)]


Choice = tuple[str, int | None]


def decide(seen: Seen, style: Style, rng: random.Random) -> Choice:
    """The bot's move: an action of ``seen.legal`` and its "to" amount (``None`` unless a bet or raise)."""
    if seen.showdown:
        return "show", None
    if not seen.legal:
        raise ValueError("no decision to take")
    if seen.street == 0:
        if seen.variant is Variant.HOLDEM:
            wish = _preflop_holdem(seen, style, rng)
        else:
            wish = _preflop_omaha(seen, style, rng)
    else:
        wish = _postflop(seen, style, rng)
    return _legal_move(seen, *wish)


def think_seconds(hand: Hand, *, tournament: bool, rng: random.Random) -> float:
    """How long the bot to act seems to think, as a person would: about 1 to 2 s, up to 4 s when a third of
    its stack or more is at stake; 60 % of that in a practice tournament (0.5 to 2.4 s)."""
    limits = hand.limits()
    seconds = 0.9 + 1.3 * rng.random()
    if limits is not None and limits.to_call and limits.to_call * 3 >= limits.total:
        seconds += 1.0 + 0.8 * rng.random()
    elif hand.street != "preflop":
        seconds += 0.3
    return round(seconds * (0.6 if tournament else 1.0), 2)


# --- the legal move -------------------------------------------------------------------------------------


def _pool_size(seen: Seen, opponents: int) -> int:
    """Hands drawn for each opponent's range: a budget shared out over the opponents."""
    budget = POOL_HOLDEM if seen.variant is Variant.HOLDEM else POOL_OMAHA
    return max(budget // 4, budget // max(opponents, 1))


def _samples(seen: Seen, opponents: int) -> int:
    """The deals of a decision's Monte Carlo: a budget of hand evaluations shared out over the hands in the
    deal (heads-up Hold'em: 450 deals), at least ``MIN_SAMPLES``."""
    if seen.variant is Variant.HOLDEM:
        budget = HOLDEM_EVALUATIONS
    else:
        budget = HILO_EVALUATIONS if seen.variant is Variant.OMAHA_HILO else OMAHA_EVALUATIONS
    return max(MIN_SAMPLES, budget // (opponents + 1))


def _legal_move(seen: Seen, kind: str, to: int | None = None) -> Choice:
    """The wished move made legal: a fold when checking is free becomes a check, a bet or raise is held
    within the engine's amounts in whole chips, all in when it would leave little behind."""
    check = seen.legal_action("check")
    call = seen.legal_action("call")
    wager = seen.legal_action("raise") or seen.legal_action("bet")
    all_in = seen.legal_action("all_in")
    total = seen.total(seen.seat)
    if kind in ("bet", "raise") and to is not None:
        if wager is None:
            kind = "call"
        elif all_in is not None and seen.structure is Structure.NO_LIMIT and _commits(seen, to, total):
            kind = "all_in"
        else:
            chip = max(seen.chip, 1)
            amount = max(wager.min, min(wager.max, to // chip * chip))
            if amount == total and all_in is not None:
                return "all_in", None
            return wager.action, amount
    if kind == "all_in":
        if all_in is not None:
            return "all_in", None
        if wager is not None:
            return wager.action, wager.max
        kind = "call"
    if kind == "call":
        if call is not None:
            return "call", None
        if all_in is not None and check is None:
            return "all_in", None
    if check is not None:
        return "check", None
    return "fold", None


# --- positions and ranges ------------------------------------------------------------------------------


def _commits(seen: Seen, to: int, total: int) -> bool:
    """Whether a bet or raise to ``to`` would leave too little behind to fold later (less than about half the
    pot it makes, or under 55 % of the stack kept): then the bot moves all in instead."""
    behind = total - to
    pot_after = seen.pot + 2 * (to - seen.bets[seen.seat])
    return to * 20 >= total * 9 or behind * 2 < pot_after


def _preflop_sequence(seen: Seen) -> tuple[int, ...]:
    order = seen.order
    if len(order) == 2:
        return order[::-1]
    return order[2:] + order[:2]


def _behind(seen: Seen, seat: int) -> int:
    """Players who act after ``seat`` pre-flop, the blinds included."""
    sequence = _preflop_sequence(seen)
    return len(sequence) - 1 - sequence.index(seat)


def _range_share(seen: Seen, seat: int) -> float:
    """The share of hands (best first) an opponent is taken to hold after its pre-flop actions."""
    raise_number = 0
    strongest = 0
    called_raise = False
    limped = False
    for move in seen.moves:
        if move.street:
            break
        if move.raised:
            raise_number += 1
            if move.seat == seat:
                strongest = raise_number
        elif move.seat == seat and move.kind in ("call", "all_in"):
            called_raise = called_raise or raise_number > 0
            limped = limped or raise_number == 0
    if strongest >= 3:
        return 0.035
    if strongest == 2:
        return 0.07
    if strongest == 1:
        stack_bb = seen.total(seat) / seen.big_blind
        share = ranges.open_share(_behind(seen, seat), players=len(seen.order))
        if seen.stacks[seat] == 0 and stack_bb <= ranges.PUSH_MAX_BB:
            share = max(share, ranges.push_share(_behind(seen, seat), stack_bb))
        return share
    if called_raise:
        return 0.3 if _behind(seen, seat) == 0 else 0.15
    if limped:
        return 0.45
    return 1.0


def _pool(seen: Seen, seat: int, rng: random.Random, want: int) -> list[tuple[int, ...]]:
    """Hands ``seat`` may hold given the betting: its pre-flop range, then, for each bet or raise it made
    after the flop, mostly hands that connect with the board of that street (a pair, a draw; two pair or a
    strong draw for a raise), with some bluffs; a call keeps most hands with a pair or a draw."""
    dead = set(seen.hole) | set(seen.board)
    omaha = seen.variant is not Variant.HOLDEM
    tests = [
        (move.street, move.raised, move.kind) for move in seen.moves if move.street and move.seat == seat
    ]
    if omaha:
        deck = [c for c in range(52) if c not in dead]
        candidates: Sequence[tuple[int, ...]] = [tuple(rng.sample(deck, 4)) for _ in range(want * 3)]
    else:
        candidates = ranges.top_combos(_range_share(seen, seat), dead)
    if not tests:
        if omaha or len(candidates) <= want:
            return list(candidates[:want])
        return [candidates[rng.randrange(len(candidates))] for _ in range(want)]
    pool: list[tuple[int, ...]] = []
    for attempt in range(want * 3):
        hand = candidates[attempt] if omaha else candidates[rng.randrange(len(candidates))]
        if all(_fits(seen, hand, street, raised, kind, rng) for street, raised, kind in tests):
            pool.append(hand)
            if len(pool) >= want:
                break
    return pool or list(candidates[:want])


_BOARD_AT = (0, 3, 4, 5)


def _fits(
    seen: Seen, hand: tuple[int, ...], street: int, raised: bool, kind: str, rng: random.Random
) -> bool:
    board = seen.board[: _BOARD_AT[street]]
    rank = omaha_rank(hand, board) if len(hand) == 4 else holdem_rank(hand, board)
    if raised and kind != "call":
        if rank <= TWO_PAIR:
            return True
        if rng.random() < 0.12:
            return True
        return (
            street < 3
            and rng.random() < 0.5
            and _draws(hand, board, hi_lo=seen.variant is Variant.OMAHA_HILO)
        )
    if rank <= PAIR or rng.random() < (0.35 if kind == "call" else 0.3):
        return True
    return street < 3 and _draws(hand, board, hi_lo=seen.variant is Variant.OMAHA_HILO)


_WINDOWS = tuple(0b11111 << low for low in range(9)) + (0b1000000001111,)  # five ranks in a row; A-2-3-4-5


def _draws(hand: Sequence[int], board: Sequence[int], *, hi_lo: bool) -> bool:
    """A flush draw or a straight draw (four of five ranks in a row) with the hand's cards (Omaha: two of
    them), or at Hi-Lo two low cards with two other low cards on the board."""
    suits = [0, 0, 0, 0]
    for card in board:
        suits[card & 3] += 1
    board_mask = 0
    for card in board:
        board_mask |= 1 << (card >> 2)
    pairs = [(hand[i], hand[j]) for i in range(len(hand)) for j in range(i + 1, len(hand))]
    for a, b in pairs:
        if a & 3 == b & 3 and suits[a & 3] >= 2:
            return True
        if len(hand) == 2 and (suits[a & 3] >= 3 or suits[b & 3] >= 3):
            return True
        mask = board_mask | 1 << (a >> 2) | 1 << (b >> 2)
        for window in _WINDOWS:
            if (mask & window).bit_count() >= 4:
                return True
    if hi_lo:
        low_hand = {(c >> 2) for c in hand if (c >> 2) <= 6 or (c >> 2) == 12}
        low_board = {(c >> 2) for c in board if (c >> 2) <= 6 or (c >> 2) == 12}
        if len(low_hand) >= 2 and len(low_board - low_hand) >= 2:
            return True
    return False


# --- pre-flop -----------------------------------------------------------------------------------------


def _preflop_holdem(seen: Seen, style: Style, rng: random.Random) -> tuple[str, int | None]:
    bb = seen.big_blind
    me = seen.seat
    total = seen.total(me)
    opponents = seen.opponents
    widest = max((seen.total(s) for s in opponents), default=total)
    stack_bb = min(total, widest) / bb
    raises = [m for m in seen.moves if m.street == 0 and m.raised]
    limpers = sum(1 for m in seen.moves if m.street == 0 and m.kind == "call" and not raises)
    share = ranges.hand_share(seen.hole)
    behind = _behind(seen, me)
    no_limit = seen.structure is Structure.NO_LIMIT
    if not raises:
        if no_limit and stack_bb <= ranges.PUSH_MAX_BB:
            pushed = ranges.push_share(behind, stack_bb) * style.push * (0.6 if limpers else 1.0)
            return ("all_in", None) if share < pushed else ("fold", None)
        opens = ranges.open_share(behind, players=len(seen.order)) * style.open * (0.6 if limpers else 1.0)
        if share < opens:
            size = (3.0 if style.name == "aggressive" or behind == 1 else 2.5) + limpers
            return "raise", round(size * bb)
        if limpers and share < opens * 1.8:
            return "call", None
        if behind == 1 and seen.to_call * 2 <= bb and share < 0.35 * style.call:
            return "call", None  # the small blind completes
        return "fold", None
    last = raises[-1]
    to_call = seen.to_call
    price = to_call / (seen.pot + to_call)
    shoved = seen.stacks[last.seat] == 0
    if (
        shoved
        or to_call * 10 >= total * 3
        or len(raises) >= 3
        or (no_limit and stack_bb <= ranges.PUSH_MAX_BB)
    ):
        return _by_equity(seen, style, rng, price, can_shove=not shoved)
    opener = _range_share(seen, last.seat)
    widen = min(max(opener / 0.15, 0.7), 2.5)
    if len(raises) == 1:
        three_bet = style.three_bet * widen
        calls = (
            0.1 * style.call * widen * (1.6 if behind == 0 else 1.0) * (1.0 if last.amount <= 3 * bb else 0.7)
        )
        if share < three_bet or (share < 3 * three_bet and rng.random() < style.bluff * 0.4):
            callers = sum(
                1 for m in seen.moves if m.street == 0 and m.kind == "call" and m.amount == last.amount
            )
            factor = 3.0 if _behind(seen, last.seat) > behind else 3.5
            return "raise", round(last.amount * (factor + callers))
        if share < three_bet + calls:
            return "call", None
        return "fold", None
    if share < 0.025 * style.call:
        return "raise", round(last.amount * 2.3)
    if share < 0.05 * style.call:
        return "call", None
    return "fold", None


def _by_equity(
    seen: Seen, style: Style, rng: random.Random, price: float, *, can_shove: bool
) -> tuple[str, None]:
    """A big decision pre-flop: equity against the ranges the betting implies, against the pot's price."""
    involved = [seat for seat in seen.opponents if _range_share(seen, seat) < 1.0] or list(seen.opponents)
    pools = [_pool(seen, seat, rng, _pool_size(seen, len(involved))) for seat in involved]
    omaha = seen.variant is not Variant.HOLDEM
    share = equity(
        hole=seen.hole,
        board=seen.board,
        pools=pools,
        samples=_samples(seen, len(pools)),
        rng=rng,
        omaha=omaha,
        hi_lo=seen.variant is Variant.OMAHA_HILO,
    )
    need = price + min(style.margin, 0.02)
    if can_shove and share >= need + 0.15 and share >= 0.5:
        return "all_in", None
    if share >= need:
        return "call", None
    return "fold", None


def _preflop_omaha(seen: Seen, style: Style, rng: random.Random) -> tuple[str, int | None]:
    me = seen.seat
    total = seen.total(me)
    quality = equity(
        hole=seen.hole,
        board=(),
        pools=[[]],
        samples=OMAHA_PREFLOP_SAMPLES,
        rng=rng,
        omaha=True,
        hi_lo=seen.variant is Variant.OMAHA_HILO,
    )
    raises = [m for m in seen.moves if m.street == 0 and m.raised]
    behind = _behind(seen, me)
    to_call = seen.to_call
    pot_to = seen.pot + 2 * to_call + seen.bets[me]  # a pot-sized raise, "to"
    if not raises:
        if quality >= 0.585 - 0.12 * ranges.open_share(behind) * style.open:
            return "raise", min(pot_to, round(3.5 * seen.big_blind))
        if quality >= 0.54 and to_call * 2 <= seen.big_blind:
            return "call", None
        return "fold", None
    big = to_call * 10 >= total * 3 or len(raises) >= 3
    if big:
        if quality >= 0.6 + style.margin:
            return "all_in" if quality >= 0.64 else "call", None
        return "fold", None
    if quality >= 0.66 - style.three_bet:
        return "raise", pot_to
    if quality >= 0.56 - 0.03 * (behind == 0) - (style.call - 1) * 0.03 + 0.03 * (len(raises) - 1):
        return "call", None
    return "fold", None


# --- after the flop -----------------------------------------------------------------------------------


def _postflop(seen: Seen, style: Style, rng: random.Random) -> tuple[str, int | None]:
    opponents = seen.opponents
    omaha = seen.variant is not Variant.HOLDEM
    hi_lo = seen.variant is Variant.OMAHA_HILO
    pools = [_pool(seen, seat, rng, _pool_size(seen, len(opponents))) for seat in opponents]
    samples = _samples(seen, len(pools))
    share = equity(
        hole=seen.hole, board=seen.board, pools=pools, samples=samples, rng=rng, omaha=omaha, hi_lo=hi_lo
    )
    fair = 1 / (len(opponents) + 1)
    pot = seen.pot
    to_call = seen.to_call
    top = max(seen.bets.values(), default=0)
    if not to_call:
        if share >= fair + (1 - fair) * (0.25 + style.value):
            fraction = 0.75 if share >= fair + (1 - fair) * 0.55 else 0.5
            return "bet", round(pot * fraction * style.size)
        raised_preflop = [m.seat for m in seen.moves if m.street == 0 and m.raised]
        if seen.street == 1 and raised_preflop[-1:] == [seen.seat] and len(opponents) <= 2:
            if rng.random() < 0.45 + style.bluff:
                return "bet", round(pot * 0.33 * style.size)
        if len(opponents) == 1 and rng.random() < style.bluff:
            return "bet", round(pot * 0.5 * style.size)
        return "check", None
    price = to_call / (pot + to_call)
    if share >= fair + (1 - fair) * (0.5 + style.value):
        return "raise", round(top + (pot + to_call) * 0.8 * style.size)
    if share >= price + style.margin:
        return "call", None
    if (
        len(opponents) == 1
        and seen.street < 3
        and to_call * 5 <= pot * 2
        and rng.random() < style.bluff * 0.25
    ):
        return "raise", round(top + (pot + to_call) * 0.7)
    return "fold", None
