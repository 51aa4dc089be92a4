"""How a table's messages leave the process: numbered by the table's `seq`, sent to its group after commit.

Every message a table sends carries the next `seq`, taken in the database (so several daphne processes and
workers agree on it), and goes out through the channel layer only once the transaction that produced it has
committed: a rolled-back change never reaches a client. The group carries public information only; each
consumer adds its own player's cards and `legal` (tables.state.for_viewer).

A send is one Redis PUBLISH made by the thread that committed the change (see `_group_send`), before it
returns: in daphne the database threads never wait for the event loop to send for them.

The lobby's list is not sent on every change: a change marks it stale in Redis, and the workers' clock sends
the fresh list at most once a second (tables.clock).
"""

from __future__ import annotations

import logging

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import connection, transaction

from tables import held
from tables.clock import redis_client
from tables.models import Table
from tables.selectors import hand_running, table_list_open
from tables.state import table_snapshot

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
LOBBY_STALE_KEY = "room:lobby:stale"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def user_group(user_id: int) -> str:
    """Every connection of one logged-in player (lobby and tables): what is for them alone, such as a seat
    offered from a waiting list or being removed from a seat."""
    return f"user-{user_id}"


def user_send_on_commit(*, user_id: int, message: dict) -> None:
    """Send `message` to every connection of one player once the transaction commits (not numbered: it is no
    table's message)."""
    transaction.on_commit(lambda: group_send(user_group(user_id), message))


def table_take_seqs(*, table_id: int, count: int = 1) -> int:
    """Reserve `count` message numbers; returns the first. The caller's transaction holds the row. Any view
    of the table this process held is dropped: the change that takes these numbers may not be in it."""
    held.drop(table_id)
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
    messages = messages_numbered(first=first, events=events)
    transaction.on_commit(lambda: group_send_batch(table_group(table_id), messages))
    return first + len(events) - 1


def table_send_state_on_commit(*, table_id: int) -> None:
    """Snapshot the table as it is now and send it after commit."""
    table_publish_on_commit(table_id=table_id, events=[])


FETCH = object()  # "read it now": the running hand and its state, when the caller holds none


def table_publish_on_commit(
    *,
    table_id: int,
    events: list[dict],
    table: Table | None = None,
    hand=FETCH,
    state=FETCH,
    seats=None,
    stacks=None,
) -> int:
    """What one change of the table tells its watchers: its public events, then a public snapshot of the
    table as it is now (taken inside the caller's transaction, under its lock), numbered together in one
    update and sent after commit as one group message; each consumer adds its player's private part and
    sends them as separate frames. Returns the snapshot's seq. `table`, `hand`, `state`, `seats` and
    `stacks`, when the caller holds them current (under the table's lock), save fetching them again."""
    if table is None:
        table = Table.objects.get(pk=table_id)
    if hand is FETCH:  # the caller may pass what it already holds: the running hand (or None) and its state
        hand = hand_running(table=table)
        state = held.hand_engine(hand=hand, table=table) if hand is not None else None
        snapshot = table_snapshot(table=table, hand=hand, state=state, seats=seats, stacks=stacks)
        if state is not None:
            held.hand_engine_keep(hand.id, state)
    else:
        snapshot = table_snapshot(table=table, hand=hand, state=state, seats=seats, stacks=stacks)
    first = table_take_seqs(table_id=table_id, count=len(events) + 1)
    messages = messages_numbered(first=first, events=events, snapshot=snapshot)
    transaction.on_commit(lambda: group_send_batch(table_group(table_id), messages))
    return snapshot["seq"]


def messages_numbered(*, first: int, events: list[dict], snapshot: dict | None = None) -> list[dict]:
    """The messages of one change of a table, numbered from `first` (the seqs the change took): its public
    events in order, then the snapshot (given a seq of its own, in place) if any. The one numbering of the
    room's messages, whichever path took the seqs."""
    messages = [{"type": "event", "seq": first + i, **event} for i, event in enumerate(events)]
    if snapshot is not None:
        snapshot["seq"] = first + len(events)
        messages.append(snapshot)
    return messages


def group_send_batch(group: str, messages: list[dict], *, follow: dict | None = None) -> None:
    """One change's messages to a group; `follow`, when given, is read by each web process's channel layer
    (tables.held.view_follow) and never sent to a client."""
    payload: dict = {"type": "room.batch", "messages": messages}
    if follow is not None:
        payload["follow"] = follow
    _group_send(group, payload)


def group_send(group: str, message: dict) -> None:
    _group_send(group, {"type": "room.message", "message": message})


def _group_send(group: str, payload: dict) -> None:
    """Publish to a group from synchronous code. With the room's channel layer (Redis pub/sub, one server) it
    is one PUBLISH from this thread, in the layer's own channel name and serialisation, made before
    returning: the database thread never waits for the event loop, and one thread's messages leave in the
    order it sends them. Any other layer: through the layer itself."""
    publish = _direct_publisher()
    if publish is None:
        async_to_sync(get_channel_layer().group_send)(group, payload)
        return
    try:
        publish(group, payload)
    except redis.RedisError:
        # The change is committed; its watchers see a gap in `seq` at the next message and ask for `sync`.
        log.warning("a message to %s was not sent (Redis is not answering)", group)


_publisher: tuple | None = None  # (layer, function) for the layer it was made for


def _direct_publisher():
    global _publisher

    layer = get_channel_layer()
    if _publisher is not None and _publisher[0] is layer:
        return _publisher[1]
    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    hosts = config.get("hosts") or []
    function = None
    if isinstance(layer, RedisPubSubChannelLayer) and len(hosts) == 1 and isinstance(hosts[0], str):
        client = redis.Redis.from_url(hosts[0], socket_timeout=5, socket_connect_timeout=5)
        prefix = config.get("prefix", "asgi")

        def function(group: str, payload: dict) -> None:
            client.publish(f"{prefix}__group__{group}", layer.serialize(payload))

    _publisher = (layer, function)
    return function


# --- the lobby ---------------------------------------------------------------------------------------

# The room's Redis for its own keys is the clock's (`redis_client`, named here too).


def lobby_send_on_commit() -> None:
    """The tables changed (a seat, the end of a hand): once committed, the lobby's list is marked stale."""
    transaction.on_commit(lobby_mark_stale)


def lobby_mark_stale() -> None:
    try:
        redis_client().set(LOBBY_STALE_KEY, 1)
    except redis.RedisError:
        log.warning("could not mark the lobby stale (Redis is not answering)")


def lobby_publish_if_stale() -> bool:
    """Send lobby watchers the fresh list if anything changed since the last one (the workers' clock calls
    this once a second; of several workers, the one that clears the mark sends)."""
    if not redis_client().getdel(LOBBY_STALE_KEY):
        return False
    group_send(LOBBY_GROUP, {"type": "tables", "tables": table_list_open()})
    return True
