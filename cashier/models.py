"""The ledger: accounts, transfers and their entries (double entry), and the records around them
(seat sessions, deposits, withdrawals, the sandbox provider's own book).

Rules the database enforces itself (see migration 0002): the entries of a transfer sum to zero and use the
transfer's currency (a deferred constraint trigger, checked at commit); entries and transfers are never
updated or deleted (triggers); wallets, seats and holds never go below zero (a check constraint)."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cashier.amounts import format_amount

EUR_SESSION_CAP = 100_000  # cents: SPEC 1.2, the EUR 1,000 cap on what a player moves to one table session


class Currency(models.TextChoices):
    """The room's two moneys: play chips (free, for practice) and euros."""

    PLAY = "play", _("Play chips")
    EUR = "eur", _("Euro")


class AccountKind(models.TextChoices):
    PLAYER_PLAY = "player_play", _("Player play-chip wallet")
    PLAYER_EUR = "player_eur", _("Player EUR wallet")
    BOT_PLAY = "bot_play", _("House bot play-chip wallet")
    SEAT = "seat", _("Seat session")
    PRIZE_POOL = "prize_pool", _("Tournament prize pool")
    RAKE = "rake", _("Room rake")
    FEES = "fees", _("Room fees")
    PROVIDER_CLEARING = "clearing", _("Payment provider clearing")
    PLAY_ISSUER = "issuer", _("Play-chip issuer")
    WITHDRAWAL_HOLD = "withdrawal_hold", _("Withdrawals pending")
    ADJUSTMENTS = "adjustments", _("Room balance adjustments")


WALLET_KINDS = (AccountKind.PLAYER_PLAY, AccountKind.PLAYER_EUR, AccountKind.BOT_PLAY)
# The money's sources outside the room: their balances are negative by design.
# The room's adjustments account pays (or takes back) staff's corrections of balances: negative when the room
# gave more than it took back.
OUTSIDE_KINDS = (AccountKind.PLAY_ISSUER, AccountKind.PROVIDER_CLEARING, AccountKind.ADJUSTMENTS)
# Kinds that exist once per currency (and `ref`, e.g. the provider's code or the tournament).
SYSTEM_KINDS = (
    AccountKind.PRIZE_POOL,
    AccountKind.RAKE,
    AccountKind.FEES,
    AccountKind.PROVIDER_CLEARING,
    AccountKind.PLAY_ISSUER,
    AccountKind.WITHDRAWAL_HOLD,
    AccountKind.ADJUSTMENTS,
)


class Account(models.Model):
    """One account of the ledger. `balance` is stored for locking and fast reads and always equals the sum of
    the account's entries (the services update both in one transaction; `ledger_check` verifies it)."""

    kind = models.CharField(_("kind"), max_length=16, choices=AccountKind.choices)
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_accounts",
        verbose_name=_("owner"),
    )
    table = models.ForeignKey(
        "tables.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("table"),
    )
    ref = models.CharField(_("reference"), max_length=64, blank=True, default="")
    balance = models.BigIntegerField(_("balance"), default=0)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("ledger account")
        verbose_name_plural = _("ledger accounts")
        ordering = ("id",)
        constraints = [
            models.CheckConstraint(
                condition=Q(balance__gte=0) | Q(kind__in=OUTSIDE_KINDS), name="account_balance_not_negative"
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        kind__in=(AccountKind.PLAYER_PLAY, AccountKind.BOT_PLAY, AccountKind.PLAY_ISSUER),
                        currency="play",
                    )
                    | Q(
                        kind__in=(
                            AccountKind.PLAYER_EUR,
                            AccountKind.PROVIDER_CLEARING,
                            AccountKind.WITHDRAWAL_HOLD,
                        ),
                        currency="eur",
                    )
                    | Q(
                        kind__in=(
                            AccountKind.SEAT,
                            AccountKind.PRIZE_POOL,
                            AccountKind.RAKE,
                            AccountKind.FEES,
                            AccountKind.ADJUSTMENTS,
                        )
                    )
                ),
                name="account_kind_currency",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=(*WALLET_KINDS, AccountKind.SEAT)) | Q(user__isnull=False),
                name="account_owned_wallets",
            ),
            models.UniqueConstraint(
                fields=("user", "kind", "currency"),
                condition=Q(kind__in=WALLET_KINDS),
                name="account_one_wallet",
            ),
            models.UniqueConstraint(
                fields=("kind", "currency", "ref"),
                condition=Q(kind__in=SYSTEM_KINDS),
                name="account_one_system",
            ),
        ]

    def __str__(self) -> str:
        owner = self.user.username if self.user_id else self.ref
        return f"{self.get_kind_display()} {self.currency.upper()} {owner}".strip()


