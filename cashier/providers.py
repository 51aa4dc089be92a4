"""Payment providers: the interface the cashier talks to, and the sandbox shipped with the room.

Every request carries the cashier's idempotency key; a provider must answer a repeated key with its first
answer (never charge or pay twice) and refuse a repeated key that comes with other data."""

import hashlib
from dataclasses import dataclass
from typing import Literal, Protocol

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from cashier.errors import InvalidCard


class ProviderTimeout(Exception):
    """The provider did not answer in time: the request may or may not have been carried out. Ask again
    with the same idempotency key to learn which."""


class ProviderConflict(Exception):
    """The provider already saw this idempotency key with other data."""


@dataclass(frozen=True)
class ProviderResult:
    status: Literal["succeeded", "declined"]
    reference: str
    message: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"


@dataclass(frozen=True)
class CardToken:
    token: str  # what the cashier stores and sends; never the card number
    label: str  # what a player may see ("•••• 4242")


class PaymentProvider(Protocol):
    code: str

    def card_tokenize(self, *, card_number: str) -> CardToken:
        """Check a card number and return a token for it; raise InvalidCard if it is not a card."""

    def charge(self, *, idempotency_key: str, amount: int, currency: str, token: str) -> ProviderResult:
        """Take `amount` from the card (a deposit). Raise ProviderTimeout when no answer came."""

    def payout(self, *, idempotency_key: str, amount: int, currency: str, token: str) -> ProviderResult:
        """Send `amount` to the card (a withdrawal). Raise ProviderTimeout when no answer came."""


def _luhn_ok(number: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


class SandboxProvider:
    """A pretend provider with test cards (any valid card number works; these ones behave specially):

    - 4242 4242 4242 4242: succeeds;
    - 4000 0000 0000 0002: declined;
    - 4000 0000 0000 0119: carried out, but the first answer for each key is lost (a timeout); asking again
      with the same key returns the result.
    It keeps its own book (`SandboxOperation`), as a real provider would, committed on its own."""

    code = "sandbox"
    CARD_OK = "4242424242424242"
    CARD_DECLINED = "4000000000000002"
    CARD_TIMEOUT = "4000000000000119"

    def card_tokenize(self, *, card_number: str) -> CardToken:
        digits = "".join(ch for ch in str(card_number) if ch not in " -")
        if not (digits.isascii() and digits.isdigit()) or not 12 <= len(digits) <= 19 or not _luhn_ok(digits):
            raise InvalidCard(_("This is not a valid card number."))
        digest = hashlib.sha256(digits.encode()).hexdigest()[:24]
        return CardToken(token=f"sbx_{digest}_{digits[-4:]}", label=f"•••• {digits[-4:]}")

    def charge(self, *, idempotency_key: str, amount: int, currency: str, token: str) -> ProviderResult:
        return self._operate("charge", idempotency_key, amount, currency, token)

    def payout(self, *, idempotency_key: str, amount: int, currency: str, token: str) -> ProviderResult:
        return self._operate("payout", idempotency_key, amount, currency, token)

    def _operate(self, operation: str, key: str, amount: int, currency: str, token: str) -> ProviderResult:
        from cashier.models import SandboxOperation

        last4 = token.rsplit("_", 1)[-1]
        with transaction.atomic():
            row = SandboxOperation.objects.select_for_update().filter(idempotency_key=key).first()
            first_call = row is None
            if first_call:
                status = "declined" if last4 == self.CARD_DECLINED[-4:] else "succeeded"
                row = SandboxOperation.objects.create(
                    idempotency_key=key,
                    operation=operation,
                    amount=amount,
                    currency=currency,
                    token=token,
                    status=status,
                    reference=f"sbx-{hashlib.sha256(key.encode()).hexdigest()[:16]}",
                    calls=1,
                )
            else:
                if (row.operation, row.amount, row.currency, row.token) != (
                    operation,
                    amount,
                    currency,
                    token,
                ):
                    raise ProviderConflict(key)
                row.calls += 1
                row.save(update_fields=["calls"])
        if first_call and last4 == self.CARD_TIMEOUT[-4:]:
            raise ProviderTimeout(key)
        message = _("Declined by the card issuer.") if row.status == "declined" else ""
        return ProviderResult(status=row.status, reference=row.reference, message=message)


def provider_get(code: str | None = None) -> PaymentProvider:
    """The configured provider: settings.CASHIER_PAYMENT_PROVIDER, a dotted path (default: the sandbox)."""
    path = getattr(settings, "CASHIER_PAYMENT_PROVIDER", "cashier.providers.SandboxProvider")
    provider = import_string(path)()
    if code is not None and provider.code != code:
        raise RuntimeError(f"request made with provider {code!r}, configured provider is {provider.code!r}")
    return provider
