"""Reads of the payout statistics: each day's figures worked out from the ledger (what the daily rows are made
of), and the daily rows summed over a period (what the page, the API and the admin show)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import connection
from django.utils import timezone

from cashier.models import AccountKind, TransferKind
from tables.models import Currency, PayoutDay, PayoutGame

WINDOW_DAYS = 30
CURRENCIES = (Currency.EUR, Currency.PLAY)  # the published figure first, then practice
CASH_GAMES = (PayoutGame.HOLDEM, PayoutGame.OMAHA, PayoutGame.OMAHA_HILO)


def payout_percent(*, put_in: int, paid_back: int) -> Decimal | None:
    """`paid_back / put_in` in percent, rounded half up to the two decimals the room publishes; None when
    nothing was put in. Integer arithmetic, so the figure is exact whatever the amounts."""
    if put_in <= 0:
        return None
    hundredths = (20_000 * paid_back + put_in) // (2 * put_in)
    return Decimal(hundredths).scaleb(-2)


@dataclass(frozen=True)
class DayFigures:
    """What people put in and got back on one day, in one game type and currency."""

    day: date
    game: str
    currency: str
    put_in: int
    paid_back: int
    count: int

    @property
    def percent(self) -> Decimal | None:
        return payout_percent(put_in=self.put_in, paid_back=self.paid_back)


@dataclass(frozen=True)
class PayoutLine:
    """One game type's figures over a period, and its days (only those with play)."""

    game: str
    currency: str
    put_in: int
    paid_back: int
    count: int
    days: tuple[DayFigures, ...]

    @property
    def percent(self) -> Decimal | None:
        return payout_percent(put_in=self.put_in, paid_back=self.paid_back)

    @property
    def label(self) -> str:
        return str(PayoutGame(self.game).label)


@dataclass(frozen=True)
class PayoutSummary:
    first: date
    last: date
    lines: dict[str, tuple[PayoutLine, ...]]
    """currency -> one line per game type, in PayoutGame's order (lines without play included)."""


def payout_window(*, today: date | None = None) -> tuple[date, date]:
    """The last 30 days: today (as far as computed) and the 29 days before, in the room's time zone."""
    last = today or timezone.localdate()
    return last - timedelta(days=WINDOW_DAYS - 1), last


def payout_summary(*, first: date, last: date) -> PayoutSummary:
    """The daily rows from `first` to `last` (both included) summed per currency and game type."""
    rows = PayoutDay.objects.filter(day__range=(first, last)).order_by("day")
    days: dict[tuple[str, str], list[DayFigures]] = {}
    for row in rows:
        days.setdefault((row.currency, row.game), []).append(
            DayFigures(row.day, row.game, row.currency, row.put_in, row.paid_back, row.count)
        )
    lines = {}
    for currency in CURRENCIES:
        lines[currency.value] = tuple(
            _line(game=game.value, currency=currency.value, days=days.get((currency.value, game.value), []))
            for game in PayoutGame
        )
    return PayoutSummary(first=first, last=last, lines=lines)


def _line(*, game: str, currency: str, days: list[DayFigures]) -> PayoutLine:
    return PayoutLine(
        game=game,
        currency=currency,
        put_in=sum(d.put_in for d in days),
        paid_back=sum(d.paid_back for d in days),
        count=sum(d.count for d in days),
        days=tuple(days),
    )


def payout_days(*, first: date, last: date):
    """The stored daily rows from `first` to `last`, oldest first (for the CSV download)."""
    return PayoutDay.objects.filter(day__range=(first, last)).order_by("day", "currency", "game")


# --- from the ledger ------------------------------------------------------------------------------------


def payout_days_from_ledger(*, first: date, last: date) -> list[DayFigures]:
    """Each day's figures from `first` to `last` (both included, days in the room's time zone), worked out
    from the ledger: hand settlements for the cash games (the game from the hand's table), tournament entries
    and prizes for the tournaments. Days and game types without play have no figures."""
    params = {
        "tz": settings.TIME_ZONE,
        "start": _day_start(first),
        "end": _day_start(last + timedelta(days=1)),
        "hand": TransferKind.HAND.value,
        "rake": AccountKind.RAKE.value,
        "entry": TransferKind.TOURNAMENT_ENTRY.value,
        "prize": TransferKind.TOURNAMENT_PRIZE.value,
        "refund": TransferKind.TOURNAMENT_REFUND.value,
        "wallets": [AccountKind.PLAYER_PLAY.value, AccountKind.PLAYER_EUR.value],
        "tournament": PayoutGame.TOURNAMENT.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(_CASH_SQL, params)
        rows = cursor.fetchall()
        cursor.execute(_TOURNAMENT_SQL, params)
        rows += cursor.fetchall()
    return [
        DayFigures(day, game, currency, int(put_in), int(paid_back), int(count))
        for day, game, currency, put_in, paid_back, count in rows
    ]


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


# Cash games, people only: what people put into the pots (the settlement's `pot_people`, uncalled bets
# excluded) and that less their share of the rake. A hand's rake is shared in proportion to what was put
# in, rounded to the nearest chip (half up): a hand without house bots gives people its whole rake.
_CASH_SQL = """
SELECT (t.created_at AT TIME ZONE %(tz)s)::date AS day, tb.game, t.currency,
       SUM(t.pot_people),
       SUM(t.pot_people - (2 * COALESCE(rake.amount, 0) * t.pot_people + t.pot) / (2 * t.pot)),
       COUNT(*)
  FROM cashier_transfer t
  JOIN tables_table tb ON tb.id = t.table_id
  LEFT JOIN LATERAL (
      SELECT SUM(e.amount)::bigint AS amount FROM cashier_entry e JOIN cashier_account a ON a.id = e.account_id
       WHERE e.transfer_id = t.id AND a.kind = %(rake)s
  ) rake ON true
 WHERE t.kind = %(hand)s AND t.pot_people > 0 AND t.created_at >= %(start)s AND t.created_at < %(end)s
 GROUP BY 1, 2, 3
"""

# Tournaments, people only: what players' wallets paid for entries (buy-in and fee) less what came back as
# refunds (unregistering, a cancelled tournament), and what they received as prizes; entries less refunds
# counted. A day may have prizes without entries, or more refunds than entries: never below zero.
_TOURNAMENT_SQL = """
SELECT (t.created_at AT TIME ZONE %(tz)s)::date AS day, %(tournament)s, t.currency,
       GREATEST(0, -COALESCE(SUM(e.amount) FILTER (WHERE t.kind IN (%(entry)s, %(refund)s)), 0)),
       GREATEST(0, COALESCE(SUM(e.amount) FILTER (WHERE t.kind = %(prize)s), 0)),
       GREATEST(0, COUNT(DISTINCT t.id) FILTER (WHERE t.kind = %(entry)s)
                   - COUNT(DISTINCT t.id) FILTER (WHERE t.kind = %(refund)s))
  FROM cashier_transfer t
  JOIN cashier_entry e ON e.transfer_id = t.id
  JOIN cashier_account a ON a.id = e.account_id AND a.kind = ANY(%(wallets)s)
 WHERE t.kind IN (%(entry)s, %(refund)s, %(prize)s) AND t.created_at >= %(start)s AND t.created_at < %(end)s
 GROUP BY 1, 3
"""