class TransferKind(models.TextChoices):
    WELCOME = "welcome", _("Welcome play chips")
    REFILL = "refill", _("Play-chip refill")
    BOT_FUNDING = "bot_funding", _("House bot funding")
    DEPOSIT = "deposit", _("Deposit")
    WITHDRAWAL_HOLD = "withdrawal_hold", _("Withdrawal requested")
    WITHDRAWAL_PAID = "withdrawal_paid", _("Withdrawal paid")
    WITHDRAWAL_RETURN = "withdrawal_return", _("Withdrawal returned")
    BUY_IN = "buy_in", _("Buy-in")
    TOP_UP = "top_up", _("Top-up")
    CASH_OUT = "cash_out", _("Cash-out")
    HAND = "hand", _("Hand")
    TOURNAMENT_ENTRY = "tournament_entry", _("Tournament entry")
    TOURNAMENT_PRIZE = "tournament_prize", _("Tournament prize")
    TOURNAMENT_REFUND = "tournament_refund", _("Tournament refund")
    ADJUSTMENT = "adjustment", _("Balance adjustment by staff")


class Transfer(models.Model):
    """One balanced movement: its entries sum to zero. Never updated or deleted (the database refuses).

    `idempotency_key` is unique: a request from outside (a deposit, a hand's settlement) posts at most one
    transfer; `request_hash` fingerprints the request so the same key with other data is refused."""

    kind = models.CharField(_("kind"), max_length=20, choices=TransferKind.choices)
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices)
    idempotency_key = models.CharField(
        _("idempotency key"), max_length=200, unique=True, null=True, blank=True
    )
    request_hash = models.CharField(_("request fingerprint"), max_length=64, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("player"),
    )
    table = models.ForeignKey(
        "tables.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("table"),
    )
    hand_ref = models.CharField(_("hand"), max_length=100, blank=True, default="")
    memo = models.CharField(_("memo"), max_length=200, blank=True, default="")
    # A hand's settlement also records what its players put into the pots (uncalled bets excluded), and the
    # part of it that people put in (not house bots): the payout statistics are computed from these.
    pot = models.BigIntegerField(
        _("put into the pots"),
        null=True,
        blank=True,
        help_text=_("A hand: what its players put into the pots, uncalled bets excluded."),
    )
    pot_people = models.BigIntegerField(
        _("put into the pots by people"),
        null=True,
        blank=True,
        help_text=_("A hand: the part of the pots that people, not house bots, put in."),
    )

    class Meta:
        verbose_name = _("transfer")
        verbose_name_plural = _("transfers")
        ordering = ("-id",)
        constraints = [
            models.CheckConstraint(
                condition=Q(pot__isnull=True, pot_people__isnull=True)
                | Q(
                    kind="hand",
                    pot__isnull=False,
                    pot_people__isnull=False,
                    pot_people__gte=0,
                    pot__gte=F("pot_people"),
                ),
                name="transfer_hand_pot",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()}"


class Entry(models.Model):
    """One leg of a transfer: `amount` (signed) added to `account`; `balance_after` is the account's balance
    right after it, for statements."""

    transfer = models.ForeignKey(
        Transfer, on_delete=models.PROTECT, related_name="entries", verbose_name=_("transfer")
    )
    account = models.ForeignKey(
        Account, on_delete=models.PROTECT, related_name="entries", verbose_name=_("account")
    )
    amount = models.BigIntegerField(_("amount"))
    balance_after = models.BigIntegerField(_("balance after"))

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ("id",)
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="entry_amount_not_zero"),
            models.UniqueConstraint(fields=("transfer", "account"), name="entry_one_leg_per_account"),
        ]
        indexes = [models.Index(fields=("account", "-id"), name="entry_account_recent")]

    def __str__(self) -> str:
        return f"{self.account}: {self.amount:+d}"


