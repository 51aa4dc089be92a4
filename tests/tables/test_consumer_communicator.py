"""The table consumer in-process, through Channels' WebsocketCommunicator (the real daphne path is covered by
test_live_table): what a spectator and a player are sent, and what is refused."""

import asyncio

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
