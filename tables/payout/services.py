"""Writes of the payout statistics: the daily rows, recomputed from the ledger."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from tables.models import PayoutDay
from tables.payout.selectors import payout_days_from_ledger

MAX_RANGE_DAYS = 3_660


class PayoutRangeInvalid(ValueError):
    """A range of days that cannot be recomputed; the message says why."""


def payout_days_compute(*, first: date, last: date) -> int:
    """Recompute the daily payout rows from `first` to `last` (both included) from the ledger, replacing
    what was stored for those days; returns the number of rows stored. Idempotent, and safe to run twice at
    once (rows are upserted by day, game and currency, and the two runs read the same ledger).

    Lock: none needed; takes no table lock."""
    if first > last:
        raise PayoutRangeInvalid("the first day comes after the last")
    if (last - first).days >= MAX_RANGE_DAYS:
        raise PayoutRangeInvalid(f"at most {MAX_RANGE_DAYS} days at a time")
    figures = payout_days_from_ledger(first=first, last=last)
    rows = [
        PayoutDay(
            day=f.day, game=f.game, currency=f.currency, put_in=f.put_in, paid_back=f.paid_back, count=f.count
        )
        for f in figures
    ]
    with transaction.atomic():
        if rows:
            PayoutDay.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["day", "game", "currency"],
                update_fields=["put_in", "paid_back", "count", "computed_at"],
            )
        kept = Q()
        for f in figures:
            kept |= Q(day=f.day, game=f.game, currency=f.currency)
        stale = PayoutDay.objects.filter(day__range=(first, last))
        (stale.exclude(kept) if figures else stale).delete()
    return len(rows)


def payout_days_refresh(*, days_back: int = 0, today: date | None = None) -> int:
    """Recompute today's rows and those of the `days_back` days before (the beat's task: every minute for
    today, after midnight for yesterday's last minutes)."""
    last = today or timezone.localdate()
    return payout_days_compute(first=last - timedelta(days=days_back), last=last)
