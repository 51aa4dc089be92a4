"""With two web processes, a table's players are spread over both, and every action taken through one makes the
other's view of the table old: its next action there would fail the seq check and be judged again on the locked
path, reading the whole table. An action written by one statement now says what it wrote in its group message,
and each process's channel layer moves its view on by it (tables.held.view_follow), over real Redis here.

One process stands for two: the view "the other process" holds is taken out of the store while this one acts,
and put back before the group message arrives, as it would be in a process of its own."""

import asyncio
import copy

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import held
from tables.broadcast import table_group
from tables.models import Hand, Table
from tests.factories import act, legal_now, three_handed, to_act_user

pytestmark = pytest.mark.django_db(transaction=True)  # the one-statement path runs in autocommit only


def _held_copy(table_id: int) -> held.TableView:
    view = held.take(table_id)
    assert view is not None, "the process holds the table after an action"
    return copy.deepcopy(view)


def _passive(table) -> str:
    hand = Hand.objects.get(table=table, status="running")
    return "check" if "check" in legal_now(table, hand) else "call"


def _other_process_acts(table, players, held_by_the_other: held.TableView) -> None:
    """The next player acts through this process; meanwhile the other process still holds `held_by_the_other`."""
    act(table, to_act_user(table, players), _passive(table))
    held.take(table.id)  # this process's own view of the result leaves the store...
    held.keep(held_by_the_other)  # ...and the store holds what the other process holds


def _closing(during):
    def run() -> None:
        try:
            during()
        finally:
            connection.close()  # the thread's own connection, or the test database cannot be dropped

    return run


def _through_the_layer(table, during) -> dict:
    """Run `during` (sync, on a database thread) while a channel of this process listens to the table's group;
    returns the group message it got, decoded by the room's channel layer."""

    async def scenario():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(table_group(table.id), channel)
        try:
            await sync_to_async(_closing(during), thread_sensitive=False)()
            return await asyncio.wait_for(layer.receive(channel), timeout=10)
        finally:
            await layer.group_discard(table_group(table.id), channel)

    return asyncio.run(scenario())


def test_a_view_held_by_the_other_process_follows_the_action_and_its_next_action_is_one_statement(players):
    table, hand = three_handed(players)
    act(table, to_act_user(table, players), "call")  # the first action reads the table; now a view is held
    other = _held_copy(table.id)

    message = _through_the_layer(table, lambda: _other_process_acts(table, players, other))

    assert (
        message["type"] == "room.batch" and message["follow"]["seq_after"] == message["messages"][-1]["seq"]
    )
    assert all("follow" not in item for item in message["messages"]), "clients get the messages only"
    view = held.take(table.id)
    assert view is other, "the other process's view was moved on, not dropped"
    hand.refresh_from_db()
    assert view.seq == Table.objects.get(pk=table.id).seq
    assert view.hand.actions == hand.actions and view.hand.to_act == hand.to_act
    held.keep(view)

    choice, user = _passive(table), to_act_user(table, players)
    with CaptureQueriesContext(connection) as captured:
        act(table, user, choice)
    statements = captured.captured_queries[1:]  # less the read `act` makes itself
    assert len(statements) == 1, [q["sql"] for q in statements]
    hand.refresh_from_db()
    assert hand.status == "running" and hand.action_no == len(view.hand.actions) == 3


def test_a_view_older_than_the_action_it_hears_of_is_dropped_and_the_next_action_reads_the_table(players):
    table, hand = three_handed(players)
    act(table, to_act_user(table, players), "call")
    older = _held_copy(table.id)
    held.keep(copy.deepcopy(older))
    act(table, to_act_user(table, players), "call")  # the other process missed this one

    message = _through_the_layer(table, lambda: _other_process_acts(table, players, older))

    assert message["follow"]["seq_before"] > older.seq
    assert held.take(table.id) is None, "a view that cannot follow is not kept: it would fail its seq check"
    choice, user = _passive(table), to_act_user(table, players)
    with CaptureQueriesContext(connection) as captured:
        act(table, user, choice)
    assert len(captured.captured_queries[1:]) > 1, "the table was read again"
    hand.refresh_from_db()
    assert hand.action_no == 4 and Table.objects.get(pk=table.id).seq > message["follow"]["seq_after"]
