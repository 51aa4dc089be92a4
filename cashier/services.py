"""The cashier's services: every movement of money in the room goes through one of these.

Conventions (HackSoft): keyword-only, typed, named `<noun>_<verb>`; each docstring says which lock the caller
must (or must not) hold. Inside, each one locks (accounts in primary-key order), checks, then writes, in one
`transaction.atomic()`. A refusal raises a `cashier.errors.CashierError` whose message a player can read, and
nothing has moved. Amounts are ints of the smallest unit (cents, play chips).

Table money, for the table code (see docs/cashier.md): `seat_buy_in`, `seat_top_up`, `seat_cash_out`,
`hand_settle`, `seat_cash_out_after_hand` and the selectors `seat_buy_in_bounds`,
`seats_to_cash_out_after_hand` (at the end of every hand); the table code registers in `cashier.hooks` what
happens at a seat when the cashier takes a player off the tables (self-exclusion, a closed account)."""

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from accounts.models import DepositLimit, SelfExclusion, User
from cashier import hooks
from cashier.amounts import amount_validate, currency_validate
from cashier.errors import (
    AccountClosed,
    BuyInOutOfBounds,
    CashierError,
    DepositLimitExceeded,
    DepositTooLarge,
    EmailNotVerified,
    ExclusionLocked,
    IdempotencyConflict,
    IdentityNotVerified,
    InsufficientFunds,
    InvalidAmount,
    NotSeated,
    RefillRefused,
    SeatUnavailable,
    SecondApprovalNeeded,
    SelfExcluded,
    SessionCapExceeded,
    SettlementInvalid,
    UnknownCurrency,
    WithdrawalHeld,
    WrongState,
)
from cashier.hooks import TableTerms as Table
from cashier.ledger import (
    accounts_lock,
    rake_account_get,
    request_fingerprint,
    system_account_get,
    transfer_post,
    transfer_replayed,
    wallet_get,
    wallet_kind,
)
from cashier.models import (
    EUR_SESSION_CAP,
    Account,
    AccountKind,
    Currency,
    Deposit,
    RejectionReason,
    SeatSession,
    Transfer,
    TransferKind,
    Withdrawal,
)
from cashier.providers import PaymentProvider, ProviderConflict, ProviderTimeout, provider_get
from cashier.second_factor import withdrawal_code_check
from cashier.selectors import (
    EXCLUSION_DAYS,
    LIMIT_WINDOWS,
    deposit_limit_effective,
    deposits_sum_since,
    seat_buy_in_bounds,
    seat_session_recently_left,
    self_exclusion_active,
    self_exclusion_liftable_from,
)
from cashier.templatetags.money import format_amount

logger = logging.getLogger(__name__)

MAX_KEY_LENGTH = 150


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _key_validate(key) -> str:
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_LENGTH:
        raise CashierError(_("This request has no valid idempotency key; reload the page and try again."))
    return key.strip()


def _account_open_check(*, user) -> None:
    """Refuse a deactivated account, as stored now (a player's open connection may hold an older copy).
    Called with the player's wallet locked, which deactivation takes too (`player_deactivate`)."""
    if not User.objects.filter(pk=user.pk, is_active=True).exists():
        raise AccountClosed(_("This account is closed."))


def _excluded_message(exclusion: SelfExclusion) -> str:
    if exclusion.ends_at is None:
        return _("You have excluded yourself from playing for good.")
    return _("You have excluded yourself from playing until %(date)s.") % {
        "date": date_format(timezone.localtime(exclusion.ends_at), "DATETIME_FORMAT")
    }


# --- play chips ------------------------------------------------------------------------------------------------


def play_chips_welcome(*, user) -> Transfer | None:
    """Give a new player (or house bot) the welcome play chips, PLAY_CHIPS_WELCOME, from the issuer. Once per
    user: calling it again returns the first transfer.

    Lock: none needed (takes the wallet's and the issuer's)."""
    amount = int(getattr(settings, "PLAY_CHIPS_WELCOME", 1_000_000))
    if amount <= 0:
        return None
    with transaction.atomic():
        wallet = wallet_get(user=user, currency="play")
        issuer = system_account_get(kind=AccountKind.PLAY_ISSUER, currency="play")
        locked = accounts_lock(accounts=[wallet, issuer])
        return transfer_post(
            kind=TransferKind.WELCOME,
            currency="play",
            legs=[(locked[issuer.pk], -amount), (locked[wallet.pk], amount)],
            idempotency_key=f"welcome:{user.pk}",
            request_hash=request_fingerprint(welcome=user.pk),
            user=user,
        )


def play_chips_refill(*, user, now: datetime | None = None) -> Transfer:
    """Bring a play wallet that fell below PLAY_CHIPS_REFILL_BELOW back up to PLAY_CHIPS_WELCOME; once per
    calendar day (the room's time zone). Chips at tables do not count.

    Lock: none needed (takes the wallet's and the issuer's)."""
    now = _now(now)
    target = int(getattr(settings, "PLAY_CHIPS_WELCOME", 1_000_000))
    below = int(getattr(settings, "PLAY_CHIPS_REFILL_BELOW", 100_000))
    key = f"refill:{user.pk}:{timezone.localdate(now).isoformat()}"
    with transaction.atomic():
        wallet = wallet_get(user=user, currency="play")
        issuer = system_account_get(kind=AccountKind.PLAY_ISSUER, currency="play")
        locked = accounts_lock(accounts=[wallet, issuer])
        wallet = locked[wallet.pk]
        if wallet.balance >= below:
            raise RefillRefused(
                _("You can refill your play chips when you have less than %(amount)s.")
                % {"amount": format_amount(below, "play")}
            )
        if Transfer.objects.filter(idempotency_key=key).exists():
            raise RefillRefused(_("You have already refilled your play chips today. Come back tomorrow."))
        amount = target - wallet.balance
        return transfer_post(
            kind=TransferKind.REFILL,
            currency="play",
            legs=[(locked[issuer.pk], -amount), (wallet, amount)],
            idempotency_key=key,
            request_hash=request_fingerprint(refill=user.pk, amount=amount),
            user=user,
        )


