"""How a table's messages leave the process: numbered by the table's `seq`, sent to its group after commit.

Every message a table sends carries the next `seq`, taken in the database (so several daphne processes and
workers agree on it), and goes out through the channel layer only once the transaction that produced it has
committed: a rolled-back change never reaches a client. The group carries public information only; each
consumer adds its own player's cards and `legal` (tables.state.for_viewer).
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction

from tables.models import Table

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def table_take_seqs(*, table_id: int, count: int = 1) -> int:
    """Reserve `count` message numbers; returns the first. The caller's transaction holds the row."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Table._meta.db_table} SET seq = seq + %s WHERE id = %s RETURNING seq", [count, table_id]
        )
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"no table {table_id}")
    return row[0] - count + 1


def table_send_event_on_commit(*, table_id: int, event: str, data: dict) -> int:
    """Number a public event of the table and send it to everyone watching once the transaction commits."""
    return table_send_events_on_commit(table_id=table_id, events=[{"event": event, **data}])


def table_send_events_on_commit(*, table_id: int, events: list[dict]) -> int:
    if not events:
        return 0
    first = table_take_seqs(table_id=table_id, count=len(events))
    messages = [{"type": "event", "seq": first + i, **event} for i, event in enumerate(events)]
    transaction.on_commit(lambda: group_send_batch(table_group(table_id), messages))
    return first + len(events) - 1


def table_send_state_on_commit(*, table_id: int) -> None:
    """Snapshot the table as it is now and send it after commit."""
    table_publish_on_commit(table_id=table_id, events=[])


_FETCH = object()


def table_publish_on_commit(
    *, table_id: int, events: list[dict], table: Table | None = None, hand=_FETCH, state=_FETCH, seats=None,
    stacks=None,
) -> int:
    """What one change of the table tells its watchers: its public events, then a public snapshot of the
    table as it is now (taken inside the caller's transaction, under its lock), numbered together in one
    update and sent after commit as one group message; each consumer adds its player's private part and
    sends them as separate frames. Returns the snapshot's seq. `table`, `hand`, `state`, `seats` and
    `stacks`, when the caller holds them current (under the table's lock), save fetching them again."""
    from tables.services import hand_engine, hand_running
    from tables.state import table_snapshot

    if table is None:
        table = Table.objects.get(pk=table_id)
    if hand is _FETCH:  # the caller may pass what it already holds: the running hand (or None) and its state
        hand = hand_running(table=table)
        state = hand_engine(hand=hand, table=table) if hand is not None else None
    snapshot = table_snapshot(table=table, hand=hand, state=state, seats=seats, stacks=stacks)
    first = table_take_seqs(table_id=table_id, count=len(events) + 1)
    messages = [{"type": "event", "seq": first + i, **event} for i, event in enumerate(events)]
    snapshot["seq"] = first + len(events)
    messages.append(snapshot)
    transaction.on_commit(lambda: group_send_batch(table_group(table_id), messages))
    return snapshot["seq"]


def group_send_batch(group: str, messages: list[dict]) -> None:
    async_to_sync(get_channel_layer().group_send)(group, {"type": "room.batch", "messages": messages})


def lobby_send_on_commit() -> None:
    """Tell lobby watchers the tables changed; they get the fresh list."""
    from tables.selectors import table_list_open

    transaction.on_commit(lambda: group_send(LOBBY_GROUP, {"type": "tables", "tables": table_list_open()}))


def group_send(group: str, message: dict) -> None:
    async_to_sync(get_channel_layer().group_send)(group, {"type": "room.message", "message": message})
