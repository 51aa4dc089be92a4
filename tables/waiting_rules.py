"""Who on a waiting list may be offered a seat (issue 32): only a player who could buy in then (at a EUR
table: email confirmed and the smallest buy-in in the wallet; anywhere: not self-excluded, account open).
Joining a list without that is refused with the reason; when a seat comes free, a player on the list who
cannot buy in any more is dropped from it and told why, and the seat goes to the next who can. A player
further down the list is not checked before their turn comes (they may deposit meanwhile)."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from cashier.eligibility import buy_in_refusal
from cashier.errors import CashierError
from tables import effects
from tables.models import Table, WaitingEntry


def waiting_recount(*, table: Table) -> None:
    table.waiting_count = WaitingEntry.objects.filter(table=table).count()
    table.save(update_fields=["waiting_count"])


def waiting_changed(*, table: Table) -> None:
    """The list's length changed: the table's watchers and the lobby hear of it after commit."""
    effects.publish(
        table_id=table.id, events=[{"event": "waiting", "count": table.waiting_count}], table=table
    )
    effects.lobby_changed()


def join_refusal(*, table: Table, user) -> CashierError | None:
    """Why `user` may not join `table`'s waiting list (they could not buy in now), or None."""
    return buy_in_refusal(user=user, table=table)


def offer_candidates(
    *, table: Table, entries: list[WaitingEntry], seats: int
) -> tuple[list[WaitingEntry], int]:
    """The first `seats` of `entries` (in list order, none offered a seat yet) who could buy in now, and how
    many were dropped from the list on the way, each told why. Caller holds the table's lock and recounts
    the list when some were dropped."""
    chosen: list[WaitingEntry] = []
    dropped = 0
    for entry in entries:
        if len(chosen) >= seats:
            break
        with translation.override(entry.user.preferred_language or settings.LANGUAGE_CODE):
            refusal = buy_in_refusal(user=entry.user, table=table)
            if refusal is None:
                chosen.append(entry)
                continue
            text = _(
                "A seat came free at %(table)s, but you could not buy in: you are off its waiting list."
            ) % {"table": table.name}
            message = f"{text} {refusal}"
        entry.delete()
        dropped += 1
        effects.tell_player(
            user_id=entry.user_id,
            message={
                "type": "waiting_dropped",
                "table": table.id,
                "table_name": table.name,
                "code": refusal.code,
                "message": message,
            },
        )
    if dropped:
        waiting_recount(table=table)
        waiting_changed(table=table)
    return chosen