class SeatSession(models.Model):
    """A player's money at one seat, from buy-in to cash-out: one ledger account per session.

    `moved_in` is what came from the wallet (buy-in plus top-ups); losses never reduce it: SPEC 1.2's EUR cap
    applies to it. `left_with` and `closed_at` remember the stack the player left with, for the 30-minute rule."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="seat_sessions", verbose_name=_("table")
    )
    seat_number = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="seat_sessions",
        verbose_name=_("player"),
    )
    account = models.OneToOneField(
        Account, on_delete=models.PROTECT, related_name="seat_session", verbose_name=_("account")
    )
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices)
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    moved_in = models.BigIntegerField(_("moved in from the wallet"), default=0)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    left_with = models.BigIntegerField(_("left with"), null=True, blank=True)
    cash_out_after_hand = models.BooleanField(
        _("cash out after the hand"),
        default=False,
        help_text=_(
            "Set when the player self-excluded during a hand: the table cashes the seat out when it ends."
        ),
    )

    class Meta:
        verbose_name = _("seat session")
        verbose_name_plural = _("seat sessions")
        ordering = ("-id",)
        constraints = [
            models.UniqueConstraint(
                fields=("table", "seat_number"),
                condition=Q(closed_at__isnull=True),
                name="seat_session_one_per_seat",
            ),
            models.UniqueConstraint(
                fields=("table", "user"),
                condition=Q(closed_at__isnull=True),
                name="seat_session_one_per_player",
            ),
            models.CheckConstraint(condition=Q(moved_in__gte=0), name="seat_session_moved_in"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.seat_number} {self.user}"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Deposit(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the payment provider")
        SUCCEEDED = "succeeded", _("Credited")
        DECLINED = "declined", _("Declined")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="deposits", verbose_name=_("player")
    )
    amount = models.BigIntegerField(_("amount"))
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices, default=Currency.EUR)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    request_hash = models.CharField(_("request fingerprint"), max_length=64)
    provider = models.CharField(_("provider"), max_length=32)
    card_token = models.CharField(_("card token"), max_length=64)
    card_label = models.CharField(_("card"), max_length=32)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    provider_ref = models.CharField(_("provider reference"), max_length=64, blank=True, default="")
    message = models.CharField(_("message"), max_length=200, blank=True, default="")
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    transfer = models.OneToOneField(
        Transfer, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("deposit")
        verbose_name_plural = _("deposits")
        ordering = ("-id",)
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="deposit_amount_positive")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.user} {format_amount(self.amount, self.currency)}"


class RejectionReason(models.TextChoices):
    """Why staff rejected a withdrawal, as the player reads it (in their language; staff may add a note)."""

    IDENTITY = "identity", _("We could not verify your identity with the documents we have.")
    DESTINATION = (
        "destination",
        _("This card cannot receive the payout: it must be in your name and accept payouts."),
    )
    ACCOUNT_REVIEW = (
        "account_review",
        _("Your account needs a review first; our support team will contact you."),
    )
    DUPLICATE = "duplicate", _("This request repeated another withdrawal.")
    PLAYER_REQUEST = "player_request", _("Cancelled as you asked.")
    OTHER = "other", _("Rejected by our staff.")


class Withdrawal(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for review")
        PROCESSING = "processing", _("Approved, being paid")
        PAID = "paid", _("Paid")
        REJECTED = "rejected", _("Rejected, money returned")
        FAILED = "failed", _("Payment failed, money returned")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="withdrawals",
        verbose_name=_("player"),
    )
    amount = models.BigIntegerField(_("amount"))
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices, default=Currency.EUR)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    request_hash = models.CharField(_("request fingerprint"), max_length=64)
    provider = models.CharField(_("provider"), max_length=32)
    destination_token = models.CharField(_("destination token"), max_length=64)
    destination_label = models.CharField(_("destination"), max_length=32)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    reason_code = models.CharField(
        _("reason for the rejection"), max_length=20, choices=RejectionReason.choices, blank=True, default=""
    )
    provider_ref = models.CharField(_("provider reference"), max_length=64, blank=True, default="")
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    hold_transfer = models.OneToOneField(Transfer, on_delete=models.PROTECT, related_name="+")
    final_transfer = models.OneToOneField(
        Transfer, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    # A large withdrawal (WITHDRAWAL_SECOND_APPROVAL_FROM) needs two approvers: the first is kept here.
    first_approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("first approved by"),
    )
    first_approved_at = models.DateTimeField(_("first approved at"), null=True, blank=True)
    created_at = models.DateTimeField(_("requested at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("withdrawal")
        verbose_name_plural = _("withdrawals")
        ordering = ("-id",)
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="withdrawal_amount_positive")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.user} {format_amount(self.amount, self.currency)}"

    @property
    def reason_shown(self) -> str:
        """The reason as the player reads it: the stored code in the reader's language, then staff's note."""
        parts = [str(self.get_reason_code_display()) if self.reason_code else "", self.reason]
        return " ".join(part for part in parts if part)


class AdjustmentReason(models.TextChoices):
    """Why staff correct a player's balance (the player page and the audit log show it)."""

    ERROR = "error", _("Correction of an error")
    GOODWILL = "goodwill", _("Goodwill gesture")
    PROMOTION = "promotion", _("Promotion or bonus")
    CHARGEBACK = "chargeback", _("Chargeback or payment reversal")
    OTHER = "other", _("Other (see the note)")


