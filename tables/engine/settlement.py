"""Settling a hand: our own, not pokerkit's (SPEC 1.1, 1.2 rake, 1.4 Hi-Lo).

pokerkit merges pots after the showdown and rounds odd chips its own way; the room splits every pot on
its own among the best hands of the players eligible for it, gives odd chips one at a time from the first
seat clockwise after the button, halves Hi-Lo pots (odd chip to the high) and takes the rake once per hand
over all pots. A hand whose rest of the board was dealt twice settles each pot's net in two halves, one on
each board. Everything here is integers and plain data, so it can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tables.engine.rake import RakeSchedule, spread_rake


@dataclass(frozen=True, slots=True)
class Strength:
    """A shown hand's value: ``high`` bigger wins; ``low`` smaller wins, ``None`` = no qualifying low."""

    high: int
    low: int | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """One of the two boards of a hand run twice, and the strength on it of every hand that competes."""

    board: tuple[str, ...]
    shown: Mapping[int, Strength]


@dataclass(frozen=True, slots=True)
class RunResult:
    """A pot's half settled on one board of a hand run twice (``run`` 1 or 2)."""

    run: int
    board: tuple[str, ...]
    amount: int
    winners: Mapping[int, int]
    high_winners: tuple[int, ...] = ()
    low_winners: tuple[int, ...] = ()
    low_amount: int = 0
    """Hi-Lo: this half's low part (0 when nobody qualified for a low); its high part is the rest."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "board": list(self.board),
            "amount": self.amount,
            "winners": {str(seat): won for seat, won in self.winners.items()},
            "high_winners": list(self.high_winners),
            "low_winners": list(self.low_winners),
            "high_amount": self.amount - self.low_amount,
            "low_amount": self.low_amount,
        }


@dataclass(frozen=True, slots=True)
class PotResult:
    """One pot as players see it: gross, rake, net, who could win it and who did. When the board was run
    twice, ``runs`` holds each half's board and winners; ``winners`` is then what the two halves paid each
    seat, and ``high_winners`` / ``low_winners`` whoever won a half on either board."""

    amount: int
    rake: int
    net: int
    eligible: tuple[int, ...]
    winners: Mapping[int, int]
    high_winners: tuple[int, ...] = ()
    low_winners: tuple[int, ...] = ()
    runs: tuple[RunResult, ...] = ()
    low_amount: int = 0
    """Hi-Lo: the net's low part (0 when nobody qualified for a low; run twice, both halves' low parts); the
    high part is the rest."""

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "amount": self.amount,
            "rake": self.rake,
            "net": self.net,
            "eligible": list(self.eligible),
            "winners": {str(seat): won for seat, won in self.winners.items()},
            "high_winners": list(self.high_winners),
            "low_winners": list(self.low_winners),
            "high_amount": self.net - self.low_amount,
            "low_amount": self.low_amount,
        }
        if self.runs:
            data["runs"] = [run.as_dict() for run in self.runs]
        return data


@dataclass(frozen=True, slots=True)
class Settlement:
    """The end of a hand in money: per pot, uncalled bets returned, the rake and the final stacks."""

    pots: tuple[PotResult, ...]
    rake: int
    returned: Mapping[int, int]
    won: Mapping[int, int]
    finishing_stacks: Mapping[int, int]
    contributions: Mapping[int, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "pots": [pot.as_dict() for pot in self.pots],
            "rake": self.rake,
            "returned": {str(s): a for s, a in self.returned.items()},
            "won": {str(s): a for s, a in self.won.items()},
            "finishing_stacks": {str(s): a for s, a in self.finishing_stacks.items()},
        }


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]


def return_uncalled(
    contributions: Mapping[int, int], folded: frozenset[int] | set[int] = frozenset()
) -> tuple[dict[int, int], dict[int, int]]:
    """Give the part of the biggest contribution nobody matched back to its owner, before pots form
    (never to a player who folded: folded chips are dead).

    Returns (contributions after the return, {seat: amount returned}).
    """
    after = dict(contributions)
    if len(after) < 2:
        return after, {}
    ranked = sorted(after.items(), key=lambda item: item[1], reverse=True)
    (top_seat, top), (_, second) = ranked[0], ranked[1]
    if top > second and top_seat not in folded:
        after[top_seat] = second
        return after, {top_seat: top - second}
    return after, {}


def build_pots(
    *,
    order: Sequence[int],
    contributions: Mapping[int, int],
    folded: frozenset[int] | set[int],
    dead: int = 0,
) -> list[Pot]:
    """Main pot, then one side pot per all-in level, each with the players still in who covered it.

    ``contributions`` are live chips (blinds and bets) with uncalled chips already returned. Levels are
    the distinct totals of the players still in; chips of folded players go into the pots their chips
    reach (above the top level, which cannot happen once uncalled chips are returned, they would join
    the last pot). ``dead`` money (antes, dead small blinds, bomb-pot posts) goes to the main pot: it
    is nobody's bet, so it is never returned and every player still in can win it.
    """
    live = [seat for seat in order if seat not in folded]
    levels = sorted({contributions[seat] for seat in live if contributions[seat] > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributions.values())
        eligible = tuple(seat for seat in live if contributions[seat] >= level)
        if amount:
            pots.append(Pot(amount, eligible))
        previous = level
    beyond = sum(max(0, c - previous) for c in contributions.values())
    if beyond:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(last.amount + beyond, last.eligible)
        else:
            pots.append(Pot(beyond, tuple(live)))
    if dead:
        if pots:
            pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
        else:
            pots.append(Pot(dead, tuple(live)))
    return pots


def split_evenly(*, amount: int, winners: Sequence[int], order: Sequence[int], chip: int) -> dict[int, int]:
    """Split ``amount`` equally in whole chips; odd chips one each from the first winner in ``order``."""
    ordered = [seat for seat in order if seat in winners]
    count = len(ordered)
    share = amount // count // chip * chip
    result = {seat: share for seat in ordered}
    left = amount - share * count
    index = 0
    while left > 0:
        step = min(chip, left)
        result[ordered[index % count]] += step
        left -= step
        index += 1
    return result


def _best(seats: Sequence[int], strengths: Mapping[int, Strength], *, low: bool) -> tuple[int, ...]:
    if low:
        candidates = [s for s in seats if strengths[s].low is not None]
        if not candidates:
            return ()
        best_low = min(strengths[s].low for s in candidates)  # type: ignore[type-var]
        return tuple(s for s in candidates if strengths[s].low == best_low)
    best_high = max(strengths[s].high for s in seats)
    return tuple(s for s in seats if strengths[s].high == best_high)


def hi_lo_low_half(*, amount: int, chip: int) -> int:
    """The low half of an amount split between the high and the low: the odd chip goes to the high."""
    return amount // chip // 2 * chip


def _award(
    *,
    amount: int,
    eligible: tuple[int, ...],
    shown: Mapping[int, Strength],
    hi_lo: bool,
    order: Sequence[int],
    chip: int,
) -> tuple[dict[int, int], tuple[int, ...], tuple[int, ...]]:
    """Split ``amount`` of a pot among the best hands of its eligible players: (winners, high, low)."""
    contenders = [seat for seat in eligible if seat in shown]
    if len(eligible) == 1 or not contenders:
        # Uncontested (or nobody eligible showed, which the showdown rules never allow): the first
        # eligible player takes it.
        return {eligible[0]: amount}, (eligible[0],), ()
    high = _best(contenders, shown, low=False)
    low = _best(contenders, shown, low=True) if hi_lo else ()
    if not low:
        return split_evenly(amount=amount, winners=high, order=order, chip=chip), high, ()
    low_half = hi_lo_low_half(amount=amount, chip=chip)
    winners = split_evenly(amount=amount - low_half, winners=high, order=order, chip=chip)
    for seat, won in split_evenly(amount=low_half, winners=low, order=order, chip=chip).items():
        winners[seat] = winners.get(seat, 0) + won
    return winners, high, low


def _award_twice(
    *, net: int, eligible: tuple[int, ...], runs: Sequence[Run], hi_lo: bool, order: Sequence[int], chip: int
) -> tuple[dict[int, int], tuple[int, ...], tuple[int, ...], tuple[RunResult, ...]]:
    """Halve a pot's net (the odd chip to the first run) and settle each half on its own board."""
    second = net // chip // 2 * chip
    results = []
    for number, (run, half) in enumerate(zip(runs, (net - second, second), strict=True), start=1):
        paid, high, low = _award(
            amount=half, eligible=eligible, shown=run.shown, hi_lo=hi_lo, order=order, chip=chip
        )
        low_amount = hi_lo_low_half(amount=half, chip=chip) if low else 0
        results.append(RunResult(number, run.board, half, paid, high, low, low_amount))
    winners: dict[int, int] = {}
    for result in results:
        for seat, won in result.winners.items():
            winners[seat] = winners.get(seat, 0) + won
    high = tuple(seat for seat in order if any(seat in r.high_winners for r in results))
    low = tuple(seat for seat in order if any(seat in r.low_winners for r in results))
    return winners, high, low, tuple(results)


