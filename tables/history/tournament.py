"""What a hand history says of the tournament a hand was dealt in, and the tournaments' summaries.

The table code imports no tournament code (the apps are layers): the tournaments app registers, when it loads
(`TournamentsConfig.ready`), a function that tells what a tournament table's hands belong to, and one that
writes a player's tournament summaries:

    tournament_history_register(facts=lambda *, table_id: TournamentFacts | None,
                                summaries=lambda *, user, since, until: Iterator[str])

A hand at a tournament table is then written in PokerStars' tournament form (the tournament's number, buy-in
and fee, the level, chips as whole numbers); a cash hand is written as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class LevelFacts:
    number: int
    small_blind: int
    big_blind: int
    ante: int
    starts_at: datetime | None
    """When the level began (the tournament's start plus the levels before), ``None`` before the start."""


@dataclass(frozen=True, slots=True)
class TournamentFacts:
    """A tournament table's tournament, as its hands' histories name it. Money (``buy_in``, ``fee``,
    prizes) is in cents of ``currency``; chips are the tournament's own whole counts."""

    tournament_id: int
    name: str
    currency: str
    buy_in: int
    fee: int
    table_number: int
    levels: tuple[LevelFacts, ...]
    finishes: Mapping[int, tuple[int | None, int | None]] = field(default_factory=dict)
    """user id -> (place, prize) of the entries that have finished."""

    def level_of(self, *, small_blind: int, big_blind: int, ante: int, started_at: datetime) -> int:
        """The level a hand was dealt at: the level of its blinds and ante (or of its blinds, when no big blind
        posted the ante) that had begun when it was dealt (the latest such), else the first level of those
        blinds, else the level in force by the clock."""
        same = [
            level
            for level in self.levels
            if (level.small_blind, level.big_blind, level.ante) == (small_blind, big_blind, ante)
        ] or [
            level for level in self.levels if (level.small_blind, level.big_blind) == (small_blind, big_blind)
        ]
        begun = [level for level in same if level.starts_at is not None and level.starts_at <= started_at]
        if begun:
            return begun[-1].number
        if same:
            return same[0].number
        by_clock = [level for level in self.levels if level.starts_at and level.starts_at <= started_at]
        return by_clock[-1].number if by_clock else 1


def levels_timed(
    *, levels: tuple[tuple[int, int, int, int], ...], started_at: datetime | None
) -> tuple[LevelFacts, ...]:
    """Levels ``(small blind, big blind, ante, seconds)`` with their starts: each begins when the one before
    ends (the blind clock, ``tournaments.play.level_advance``)."""
    out = []
    start = started_at
    for number, (small, big, ante, seconds) in enumerate(levels, start=1):
        out.append(LevelFacts(number, small, big, ante, start))
        start = start + timedelta(seconds=seconds) if start is not None else None
    return tuple(out)


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"))
_ROMAN += ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def roman(number: int) -> str:
    """12 -> "XII": PokerStars numbers its levels so."""
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def prize_text(amount: int, currency: str) -> str:
    """A tournament's money as PokerStars' summaries and bust lines write it: ``€9.04`` (the cents always),
    play chips whole when they are (``2700``)."""
    value = Decimal(amount) / 100
    if currency == "eur":
        return f"€{value:.2f}"
    return f"{value:.0f}" if amount % 100 == 0 else f"{value:.2f}"


def place_words(place: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


FactsFunc = Callable[..., "TournamentFacts | None"]
SummariesFunc = Callable[..., Iterator[str]]
_facts: FactsFunc | None = None
_summaries: SummariesFunc | None = None


def tournament_history_register(*, facts: FactsFunc, summaries: SummariesFunc) -> None:
    global _facts, _summaries
    _facts, _summaries = facts, summaries


def tournament_facts(*, table_id: int) -> TournamentFacts | None:
    """The tournament of a tournament table (``None`` for a cash table, or with no tournaments app)."""
    return _facts(table_id=table_id) if _facts is not None else None


def tournament_summaries(*, user=None, since: date | None = None, until: date | None = None) -> Iterator[str]:
    """The PokerStars summaries of the tournaments ``user`` played (``None``: every tournament, for staff),
    started between ``since`` and ``until`` (local days, both included)."""
    if _summaries is None:
        return iter(())
    return _summaries(user=user, since=since, until=until)
