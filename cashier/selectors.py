"""Read-only queries: balances, statements, limits, exclusions, buy-in bounds, and the ledger's audit."""

import calendar
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, Sum
from django.utils import timezone

from accounts.models import DepositLimit, SelfExclusion, User
from cashier.models import (
    EUR_SESSION_CAP,
    OUTSIDE_KINDS,
    WALLET_KINDS,
    Account,
    Currency,
    Deposit,
    Entry,
    SeatSession,
    TransferKind,
)

RETURN_WINDOW = timedelta(minutes=30)  # SPEC 1.2: back at the same table within 30 minutes
STATEMENT_DAYS = 92  # a player's statement covers at least the last 3 months
LIMIT_WINDOWS = {
    DepositLimit.Period.DAY: timedelta(days=1),
    DepositLimit.Period.WEEK: timedelta(days=7),
    DepositLimit.Period.MONTH: timedelta(days=30),
}
EXCLUSION_DAYS = {
    SelfExclusion.Period.DAYS_30: 30,
    SelfExclusion.Period.DAYS_60: 60,
    SelfExclusion.Period.DAYS_90: 90,
}
PERMANENT_EXCLUSION_MIN_MONTHS = 6


def months_add(moment: datetime, months: int) -> datetime:
    """The same day and time `months` later (the month's last day when that day does not exist)."""
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


# --- balances and statements -------------------------------------------------------------------------------


def wallet_balances(*, user) -> dict[str, int]:
    """The user's wallet balances by currency ("play", "eur"); 0 where no wallet exists yet."""
    balances = {Currency.PLAY.value: 0, Currency.EUR.value: 0}
    for currency, balance in Account.objects.filter(user=user, kind__in=WALLET_KINDS).values_list(
        "currency", "balance"
    ):
        balances[currency] = balance
    return balances


def wallet_entries(*, user, now: datetime | None = None):
    """The entries on the user's wallets over the last 3 months, newest first (a queryset, for paginating)."""
    since = (now or timezone.now()) - timedelta(days=STATEMENT_DAYS)
    return (
        Entry.objects.filter(
            account__user=user, account__kind__in=WALLET_KINDS, transfer__created_at__gte=since
        )
        .select_related("transfer", "transfer__table", "account")
        .order_by("-id")
    )


def seat_sessions_open(*, user):
    return SeatSession.objects.filter(user=user, closed_at__isnull=True).select_related("table", "account")


def seat_session_open(*, user, table) -> SeatSession | None:
    return (
        SeatSession.objects.filter(user=user, table=table, closed_at__isnull=True)
        .select_related("account")
        .first()
    )


# --- responsible gaming ---------------------------------------------------------------------------------------


def self_exclusion_active(*, user, now: datetime | None = None) -> SelfExclusion | None:
    """The self-exclusion in force for `user` now (the one ending last), or None."""
    active = _exclusions_in_force(user_ref=user, now=now or timezone.now())
    # One statement: a permanent one (no end) first, else the one ending last.
    return active.order_by(F("ends_at").desc(nulls_first=True), "-id").first()


def _exclusions_in_force(*, user_ref, now: datetime):
    """The self-exclusions in force at `now` of the user `user_ref` names (a user, or an OuterRef)."""
    return SelfExclusion.objects.filter(user=user_ref, lifted_at__isnull=True, starts_at__lte=now).filter(
        Q(ends_at__isnull=True) | Q(ends_at__gt=now)
    )


def users_barred(*, user_ids, now: datetime | None = None) -> set[int]:
    """Those of `user_ids` who may not play now: self-excluded, or their account closed. One statement."""
    ids = set(user_ids)
    if not ids:
        return set()
    excluded = _exclusions_in_force(user_ref=OuterRef("pk"), now=now or timezone.now())
    return set(
        User.objects.filter(pk__in=ids)
        .filter(Q(is_active=False) | Exists(excluded))
        .values_list("pk", flat=True)
    )


def self_exclusion_liftable_from(exclusion: SelfExclusion) -> datetime | None:
    """When a self-exclusion may be lifted: a permanent one 6 months after it began; a timed one never."""
    if exclusion.ends_at is not None:
        return None
    return months_add(exclusion.starts_at, PERMANENT_EXCLUSION_MIN_MONTHS)


def deposit_limit_effective(limit: DepositLimit, now: datetime) -> int | None:
    """The amount of `limit` in force at `now` (a pending raise counts once its time has come)."""
    if limit.pending_from is not None and now >= limit.pending_from:
        return limit.pending_amount
    return limit.amount


