"""The room's rake (SPEC 1.2) as data, and how it is worked out and spread over the pots.

The schedule is a plain value: staff edit it in the admin, the Django side builds a
:class:`RakeSchedule` from the database and passes it in with the hand's configuration. Nothing here
knows the room's numbers except :func:`room_schedule`, the default that matches the SPEC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class RakeRule(StrEnum):
    PER_UNIT = "per_unit"
    """``per_unit_rake`` for each whole ``per_unit_amount`` of the pots (0.01 per whole 0.18)."""
    PER_MILLE = "per_mille"
    """``per_mille`` thousandths of the pots, rounded down to a multiple of the smallest chip."""


@dataclass(frozen=True, slots=True)
class RakeCap:
    """A cap for hands dealt to ``min_players`` .. ``max_players`` (``None``: no upper bound) at a big
    blind in ``[min_big_blind, max_big_blind)`` (``None``: no upper bound)."""

    min_players: int
    max_players: int | None
    min_big_blind: int
    max_big_blind: int | None
    cap: int

    def applies(self, *, players: int, big_blind: int) -> bool:
        return (
            self.min_players <= players
            and (self.max_players is None or players <= self.max_players)
            and self.min_big_blind <= big_blind
            and (self.max_big_blind is None or big_blind < self.max_big_blind)
        )


@dataclass(frozen=True, slots=True)
class RakeSchedule:
    """How much a hand pays: a rule on the sum of its pots, then the first matching cap.

    ``no_flop_no_drop``: a hand that ends before the flop is dealt pays nothing. When no cap matches
    the hand is not capped (staff are expected to cover every case; the default does).
    """

    rule: RakeRule
    chip: int = 1
    per_unit_amount: int = 0
    per_unit_rake: int = 0
    per_mille: int = 0
    caps: tuple[RakeCap, ...] = ()
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if self.chip <= 0:
            raise ValueError("the smallest chip must be positive")
        if self.rule is RakeRule.PER_UNIT and (self.per_unit_amount <= 0 or self.per_unit_rake < 0):
            raise ValueError("a per-unit rake needs a positive unit")
        if self.rule is RakeRule.PER_MILLE and not 0 <= self.per_mille <= 1000:
            raise ValueError("per mille must be within 0..1000")

    def cap_for(self, *, players: int, big_blind: int) -> int | None:
        for cap in self.caps:
            if cap.applies(players=players, big_blind=big_blind):
                return cap.cap
        return None

    def uncapped(self, total: int) -> int:
        if self.rule is RakeRule.PER_UNIT:
            return total // self.per_unit_amount * self.per_unit_rake
        return total * self.per_mille // 1000 // self.chip * self.chip

    def rake_for(self, *, total: int, players: int, big_blind: int, saw_flop: bool) -> int:
        """The hand's whole rake, worked out once on the sum of its pots (uncalled bets excluded)."""
        if total <= 0 or (self.no_flop_no_drop and not saw_flop):
            return 0
        amount = self.uncapped(total)
        cap = self.cap_for(players=players, big_blind=big_blind)
        if cap is not None:
            amount = min(amount, cap)
        return max(0, min(amount, total))


def _room_caps(*, euro_cent: int) -> tuple[RakeCap, ...]:
    """The SPEC 1.2 cap table; amounts in cents (``euro_cent`` = 1)."""
    c = euro_cent
    low, high = 20 * c, 400 * c  # big blind bands: < 0.20, 0.20 .. 3.99, >= 4.00
    return (
        RakeCap(2, 2, 0, None, 100 * c),
        RakeCap(3, 4, 0, low, 100 * c),
        RakeCap(3, 4, low, high, 200 * c),
        RakeCap(3, 4, high, None, 300 * c),
        RakeCap(5, None, 0, low, 200 * c),
        RakeCap(5, None, low, high, 300 * c),
        RakeCap(5, None, high, None, 300 * c),
    )


ROOM_RAKE_001 = RakeSchedule(
    rule=RakeRule.PER_UNIT, chip=1, per_unit_amount=18, per_unit_rake=1, caps=_room_caps(euro_cent=1)
)
"""Tables whose smallest chip is 0.01: 0.01 per whole 0.18 of the pots, capped (amounts in cents)."""

ROOM_RAKE_005 = RakeSchedule(rule=RakeRule.PER_MILLE, chip=5, per_mille=55, caps=_room_caps(euro_cent=1))
"""Tables whose smallest chip is 0.05: 5.5 % rounded down to a multiple of 0.05, capped (cents)."""


def room_schedule(chip: int) -> RakeSchedule:
    """The room's default schedule for a table whose smallest chip is ``chip`` cents (1 or 5)."""
    if chip == 1:
        return ROOM_RAKE_001
    if chip == 5:
        return ROOM_RAKE_005
    raise ValueError(f"the room has no default rake for a smallest chip of {chip}")


def spread_rake(*, pots: Sequence[int], rake: int, chip: int = 1) -> list[int]:
    """Take ``rake`` from the pots in proportion to their size, rounded down to the chip; the chips left
    by rounding come from the pots in order, main pot first (SPEC 1.2)."""
    total = sum(pots)
    if rake <= 0 or total <= 0:
        return [0] * len(pots)
    if rake > total:
        raise ValueError("the rake cannot exceed the pots")
    shares = [pot * rake // total // chip * chip for pot in pots]
    left = rake - sum(shares)
    while left > 0:
        moved = False
        for index, pot in enumerate(pots):
            if left <= 0:
                break
            step = min(chip, left)
            if shares[index] + step <= pot:
                shares[index] += step
                left -= step
                moved = True
        if not moved:  # pragma: no cover - impossible while rake <= total
            raise AssertionError("rake could not be spread")
    return shares
