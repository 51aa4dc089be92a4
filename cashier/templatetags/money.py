"""The templates' money filters. Amounts are integers of the smallest unit everywhere; they become text, in the
reader's locale, only through `cashier.amounts.format_amount` (named here too, as the code has long imported it)."""

from django import template

from cashier.amounts import format_amount

register = template.Library()


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
