"""The table consumer in-process, through Channels' WebsocketCommunicator (the real daphne path is covered by
test_live_table): what a spectator and a player are sent, and what is refused."""

import asyncio
import json

import pytest

from tests.factories import player_create, table_create
from tests.tables.wsclient import communicator, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_spectator_gets_the_table_and_may_not_play():
    table = table_create(seats=6)

    async def scenario():
        ws = communicator(table.id)
        connected, _ = await ws.connect()
        assert connected
        state = await ws.receive_json_from(timeout=5)
        assert state["type"] == "state" and state["hand"] is None and state["legal"] is None
        assert [row["status"] for row in state["seats"]] == ["empty"] * 6
        assert state["table"]["id"] == table.id and state["table"]["big_blind"] == 2
        assert await ws.receive_json_from(timeout=5) == {"type": "chat_history", "lines": []}
        await ws.send_json_to({"type": "join", "seat": 1, "buy_in": 100})
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "login_required"
        await ws.send_json_to({"type": "sync"})
        assert (await ws.receive_json_from(timeout=5))["type"] == "state"
        await ws.disconnect()

    asyncio.run(scenario())


def test_no_origin_or_a_foreign_origin_is_refused_and_an_unknown_table_closes_4404():
    table = table_create(seats=6)

    async def scenario():
        for origin in (None, (b"origin", b"https://evil.example")):
            connected, _ = await communicator(table.id, origin=origin).connect()
            assert not connected
        ws = communicator(987654)
        connected, code = await ws.connect()
        assert not connected and code == 4404

    asyncio.run(scenario())


def test_a_player_joins_and_is_refused_for_a_bad_buy_in_with_nothing_changed():
    table = table_create(seats=6)
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def scenario():
        ws = communicator(table.id, cookie=cookie)
        await ws.connect()
        await ws.receive_json_from(timeout=5)  # the state
        await ws.receive_json_from(timeout=5)  # the chat's last lines
        await ws.send_json_to({"type": "join", "seat": 2, "buy_in": 5})
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "buy_in_bounds" and "2.00" in error["message"]
        await ws.send_json_to({"type": "join", "seat": 2, "buy_in": 150})
        while True:
            message = await ws.receive_json_from(timeout=5)
            if message["type"] == "state":
                break
        row = message["seats"][1]
        assert row["player"] == {"name": alice.username, "bot": False} and row["stack"] == 150
        assert row["status"] == "waiting_bb"
        assert message["options"] == {"auto_muck": True, "straddle": False, "run_twice": False}
        await ws.disconnect()

    asyncio.run(scenario())


def test_spectators_get_one_shared_frame_of_each_change_without_anyones_cards(players, monkeypatch):
    """Two spectators (one logged in with no seat, one anonymous) and a seated player watch a hand. Each change
    reaches the spectators as the same frame, built and encoded once in the process for both (a popular table's
    watchers cost one encoding, not one each), with nobody's cards, no `legal` and no seat's options in it; the
    seated player still gets their own cards in theirs."""
    from channels.db import database_sync_to_async
    from django.db import connection

    from tables import consumers, services
    from tests.factories import act, sit_now, to_act_user

    table = table_create(seats=6)
    alice, bob, carla = players[:3]
    sit_now(table, alice, 1, buy_in=200)
    sit_now(table, bob, 2, buy_in=200)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    public_built = []
    viewer = consumers.for_viewer

    def counting(snapshot, *, seat_number, hole_cards):
        if seat_number is None:
            public_built.append(snapshot["seq"])
        return viewer(snapshot, seat_number=seat_number, hole_cards=hole_cards)

    monkeypatch.setattr(consumers, "for_viewer", counting)
    cookies = {user: session_cookie_for(user) for user in (alice, carla)}

    def call():
        try:
            act(table, to_act_user(table, players), "call")
        finally:
            connection.close()  # the thread's own

    async def scenario():
        clients = [
            communicator(table.id, cookie=cookies[carla], path_query="?frames=batch"),
            communicator(table.id, path_query="?frames=batch"),
            communicator(table.id, cookie=cookies[alice], path_query="?frames=batch"),
        ]
        for ws in clients:
            assert (await ws.connect())[0]
            assert (await ws.receive_json_from(timeout=5))["type"] == "state"
            assert (await ws.receive_json_from(timeout=5))["type"] == "chat_history"
        public_built.clear()
        await database_sync_to_async(call)()
        frames = [await ws.receive_from(timeout=5) for ws in clients]
        for ws in clients:
            await ws.disconnect()
        return frames

    seen_by_carla, seen_by_anonymous, seen_by_alice = asyncio.run(scenario())
    assert seen_by_carla == seen_by_anonymous, "the spectators' frame is one and the same"
    batch = json.loads(seen_by_carla)
    assert batch["type"] == "batch" and [m["type"] for m in batch["messages"]][-1] == "state"
    state = batch["messages"][-1]
    assert all(row.get("cards") is None for row in state["seats"]), "nobody's cards to a spectator"
    assert state.get("legal") is None and "options" not in state
    assert not any(key.startswith("_") for row in state["seats"] for key in row)
    assert public_built == [state["seq"]], "the spectators' snapshot built once for both"
    mine = json.loads(seen_by_alice)["messages"][-1]
    hand.refresh_from_db()
    assert mine["seq"] == state["seq"]
    assert sorted(next(r for r in mine["seats"] if r["seat"] == 1)["cards"]) == sorted(hand.hole_cards["0"])


def test_a_change_that_arrives_before_the_one_made_just_before_it_waits_for_it(monkeypatch):
    """Two processes each publish their change of a table after their own commit (a web process's action, the
    worker's deal), so the later change can arrive first. The client gets them in the order of their seq, not
    a gap (which costs it a `sync`); a change whose predecessor never comes goes after REORDER_WAIT_SECONDS, and
    the client, seeing the gap, asks for `sync` as before."""
    from tables import broadcast, consumers

    monkeypatch.setattr(consumers, "REORDER_WAIT_SECONDS", 0.3)
    table = table_create(seats=6)
    group = broadcast.table_group(table.id)

    def chat(seq: int) -> list[dict]:
        return [{"type": "event", "seq": seq, "event": "chat", "user": "anna", "text": f"line {seq}"}]

    async def scenario():
        ws = communicator(table.id)
        await ws.connect()
        seq = (await ws.receive_json_from(timeout=5))["seq"]
        await ws.receive_json_from(timeout=5)  # the chat's last lines
        broadcast.group_send_batch(group, chat(seq + 2))  # the worker's change, published first
        await asyncio.sleep(0.05)
        broadcast.group_send_batch(group, chat(seq + 1))  # the web process's, a moment later
        got = [await ws.receive_json_from(timeout=5) for _ in range(2)]
        assert [m["seq"] for m in got] == [seq + 1, seq + 2], "in the order the table made them"
        broadcast.group_send_batch(group, chat(seq + 4))  # seq + 3 was never published
        started = asyncio.get_running_loop().time()
        alone = await ws.receive_json_from(timeout=5)
        waited = asyncio.get_running_loop().time() - started
        assert alone["seq"] == seq + 4 and 0.25 <= waited < 2, waited
        broadcast.group_send_batch(group, chat(seq + 5))
        assert (await ws.receive_json_from(timeout=5))["seq"] == seq + 5, "and on at once after it"
        await ws.disconnect()

    asyncio.run(scenario())