def settle(
    *,
    order: Sequence[int],
    starting_stacks: Mapping[int, int],
    contributions: Mapping[int, int],
    dead: Mapping[int, int],
    folded: frozenset[int] | set[int],
    shown: Mapping[int, Strength],
    hi_lo: bool,
    chip: int,
    rake: RakeSchedule | None,
    players_dealt: int,
    big_blind: int,
    saw_flop: bool,
    returned_before: Mapping[int, int] | None = None,
    runs: Sequence[Run] = (),
) -> Settlement:
    """Settle the money of a finished hand.

    ``order`` is the odd-chip order (first seat clockwise of the button first; heads-up the big blind
    first and the button last). ``contributions`` are live chips (blinds, bets); ``dead`` the dead
    money each seat put in (antes, dead small blind, bomb-pot post). ``shown`` holds the strength of
    every hand that competes at the showdown; when one player is left it may be empty (the winner need
    not show). Only the part of a bet that nobody matched goes back before the pots form: a raise to 200
    over a bet of 40 that everyone folds to returns 160, and the 40 matched stays in the pot and is raked.
    ``returned_before``: uncalled chips already back in the stacks (``contributions`` exclude them);
    they are only reported in ``Settlement.returned``. Players still in who mucked are
    in neither ``folded`` nor ``shown``: they stay in the pots' eligible lists but cannot win.
    ``runs``: the two boards of a hand run twice; the rake is worked out once on the pots together, then
    each pot's net is halved (the odd chip to the first run) and each half settled on its own board.
    """
    matched, returned = return_uncalled(contributions, folded)
    pots = build_pots(order=order, contributions=matched, folded=folded, dead=sum(dead.values()))
    total = sum(pot.amount for pot in pots)
    hand_rake = 0
    if rake is not None:
        hand_rake = rake.rake_for(total=total, players=players_dealt, big_blind=big_blind, saw_flop=saw_flop)
    shares = spread_rake(pots=[pot.amount for pot in pots], rake=hand_rake, chip=chip)
    won: dict[int, int] = {}
    results: list[PotResult] = []
    for pot, pot_rake in zip(pots, shares, strict=True):
        net = pot.amount - pot_rake
        halves: tuple[RunResult, ...] = ()
        if runs:
            winners, high, low, halves = _award_twice(
                net=net, eligible=pot.eligible, runs=runs, hi_lo=hi_lo, order=order, chip=chip
            )
        else:
            winners, high, low = _award(
                amount=net, eligible=pot.eligible, shown=shown, hi_lo=hi_lo, order=order, chip=chip
            )
        for seat, amount in winners.items():
            won[seat] = won.get(seat, 0) + amount
        if halves:
            low_amount = sum(half.low_amount for half in halves)
        else:
            low_amount = hi_lo_low_half(amount=net, chip=chip) if low else 0
        results.append(
            PotResult(pot.amount, pot_rake, net, pot.eligible, winners, high, low, halves, low_amount)
        )
    reported = dict(returned)
    for seat, amount in (returned_before or {}).items():
        if amount:
            reported[seat] = reported.get(seat, 0) + amount
    finishing = {
        seat: starting_stacks[seat]
        - contributions[seat]
        - dead.get(seat, 0)
        + returned.get(seat, 0)
        + won.get(seat, 0)
        for seat in order
    }
    return Settlement(tuple(results), hand_rake, reported, won, finishing, dict(contributions))
