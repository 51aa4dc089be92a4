"""Where other apps plug into the cashier, which imports none of them. The cashier knows money and seat
sessions; what a seat at a table is, and whether a hand is being played there, are the table code's business.

The table app registers, once (in `TablesConfig.ready()`), what must happen at a seat when the cashier takes a
player off the tables (a self-exclusion, a closed account):

    hooks.seat_release_register(lambda session: ...)   # the closed SeatSession, or None if cashed out later

The function locks its own table, cashes the seat out at once (`services.seat_cash_out`) and frees the seat if
no hand is being played there, or else flags it (`services.seat_cash_out_after_hand`) and cashes it out when
the hand ends. Until one is registered the cashier cashes the session out itself, seat rows untouched.

Apps that must act when a player may no longer play (a self-exclusion, a closed account) register a function,
called once the exclusion or the closing is committed and the player's seats are released, with no lock held:

    hooks.player_barred_register(lambda *, user: ...)   # the table app: refuse their actions in hands running;
                                                         # tournaments: cancel and refund their registrations

Apps that want to hear of credited deposits (the staff app flags large or unusual ones) register a listener:

    hooks.deposit_succeeded_register(lambda *, deposit: ...)

Apps that may hold a withdrawal back (the staff app: a deposit of the same player flagged and not reviewed)
register a function returning the reasons, each a sentence staff read; no reason, no hold:

    hooks.withdrawal_hold_register(lambda *, withdrawal: [...])

The cashier's services take a table as anything with the attributes of `TableTerms` (the table app's model)."""

import logging
from collections.abc import Callable
from typing import Any, Protocol

from django.db import transaction

log = logging.getLogger(__name__)


class TableTerms(Protocol):
    """What the cashier reads of a table: its money and its seats' terms."""

    pk: Any
    id: Any
    currency: str
    chip: int
    seats: int
    is_open: bool
    bots_allowed: bool
    min_buy_in: int
    max_buy_in: int

    @property
    def effective_max_buy_in(self) -> int: ...


_seat_release: Callable[[Any], Any] | None = None


def seat_release_register(func: Callable[[Any], Any]) -> None:
    """`func(session) -> SeatSession | None`: take the player of the open seat session `session` off its table
    (see the module's docstring). Called with no lock held; `func` takes the table's lock, then the ledger's."""
    global _seat_release
    _seat_release = func


def seat_releaser() -> Callable[[Any], Any] | None:
    """The function the table app registered, or None."""
    return _seat_release


_player_barred: list[Callable] = []


def player_barred_register(func: Callable) -> None:
    """`func(*, user)`: called after a self-exclusion or an account's closing is committed, in the order
    registered, with no lock held (each takes its own)."""
    if func not in _player_barred:
        _player_barred.append(func)


def player_barred(*, user) -> None:
    for func in _player_barred:
        func(user=user)


_deposit_listeners: list[Callable] = []


def deposit_succeeded_register(func: Callable) -> None:
    """`func(*, deposit)`: called inside the transaction that credited `deposit`, in a savepoint of its own;
    a listener that fails is logged and never undoes the deposit."""
    if func not in _deposit_listeners:
        _deposit_listeners.append(func)


def deposit_succeeded(deposit) -> None:
    for listener in _deposit_listeners:
        try:
            with transaction.atomic():
                listener(deposit=deposit)
        except Exception:  # noqa: BLE001 - the money is credited whatever a listener does
            log.exception("a listener of credited deposits failed on deposit %s", deposit.pk)


_withdrawal_holds: list[Callable] = []


def withdrawal_hold_register(func: Callable) -> None:
    """`func(*, withdrawal) -> list[str]`: why `withdrawal` may not be approved now (empty: no objection)."""
    if func not in _withdrawal_holds:
        _withdrawal_holds.append(func)


def withdrawal_holds(withdrawal) -> list[str]:
    """Every registered reason to hold `withdrawal`, in the order registered."""
    return [str(reason) for func in _withdrawal_holds for reason in func(withdrawal=withdrawal)]