def bot_wallet_fund(*, bot, amount: int) -> Transfer:
    """Issue `amount` play chips to a house bot's own wallet (staff or the bot manager).

    Lock: none needed."""
    amount = amount_validate(amount)
    if not bot.is_bot:
        raise CashierError(_("Only house bots are funded this way."))
    with transaction.atomic():
        wallet = wallet_get(user=bot, currency="play")
        issuer = system_account_get(kind=AccountKind.PLAY_ISSUER, currency="play")
        locked = accounts_lock(accounts=[wallet, issuer])
        return transfer_post(
            kind=TransferKind.BOT_FUNDING,
            currency="play",
            legs=[(locked[issuer.pk], -amount), (locked[wallet.pk], amount)],
            user=bot,
        )


# --- responsible gaming ----------------------------------------------------------------------------------------


def deposit_limit_set(*, user, period: str, amount: int | None, now: datetime | None = None) -> DepositLimit:
    """Set the player's deposit limit for `period` ("day", "week", "month"); None removes it.

    A lower limit applies at once (and cancels a raise waiting); a higher one, or a removal, applies after
    DEPOSIT_LIMIT_RAISE_DELAY_DAYS days. Lock: none needed (takes the EUR wallet's, like deposits)."""
    now = _now(now)
    if period not in DepositLimit.Period.values:
        raise CashierError(_("Unknown limit period."))
    if amount is not None:
        amount = amount_validate(amount, allow_zero=True)
    delay = timedelta(days=int(getattr(settings, "DEPOSIT_LIMIT_RAISE_DELAY_DAYS", 7)))
    with transaction.atomic():
        accounts_lock(accounts=[wallet_get(user=user, currency="eur")])
        limit, _created = DepositLimit.objects.select_for_update().get_or_create(user=user, period=period)
        current = deposit_limit_effective(limit, now)
        if limit.pending_from is not None and now >= limit.pending_from:
            limit.amount = current
        lowering = amount is not None and (current is None or amount <= current)
        if lowering:
            limit.amount, limit.pending_amount, limit.pending_from = amount, None, None
        else:
            limit.amount, limit.pending_amount, limit.pending_from = current, amount, now + delay
        limit.save()
        return limit


def player_self_exclude(*, user, period: str, recorded_by=None, now: datetime | None = None) -> SelfExclusion:
    """Exclude `user` from playing for `period` ("30d", "60d", "90d" or "permanent").

    At once: no deposits, no sitting down. Every seat is cashed out now where no hand is being played, else
    when the hand ends (`player_seats_cash_out`).

    Lock: the caller must hold no table or ledger lock."""
    now = _now(now)
    if period not in SelfExclusion.Period.values:
        raise CashierError(_("Unknown self-exclusion period."))
    ends_at = (
        None if period == SelfExclusion.Period.PERMANENT else now + timedelta(days=EXCLUSION_DAYS[period])
    )
    with transaction.atomic():
        wallets = [wallet_get(user=user, currency="play")]
        if not user.is_bot:
            wallets.append(wallet_get(user=user, currency="eur"))
        accounts_lock(accounts=wallets)  # waits for a buy-in or deposit of this player in flight
        current = self_exclusion_active(user=user, now=now)
        if current is not None and (
            current.ends_at is None or (ends_at is not None and ends_at <= current.ends_at)
        ):
            raise ExclusionLocked(
                _excluded_message(current) + " " + _("A new self-exclusion must end later.")
            )
        exclusion = SelfExclusion.objects.create(
            user=user, period=period, starts_at=now, ends_at=ends_at, created_by=recorded_by or user
        )
        if recorded_by is not None and recorded_by.pk != user.pk:
            staff_action_record(
                actor=recorded_by,
                action="self_exclusion.record",
                target=exclusion,
                after={"period": period, "ends_at": ends_at},
            )
    player_play_stop(user=user)
    return exclusion


def player_play_stop(*, user) -> list[SeatSession]:
    """A player who may no longer play (self-excluded, or the account closed), everywhere at once: every cash
    seat cashed out, now or when the hand in play there ends (`player_seats_cash_out`); then the apps above
    the cashier (`hooks.player_barred`): the hands they are dealt in no longer take their actions (the clock
    checks or folds for them at once), their registrations for tournaments not started are cancelled and
    refunded, and a tournament they are playing deals them in as an away player until they are out, paying
    what their place earns. Returns the seat sessions closed now. Lock: the caller holds no table or ledger
    lock."""
    closed = player_seats_cash_out(user=user)
    hooks.player_barred(user=user)
    return closed


def player_seats_cash_out(*, user) -> list[SeatSession]:
    """Take `user` off every table: each open seat session goes to the table code's hook (`hooks.seat_release`),
    which cashes it out and frees the seat now where no hand is being played, else flags it to be cashed out
    when the hand ends (`seat_cash_out_after_hand`). Returns the sessions closed now.

    Lock: the caller must hold no table or ledger lock (the hook takes the table's lock, then the ledger's)."""
    release = hooks.seat_releaser() or _seat_session_cash_out
    closed = []
    for session in SeatSession.objects.filter(user=user, closed_at__isnull=True):
        done = release(session)
        if done is not None:
            closed.append(done)
    return closed


def _seat_session_cash_out(session: SeatSession) -> SeatSession:
    """No table app registered: the cashier closes the session itself."""
    return seat_cash_out(user=session.user, table=session.table)


def seat_cash_out_after_hand(*, session: SeatSession) -> None:
    """Flag an open seat session to be cashed out when the hand being played at its table ends (the table code
    does it then: `selectors.seats_to_cash_out_after_hand`). Lock: the caller holds the table's lock."""
    SeatSession.objects.filter(pk=session.pk, closed_at__isnull=True).update(cash_out_after_hand=True)


def player_deactivate(*, user, staff_user, note: str = "") -> int:
    """Close a player's account: no more logging in, deposits or sitting down; every seat is cashed out now,
    or when the hand in play there ends, and tournaments are left as for a self-exclusion (`player_play_stop`).
    Returns the number of seats cashed out now. Lock: the caller holds no table or ledger lock."""
    with transaction.atomic():
        # The wallets' locks: a buy-in or deposit in flight finishes first, any later one sees the account closed.
        currencies = ("play",) if user.is_bot else ("play", "eur")
        accounts_lock(accounts=[wallet_get(user=user, currency=currency) for currency in currencies])
        if User.objects.filter(pk=user.pk, is_active=True).update(is_active=False):
            staff_action_record(
                actor=staff_user,
                action="player.deactivate",
                target=user,
                before={"is_active": True},
                after={"is_active": False},
                note=note,
            )
    user.is_active = False
    return len(player_play_stop(user=user))


