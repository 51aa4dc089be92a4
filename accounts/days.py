"""Days typed by a player or a member of staff (filters of "My hands", the downloads, the rake and payout CSVs,
the management commands): only days from DAY_FIRST to DAY_LAST are taken, so that the day after the last one
and the local midnight of the first one always exist. `until=9999-12-31` is a clear error, never a 500.

It lives in accounts, the lowest app, because every app above takes days the same way."""

from __future__ import annotations

from datetime import date

from django import forms
from django.utils import formats
from django.utils.translation import gettext_lazy as _

DAY_FIRST = date(1900, 1, 1)
DAY_LAST = date(2999, 12, 31)


class DayOutOfRange(ValueError):
    """A well-formed day outside DAY_FIRST .. DAY_LAST."""


def day_out_of_range_message() -> str:
    return str(_("Choose a day from %(first)s to %(last)s."))


def day_in_range(day: date) -> date:
    """`day` itself, or DayOutOfRange when the room cannot work with it."""
    if not DAY_FIRST <= day <= DAY_LAST:
        raise DayOutOfRange(day_out_of_range_message() % _bounds())
    return day


def day_from_text(text: str) -> date:
    """A YYYY-MM-DD day in range; ValueError (DayOutOfRange for a real day out of range) otherwise."""
    return day_in_range(date.fromisoformat(text.strip()))


def _bounds() -> dict[str, str]:
    return {"first": formats.date_format(DAY_FIRST), "last": formats.date_format(DAY_LAST)}


class DayField(forms.DateField):
    """A form's day: a form error for a day out of range, like one for a badly written day."""

    def to_python(self, value):
        day = super().to_python(value)
        if day is None:
            return None
        try:
            return day_in_range(day)
        except DayOutOfRange as error:
            raise forms.ValidationError(str(error), code="day_out_of_range") from None