def deposits_sum_since(*, user, since: datetime) -> int:
    """What the user deposited since `since`, counting deposits still waiting for the provider."""
    total = Deposit.objects.filter(
        user=user, created_at__gt=since, status__in=(Deposit.Status.PENDING, Deposit.Status.SUCCEEDED)
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


@dataclass
class LimitView:
    period: str
    label: str
    amount: int | None
    used: int
    remaining: int | None
    pending_amount: int | None = None
    pending_from: datetime | None = None
    has_pending: bool = False


def deposit_limits_for(*, user, now: datetime | None = None) -> list[LimitView]:
    """The player's limits for each period, what was deposited in each window and any raise waiting."""
    now = now or timezone.now()
    stored = {limit.period: limit for limit in DepositLimit.objects.filter(user=user)}
    views = []
    for period, label in DepositLimit.Period.choices:
        limit = stored.get(period)
        amount = deposit_limit_effective(limit, now) if limit else None
        used = deposits_sum_since(user=user, since=now - LIMIT_WINDOWS[period])
        pending = limit is not None and limit.pending_from is not None and now < limit.pending_from
        views.append(
            LimitView(
                period=period,
                label=str(label),
                amount=amount,
                used=used,
                remaining=None if amount is None else max(0, amount - used),
                pending_amount=limit.pending_amount if pending else None,
                pending_from=limit.pending_from if pending else None,
                has_pending=pending,
            )
        )
    return views


# --- tables ---------------------------------------------------------------------------------------------------


def seat_buy_in_bounds(*, user, table, now: datetime | None = None) -> tuple[int, int]:
    """The smallest and largest buy-in `user` may bring to `table` now: the table's bounds (30-100 big blinds
    unless staff set others; a EUR table at most 1,000), raised to the stack the player left this table with
    in the last 30 minutes (but never above the maximum)."""
    now = now or timezone.now()
    low, high = table.min_buy_in, table.effective_max_buy_in
    if table.currency == Currency.EUR:
        high = min(high, EUR_SESSION_CAP)
    last = seat_session_recently_left(user=user, table=table, now=now)
    if last is not None and last.left_with:
        low = max(low, min(last.left_with, high))
    return low, high


def seat_money_offer(*, user, table, now: datetime | None = None) -> dict:
    """What the table page's buy-in and top-up boxes show `user` at `table`: the buy-in bounds now (the
    30-minute rule's higher minimum included: `table_min` is the table's own), the wallet, and for a seated
    player the stack and the most a top-up may add (table maximum, EUR session cap and wallet)."""
    low, high = seat_buy_in_bounds(user=user, table=table, now=now)
    wallet = wallet_balances(user=user)[table.currency]
    offer = {
        "min": low,
        "max": high,
        "table_min": table.min_buy_in,
        "wallet": wallet,
        "stack": None,
        "top_up_max": None,
    }
    session = seat_session_open(user=user, table=table)
    if session is not None:
        stack = session.account.balance
        room = table.effective_max_buy_in - stack
        if table.currency == Currency.EUR:
            room = min(room, EUR_SESSION_CAP - session.moved_in)
        offer.update(stack=stack, top_up_max=max(0, min(room, wallet)))
    return offer


def seat_session_recently_left(*, user, table, now: datetime | None = None) -> SeatSession | None:
    """The player's session at `table` closed in the last 30 minutes, in the table's currency (a stack left
    in play chips before staff switched the empty table to euros is owed nothing)."""
    now = now or timezone.now()
    return (
        SeatSession.objects.filter(
            user=user, table=table, currency=table.currency, closed_at__gte=now - RETURN_WINDOW
        )
        .order_by("-closed_at")
        .first()
    )


def seats_to_cash_out_after_hand(*, table) -> set[int]:
    """The seat numbers at `table` whose players must leave when the hand ends (flagged, or self-excluded):
    read at the end of every hand, so only the numbers, without joins (a third of the time of the rows with
    their users and accounts, mostly planning)."""
    excluded = _exclusions_in_force(user_ref=OuterRef("user"), now=timezone.now())
    return set(
        SeatSession.objects.filter(table=table, closed_at__isnull=True)
        .filter(Q(cash_out_after_hand=True) | Exists(excluded))
        .values_list("seat_number", flat=True)
    )


# --- the ledger's audit ---------------------------------------------------------------------------------------


@dataclass
class LedgerReport:
    violations: list[str] = field(default_factory=list)
    # (currency, kind, accounts, total balance)
    totals: list[tuple[str, str, int, int]] = field(default_factory=list)
    currency_totals: dict[str, int] = field(default_factory=dict)
    transfers: int = 0
    entries: int = 0

    @property
    def ok(self) -> bool:
        return not self.violations


def ledger_check() -> LedgerReport:
    """Audit the whole ledger: every transfer balances in one currency, every stored balance equals the sum
    of its entries, no player wallet, seat or hold is negative, per currency everything sums to zero, and
    every hand's settlement records a pot that covers what it paid out (`_hand_pots_check`)."""
    report = LedgerReport()
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM cashier_transfer")
        report.transfers = cursor.fetchone()[0]
        cursor.execute("SELECT COUNT(*) FROM cashier_entry")
        report.entries = cursor.fetchone()[0]
        cursor.execute(
            "SELECT transfer_id, SUM(amount) FROM cashier_entry GROUP BY transfer_id HAVING SUM(amount) <> 0 "
            "ORDER BY transfer_id LIMIT 100"
        )
        for transfer_id, total in cursor.fetchall():
            report.violations.append(f"transfer {transfer_id} does not balance: its entries sum to {total}")
        cursor.execute(
            "SELECT e.transfer_id, e.account_id FROM cashier_entry e JOIN cashier_account a ON a.id = e.account_id "
            "JOIN cashier_transfer t ON t.id = e.transfer_id WHERE a.currency <> t.currency LIMIT 100"
        )
        for transfer_id, account_id in cursor.fetchall():
            report.violations.append(
                f"transfer {transfer_id} has an entry on account {account_id} in another currency"
            )
        cursor.execute(
            "SELECT a.id, a.kind, a.currency, a.balance, COALESCE(s.total, 0) FROM cashier_account a "
            "LEFT JOIN (SELECT account_id, SUM(amount) AS total FROM cashier_entry GROUP BY account_id) s "
            "ON s.account_id = a.id WHERE a.balance <> COALESCE(s.total, 0) ORDER BY a.id LIMIT 100"
        )
        for account_id, kind, currency, balance, total in cursor.fetchall():
            report.violations.append(
                f"account {account_id} ({kind} {currency}): stored balance {balance} but its entries sum to {total}"
            )
        _hand_pots_check(cursor, report)
        outside = tuple(str(k) for k in OUTSIDE_KINDS)
        cursor.execute(
            "SELECT id, kind, currency, balance FROM cashier_account WHERE balance < 0 AND NOT (kind = ANY(%s)) "
            "ORDER BY id LIMIT 100",
            [list(outside)],
        )
        for account_id, kind, currency, balance in cursor.fetchall():
            report.violations.append(f"account {account_id} ({kind} {currency}) is negative: {balance}")
        cursor.execute(
            "SELECT a.currency, a.kind, COUNT(*), COALESCE(SUM(a.balance), 0) FROM cashier_account a "
            "GROUP BY a.currency, a.kind ORDER BY a.currency, a.kind"
        )
        report.totals = [(c, k, n, int(t)) for c, k, n, t in cursor.fetchall()]
        cursor.execute(
            "SELECT t.currency, COALESCE(SUM(e.amount), 0) FROM cashier_entry e "
            "JOIN cashier_transfer t ON t.id = e.transfer_id GROUP BY t.currency"
        )
        entry_totals = {c: int(t) for c, t in cursor.fetchall()}
    for currency in sorted({c for c, *_rest in report.totals} | set(entry_totals)):
        stored = sum(t for c, _k, _n, t in report.totals if c == currency)
        report.currency_totals[currency] = stored
        if stored != 0:
            report.violations.append(f"{currency}: the stored balances sum to {stored}, not zero")
        if entry_totals.get(currency, 0) != 0:
            report.violations.append(f"{currency}: the entries sum to {entry_totals[currency]}, not zero")
    return report


def _hand_pots_check(cursor, report: LedgerReport) -> None:
    """What can be checked of the pots hand settlements record (the payout statistics' source; the database
    already keeps `pot_people` between 0 and `pot`): the seats' net gains plus the rake, which equal their
    net losses, never exceed what was put into the pots; and since the first settlement that recorded its
    pot, every hand's settlement has one."""
    cursor.execute(
        "SELECT t.id, t.pot, COALESCE(SUM(e.amount) FILTER (WHERE e.amount > 0), 0) FROM cashier_transfer t "
        "LEFT JOIN cashier_entry e ON e.transfer_id = t.id WHERE t.kind = %s AND t.pot IS NOT NULL "
        "GROUP BY t.id, t.pot HAVING COALESCE(SUM(e.amount) FILTER (WHERE e.amount > 0), 0) > t.pot "
        "ORDER BY t.id LIMIT 100",
        [TransferKind.HAND.value],
    )
    for transfer_id, pot, paid in cursor.fetchall():
        report.violations.append(
            f"hand transfer {transfer_id} pays out {paid} (net gains and rake) from pots of only {pot}"
        )
    cursor.execute(
        "SELECT id FROM cashier_transfer WHERE kind = %s AND pot IS NULL AND id > "
        "(SELECT MIN(id) FROM cashier_transfer WHERE kind = %s AND pot IS NOT NULL) ORDER BY id LIMIT 100",
        [TransferKind.HAND.value, TransferKind.HAND.value],
    )
    for (transfer_id,) in cursor.fetchall():
        report.violations.append(f"hand transfer {transfer_id} does not record what was put into its pots")