def self_exclusion_lift(*, exclusion: SelfExclusion, lifted_by, now: datetime | None = None) -> SelfExclusion:
    """Lift a permanent self-exclusion, which is allowed only 6 months after it began. A 30/60/90-day one
    cannot be lifted: it ends by itself.

    Lock: none needed."""
    now = _now(now)
    with transaction.atomic():
        exclusion = SelfExclusion.objects.select_for_update().get(pk=exclusion.pk)
        if exclusion.lifted_at is not None:
            raise WrongState(_("This self-exclusion was already lifted."))
        liftable_from = self_exclusion_liftable_from(exclusion)
        if liftable_from is None:
            raise ExclusionLocked(
                _("A self-exclusion for a fixed period cannot be lifted early; it ends on %(date)s.")
                % {"date": date_format(timezone.localtime(exclusion.ends_at), "DATE_FORMAT")}
            )
        if now < liftable_from:
            raise ExclusionLocked(
                _("A self-exclusion for good can be lifted only from %(date)s.")
                % {"date": date_format(timezone.localtime(liftable_from), "DATE_FORMAT")}
            )
        exclusion.lifted_at, exclusion.lifted_by = now, lifted_by
        exclusion.save(update_fields=["lifted_at", "lifted_by"])
        staff_action_record(
            actor=lifted_by,
            action="self_exclusion.lift",
            target=exclusion,
            before={"lifted_at": None},
            after={"lifted_at": now},
        )
        return exclusion


def _deposit_limits_check(*, user, amount: int, now: datetime) -> None:
    for limit in DepositLimit.objects.filter(user=user):
        cap = deposit_limit_effective(limit, now)
        if cap is None:
            continue
        used = deposits_sum_since(user=user, since=now - LIMIT_WINDOWS[limit.period])
        if used + amount > cap:
            raise DepositLimitExceeded(
                _(
                    "This deposit would pass your %(period)s deposit limit of %(limit)s: you have deposited "
                    "%(used)s in that period, so you can deposit at most %(left)s now."
                )
                % {
                    "period": limit.get_period_display().lower(),
                    "limit": format_amount(cap),
                    "used": format_amount(used),
                    "left": format_amount(max(0, cap - used)),
                }
            )


# --- deposits --------------------------------------------------------------------------------------------------


def deposit_create(
    *,
    user,
    amount: int,
    card_number: str,
    idempotency_key: str,
    currency: str = "eur",
    provider: PaymentProvider | None = None,
    now: datetime | None = None,
) -> Deposit:
    """Deposit `amount` cents from a card to the player's EUR wallet through the payment provider.

    Returns the Deposit: `succeeded` (credited), `declined`, or `pending` when the provider did not answer
    (ask again with `deposit_retry`, or send the same request again: the same key never charges twice).
    Refused (CashierError, nothing moved): bad amount or currency, over DEPOSIT_MAX, email not confirmed,
    invalid card, self-excluded player, over a deposit limit, the key already used with other data.

    Lock: the caller must hold no lock and be outside any transaction (the provider is called in between)."""
    now = _now(now)
    currency = currency_validate(currency)
    if currency != Currency.EUR:
        raise UnknownCurrency(_("Only euros can be deposited; play chips are free."))
    amount = amount_validate(amount)
    if amount > settings.DEPOSIT_MAX:
        raise DepositTooLarge(
            _("One deposit is at most %(max)s; deposit less, or in several steps within your limits.")
            % {"max": format_amount(settings.DEPOSIT_MAX)}
        )
    key = _key_validate(idempotency_key)
    if user.is_bot:
        raise CashierError(_("House bots play only with play chips."))
    if user.email_verified_at is None:
        raise EmailNotVerified(
            _(
                "Confirm your email first: open the link we sent you (your account page sends it "
                "again). Nothing was charged."
            )
        )
    provider = provider or provider_get()
    card = provider.card_tokenize(card_number=card_number)
    fingerprint = request_fingerprint(user=user.pk, amount=amount, currency=currency, card=card.token)
    with transaction.atomic():
        wallet = wallet_get(user=user, currency=currency)
        accounts_lock(accounts=[wallet])  # one deposit decision at a time per player: the limits hold
        deposit = Deposit.objects.select_for_update().filter(idempotency_key=key).first()
        if deposit is not None:
            if deposit.request_hash != fingerprint:
                raise IdempotencyConflict(
                    _(
                        "This deposit form was already used for a different deposit. "
                        "Nothing was charged; reload the page to start a new one."
                    )
                )
            deposit.replayed = True
        else:
            _account_open_check(user=user)
            exclusion = self_exclusion_active(user=user, now=now)
            if exclusion is not None:
                raise SelfExcluded(_excluded_message(exclusion) + " " + _("Deposits are blocked."))
            _deposit_limits_check(user=user, amount=amount, now=now)
            deposit = Deposit.objects.create(
                user=user,
                amount=amount,
                currency=currency,
                idempotency_key=key,
                request_hash=fingerprint,
                provider=provider.code,
                card_token=card.token,
                card_label=card.label,
                created_at=now,
            )
            deposit.replayed = False
    if deposit.status != Deposit.Status.PENDING:
        return deposit
    replayed = deposit.replayed
    deposit = deposit_retry(deposit=deposit, provider=provider)
    deposit.replayed = replayed
    return deposit


