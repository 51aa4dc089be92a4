"""The ledger's primitives: find accounts, lock them, post one balanced transfer.

Every service that moves money does, inside one `transaction.atomic()`:
    1. `accounts_lock(...)` on every account it will touch (one SELECT ... FOR UPDATE, in primary-key order, so
       two services never wait on each other in a cycle);
    2. its checks, against the balances it just read under the lock;
    3. `transfer_post(...)`, which writes the transfer, its entries and the new stored balances.
"""

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, connection
from django.utils.translation import gettext as _

from cashier.amounts import currency_validate, format_amount
from cashier.errors import CashierError, IdempotencyConflict, InsufficientFunds, LedgerUnbalanced
from cashier.models import OUTSIDE_KINDS, Account, AccountKind, Transfer


def request_fingerprint(**data: Any) -> str:
    """A stable digest of a request's data: the same idempotency key must always come with the same data."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def wallet_get(*, user: Any, currency: str) -> Account:
    """The user's wallet in `currency` (play chips: a house bot's own kind), created on first use.

    Lock: none taken. Safe under concurrency (a unique constraint, then a second read)."""
    currency = currency_validate(currency)
    account: Account = Account.objects.get_or_create(
        user=user, kind=wallet_kind(user=user, currency=currency), currency=currency
    )[0]
    return account


def wallet_kind(*, user: Any, currency: str) -> str:
    """The kind of `user`'s wallet in `currency` (a valid one): play chips are a house bot's own kind; house
    bots have no EUR wallet."""
    if currency == "play":
        return str(AccountKind.BOT_PLAY if user.is_bot else AccountKind.PLAYER_PLAY)
    if user.is_bot:
        raise CashierError(_("House bots play only with play chips."))
    return str(AccountKind.PLAYER_EUR)


def system_account_get(*, kind: str, currency: str, ref: str = "") -> Account:
    """The room's account of `kind` in `currency` (and `ref`: a provider's code, a table, a tournament).

    Lock: none taken."""
    currency = currency_validate(currency)
    account: Account = Account.objects.get_or_create(kind=kind, currency=currency, ref=ref, user=None)[0]
    return account


def rake_account_get(*, table: Any) -> Account:
    """The room's rake account for `table` (one per table keeps busy tables from queueing on one row)."""
    return system_account_get(kind=str(AccountKind.RAKE), currency=table.currency, ref=f"table:{table.pk}")


