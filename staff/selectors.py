"""The staff app's reads: the dashboard's figures, rake by day and table, a player's page, deposit review."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.models import SelfExclusion, User
from cashier.models import (
    WALLET_KINDS,
    Account,
    AccountKind,
    Adjustment,
    Deposit,
    Entry,
    SeatSession,
    Withdrawal,
)
from cashier.selectors import deposit_limits_for, self_exclusion_active, wallet_entries
from cashier.templatetags.money import format_amount
from tables.history.selectors import hands_played_by
from tables.models import Game, Hand, Seat, Structure, Table
from tournaments.models import Entry as TournamentEntry

PLAYER_PAGE_ROWS = 20


# --- deposits to review -------------------------------------------------------------------------------------


def deposit_review_reasons(*, deposit: Deposit) -> list[str]:
    """Why a credited deposit should be looked at (DepositFlag.Reason codes; [] for none): large, a large total
    or many deposits over the 24 hours up to it, or much larger than the player's earlier deposits."""
    from staff.models import DepositFlag

    reasons = []
    if deposit.amount >= settings.DEPOSIT_REVIEW_FROM:
        reasons.append(DepositFlag.Reason.LARGE)
    credited = Deposit.objects.filter(user_id=deposit.user_id, status=Deposit.Status.SUCCEEDED)
    day = credited.filter(
        created_at__gt=deposit.created_at - timedelta(days=1), created_at__lte=deposit.created_at
    )
    totals = day.aggregate(total=Sum("amount"), count=Count("id"))
    if (totals["total"] or 0) >= settings.DEPOSIT_REVIEW_DAY_TOTAL:
        reasons.append(DepositFlag.Reason.DAY_TOTAL)
    if totals["count"] > settings.DEPOSIT_REVIEW_COUNT_PER_DAY:
        reasons.append(DepositFlag.Reason.MANY)
    earlier = list(
        credited.filter(created_at__lt=deposit.created_at)
        .exclude(pk=deposit.pk)
        .order_by("-created_at")
        .values_list("amount", flat=True)[:20]
    )
    if len(earlier) >= 3 and deposit.amount >= settings.DEPOSIT_REVIEW_FACTOR * statistics.median(earlier):
        reasons.append(DepositFlag.Reason.UNUSUAL)
    return [str(reason) for reason in reasons]


def withdrawal_hold_reasons(*, withdrawal: Withdrawal) -> list[str]:
    """Why `withdrawal` may not be approved yet: one sentence per deposit of the same player, in any currency,
    flagged for review and not reviewed (the cashier's `withdrawal_hold` hook; staff read them on the
    withdrawal's page and when an approval is refused)."""
    from staff.models import DepositFlag

    flags = DepositFlag.objects.filter(deposit__user_id=withdrawal.user_id, reviewed_at__isnull=True)
    return [
        _(
            "Held: deposit #%(id)s of %(amount)s (%(when)s) is flagged for review (%(reasons)s) and not "
            "reviewed yet. Review it under Flagged deposits first."
        )
        % {
            "id": flag.deposit_id,
            "amount": format_amount(flag.deposit.amount, flag.deposit.currency),
            "when": date_format(timezone.localtime(flag.deposit.created_at), "SHORT_DATETIME_FORMAT"),
            "reasons": ", ".join(flag.reason_labels).lower(),
        }
        for flag in flags.select_related("deposit").order_by("created_at", "pk")
    ]


# --- the dashboard ------------------------------------------------------------------------------------------