def deposit_retry(*, deposit: Deposit, provider: PaymentProvider | None = None) -> Deposit:
    """Ask the provider (same idempotency key) about a pending deposit and book its answer: credit the wallet
    once, or mark it declined. Does nothing to a deposit already decided.

    Lock: the caller must hold no lock and be outside any transaction."""
    provider = provider or provider_get(deposit.provider)
    if deposit.status != Deposit.Status.PENDING:
        return deposit
    try:
        result = provider.charge(
            idempotency_key=f"deposit:{deposit.idempotency_key}",
            amount=deposit.amount,
            currency=deposit.currency,
            token=deposit.card_token,
        )
    except ProviderTimeout:
        Deposit.objects.filter(pk=deposit.pk, status=Deposit.Status.PENDING).update(
            attempts=deposit.attempts + 1, message=_("The payment provider did not answer in time.")[:200]
        )
        deposit.refresh_from_db()
        return deposit
    except ProviderConflict as error:
        raise IdempotencyConflict(_("The payment provider saw this request with other data.")) from error
    with transaction.atomic():
        wallet = wallet_get(user=deposit.user, currency=deposit.currency)
        clearing = system_account_get(
            kind=AccountKind.PROVIDER_CLEARING, currency=deposit.currency, ref=deposit.provider
        )
        locked = accounts_lock(accounts=[wallet, clearing])
        deposit = Deposit.objects.select_for_update().get(pk=deposit.pk)
        if deposit.status != Deposit.Status.PENDING:
            return deposit
        deposit.attempts += 1
        deposit.provider_ref = result.reference
        if result.succeeded:
            deposit.transfer = transfer_post(
                kind=TransferKind.DEPOSIT,
                currency=deposit.currency,
                legs=[(locked[clearing.pk], -deposit.amount), (locked[wallet.pk], deposit.amount)],
                idempotency_key=f"deposit:{deposit.pk}",
                request_hash=deposit.request_hash,
                user=deposit.user,
                memo=deposit.card_label,
            )
            deposit.status, deposit.message = Deposit.Status.SUCCEEDED, ""
        else:
            deposit.status = Deposit.Status.DECLINED
            deposit.message = (result.message or _("The payment was declined."))[:200]
        deposit.save()
        if deposit.status == Deposit.Status.SUCCEEDED:
            hooks.deposit_succeeded(deposit)
        return deposit


# --- withdrawals -----------------------------------------------------------------------------------------------


def withdrawal_request(
    *,
    user,
    amount: int,
    card_number: str,
    idempotency_key: str,
    currency: str = "eur",
    provider: PaymentProvider | None = None,
    otp_code: str = "",
) -> Withdrawal:
    """Ask to withdraw `amount` cents from the EUR wallet to a card. The money moves at once to the
    withdrawals-pending account (held) until staff approve (paid) or reject (given back). Needs a player whose
    identity staff verified, and `otp_code` from their app once they turned two-factor on. The same key again
    returns the same withdrawal; with other data it is refused.

    Lock: none needed (takes the wallet's and the hold account's)."""
    currency = currency_validate(currency)
    if currency != Currency.EUR:
        raise UnknownCurrency(_("Only euros can be withdrawn."))
    amount = amount_validate(amount)
    key = _key_validate(idempotency_key)
    if user.is_bot:
        raise CashierError(_("House bots play only with play chips."))
    if user.identity_verified_at is None:
        raise IdentityNotVerified(_("Withdrawals need your identity to be verified by our staff first."))
    provider = provider or provider_get()
    card = provider.card_tokenize(card_number=card_number)
    fingerprint = request_fingerprint(user=user.pk, amount=amount, currency=currency, card=card.token)
    with transaction.atomic():
        wallet = wallet_get(user=user, currency=currency)
        hold = system_account_get(kind=AccountKind.WITHDRAWAL_HOLD, currency=currency)
        locked = accounts_lock(accounts=[wallet, hold])
        existing = Withdrawal.objects.filter(idempotency_key=key).first()
        if existing is not None:
            if existing.request_hash != fingerprint:
                raise IdempotencyConflict(
                    _(
                        "This withdrawal form was already used for a different withdrawal. "
                        "Nothing was moved; reload the page to start a new one."
                    )
                )
            existing.replayed = True
            return existing
        withdrawal_code_check(user=user, code=otp_code)
        if locked[wallet.pk].balance < amount:
            raise InsufficientFunds(
                _("You cannot withdraw more than your wallet holds (%(balance)s).")
                % {"balance": format_amount(locked[wallet.pk].balance)}
            )
        transfer = transfer_post(
            kind=TransferKind.WITHDRAWAL_HOLD,
            currency=currency,
            legs=[(locked[wallet.pk], -amount), (locked[hold.pk], amount)],
            idempotency_key=f"withdrawal-hold:{key}",
            request_hash=fingerprint,
            user=user,
            memo=card.label,
        )
        withdrawal = Withdrawal.objects.create(
            user=user,
            amount=amount,
            currency=currency,
            idempotency_key=key,
            request_hash=fingerprint,
            provider=provider.code,
            destination_token=card.token,
            destination_label=card.label,
            hold_transfer=transfer,
        )
        withdrawal.replayed = False
        return withdrawal


def withdrawal_reject(
    *, withdrawal: Withdrawal, staff_user, reason: str = "", reason_code: str = RejectionReason.OTHER
) -> Withdrawal:
    """Staff reject a pending withdrawal: the held money goes back to the player's wallet. The player reads
    the reason `reason_code` (a RejectionReason, in their language) and staff's `reason`, if any.

    Lock: none needed."""
    if reason_code not in RejectionReason.values:
        raise CashierError(_("Choose a reason for the rejection."))
    with transaction.atomic():
        locked = _withdrawal_accounts_lock(withdrawal)
        withdrawal = Withdrawal.objects.select_for_update().get(pk=withdrawal.pk)
        if withdrawal.status != Withdrawal.Status.PENDING:
            raise WrongState(
                _("Only a pending withdrawal can be rejected; this one is %(status)s.")
                % {"status": withdrawal.get_status_display().lower()}
            )
        withdrawal.final_transfer = _withdrawal_return(withdrawal, locked, reason or _("Rejected by staff"))
        withdrawal.status = Withdrawal.Status.REJECTED
        withdrawal.reason_code, withdrawal.reason = reason_code, (reason or "")[:200]
        withdrawal.decided_by, withdrawal.decided_at = staff_user, timezone.now()
        withdrawal.save()
        staff_action_record(
            actor=staff_user,
            action="withdrawal.reject",
            target=withdrawal,
            before={"status": Withdrawal.Status.PENDING},
            after={"status": withdrawal.status, "reason_code": reason_code},
            note=withdrawal.reason,
        )
        return withdrawal


def withdrawal_second_approval_needed(withdrawal: Withdrawal) -> bool:
    """Is `withdrawal` large enough to be paid only once two members of staff approved it?"""
    return withdrawal.amount >= int(getattr(settings, "WITHDRAWAL_SECOND_APPROVAL_FROM", 100_000))


