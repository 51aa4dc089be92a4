"""Blind structures (SPEC 1.3): levels of small blind, big blind and big-blind ante, each with its length,
and where the clock stands after a given time.

Pure: the standard library only. Chips are integers. A big-blind ante is dead money posted by the player
in the big blind for the whole table (the engine's ``antes`` of that seat); 0 means no ante.

The room's defaults (one ladder of blinds, three speeds; staff may edit them or make others as data):

| speed | level | starting stack | antes from |
| --- | --- | --- | --- |
| regular | 10 minutes | 3,000 (150 big blinds) | level 4 (25/50) |
| turbo | 5 minutes | 1,500 (75 big blinds) | level 4 (25/50) |
| hyper-turbo | 3 minutes (2 to 3 in the seeds; staff may set 2) | 500 (25 big blinds) | level 4 (25/50) |

The ladder, small blind / big blind: 10/20, 15/30, 20/40, 25/50, 30/60, 40/80, 50/100, 60/120, 80/160,
100/200, 125/250, 150/300, 200/400, 250/500, 300/600, 400/800, 500/1,000, 600/1,200, 800/1,600,
1,000/2,000, and the same steps on up to 80,000/160,000, then doubling from 100,000/200,000 to
12,800,000/25,600,000 (so a field of thousands still ends); the big-blind ante equals the big blind. The last level
lasts until the tournament ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class StructureError(ValueError):
    """Levels that cannot be played (blinds out of order, a level of no length, ...)."""


class Speed(StrEnum):
    REGULAR = "regular"
    TURBO = "turbo"
    HYPER = "hyper"


SPEED_LEVEL_SECONDS = {Speed.REGULAR: 600, Speed.TURBO: 300, Speed.HYPER: 180}
SPEED_STARTING_STACK = {Speed.REGULAR: 3_000, Speed.TURBO: 1_500, Speed.HYPER: 500}
ANTES_FROM_LEVEL = 4  # 25/50: the first level whose big blind buys a meaningful ante in every speed


@dataclass(frozen=True, slots=True)
class Level:
    small_blind: int
    big_blind: int
    ante: int
    seconds: int

    def __post_init__(self) -> None:
        for name in ("small_blind", "big_blind", "ante", "seconds"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise StructureError(f"{name} must be a whole number >= 0, not {value!r}")
        if self.big_blind < 1 or self.seconds < 1:
            raise StructureError("a level needs a big blind and a length")
        if self.small_blind > self.big_blind:
            raise StructureError(f"small blind {self.small_blind} above the big blind {self.big_blind}")


@dataclass(frozen=True, slots=True)
class LevelClock:
    """Where the blind clock stands: ``number`` counts from 1; ``seconds_left`` is ``None`` on the last level,
    which lasts until the end."""

    number: int
    level: Level
    seconds_left: int | None


@dataclass(frozen=True, slots=True)
class BlindSchedule:
    levels: tuple[Level, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", tuple(self.levels))
        if not self.levels:
            raise StructureError("a structure needs at least one level")
        for before, after in zip(self.levels, self.levels[1:], strict=False):
            if after.big_blind < before.big_blind or after.small_blind < before.small_blind:
                raise StructureError("blinds never go down from one level to the next")

    def level(self, number: int) -> Level:
        """Level ``number`` (from 1); past the last level, the last one."""
        if number < 1:
            raise StructureError(f"levels count from 1, not {number}")
        return self.levels[min(number, len(self.levels)) - 1]

    def clock_at(self, *, elapsed_seconds: int) -> LevelClock:
        """The level in force ``elapsed_seconds`` after the first level began, when no level was held up
        (the room stores each level's start, so it asks this only to know when the next one is due)."""
        if elapsed_seconds < 0:
            raise StructureError("the clock cannot stand before the start")
        started = 0
        for number, level in enumerate(self.levels, start=1):
            if number == len(self.levels):
                return LevelClock(number, level, None)
            if elapsed_seconds < started + level.seconds:
                return LevelClock(number, level, started + level.seconds - elapsed_seconds)
            started += level.seconds
        raise AssertionError("unreachable")

    def level_starts(self) -> tuple[int, ...]:
        """Seconds from the start at which each level begins."""
        starts, started = [], 0
        for level in self.levels:
            starts.append(started)
            started += level.seconds
        return tuple(starts)


# The small blinds of the default ladder; the big blind is twice the small blind.
DEFAULT_SMALL_BLINDS = (
    10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800,
    1_000, 1_250, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000, 8_000,
    10_000, 12_500, 15_000, 20_000, 25_000, 30_000, 40_000, 50_000, 60_000, 80_000,
    100_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000, 6_400_000, 12_800_000,
)  # fmt: skip


def default_schedule(speed: Speed, *, level_seconds: int | None = None) -> BlindSchedule:
    seconds = level_seconds if level_seconds is not None else SPEED_LEVEL_SECONDS[Speed(speed)]
    return BlindSchedule(
        levels=tuple(
            Level(small, big, big if number >= ANTES_FROM_LEVEL else 0, seconds)
            for number, (small, big) in enumerate(
                ((small, 2 * small) for small in DEFAULT_SMALL_BLINDS), start=1
            )
        )
    )


def levels_check(levels: Sequence[Level]) -> BlindSchedule:
    """The schedule of ``levels``, or a StructureError saying what is wrong with them."""
    return BlindSchedule(levels=tuple(levels))
