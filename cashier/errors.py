"""The cashier's refusals. Each carries a message a player can read; when one is raised, no money moved."""

from django.utils.translation import gettext as _


class CashierError(Exception):
    """Base class: a request the cashier refused. `str(error)` is the player-readable message."""

    code = "refused"

    def __init__(self, message: str | None = None):
        super().__init__(message or self.default_message())
        self.message = message or self.default_message()

    def default_message(self) -> str:
        return _("The cashier refused this request. No money was moved.")

    def __str__(self) -> str:
        return str(self.message)


class InvalidAmount(CashierError):
    code = "invalid_amount"


class UnknownCurrency(CashierError):
    code = "unknown_currency"


class InsufficientFunds(CashierError):
    code = "insufficient_funds"


class DepositLimitExceeded(CashierError):
    code = "deposit_limit"


class EmailNotVerified(CashierError):
    """Euro deposits need the player's email confirmed (the link sent at sign-up, or again from the profile)."""

    code = "email_not_verified"


class DepositTooLarge(CashierError):
    """Above the room's maximum for one deposit (settings.DEPOSIT_MAX)."""

    code = "deposit_too_large"


class SessionCapExceeded(CashierError):
    code = "session_cap"


class BuyInOutOfBounds(CashierError):
    code = "buy_in_bounds"


class SelfExcluded(CashierError):
    code = "self_excluded"


class IdempotencyConflict(CashierError):
    code = "idempotency_conflict"


class IdentityNotVerified(CashierError):
    code = "identity_not_verified"


class SeatUnavailable(CashierError):
    code = "seat_unavailable"


class NotSeated(CashierError):
    code = "not_seated"


class RefillRefused(CashierError):
    code = "refill_refused"


class InvalidCard(CashierError):
    code = "invalid_card"


class WrongState(CashierError):
    """The object is no longer in the state the request expects (a withdrawal already decided, ...)."""

    code = "wrong_state"


class SettlementInvalid(CashierError):
    code = "settlement_invalid"


class AccountClosed(CashierError):
    code = "account_closed"


class SecondApprovalNeeded(CashierError):
    code = "second_approval_needed"


class WithdrawalHeld(CashierError):
    """Something staff must look at first holds the withdrawal (a flagged deposit of the same player)."""

    code = "withdrawal_held"


class ExclusionLocked(CashierError):
    code = "exclusion_locked"


class LedgerUnbalanced(CashierError):
    """A programming error rather than a player's: a transfer whose legs do not sum to zero."""

    code = "unbalanced"


class SecondFactorRefused(CashierError):
    """A EUR withdrawal by a player with two-factor sign-in on, without a right code from their app."""

    code = "second_factor_refused"