def withdrawal_approve(
    *, withdrawal: Withdrawal, staff_user, provider: PaymentProvider | None = None
) -> Withdrawal:
    """Staff approve a pending withdrawal of a player whose identity is verified: the provider pays the card.
    Paid: the held money leaves the room (to the provider's clearing account). Declined by the provider: the
    money goes back to the wallet (`failed`). No answer: it stays `processing`; `withdrawal_payout_retry` asks
    again with the same key. From WITHDRAWAL_SECOND_APPROVAL_FROM cents, the first approval is recorded and
    the withdrawal stays pending until a second, other member of staff approves it. Held (neither approval
    taken) while a registered hold objects: `hooks.withdrawal_holds`, e.g. a flagged deposit not reviewed.

    Lock: the caller must hold no lock and be outside any transaction (the provider is called in between)."""
    with transaction.atomic():
        withdrawal = (
            Withdrawal.objects.select_for_update(of=("self",)).select_related("user").get(pk=withdrawal.pk)
        )
        if withdrawal.status != Withdrawal.Status.PENDING:
            raise WrongState(
                _("Only a pending withdrawal can be approved; this one is %(status)s.")
                % {"status": withdrawal.get_status_display().lower()}
            )
        if withdrawal.user.identity_verified_at is None:
            raise IdentityNotVerified(_("The player's identity is not verified."))
        if held := hooks.withdrawal_holds(withdrawal):
            raise WithdrawalHeld(" ".join(held))
        now = timezone.now()
        if withdrawal_second_approval_needed(withdrawal):
            if withdrawal.first_approved_by_id is None:
                withdrawal.first_approved_by, withdrawal.first_approved_at = staff_user, now
                withdrawal.save(update_fields=["first_approved_by", "first_approved_at"])
                staff_action_record(
                    actor=staff_user,
                    action="withdrawal.first_approval",
                    target=withdrawal,
                    before={"first_approved_by": None},
                    after={"first_approved_by": staff_user.pk},
                )
                return withdrawal
            if withdrawal.first_approved_by_id == staff_user.pk:
                raise SecondApprovalNeeded(
                    _("You approved this withdrawal already: another member of staff must approve it too.")
                )
        withdrawal.status = Withdrawal.Status.PROCESSING
        withdrawal.decided_by, withdrawal.decided_at = staff_user, now
        withdrawal.save(update_fields=["status", "decided_by", "decided_at"])
        staff_action_record(
            actor=staff_user,
            action="withdrawal.approve",
            target=withdrawal,
            before={"status": Withdrawal.Status.PENDING},
            after={"status": withdrawal.status},
        )
    return withdrawal_payout_retry(withdrawal=withdrawal, provider=provider)


def withdrawal_payout_retry(*, withdrawal: Withdrawal, provider: PaymentProvider | None = None) -> Withdrawal:
    """Ask the provider to pay (or what became of the payment of) an approved withdrawal, same key, and book
    the answer. Does nothing to a withdrawal not `processing`.

    Lock: the caller must hold no lock and be outside any transaction."""
    provider = provider or provider_get(withdrawal.provider)
    withdrawal.refresh_from_db()
    if withdrawal.status != Withdrawal.Status.PROCESSING:
        return withdrawal
    try:
        result = provider.payout(
            idempotency_key=f"withdrawal:{withdrawal.pk}",
            amount=withdrawal.amount,
            currency=withdrawal.currency,
            token=withdrawal.destination_token,
        )
    except ProviderTimeout:
        Withdrawal.objects.filter(pk=withdrawal.pk).update(attempts=withdrawal.attempts + 1)
        withdrawal.refresh_from_db()
        return withdrawal
    with transaction.atomic():
        locked = _withdrawal_accounts_lock(withdrawal)
        withdrawal = Withdrawal.objects.select_for_update().get(pk=withdrawal.pk)
        if withdrawal.status != Withdrawal.Status.PROCESSING:
            return withdrawal
        withdrawal.attempts += 1
        withdrawal.provider_ref = result.reference
        if result.succeeded:
            clearing = locked["clearing"]
            withdrawal.final_transfer = transfer_post(
                kind=TransferKind.WITHDRAWAL_PAID,
                currency=withdrawal.currency,
                legs=[(locked["hold"], -withdrawal.amount), (clearing, withdrawal.amount)],
                idempotency_key=f"withdrawal-paid:{withdrawal.pk}",
                request_hash=withdrawal.request_hash,
                user=withdrawal.user,
                memo=withdrawal.destination_label,
            )
            withdrawal.status = Withdrawal.Status.PAID
        else:
            withdrawal.final_transfer = _withdrawal_return(withdrawal, locked, result.message)
            withdrawal.status = Withdrawal.Status.FAILED
            withdrawal.reason = (result.message or _("The payment was declined."))[:200]
        withdrawal.save()
        return withdrawal


def _withdrawal_accounts_lock(withdrawal: Withdrawal) -> dict:
    wallet = wallet_get(user=withdrawal.user, currency=withdrawal.currency)
    hold = system_account_get(kind=AccountKind.WITHDRAWAL_HOLD, currency=withdrawal.currency)
    clearing = system_account_get(
        kind=AccountKind.PROVIDER_CLEARING, currency=withdrawal.currency, ref=withdrawal.provider
    )
    locked = accounts_lock(accounts=[wallet, hold, clearing])
    return {"wallet": locked[wallet.pk], "hold": locked[hold.pk], "clearing": locked[clearing.pk]}


def _withdrawal_return(withdrawal: Withdrawal, locked: dict, memo: str) -> Transfer:
    return transfer_post(
        kind=TransferKind.WITHDRAWAL_RETURN,
        currency=withdrawal.currency,
        legs=[(locked["hold"], -withdrawal.amount), (locked["wallet"], withdrawal.amount)],
        idempotency_key=f"withdrawal-return:{withdrawal.pk}",
        request_hash=withdrawal.request_hash,
        user=withdrawal.user,
        memo=str(memo or "")[:200],
    )


# --- table money -----------------------------------------------------------------------------------------------


def _table_amount_check(*, table: Table, amount: int) -> int:
    amount = amount_validate(amount)
    if amount % table.chip:
        raise InvalidAmount(
            _("Amounts at this table go in steps of %(chip)s.")
            % {"chip": format_amount(table.chip, table.currency)}
        )
    return amount


