"""How a table's messages leave the process: numbered by the table's `seq`, sent to its group after commit.

Every message a table sends carries the next `seq`, taken in the database (so several daphne processes and
workers agree on it), and goes out through the channel layer only once the transaction that produced it has
committed: a rolled-back change never reaches a client.
"""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction

from tables.models import Table


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


LOBBY_GROUP = "lobby"


def table_next_seq(*, table_id: int) -> int:
    """Take the table's next message number. The caller's transaction holds the row until it commits."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Table._meta.db_table} SET seq = seq + 1 WHERE id = %s RETURNING seq", [table_id])
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"no table {table_id}")
    return row[0]


def table_send_event_on_commit(*, table_id: int, event: str, data: dict) -> int:
    """Number a public event of the table and send it to everyone watching once the transaction commits."""
    seq = table_next_seq(table_id=table_id)
    message = {"type": "event", "seq": seq, "event": event, **data}
    transaction.on_commit(lambda: group_send(table_group(table_id), message))
    return seq


def group_send(group: str, message: dict) -> None:
    async_to_sync(get_channel_layer().group_send)(group, {"type": "room.message", "message": message})
