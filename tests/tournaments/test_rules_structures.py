"""Blind structures as pure rules (SPEC 1.3): the default ladders of the three speeds and the level clock."""

from __future__ import annotations

import pytest

from tournaments.rules.structures import (
    ANTES_FROM_LEVEL,
    SPEED_STARTING_STACK,
    BlindSchedule,
    Level,
    LevelClock,
    Speed,
    StructureError,
    default_schedule,
)


@pytest.mark.parametrize(
    ("speed", "minutes", "stack"), [("regular", 10, 3_000), ("turbo", 5, 1_500), ("hyper", 3, 500)]
)
def test_default_speeds(speed: str, minutes: int, stack: int) -> None:
    schedule = default_schedule(Speed(speed))
    assert {level.seconds for level in schedule.levels} == {minutes * 60}
    assert SPEED_STARTING_STACK[Speed(speed)] == stack
    assert schedule.levels[0] == Level(10, 20, 0, minutes * 60)
    for number, level in enumerate(schedule.levels, start=1):
        assert level.big_blind == 2 * level.small_blind
        assert level.ante == (level.big_blind if number >= ANTES_FROM_LEVEL else 0)
    assert schedule.level(ANTES_FROM_LEVEL) == Level(25, 50, 50, minutes * 60)


def test_a_hyper_turbo_of_two_minutes_and_the_bench_s_one_minute_levels() -> None:
    assert {level.seconds for level in default_schedule(Speed.HYPER, level_seconds=120).levels} == {120}
    assert default_schedule(Speed.TURBO, level_seconds=60).clock_at(elapsed_seconds=61).number == 2


def test_the_ladder_ends_a_field_of_thousands() -> None:
    last = default_schedule(Speed.REGULAR).levels[-1]
    assert (
        last.big_blind * 10 > 2_000 * 3_000
    )  # the last level's blinds are a tenth of every chip of 2,000 players


def test_the_clock_steps_at_each_level_and_holds_the_last() -> None:
    schedule = BlindSchedule(levels=(Level(10, 20, 0, 600), Level(15, 30, 0, 300), Level(25, 50, 50, 600)))
    assert schedule.clock_at(elapsed_seconds=0) == LevelClock(1, schedule.levels[0], 600)
    assert schedule.clock_at(elapsed_seconds=599) == LevelClock(1, schedule.levels[0], 1)
    assert schedule.clock_at(elapsed_seconds=600) == LevelClock(2, schedule.levels[1], 300)
    assert schedule.clock_at(elapsed_seconds=900) == LevelClock(3, schedule.levels[2], None)
    assert schedule.clock_at(elapsed_seconds=10**7).number == 3
    assert schedule.level_starts() == (0, 600, 900)
    assert schedule.level(99) == schedule.levels[2]
    with pytest.raises(StructureError):
        schedule.level(0)
    with pytest.raises(StructureError):
        schedule.clock_at(elapsed_seconds=-1)


@pytest.mark.parametrize(
    "levels",
    [
        (),
        (Level(10, 20, 0, 600), Level(5, 10, 0, 600)),
        (Level(10, 20, 0, 600), Level(10, 15, 0, 600)),
    ],
)
def test_unplayable_structures_are_refused(levels: tuple[Level, ...]) -> None:
    with pytest.raises(StructureError):
        BlindSchedule(levels=levels)


@pytest.mark.parametrize(
    "fields", [(30, 20, 0, 60), (10, 20, 0, 0), (0, 0, 0, 60), (10, 20, -1, 60), (10.0, 20, 0, 60)]
)
def test_unplayable_levels_are_refused(fields: tuple) -> None:
    with pytest.raises(StructureError):
        Level(*fields)