class Adjustment(models.Model):
    """Staff's correction of a player's balance: `amount` cents (positive: credited, negative: taken) between
    the player's wallet and the room's adjustments account, one balanced transfer. From
    ADJUSTMENT_SECOND_APPROVAL_FROM (by size) a second, different member of staff approves it first
    (cashier.adjustments)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for a second approver")
        DONE = "done", _("Booked")
        REJECTED = "rejected", _("Rejected")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="adjustments",
        verbose_name=_("player"),
    )
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices)
    amount = models.BigIntegerField(_("amount"))
    reason_code = models.CharField(_("reason"), max_length=20, choices=AdjustmentReason.choices)
    note = models.TextField(_("note"), max_length=1000)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("proposed by")
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now, db_index=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    transfer = models.OneToOneField(
        Transfer,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("transfer"),
    )

    class Meta:
        verbose_name = _("balance adjustment")
        verbose_name_plural = _("balance adjustments")
        ordering = ("-id",)
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="adjustment_amount_not_zero")]

    def __str__(self) -> str:
        sign = "+" if self.amount > 0 else "-"
        return f"#{self.pk} {self.user} {sign}{format_amount(abs(self.amount), self.currency)}"


class SandboxOperation(models.Model):
    """The sandbox payment provider's own book (what a real provider keeps on its side): one row per
    idempotency key, so a retried request returns the first answer instead of charging again."""

    idempotency_key = models.CharField(max_length=200, unique=True)
    operation = models.CharField(max_length=16)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=4)
    token = models.CharField(max_length=64)
    status = models.CharField(max_length=16)
    reference = models.CharField(max_length=64)
    calls = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("sandbox provider operation")
        verbose_name_plural = _("sandbox provider operations")

    def __str__(self) -> str:
        return self.idempotency_key
