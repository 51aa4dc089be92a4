"""The lobby updates itself: a player sitting down shows up for everyone watching /ws/lobby/."""

import asyncio
import json

import pytest
import websockets

from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def test_the_lobby_sees_a_player_sit_down_without_reloading(live_room):
    table = table_create(seats=6)
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def scenario():
        async with websockets.connect(f"{live_room.ws_url}/ws/lobby/", origin=live_room.http_url) as lobby:
            first = json.loads(await asyncio.wait_for(lobby.recv(), timeout=10))
            row = next(t for t in first["tables"] if t["id"] == table.id)
            assert row["players"] == 0
            async with TableClient(live_room, table.id, session=cookie) as a:
                await a.until(lambda m: m["type"] == "state")
                await a.send(type="join", seat=2, buy_in=100)
                while True:
                    update = json.loads(await asyncio.wait_for(lobby.recv(), timeout=15))
                    row = next(t for t in update["tables"] if t["id"] == table.id)
                    if row["players"] == 1:
                        return row

    row = asyncio.run(scenario())
    assert row["bots"] == 0 and row["seats"] == 6
