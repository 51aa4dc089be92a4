"""Amounts are integers of the smallest unit everywhere; only here do they become text, in the reader's locale."""

from decimal import Decimal

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext as _

register = template.Library()


def format_amount(amount: int, currency: str = "eur", *, signed: bool = False) -> str:
    """ "€ 40.50" / "40.50 chips" in the reader's locale; a negative amount's sign comes first ("-€ 40.50"), and
    `signed` marks a positive one too ("+€ 43.06"), as a statement does."""
    amount = int(amount)
    value = number_format(Decimal(abs(amount)) / 100, decimal_pos=2, use_l10n=True, force_grouping=True)
    sign = "-" if amount < 0 else ("+" if signed and amount > 0 else "")
    if currency == "eur":
        return f"{sign}€\u00a0{value}"
    return _("%(amount)s chips") % {"amount": f"{sign}{value}"}


@register.filter(name="money")
def money(amount, currency: str = "eur") -> str:
    if amount is None or amount == "":
        return ""
    return format_amount(int(amount), currency)


@register.filter(name="signed_money")
def signed_money(amount, currency: str = "eur") -> str:
    """A movement on a statement: "+€ 43.06", "-€ 40.50"."""
    if amount is None or amount == "":
        return ""
    return format_amount(int(amount), currency, signed=True)
