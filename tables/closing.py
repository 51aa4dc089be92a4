"""Closing a table (docs/staff.md, "Closing a table"): staff untick Open in the admin, or use **Close the
table…** on its page. Nobody new sits down or joins its waiting list and no new hand is dealt; the hand in
play finishes; every player is cashed out as if they had left (their chips back in the wallet: the cashier's
ordinary cash-out), at once if not dealt into the hand in play, else when it ends, and each is told why; the
table leaves the lobby. No seat stays taken at a closed table."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from tables import effects
from tables.models import RemoveReason, Seat, Table, WaitingEntry
from tables.services import TableError, _notice_clean, seat_remove, table_lock

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableClosed:
    """What closing did: the players cashed out now, and those who will be when the hand in play ends."""

    now: list[str]
    after_hand: list[str]


def table_close(*, table_id: int, staff_user, notice: str = "", record: bool = True) -> TableClosed:
    """Close the table and send its players away with their chips (see the module's docstring). `notice`, if
    any, is announced to the table first (at most 300 characters). May be called on a table already closed:
    anyone still seated there is cashed out the same way. Written to the audit log as `table.close` unless
    `record` is False (the admin's own record of unticking Open stands for it). Locks the table."""
    notice = _notice_clean(notice)
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        if table.is_tournament:
            raise TableError(
                "tournament_table", _("A tournament's tables close when the tournament moves its players.")
            )
        was_open = table.is_open
        if was_open:
            table.is_open = False
            table.save(update_fields=["is_open"])
        if notice:
            effects.event(table_id=table.id, event="announcement", data={"text": notice, "from": "staff"})
        if table.waiting_count or WaitingEntry.objects.filter(table=table).exists():
            WaitingEntry.objects.filter(table=table).delete()
            table.waiting_count = 0
            table.save(update_fields=["waiting_count"])
        seated = list(
            Seat.objects.filter(table=table, user__isnull=False).select_related("user").order_by("number")
        )
        done: dict[str, list[str]] = {"now": [], "after_hand": []}
        for seat in seated:
            when = seat_remove(
                table_id=table.id, seat_number=seat.number, reason=RemoveReason.CLOSED, user_id=seat.user_id
            )
            if when:
                done[when].append(seat.user.username)
        if record:
            staff_action_record(
                actor=staff_user,
                action="table.close",
                target=table,
                before={"is_open": was_open, "seated": [s.user.username for s in seated]},
                after={"is_open": False, "cashed_out_now": done["now"], "after_hand": done["after_hand"]},
                note=notice,
            )
        effects.lobby_changed()
        return TableClosed(now=done["now"], after_hand=done["after_hand"])


def closed_tables_release() -> int:
    """The sweep's part: a cash table closed with players still seated (closed some other way, or before the
    room closed tables this way) is closed again as `table_close` does, without an audit record: every player
    cashed out, at once or when the hand in play ends. One table's failure is logged and never stops the
    others. Returns the players cashed out now or flagged to be."""
    table_ids = (
        Seat.objects.filter(
            user__isnull=False, leave_after_hand=False, table__is_open=False, table__kind=Table.Kind.CASH
        )
        .values_list("table_id", flat=True)
        .order_by()
        .distinct()
    )
    released = 0
    for table_id in list(table_ids):
        try:
            closed = table_close(table_id=table_id, staff_user=None, record=False)
        except Exception:  # noqa: BLE001 - logged with its traceback; the other tables go on
            log.exception("sweep: releasing the players of closed table %s failed", table_id)
            continue
        released += len(closed.now) + len(closed.after_hand)
    return released
