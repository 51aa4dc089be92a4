"""Amounts are integers of the smallest unit everywhere; only here do they become text, in the reader's locale."""

from decimal import Decimal

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext as _

register = template.Library()


def format_amount(amount: int, currency: str = "eur") -> str:
    value = number_format(Decimal(int(amount)) / 100, decimal_pos=2, use_l10n=True, force_grouping=True)
    if currency == "eur":
        return f"€\u00a0{value}"
    return _("%(amount)s chips") % {"amount": value}


@register.filter(name="money")
def money(amount, currency: str = "eur") -> str:
    if amount is None or amount == "":
        return ""
    return format_amount(int(amount), currency)