def seat_buy_in(
    *, user, table: Table, seat_number: int, amount: int, now: datetime | None = None
) -> SeatSession:
    """Sit `user` at seat `seat_number` of `table` with `amount` from the wallet: opens a seat session (and its
    ledger account) and moves wallet -> seat.

    Refused (nothing moved): a closed table, a seat that does not exist or is taken, a player already seated
    here or self-excluded, an amount outside `seat_buy_in_bounds` (the table's bounds, the EUR cap, the
    30-minute return rule) or above the wallet's balance. The cashier does not write `tables.Seat`; the table
    code does that in the same transaction.

    Lock: the caller may hold the table row lock (table code's order: table, then ledger); no ledger lock."""
    now = _now(now)
    amount = _table_amount_check(table=table, amount=amount)
    if not table.is_open:
        raise SeatUnavailable(_("This table is closed."))
    if user.is_bot and (table.currency != Currency.PLAY or not table.bots_allowed):
        raise SeatUnavailable(_("House bots sit only at practice tables that allow them."))
    if (
        isinstance(seat_number, bool)
        or not isinstance(seat_number, int)
        or not 1 <= seat_number <= table.seats
    ):
        raise SeatUnavailable(_("This table has no such seat."))
    with transaction.atomic():
        wallet = wallet_get(user=user, currency=table.currency)
        wallet = accounts_lock(accounts=[wallet])[wallet.pk]
        _account_open_check(user=user)
        exclusion = self_exclusion_active(user=user, now=now)
        if exclusion is not None:
            raise SelfExcluded(_excluded_message(exclusion) + " " + _("You cannot sit down."))
        if SeatSession.objects.filter(table=table, user=user, closed_at__isnull=True).exists():
            raise SeatUnavailable(_("You are already sitting at this table."))
        if SeatSession.objects.filter(table=table, seat_number=seat_number, closed_at__isnull=True).exists():
            raise SeatUnavailable(_("This seat is taken."))
        low, high = seat_buy_in_bounds(user=user, table=table, now=now)
        if table.currency == Currency.EUR and amount > EUR_SESSION_CAP:
            raise SessionCapExceeded(
                _("You can bring at most %(cap)s to a table in one session.")
                % {"cap": format_amount(EUR_SESSION_CAP)}
            )
        if not low <= amount <= high:
            recent = seat_session_recently_left(user=user, table=table, now=now)
            if amount < low and recent is not None and low > table.min_buy_in:
                raise BuyInOutOfBounds(
                    _(
                        "You left this table less than 30 minutes ago with %(stack)s: you must bring back at least "
                        "%(low)s."
                    )
                    % {
                        "stack": format_amount(recent.left_with, table.currency),
                        "low": format_amount(low, table.currency),
                    }
                )
            raise BuyInOutOfBounds(
                _("The buy-in at this table is from %(low)s to %(high)s.")
                % {"low": format_amount(low, table.currency), "high": format_amount(high, table.currency)}
            )
        if wallet.balance < amount:
            raise InsufficientFunds(
                _("Your wallet holds %(balance)s, less than this buy-in.")
                % {"balance": format_amount(wallet.balance, table.currency)}
            )
        try:
            with transaction.atomic():
                account = Account.objects.create(
                    kind=AccountKind.SEAT,
                    currency=table.currency,
                    user=user,
                    table=table,
                    ref=f"table:{table.pk}:seat:{seat_number}",
                )
                session = SeatSession.objects.create(
                    table=table,
                    seat_number=seat_number,
                    user=user,
                    account=account,
                    currency=table.currency,
                    opened_at=now,
                    moved_in=amount,
                )
        except IntegrityError:
            raise SeatUnavailable(_("This seat was just taken.")) from None
        seat = accounts_lock(accounts=[account])[account.pk]
        transfer_post(
            kind=TransferKind.BUY_IN,
            currency=table.currency,
            legs=[(wallet, -amount), (seat, amount)],
            user=user,
            table=table,
        )
        return session


def _session_lock(*, user, table: Table) -> tuple[SeatSession, Account, Account]:
    """The player's open seat session at `table` with its seat account and the player's wallet, both accounts
    locked in one statement (SELECT ... FOR UPDATE OF the accounts, in id order as `accounts_lock`), then the
    session read again under those locks: whoever closes a session holds its account's lock, so a session
    closed meanwhile is read closed here. Two statements."""
    rows = (
        Account.objects.select_for_update(of=("self",))
        .filter(
            Q(seat_session__table=table, seat_session__user=user, seat_session__closed_at__isnull=True)
            | Q(user=user, kind=wallet_kind(user=user, currency=table.currency), currency=table.currency)
        )
        .order_by("pk")
    )
    wallet = seat = None
    for account in rows:
        account._cashier_locked = True
        if account.kind == AccountKind.SEAT:
            seat = account
        else:
            wallet = account
    session = SeatSession.objects.filter(account=seat, closed_at__isnull=True).first() if seat else None
    if session is None or wallet is None:  # no wallet: never seated, as a buy-in comes from it
        raise NotSeated(_("You are not sitting at this table."))
    return session, wallet, seat


def seat_top_up(*, user, table: Table, amount: int, now: datetime | None = None) -> SeatSession:
    """Add `amount` from the wallet to the player's seat at `table`, never above the table's maximum, and on a EUR table never past the
    1,000 session cap: what was moved in this session (buy-in plus top-ups) plus `amount`, losses not deducted.

    Between hands only: the table code refuses a top-up during a hand the player is in.

    Lock: the caller may hold the table row lock; no ledger lock."""
    now = _now(now)
    amount = _table_amount_check(table=table, amount=amount)
    with transaction.atomic():
        session, wallet, seat = _session_lock(user=user, table=table)
        exclusion = self_exclusion_active(user=user, now=now)
        if exclusion is not None:
            raise SelfExcluded(_excluded_message(exclusion))
        high = table.effective_max_buy_in
        if seat.balance + amount > high:
            raise BuyInOutOfBounds(
                _("Your stack cannot go above the table maximum of %(high)s: you can add at most %(room)s.")
                % {
                    "high": format_amount(high, table.currency),
                    "room": format_amount(max(0, high - seat.balance), table.currency),
                }
            )
        if table.currency == Currency.EUR and session.moved_in + amount > EUR_SESSION_CAP:
            raise SessionCapExceeded(
                _(
                    "You have brought %(moved)s to this table in this session; the limit is %(cap)s, so you can add "
                    "at most %(room)s."
                )
                % {
                    "moved": format_amount(session.moved_in),
                    "cap": format_amount(EUR_SESSION_CAP),
                    "room": format_amount(max(0, EUR_SESSION_CAP - session.moved_in)),
                }
            )
        if wallet.balance < amount:
            raise InsufficientFunds(
                _("Your wallet holds %(balance)s, less than this top-up.")
                % {"balance": format_amount(wallet.balance, table.currency)}
            )
        transfer_post(
            kind=TransferKind.TOP_UP,
            currency=table.currency,
            legs=[(wallet, -amount), (seat, amount)],
            user=user,
            table=table,
        )
        session.moved_in += amount
        session.save(update_fields=["moved_in"])
        return session


