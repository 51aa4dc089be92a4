"""Balance adjustments (docs/cashier.md, "Balance adjustments"): staff correct a player's wallet with a reason
and a note. Each is one balanced transfer between the wallet and the room's adjustments account
(AccountKind.ADJUSTMENTS, one a currency). Below ADJUSTMENT_SECOND_APPROVAL_FROM cents (by size, either way)
it is booked when proposed; from it, a second, different member of staff approves it first. Nobody adjusts
their own balance, and no adjustment takes a wallet below zero. Each step is written to the audit log in the
transaction that makes it."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from cashier.amounts import amount_validate, currency_validate
from cashier.errors import (
    CashierError,
    IdempotencyConflict,
    InsufficientFunds,
    SecondApprovalNeeded,
    WrongState,
)
from cashier.ledger import accounts_lock, system_account_get, transfer_post, wallet_get
from cashier.models import AccountKind, Adjustment, AdjustmentReason, TransferKind
from cashier.templatetags.money import format_amount

MAX_NOTE_CHARS = 1000


def second_approval_from() -> int:
    """From this many cents (either way) an adjustment needs a second member of staff."""
    return int(getattr(settings, "ADJUSTMENT_SECOND_APPROVAL_FROM", 10_000))


def adjustment_needs_second_approval(adjustment: Adjustment) -> bool:
    return abs(adjustment.amount) >= second_approval_from()


def _fields_check(*, user, currency: str, amount: int, reason_code: str, note: str, staff_user) -> tuple:
    currency = currency_validate(currency)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise CashierError(_("An adjustment moves a whole, non-zero number of cents."))
    amount_validate(abs(amount))
    if reason_code not in AdjustmentReason.values:
        raise CashierError(_("Choose a reason for the adjustment."))
    note = (note or "").strip()
    if not note:
        raise CashierError(_("Say in the note what the adjustment corrects."))
    if len(note) > MAX_NOTE_CHARS:
        raise CashierError(_("A note has at most %(n)d characters.") % {"n": MAX_NOTE_CHARS})
    if user.pk == staff_user.pk:
        raise CashierError(_("Nobody may adjust their own balance."))
    if user.is_bot:
        raise CashierError(_("House bots' wallets are funded by the room, not adjusted."))
    return currency, note


def adjustment_propose(
    *, user, currency: str, amount: int, reason_code: str, note: str, staff_user, idempotency_key: str
) -> Adjustment:
    """A member of staff proposes to credit (`amount` > 0) or take (`amount` < 0) cents on `user`'s wallet.
    Below the threshold it is booked at once; from it, it waits for a second approver. The same key again
    returns the same adjustment; with other data it is refused. Refused (nothing recorded) if it would take
    the wallet below zero now. Lock: none held by the caller."""
    currency, note = _fields_check(
        user=user, currency=currency, amount=amount, reason_code=reason_code, note=note, staff_user=staff_user
    )
    key = str(idempotency_key or "")[:200]
    if not key:
        raise CashierError(_("This form has expired: open it again."))
    with transaction.atomic():
        existing = Adjustment.objects.filter(idempotency_key=key).first()
        if existing is not None:
            same = (existing.user_id, existing.currency, existing.amount, existing.reason_code, existing.note)
            if same != (user.pk, currency, amount, reason_code, note):
                raise IdempotencyConflict(
                    _("This form was already sent with other values. Nothing was moved.")
                )
            return existing
        adjustment = Adjustment.objects.create(
            user=user,
            currency=currency,
            amount=amount,
            reason_code=reason_code,
            note=note,
            idempotency_key=key,
            proposed_by=staff_user,
        )
        staff_action_record(
            actor=staff_user,
            action="adjustment.propose",
            target=adjustment,
            after={"amount": amount, "currency": currency, "reason_code": reason_code},
            note=note,
        )
        if adjustment_needs_second_approval(adjustment):
            _wallet_check(adjustment)  # refused now rather than at the approval, when it is already too low
            return adjustment
        return _book(adjustment, staff_user=staff_user)


def adjustment_approve(*, adjustment: Adjustment, staff_user) -> Adjustment:
    """The second member of staff approves a pending adjustment: it is booked. Refused for the one who proposed
    it, for the player themselves, or if it would take the wallet below zero now. Lock: none held."""
    with transaction.atomic():
        adjustment = Adjustment.objects.select_for_update().select_related("user").get(pk=adjustment.pk)
        _pending_check(adjustment)
        if staff_user.pk == adjustment.proposed_by_id:
            raise SecondApprovalNeeded(
                _("You proposed this adjustment: another member of staff must approve it.")
            )
        if staff_user.pk == adjustment.user_id:
            raise CashierError(_("Nobody may adjust their own balance."))
        return _book(adjustment, staff_user=staff_user)


def adjustment_reject(*, adjustment: Adjustment, staff_user, note: str = "") -> Adjustment:
    """A pending adjustment is dropped: nothing moves. Lock: none held."""
    with transaction.atomic():
        adjustment = Adjustment.objects.select_for_update().get(pk=adjustment.pk)
        _pending_check(adjustment)
        adjustment.status = Adjustment.Status.REJECTED
        adjustment.decided_by, adjustment.decided_at = staff_user, timezone.now()
        adjustment.save(update_fields=["status", "decided_by", "decided_at"])
        staff_action_record(
            actor=staff_user,
            action="adjustment.reject",
            target=adjustment,
            before={"status": Adjustment.Status.PENDING},
            after={"status": adjustment.status},
            note=(note or "").strip()[:MAX_NOTE_CHARS],
        )
        return adjustment


def _pending_check(adjustment: Adjustment) -> None:
    if adjustment.status != Adjustment.Status.PENDING:
        raise WrongState(
            _("Only a pending adjustment can be decided; this one is %(status)s.")
            % {"status": adjustment.get_status_display().lower()}
        )


def _wallet_check(adjustment: Adjustment) -> None:
    balance = wallet_get(user=adjustment.user, currency=adjustment.currency).balance
    if balance + adjustment.amount < 0:
        raise InsufficientFunds(_below_zero(adjustment, balance))


def _below_zero(adjustment: Adjustment, balance: int) -> str:
    return _("This would take the wallet below zero: it holds %(balance)s.") % {
        "balance": format_amount(balance, adjustment.currency)
    }


def _book(adjustment: Adjustment, *, staff_user) -> Adjustment:
    """One transfer between the wallet and the room's adjustments account, keyed by the adjustment."""
    wallet = wallet_get(user=adjustment.user, currency=adjustment.currency)
    house = system_account_get(kind=AccountKind.ADJUSTMENTS, currency=adjustment.currency)
    locked = accounts_lock(accounts=[wallet, house])
    wallet = locked[wallet.pk]
    if wallet.balance + adjustment.amount < 0:
        raise InsufficientFunds(_below_zero(adjustment, wallet.balance))
    adjustment.transfer = transfer_post(
        kind=TransferKind.ADJUSTMENT,
        currency=adjustment.currency,
        legs=[(wallet, adjustment.amount), (locked[house.pk], -adjustment.amount)],
        idempotency_key=f"adjustment:{adjustment.pk}",
        user=adjustment.user,
        memo=f"{adjustment.get_reason_code_display()}: {adjustment.note}"[:200],
    )
    adjustment.status = Adjustment.Status.DONE
    adjustment.decided_by, adjustment.decided_at = staff_user, timezone.now()
    adjustment.save(update_fields=["transfer", "status", "decided_by", "decided_at"])
    staff_action_record(
        actor=staff_user,
        action="adjustment.approve",
        target=adjustment,
        before={"status": Adjustment.Status.PENDING},
        after={"status": adjustment.status, "transfer": adjustment.transfer.pk, "balance": wallet.balance},
        note=adjustment.note,
    )
    return adjustment
