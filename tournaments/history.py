"""Tournaments in hand histories: what a tournament table's hands belong to (registered with the table code's
history, `tables.history.tournament`), and PokerStars tournament summaries.

A summary is the file PokerStars sends a player after a tournament, and trackers import it beside the hands
(fpdb's PokerStars summary importer reads this form):

    PokerStars Tournament #12, No Limit Hold'em
    Buy-In: €10.00/€1.00 EUR
    6 players
    Total Prize Pool: €60.00 EUR
    Tournament started 2026/12/05 22:38:00 CET [2026/12/05 16:38:00 ET]
    Tournament finished 2026/12/05 23:10:04 CET [2026/12/05 17:10:04 ET]

      1: alice (), €39.00 (65%)
      2: bruno (), €21.00 (35%)
      3: carla (),
    ...

    You finished in 3rd place (eliminated at hand #4512).

Play chips are written as PokerStars writes play-money tournaments: whole numbers, no currency (``Buy-In:
300/20``, ``Total Prize Pool: 2700``). The room keeps no country: the parentheses PokerStars fills with one
are left empty. A tournament still running lists its players still in as ``still playing`` and has no
"finished" lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from tables.history.pokerstars import GAMES, LIMITS, moment_text
from tables.history.selectors import hands_played_by
from tables.history.tournament import TournamentFacts, levels_timed, place_words, prize_text
from tables.models import Hand
from tournaments.models import Entry, Tournament, TournamentTable
from tournaments.selectors import prize_pool

SUMMARY_SEPARATOR = "\n\n\n"


def tournament_table_facts(*, table_id: int) -> TournamentFacts | None:
    """What the hands of the room table ``table_id`` belong to, or ``None`` for a cash table."""
    link = (
        TournamentTable.objects.select_related("tournament", "tournament__blind_structure")
        .filter(table_id=table_id)
        .first()
    )
    if link is None:
        return None
    tournament = link.tournament
    levels = tuple(
        tournament.blind_structure.levels.order_by("number").values_list(
            "small_blind", "big_blind", "ante", "seconds"
        )
    )
    finishes = {
        user_id: (place, prize)
        for user_id, place, prize in tournament.entries.filter(status=Entry.Status.FINISHED).values_list(
            "user_id", "place", "prize"
        )
    }
    return TournamentFacts(
        tournament_id=tournament.pk,
        name=tournament.name,
        currency=tournament.currency,
        buy_in=tournament.buy_in,
        fee=tournament.fee,
        table_number=link.number,
        levels=levels_timed(levels=levels, started_at=tournament.started_at),
        finishes=finishes,
    )


def _percent(prize: int, pool: int) -> str:
    """65 -> "65", 38.2214 -> "38.221": the share of the pool, as PokerStars writes it (up to 3 decimals)."""
    share = (Decimal(prize) * 100 / pool).quantize(Decimal("0.001")).normalize()
    return f"{share:f}"


def tournament_summary(*, tournament: Tournament, user=None) -> str:
    """A tournament's summary for ``user`` (their place on the last line), or without it (``None``)."""
    zone = settings.TIME_ZONE
    currency = tournament.currency
    entries = list(tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).select_related("user"))
    entries.sort(key=lambda e: (e.place is not None, e.place or 0, -e.chips, e.pk))
    still = [e for e in entries if e.place is None]
    pool = prize_pool(tournament=tournament)
    iso = " EUR" if currency == "eur" else ""
    game = f"{LIMITS[tournament.structure]} {GAMES[tournament.game]}"
    if tournament.buy_in + tournament.fee == 0:
        buy_in = "Freeroll"
    else:
        buy_in = (
            f"Buy-In: {prize_text(tournament.buy_in, currency)}/{prize_text(tournament.fee, currency)}{iso}"
        )
    lines = [
        f"PokerStars Tournament #{tournament.pk}, {game}",
        buy_in,
        f"{len(entries)} players",
        f"Total Prize Pool: {prize_text(pool, currency)}{iso}",
        f"Tournament started {moment_text(tournament.started_at, zone)}",
    ]
    if tournament.finished_at is not None and not still:
        lines.append(f"Tournament finished {moment_text(tournament.finished_at, zone)}")
    lines.append("")
    for rank, entry in enumerate(entries, start=1):
        head = f"  {entry.place if entry.place is not None else rank}: {entry.user.username} (),"
        if entry.place is None:
            lines.append(f"{head} still playing")
        elif entry.prize:
            lines.append(f"{head} {prize_text(entry.prize, currency)} ({_percent(entry.prize, pool)}%)")
        else:
            lines.append(head)
    mine = next((e for e in entries if user is not None and e.user_id == user.pk), None)
    if mine is not None and mine.place is not None:
        last = _last_hand(tournament=tournament, user_id=mine.user_id)
        at_hand = f" (eliminated at hand #{last})" if last is not None else ""
        lines += ["", f"You finished in {place_words(mine.place)} place{at_hand}."]
    return "\n".join(lines) + "\n"


def _last_hand(*, tournament: Tournament, user_id: int) -> int | None:
    """The last hand of the tournament the player was dealt in (the one they went out in, or won)."""
    return (
        hands_played_by(user_ids=[user_id])
        .filter(table__tournament_table__tournament=tournament, status=Hand.Status.COMPLETE)
        .values_list("id", flat=True)
        .first()
    )


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def tournaments_summarised(*, user=None, since: date | None = None, until: date | None = None):
    """The tournaments with a summary: started (running or finished), ``user``'s own when given, by start."""
    tournaments = Tournament.objects.filter(
        status__in=(Tournament.Status.RUNNING, Tournament.Status.FINISHED), started_at__isnull=False
    )
    if user is not None:
        tournaments = tournaments.filter(entries__user=user, entries__status__in=Entry.IN_TOURNAMENT)
    if since is not None:
        tournaments = tournaments.filter(started_at__gte=_day_start(since))
    if until is not None:
        tournaments = tournaments.filter(started_at__lt=_day_start(until + timedelta(days=1)))
    return tournaments.distinct().order_by("started_at", "pk")


def tournament_summaries_text(
    *, user=None, since: date | None = None, until: date | None = None
) -> Iterator[str]:
    """The summaries of ``user``'s tournaments (every tournament's, for staff, with ``None``), one after the
    other as PokerStars separates them."""
    for tournament in tournaments_summarised(user=user, since=since, until=until):
        yield tournament_summary(tournament=tournament, user=user).rstrip("\n") + SUMMARY_SEPARATOR