def accounts_lock(*, accounts: Iterable[Account | int]) -> dict[int, Account]:
    """Lock the accounts' rows (SELECT ... FOR UPDATE, primary-key order) and return them freshly read, by id.

    Must run inside `transaction.atomic()`. Locking a row twice in one transaction is harmless."""
    if not connection.in_atomic_block:
        raise RuntimeError("accounts_lock() must run inside transaction.atomic()")
    ids = sorted({a.pk if isinstance(a, Account) else int(a) for a in accounts})
    locked = {a.pk: a for a in Account.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    if len(locked) != len(ids):
        raise CashierError(_("An account of this request does not exist."))
    for account in locked.values():
        account._cashier_locked = True
    return locked


def transfer_post(
    *,
    kind: str,
    currency: str,
    legs: Sequence[tuple[Account, int]],
    idempotency_key: str | None = None,
    request_hash: str = "",
    user: Any = None,
    table: Any = None,
    hand_ref: str = "",
    memo: str = "",
    allow_empty: bool = False,
    pot: int | None = None,
    pot_people: int | None = None,
) -> Transfer:
    """Post one balanced transfer: each (account, amount) leg adds `amount` to `account`.

    Lock: the caller holds the locks of every leg's account, taken with `accounts_lock` in this transaction.
    With an `idempotency_key`, a second call with the same key and the same `request_hash` returns the first
    transfer and moves nothing; with another `request_hash` it raises IdempotencyConflict. `pot` and
    `pot_people`: a hand's settlement only (what was put into its pots, and by people).
    Raises InsufficientFunds (nothing written) if an account other than the outside ones would go negative."""
    if not connection.in_atomic_block:
        raise RuntimeError("transfer_post() must run inside transaction.atomic()")
    merged: dict[int, list[Any]] = {}
    for account, amount in legs:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise LedgerUnbalanced(_("Ledger amounts must be whole numbers."))
        if not getattr(account, "_cashier_locked", False):
            raise RuntimeError(f"transfer_post(): account {account.pk} was not locked with accounts_lock()")
        if account.currency != currency:
            raise LedgerUnbalanced(_("A transfer cannot mix currencies."))
        merged.setdefault(account.pk, [account, 0])[1] += amount
    legs_net = [(account, amount) for account, amount in merged.values() if amount != 0]
    if sum(amount for _a, amount in legs_net) != 0:
        raise LedgerUnbalanced(_("The transfer does not balance."))
    if not legs_net and not allow_empty:
        raise LedgerUnbalanced(_("The transfer moves nothing."))

    for account, amount in legs_net:
        if account.kind not in OUTSIDE_KINDS and account.balance + amount < 0:
            existing = (
                Transfer.objects.filter(idempotency_key=idempotency_key).first() if idempotency_key else None
            )
            if existing is not None:  # a replay of a request whose money has moved on since
                return transfer_replayed(existing, request_hash)
            raise InsufficientFunds(
                _("Not enough money: the %(account)s holds %(balance)s.")
                % {
                    "account": account.get_kind_display().lower(),
                    "balance": format_amount(account.balance, currency),
                }
            )

    transfer = Transfer(
        kind=kind,
        currency=currency,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        user=user,
        table=table,
        hand_ref=hand_ref,
        memo=memo[:200],
        pot=pot,
        pot_people=pot_people,
    )
    legs_net.sort(key=lambda leg: leg[0].pk)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                _POST_SQL,
                [
                    transfer.kind,
                    transfer.currency,
                    transfer.idempotency_key,
                    transfer.request_hash,
                    transfer.created_at,
                    transfer.user_id,
                    transfer.table_id,
                    transfer.hand_ref,
                    transfer.memo,
                    transfer.pot,
                    transfer.pot_people,
                    [account.pk for account, _amount in legs_net],
                    [amount for _account, amount in legs_net],
                ],
            )
            rows = cursor.fetchall()
    except IntegrityError as error:  # the balance constraint: the checks above make it a backstop only
        if "account_balance_not_negative" in str(error):
            raise InsufficientFunds(_("Not enough money for this request.")) from error
        raise
    if not rows:  # the key was taken: by this same request before (a replay), or by another one
        return transfer_replayed(Transfer.objects.get(idempotency_key=idempotency_key), request_hash)
    transfer.pk = rows[0][0]
    transfer._state.adding = False
    transfer._state.db = connection.alias
    balances = {account_id: balance for _id, account_id, balance in rows if account_id is not None}
    for account, _amount in legs_net:
        account.balance = balances[account.pk]
    transfer.replayed = False
    return transfer


# One statement writes a transfer: its row, each account's new balance and one entry per leg with the balance it
# left. If the idempotency key is already taken nothing is written and no row comes back. Each account's row is
# already locked by the caller (accounts_lock), so the order of the updates cannot deadlock.
_POST_SQL = """
WITH transfer AS (
    INSERT INTO cashier_transfer (kind, currency, idempotency_key, request_hash, created_at, user_id, table_id,
                                  hand_ref, memo, pot, pot_people)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id
), leg AS (
    SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS leg(account_id, amount)
), moved AS (
    UPDATE cashier_account AS account SET balance = account.balance + leg.amount
      FROM leg, transfer
     WHERE account.id = leg.account_id
    RETURNING account.id, account.balance, leg.amount
), entry AS (
    INSERT INTO cashier_entry (transfer_id, account_id, amount, balance_after)
    SELECT transfer.id, moved.id, moved.amount, moved.balance FROM transfer, moved ORDER BY moved.id
    RETURNING account_id, balance_after
)
SELECT transfer.id, entry.account_id, entry.balance_after FROM transfer LEFT JOIN entry ON true
"""


def transfer_replayed(existing: Transfer, request_hash: str) -> Transfer:
    """The transfer a request with the same key made before, if it carried the same data; else refused."""
    if existing.request_hash != request_hash:
        raise IdempotencyConflict(
            _("This request's key was already used for a different request. Nothing was moved.")
        )
    existing.replayed = True
    return existing