def seat_cash_out(*, user, table: Table, now: datetime | None = None) -> SeatSession:
    """The player leaves `table`: the seat's whole stack goes back to the wallet and the session ends,
    remembering the stack left with and when (the 30-minute rule). Not during a hand the player is in: the
    table code leaves the player out of the hand first, or waits for its end.

    Lock: the caller may hold the table row lock; no ledger lock."""
    now = _now(now)
    with transaction.atomic():
        session, wallet, seat = _session_lock(user=user, table=table)
        stack = seat.balance
        if stack:
            transfer_post(
                kind=TransferKind.CASH_OUT,
                currency=table.currency,
                legs=[(seat, -stack), (wallet, stack)],
                user=user,
                table=table,
            )
        session.closed_at, session.left_with = now, stack
        session.save(update_fields=["closed_at", "left_with"])
        return session


def hand_settle(
    *,
    table: Table,
    hand_ref: str,
    deltas: Mapping[int | SeatSession, int],
    put_in: Mapping[int | SeatSession, int],
    rake: int = 0,
) -> Transfer:
    """Book one hand's result as one balanced transfer: each seat session's net change (`deltas`, keyed by
    seat-session id or SeatSession: what it won minus what it put in) and the rake to the table's rake
    account. `sum(deltas) + rake == 0`. `put_in`, keyed the same way: what each seat put into the pots,
    uncalled bets excluded (so `put_in + delta`, what the seat won, is never negative); the transfer records
    their sum as its `pot` and the part that people (not house bots) put in as its `pot_people`, from which
    the payout statistics are computed. Idempotent by `hand_ref`: settling the same hand again returns the
    first transfer and moves nothing; the same `hand_ref` with other numbers is refused.

    Lock: the caller may hold the table row lock; no ledger lock."""
    if not isinstance(hand_ref, str) or not hand_ref or len(hand_ref) > 100:
        raise SettlementInvalid(_("A settlement needs the hand's reference."))
    rake = amount_validate(rake, allow_zero=True)
    by_session = _by_session(deltas)
    put_in_by_session = _by_session(put_in)
    if set(put_in_by_session) != set(by_session):
        raise SettlementInvalid(_("A settlement says what every seat of the hand put into the pots."))
    if any(amount < 0 or amount + by_session[s] < 0 for s, amount in put_in_by_session.items()):
        raise SettlementInvalid(_("A seat cannot lose more than it put into the pots."))
    if sum(by_session.values()) + rake != 0:
        raise SettlementInvalid(_("The hand's results and rake do not add up to zero."))
    key = f"hand:{table.pk}:{hand_ref}"
    fingerprint = request_fingerprint(
        table=table.pk,
        rake=rake,
        deltas=sorted((s, d) for s, d in by_session.items() if d),
        put_in=sorted((s, p) for s, p in put_in_by_session.items() if p),
    )
    settle = partial(
        _hand_settle,
        table=table,
        key=key,
        fingerprint=fingerprint,
        hand_ref=hand_ref,
        by_session=by_session,
        put_in=put_in_by_session,
        rake=rake,
    )
    if not connection.in_atomic_block:
        with transaction.atomic():
            return settle()
    # Inside the caller's transaction (the table's, at the end of a hand) without a savepoint: a refusal is
    # raised before anything is written, so the caller's transaction stays usable, and the writing is one
    # statement. Three statements in all: the seat sessions, the accounts' locks, the transfer.
    return settle()


def _by_session(amounts: Mapping[int | SeatSession, int]) -> dict[int, int]:
    """A settlement's amounts keyed by seat-session id (SeatSession keys accepted), checked to be integers."""
    by_session: dict[int, int] = {}
    for key, amount in amounts.items():
        session_id = key.pk if isinstance(key, SeatSession) else key
        if isinstance(session_id, bool) or not isinstance(session_id, int):
            raise SettlementInvalid(_("A settlement is keyed by seat session."))
        if isinstance(amount, bool) or not isinstance(amount, int) or abs(amount) > 10**12:
            raise SettlementInvalid(_("A hand's results must be whole numbers."))
        by_session[session_id] = by_session.get(session_id, 0) + amount
    return by_session


def _hand_settle(
    *,
    table: Table,
    key: str,
    fingerprint: str,
    hand_ref: str,
    by_session: dict[int, int],
    put_in: dict[int, int],
    rake: int,
) -> Transfer:
    try:
        try:
            legs, bots = _hand_legs(table=table, by_session=by_session, rake=rake)
        except SettlementInvalid:
            # Settled before (its seats may have closed since, its losers' stacks moved): the answer of then.
            existing = Transfer.objects.filter(idempotency_key=key).first()
            if existing is None:
                raise
            return transfer_replayed(existing, fingerprint)
        pot = sum(put_in.values())
        pot_people = pot - sum(put_in[session] for session in bots)
        return transfer_post(
            kind=TransferKind.HAND,
            currency=table.currency,
            legs=legs,
            idempotency_key=key,
            request_hash=fingerprint,
            table=table,
            hand_ref=hand_ref,
            allow_empty=True,
            pot=pot,
            pot_people=pot_people,
        )
    except IdempotencyConflict:
        raise IdempotencyConflict(_("This hand was already settled with other results.")) from None


# Table id -> its rake account's id, as this process last found it (checked each time it is used).
_rake_account_ids: dict[int, int] = {}


def _hand_legs(
    *, table: Table, by_session: dict[int, int], rake: int
) -> tuple[list[tuple[Account, int]], set[int]]:
    """The settlement's legs on the locked accounts of its seat sessions and of the table's rake account, and
    the sessions of house bots among them; SettlementInvalid (nothing written) if a session is not open at
    this table or a seat would go below zero."""
    rake_ref = f"table:{table.pk}"

    def is_rake(account: Account | None) -> bool:
        return (
            account is not None
            and account.kind == AccountKind.RAKE
            and account.ref == rake_ref
            and account.currency == table.currency
            and account.user_id is None
        )

    rake_id = _rake_account_ids.get(table.pk)
    locked, sessions = _hand_accounts_lock(rake_id=rake_id, session_ids=by_session)
    # The rake account first met here, or the remembered one gone (a test database emptied): found, then locked.
    if not is_rake(locked.get(rake_id)):
        rake_id = _rake_account_ids[table.pk] = rake_account_get(table=table).pk
        locked, sessions = _hand_accounts_lock(rake_id=rake_id, session_ids=by_session)
    if len(sessions) != len(by_session):
        raise SettlementInvalid(_("A seat session of this hand does not exist."))
    for session in sessions.values():
        if session.table_id != table.pk or session.closed_at is not None:
            raise SettlementInvalid(_("A seat session of this hand is not open at this table."))
    legs = [(locked[sessions[sid].account_id], delta) for sid, delta in by_session.items()]
    if rake:
        legs.append((locked[rake_id], rake))
    for account, delta in legs:
        if account.balance + delta < 0:
            raise SettlementInvalid(_("A seat would lose more than its stack in this settlement."))
    return legs, {sid for sid, session in sessions.items() if session.user.is_bot}