def _local_midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def rake_since(*, since: datetime, kind: str = AccountKind.RAKE) -> dict[str, int]:
    """The rake taken since `since`, by currency (what the tables' rake accounts received); with
    `kind=AccountKind.FEES`, the tournament fees the room kept."""
    rows = (
        Entry.objects.filter(account__kind=kind, transfer__created_at__gte=since)
        .values_list("account__currency")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return {currency: int(total) for currency, total in rows}


DEALING_WITHIN = timedelta(minutes=5)


def tables_dealing(*, now: datetime) -> int:
    """Tables that dealt in the last DEALING_WITHIN (a hand started then, or one running now): a table
    between two hands is still dealing."""
    return (
        Hand.objects.filter(Q(status=Hand.Status.RUNNING) | Q(started_at__gte=now - DEALING_WITHIN))
        .values("table")
        .distinct()
        .count()
    )


def _balances_by_currency(kind: str) -> dict[str, int]:
    rows = Account.objects.filter(kind=kind).values_list("currency").annotate(total=Sum("balance")).order_by()
    return {currency: int(total) for currency, total in rows if total}


def money_today(*, since: datetime) -> dict[str, dict[str, int]]:
    """Deposits credited and withdrawals paid (or being paid) since `since`, by currency."""
    deposits = (
        Deposit.objects.filter(status=Deposit.Status.SUCCEEDED, created_at__gte=since)
        .values_list("currency")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    paid = (
        Withdrawal.objects.filter(
            status__in=(Withdrawal.Status.PAID, Withdrawal.Status.PROCESSING), decided_at__gte=since
        )
        .values_list("currency")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return {
        "deposits": {currency: int(total) for currency, total in deposits},
        "withdrawals": {currency: int(total) for currency, total in paid},
    }


def players_online() -> int | None:
    """People connected now, room-wide: a table open (seated or watching) or the lobby, on any web process,
    seen within CONNECTION_TTL (house bots and anonymous visitors are never counted; tables.consumers keeps
    the set). Members older than that are trimmed. None when Redis does not answer."""
    import redis

    from tables import consumers
    from tables.clock import redis_client

    since = timezone.now().timestamp() - consumers.CONNECTION_TTL
    try:
        pipe = redis_client().pipeline(transaction=False)
        pipe.zremrangebyscore(consumers.ONLINE_KEY, "-inf", f"({since}")
        pipe.zcount(consumers.ONLINE_KEY, since, "+inf")
        return int(pipe.execute()[1])
    except redis.RedisError:
        return None


@dataclass
class Dashboard:
    players_online: int | None
    players_seated: int
    tables_dealing: int
    tables_open: int
    hands_last_hour: int
    rake_today: dict[str, int]
    rake_month: dict[str, int]
    withdrawals_pending: int
    withdrawals_second_approval: int
    deposits_flagged: int
    money_at_tables: dict[str, int] = field(default_factory=dict)
    prize_pools: dict[str, int] = field(default_factory=dict)
    deposits_today: dict[str, int] = field(default_factory=dict)
    withdrawals_today: dict[str, int] = field(default_factory=dict)
    fees_today: dict[str, int] = field(default_factory=dict)
    fees_month: dict[str, int] = field(default_factory=dict)


def dashboard_figures(*, now: datetime | None = None) -> Dashboard:
    """The admin's front page: people connected now (players_online) and people seated at tables (house bots
    left out of both), tables dealing in the last 5 minutes, hands in the last hour, money in play (cash seats,
    tournament prize pools), deposits and withdrawals today, rake and fees today and this month (the room's
    time zone), what waits for staff. The online figure is always of the present moment, whatever `now` says."""
    from staff.models import DepositFlag

    now = now or timezone.now()
    today = timezone.localdate(now)
    midnight, month = _local_midnight(today), _local_midnight(today.replace(day=1))
    moved = money_today(since=midnight)
    pending = Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).aggregate(
        all=Count("id"), second=Count("id", filter=Q(first_approved_by__isnull=False))
    )
    return Dashboard(
        players_online=players_online(),
        players_seated=Seat.objects.filter(user__isnull=False, user__is_bot=False)
        .values("user")
        .distinct()
        .count(),
        tables_dealing=tables_dealing(now=now),
        tables_open=Table.objects.filter(is_open=True).count(),
        hands_last_hour=Hand.objects.filter(
            status=Hand.Status.COMPLETE, ended_at__gte=now - timedelta(hours=1)
        ).count(),
        rake_today=rake_since(since=midnight),
        rake_month=rake_since(since=month),
        withdrawals_pending=pending["all"],
        withdrawals_second_approval=pending["second"],
        deposits_flagged=DepositFlag.objects.filter(reviewed_at__isnull=True).count(),
        money_at_tables=_balances_by_currency(AccountKind.SEAT),
        prize_pools=_balances_by_currency(AccountKind.PRIZE_POOL),
        deposits_today=moved["deposits"],
        withdrawals_today=moved["withdrawals"],
        fees_today=rake_since(since=midnight, kind=AccountKind.FEES),
        fees_month=rake_since(since=month, kind=AccountKind.FEES),
    )


def rake_by_day_and_table(*, since: date, until: date) -> list[dict[str, Any]]:
    """The rake of each table on each day from `since` to `until` (local days, both included), oldest first."""
    zone = timezone.get_current_timezone()
    rows = (
        Entry.objects.filter(
            account__kind=AccountKind.RAKE,
            transfer__created_at__gte=_local_midnight(since),
            transfer__created_at__lt=_local_midnight(until + timedelta(days=1)),
        )
        .annotate(day=TruncDate("transfer__created_at", tzinfo=zone))
        .values("day", "transfer__table_id", "transfer__table__name", "account__currency")
        .annotate(rake=Sum("amount"), hands=Count("transfer_id"))
        .order_by("day", "transfer__table__name")
    )
    return [
        {
            "day": row["day"],
            "table_id": row["transfer__table_id"],
            "table": row["transfer__table__name"],
            "currency": row["account__currency"],
            "rake": int(row["rake"]),
            "hands": row["hands"],
        }
        for row in rows
    ]


# --- a player's page ----------------------------------------------------------------------------------------


@dataclass
class SeatNow:
    session: SeatSession
    stack: int


@dataclass
class PlayerOverview:
    user: User
    wallets: list[Account]
    seats: list[SeatNow]
    deposits: list[Deposit]
    withdrawals: list[Withdrawal]
    entries: list[Entry]
    hands: list[Hand]
    tournaments: list[TournamentEntry]
    limits: list
    exclusions: list[SelfExclusion]
    exclusion_now: SelfExclusion | None
    notes: list = field(default_factory=list)
    audit: list = field(default_factory=list)
    adjustments: list = field(default_factory=list)
    logins: list = field(default_factory=list)
    results: list = field(default_factory=list)


def results_by_game(*, user: User) -> list[dict[str, Any]]:
    """The player's cash results by game, structure and currency, from the ledger: per finished sitting what
    they left with less what they brought (buy-in and top-ups); sittings, and the net, largest first."""
    rows = (
        SeatSession.objects.filter(user=user, closed_at__isnull=False)
        .values("table__game", "table__structure", "currency")
        .annotate(sittings=Count("id"), brought=Sum("moved_in"), left=Sum("left_with"))
        .order_by()
    )
    games, structures = dict(Game.choices), dict(Structure.choices)
    results = [
        {
            "game": f"{games.get(row['table__game'], row['table__game'])} "
            f"{structures.get(row['table__structure'], row['table__structure'])}",
            "currency": row["currency"],
            "sittings": row["sittings"],
            "brought": int(row["brought"] or 0),
            "net": int(row["left"] or 0) - int(row["brought"] or 0),
        }
        for row in rows
    ]
    return sorted(results, key=lambda r: (r["currency"], -abs(r["net"]), r["game"]))


def player_overview(*, user: User) -> PlayerOverview:
    """Everything the player page shows, the newest first, PLAYER_PAGE_ROWS of each list at most."""
    from staff.models import AuditEntry, Login, StaffNote

    rows = PLAYER_PAGE_ROWS
    sessions = SeatSession.objects.filter(user=user, closed_at__isnull=True).select_related(
        "table", "account"
    )
    return PlayerOverview(
        user=user,
        wallets=list(Account.objects.filter(user=user, kind__in=WALLET_KINDS).order_by("currency")),
        seats=[SeatNow(session=s, stack=s.account.balance) for s in sessions],
        deposits=list(Deposit.objects.filter(user=user).select_related("review_flag").order_by("-id")[:rows]),
        withdrawals=list(
            Withdrawal.objects.filter(user=user)
            .select_related("decided_by", "first_approved_by")
            .order_by("-id")[:rows]
        ),
        entries=list(wallet_entries(user=user)[:rows]),
        hands=list(hands_played_by(user_ids=[user.pk])[:rows]),
        tournaments=list(
            TournamentEntry.objects.filter(user=user)
            .select_related("tournament")
            .order_by("-registered_at")[:rows]
        ),
        limits=deposit_limits_for(user=user),
        exclusions=list(SelfExclusion.objects.filter(user=user).select_related("created_by", "lifted_by")),
        exclusion_now=self_exclusion_active(user=user),
        notes=list(StaffNote.objects.filter(player=user).select_related("author")[:rows]),
        audit=list(AuditEntry.objects.filter(player=user).select_related("actor")[:rows]),
        logins=list(Login.objects.filter(user=user)[:rows]),
        results=results_by_game(user=user),
        adjustments=list(
            Adjustment.objects.filter(user=user)
            .select_related("proposed_by", "decided_by")
            .order_by("-id")[:rows]
        ),
    )
