"""What a change of a table does once it has committed, in one place: the messages to the table's watchers,
the lobby's mark, and the tasks it asks for a moment later (the next deal, a house bot's move).

The table's services call these inside the transaction that makes the change (or right after the one
statement that wrote it, in autocommit); each effect is carried out by `transaction.on_commit`, so a change
that rolls back has none, and in autocommit it is carried out at once. The services import neither the
transport (tables.broadcast) nor the clock (tables.clock); this module is the only way they reach them.

Numbering: a change's messages carry the table's next seqs, taken in the database by the change itself
(`publish`, `event`: inside its transaction) or by its one-statement write (`publish_numbered`); either way
they are numbered by `broadcast.messages_numbered`."""

from __future__ import annotations

from django.db import transaction

from tables import broadcast, clock

FETCH = broadcast.FETCH


def publish(
    *, table_id: int, events: list[dict], table=None, hand=FETCH, state=FETCH, seats=None, stacks=None
) -> int:
    """The change's public events and a public snapshot of the table as it is now, numbered together (under
    the table's lock, in the caller's transaction) and sent as one group message after commit. Returns the
    snapshot's seq. See `broadcast.table_publish_on_commit` for what the caller may pass."""
    return broadcast.table_publish_on_commit(
        table_id=table_id, events=events, table=table, hand=hand, state=state, seats=seats, stacks=stacks
    )


def event(*, table_id: int, event: str, data: dict) -> int:
    """One public event (a chat line, an announcement), numbered and sent after commit; returns its seq."""
    return broadcast.table_send_event_on_commit(table_id=table_id, event=event, data=data)


def publish_numbered(
    *, table_id: int, first_seq: int, events: list[dict], snapshot: dict, follow: dict | None = None
) -> None:
    """Messages whose seqs the change took itself (the one-statement write of an action): numbered from
    `first_seq` and sent after commit; `follow` (tables.held.follow_of) rides with them for the other web
    processes' views of the table, never for clients."""
    messages = broadcast.messages_numbered(first=first_seq, events=events, snapshot=snapshot)
    group = broadcast.table_group(table_id)
    transaction.on_commit(lambda: broadcast.group_send_batch(group, messages, follow=follow))


def lobby_changed() -> None:
    """The lobby's figures changed (a seat, the end of a hand): marked stale after commit; the workers' clock
    sends the fresh list within a second."""
    broadcast.lobby_send_on_commit()


def deal_later(table_id: int, *, delay: float) -> None:
    """After commit: a worker tries to deal the table's next hand in `delay` seconds, or sooner if a deal is
    already asked for sooner (one entry a table: tables.clock.later's `once`)."""
    transaction.on_commit(lambda: clock.later("deal", (table_id,), delay=delay, once=True))


def bot_later(hand_id: int, action_no: int, *, delay: float) -> None:
    """After commit: a worker has the house bot to act on decision `action_no` of the hand act in `delay` s."""
    transaction.on_commit(lambda: clock.later("bot", (hand_id, action_no), delay=delay))


def tell_player(*, user_id: int, message: dict) -> None:
    """After commit: `message` to every connection of one player (lobby and tables), unnumbered: a seat offered
    from a waiting list, being removed from a seat, their place on a list."""
    broadcast.user_send_on_commit(user_id=user_id, message=message)
