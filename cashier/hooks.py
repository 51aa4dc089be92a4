"""Where the table code plugs into the cashier. The cashier knows money and seat sessions; whether a hand is
being played at a table, and what a free seat looks like, are the table code's business.

The table app registers its own functions once (e.g. in `TablesConfig.ready()`):

    from cashier import hooks
    hooks.hand_in_progress_register(lambda table: ...)         # True while a hand is being played
    hooks.seat_released_register(lambda session: ...)          # a seat session the cashier closed itself

Until then: no hand is ever in progress, and a released seat is emptied in `tables.Seat` if it still holds
that player.

Apps that want to hear of credited deposits (the staff app flags large or unusual ones) register a listener:

    hooks.deposit_succeeded_register(lambda *, deposit: ...)"""

import logging
from collections.abc import Callable

from django.db import transaction

log = logging.getLogger(__name__)


def _no_hand(table) -> bool:
    return False


def _empty_seat_row(session) -> None:
    from tables.models import Seat

    Seat.objects.filter(table_id=session.table_id, number=session.seat_number, user_id=session.user_id).update(
        user=None, status=Seat.Status.EMPTY, sat_down_at=None
    )


_hand_in_progress: Callable = _no_hand
_seat_released: Callable = _empty_seat_row


def hand_in_progress_register(func: Callable) -> None:
    """`func(table) -> bool`: is a hand being played at `table`? Called with the table row locked."""
    global _hand_in_progress
    _hand_in_progress = func


def seat_released_register(func: Callable) -> None:
    """`func(session)`: called inside the transaction that closed `session` when the cashier closed it on its
    own (self-exclusion), so the table can free the seat and tell the room (use `transaction.on_commit`)."""
    global _seat_released
    _seat_released = func


def hand_in_progress(table) -> bool:
    return bool(_hand_in_progress(table))


def seat_released(session) -> None:
    _seat_released(session)


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
