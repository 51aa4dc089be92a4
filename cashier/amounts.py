"""Amounts: integers of the smallest unit (cents, play chips), validated at every door.

Services accept only `int` (never `bool`, `float`, `Decimal` or `str`); forms turn what a player typed into
such an int with `amount_parse`, which understands the player's locale ("12.50", "12,50", "1.234,56")."""

import re
from decimal import Decimal, InvalidOperation

from django.utils.formats import get_format, number_format
from django.utils.translation import gettext as _

from cashier.errors import InvalidAmount, UnknownCurrency

# Far above any legitimate single movement, far below 2**53 (JavaScript's exact integers) and 2**63.
MAX_AMOUNT = 10**12

CURRENCIES = ("play", "eur")


def currency_validate(currency) -> str:
    """Return the currency code, or raise UnknownCurrency."""
    if not isinstance(currency, str) or currency.lower() not in CURRENCIES:
        raise UnknownCurrency(_("Unknown currency: %(currency)s.") % {"currency": str(currency)[:20]})
    return currency.lower()


def amount_validate(amount, *, allow_zero: bool = False) -> int:
    """Return `amount` if it is a whole, positive (or zero when allowed), sane number of the smallest unit."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidAmount(_("The amount must be a whole number of cents."))
    if amount < 0:
        raise InvalidAmount(_("The amount cannot be negative."))
    if amount == 0 and not allow_zero:
        raise InvalidAmount(_("The amount must be more than zero."))
    if amount > MAX_AMOUNT:
        raise InvalidAmount(_("The amount is too large."))
    return amount


_NUMBER = re.compile(r"^[0-9.,]+$")


def amount_parse(text, *, allow_zero: bool = False) -> int:
    """Turn what a player typed ("12.50", "12,50", "1.234,56", "€ 20") into cents, or raise InvalidAmount.

    At most two decimals; the locale's thousands separator is understood when its groups have three digits."""
    if text is None:
        raise InvalidAmount(_("Enter an amount."))
    value = str(text).strip().replace("€", "").replace("\u00a0", "").replace(" ", "").replace("'", "")
    if not value:
        raise InvalidAmount(_("Enter an amount."))
    if value.startswith("-"):
        raise InvalidAmount(_("The amount cannot be negative."))
    if value.startswith("+"):
        value = value[1:]
    if not _NUMBER.match(value) or len(value) > 40:
        raise InvalidAmount(_("Enter the amount as a number, for example 20.50."))
    value = _normalise_separators(value)
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise InvalidAmount(_("Enter the amount as a number, for example 20.50.")) from None
    cents = number * 100
    if cents != cents.to_integral_value():
        raise InvalidAmount(_("Amounts have at most two decimals (whole cents)."))
    if cents > MAX_AMOUNT:
        raise InvalidAmount(_("The amount is too large."))
    return amount_validate(int(cents), allow_zero=allow_zero)


def _normalise_separators(value: str) -> str:
    """One decimal point, no grouping: the last of '.' and ',' is the decimal mark when both appear."""
    has_dot, has_comma = "." in value, "," in value
    if has_dot and has_comma:
        decimal_mark = "." if value.rfind(".") > value.rfind(",") else ","
        grouping = "," if decimal_mark == "." else "."
        whole, _sep, fraction = value.rpartition(decimal_mark)
        _check_groups(whole, grouping)
        return whole.replace(grouping, "") + "." + fraction
    if not (has_dot or has_comma):
        return value
    mark = "." if has_dot else ","
    parts = value.split(mark)
    locale_thousands = get_format("THOUSAND_SEPARATOR")
    looks_grouped = len(parts) > 2 or (
        mark == locale_thousands and mark != get_format("DECIMAL_SEPARATOR") and len(parts[-1]) == 3
    )
    if looks_grouped:
        _check_groups(value, mark)
        return value.replace(mark, "")
    return value.replace(",", ".")


def _check_groups(whole: str, grouping: str) -> None:
    groups = whole.split(grouping)
    # A first group of "0" or "05" is no thousands group: "0.500" in Italian is not five hundred euros.
    leading_zero = len(groups[0]) > 0 and groups[0].startswith("0")
    if len(groups) > 1 and (
        not groups[0] or leading_zero or len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:])
    ):
        raise InvalidAmount(_("Enter the amount as a number, for example 20.50."))


def format_amount(amount: int, currency: str = "eur", *, signed: bool = False) -> str:
    """ "€ 40.50" / "40.50 chips" in the reader's locale; a negative amount's sign comes first ("-€ 40.50"), and
    `signed` marks a positive one too ("+€ 43.06"), as a statement does."""
    amount = int(amount)
    value = number_format(Decimal(abs(amount)) / 100, decimal_pos=2, use_l10n=True, force_grouping=True)
    sign = "-" if amount < 0 else ("+" if signed and amount > 0 else "")
    if currency == "eur":
        return f"{sign}€\u00a0{value}"
    return _("%(amount)s chips") % {"amount": f"{sign}{value}"}
