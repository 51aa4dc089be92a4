"""Whether a player could sit down at a table now, as the cashier would let them: the waiting list offers a
freed seat only to such a player, so that one who cannot buy in never holds a seat a funded player wants
(issue 32). Read only; `seat_buy_in` still checks everything again when the player does sit down."""

from __future__ import annotations

from datetime import datetime

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import SelfExclusion, User
from cashier.errors import AccountClosed, CashierError, EmailNotVerified, InsufficientFunds, SelfExcluded
from cashier.models import Currency
from cashier.selectors import seat_buy_in_bounds, self_exclusion_active, wallet_balances
from cashier.templatetags.money import format_amount


def _excluded_text(exclusion: SelfExclusion) -> str:
    if exclusion.ends_at is None:
        return _("You have excluded yourself from playing for good.")
    return _("You have excluded yourself from playing until %(date)s.") % {
        "date": formats.date_format(timezone.localtime(exclusion.ends_at), "DATETIME_FORMAT")
    }


def buy_in_refusal(*, user, table, now: datetime | None = None) -> CashierError | None:
    """Why `user` could not buy in at `table` now (the error `seat_buy_in` would give, in the active
    language), or None when they could: a closed account, a self-exclusion, and at a EUR table an email not
    confirmed or a wallet below the smallest buy-in they may bring (the 30-minute rule's included)."""
    now = now or timezone.now()
    stored = User.objects.filter(pk=user.pk).values("is_active", "email_verified_at").first()
    if stored is None or not stored["is_active"]:
        return AccountClosed(_("This account is closed."))
    exclusion = self_exclusion_active(user=user, now=now)
    if exclusion is not None:
        return SelfExcluded(_excluded_text(exclusion) + " " + _("You cannot sit down."))
    if table.currency != Currency.EUR:
        return None
    if stored["email_verified_at"] is None:
        return EmailNotVerified(
            _(
                "Euro tables need your email confirmed: open the link we sent you (your account page sends it again)."
            )
        )
    low, _high = seat_buy_in_bounds(user=user, table=table, now=now)
    balance = wallet_balances(user=user)[Currency.EUR.value]
    if balance < low:
        return InsufficientFunds(
            _("Your wallet holds %(balance)s, less than the smallest buy-in here, %(low)s.")
            % {
                "balance": format_amount(balance, Currency.EUR.value),
                "low": format_amount(low, Currency.EUR.value),
            }
        )
    return None