def _hand_accounts_lock(
    *, rake_id: int | None, session_ids: Iterable[int]
) -> tuple[dict[int, Account], dict[int, SeatSession]]:
    """The accounts of a hand's seat sessions and the rake account `rake_id`, locked in one statement
    (SELECT ... FOR UPDATE OF the accounts, in id order as `accounts_lock`), each seat account with its session
    and the session's player: by account id, and the sessions by id. A session that does not exist is missing
    from both."""
    ids = list(session_ids)
    rows = (
        Account.objects.select_for_update(of=("self",))
        .filter(Q(seat_session__pk__in=ids) | Q(pk=rake_id or 0))
        .select_related("seat_session__user")
        .order_by("pk")
    )
    locked, sessions = {}, {}
    for account in rows:
        account._cashier_locked = True
        locked[account.pk] = account
        session = getattr(account, "seat_session", None)
        if session is not None and session.pk in ids:
            sessions[session.pk] = session
    return locked, sessions


# --- tournament money ----------------------------------------------------------------------------------------
# The tournament code names its prize pool by `pool_ref` (the cashier knows nothing of tournaments). No rake:
# the fee is the room's income (SPEC 1.3). Each call is idempotent by its key.


def _tournament_accounts_lock(*, user, currency: str, pool_ref: str) -> tuple[Account, Account, Account]:
    wallet = wallet_get(user=user, currency=currency)
    pool = system_account_get(kind=AccountKind.PRIZE_POOL, currency=currency, ref=pool_ref)
    fees = system_account_get(kind=AccountKind.FEES, currency=currency)
    locked = accounts_lock(accounts=[wallet, pool, fees])
    return locked[wallet.pk], locked[pool.pk], locked[fees.pk]


def tournament_entry_pay(
    *,
    user,
    currency: str,
    pool_ref: str,
    buy_in: int,
    fee: int,
    idempotency_key: str,
    memo: str = "",
    now: datetime | None = None,
) -> Transfer | None:
    """A tournament entry: the buy-in from the player's wallet to the prize pool and the fee to the room's fees
    account, in one transfer (none for a free entry). Refused (nothing moved): a self-excluded player
    (`SelfExcluded`; their deposits are blocked too), a house bot in euros, a wallet short of buy-in + fee
    (`InsufficientFunds`).

    Lock: the caller may hold the tournament's row lock (tournament first, then ledger); no ledger lock."""
    buy_in, fee = amount_validate(buy_in, allow_zero=True), amount_validate(fee, allow_zero=True)
    with transaction.atomic():
        wallet, pool, fees = _tournament_accounts_lock(user=user, currency=currency, pool_ref=pool_ref)
        exclusion = self_exclusion_active(user=user, now=_now(now))
        if exclusion is not None:
            raise SelfExcluded(_excluded_message(exclusion) + " " + _("You cannot enter tournaments."))
        if buy_in + fee == 0:
            return None
        if wallet.balance < buy_in + fee:
            raise InsufficientFunds(
                _("Your wallet holds %(balance)s: this tournament costs %(cost)s.")
                % {
                    "balance": format_amount(wallet.balance, currency),
                    "cost": format_amount(buy_in + fee, currency),
                }
            )
        return transfer_post(
            kind=TransferKind.TOURNAMENT_ENTRY,
            currency=currency,
            legs=[(wallet, -(buy_in + fee)), (pool, buy_in), (fees, fee)],
            idempotency_key=idempotency_key,
            request_hash=request_fingerprint(user=user.pk, pool=pool_ref, buy_in=buy_in, fee=fee),
            user=user,
            memo=memo,
        )


def tournament_entry_refund(
    *, user, currency: str, pool_ref: str, buy_in: int, fee: int, idempotency_key: str, memo: str = ""
) -> Transfer | None:
    """Give an entry back: the buy-in from the prize pool and the fee from the fees account to the wallet
    (unregistering before the start, a cancelled tournament). None for a free entry.

    Lock: the caller may hold the tournament's row lock; no ledger lock."""
    buy_in, fee = amount_validate(buy_in, allow_zero=True), amount_validate(fee, allow_zero=True)
    if buy_in + fee == 0:
        return None
    with transaction.atomic():
        wallet, pool, fees = _tournament_accounts_lock(user=user, currency=currency, pool_ref=pool_ref)
        return transfer_post(
            kind=TransferKind.TOURNAMENT_REFUND,
            currency=currency,
            legs=[(pool, -buy_in), (fees, -fee), (wallet, buy_in + fee)],
            idempotency_key=idempotency_key,
            request_hash=request_fingerprint(user=user.pk, pool=pool_ref, buy_in=buy_in, fee=fee),
            user=user,
            memo=memo,
        )


def tournament_prize_pay(
    *, user, currency: str, pool_ref: str, amount: int, idempotency_key: str, memo: str = ""
) -> Transfer | None:
    """A prize from the prize pool to the winner's wallet. None for no prize.

    Lock: the caller may hold the tournament's row lock; no ledger lock."""
    amount = amount_validate(amount, allow_zero=True)
    if amount == 0:
        return None
    with transaction.atomic():
        wallet, pool, _fees = _tournament_accounts_lock(user=user, currency=currency, pool_ref=pool_ref)
        return transfer_post(
            kind=TransferKind.TOURNAMENT_PRIZE,
            currency=currency,
            legs=[(pool, -amount), (wallet, amount)],
            idempotency_key=idempotency_key,
            request_hash=request_fingerprint(user=user.pk, pool=pool_ref, prize=amount),
            user=user,
            memo=memo,
        )
