"""The dashboard's "players online": people connected now, at a table (seated or watching) or in the lobby, over
real WebSockets (Channels' communicator through the room's ASGI application, PostgreSQL and Redis); house bots
and anonymous visitors are not counted, and a person stops counting when their last connection closes, or, if
their web process dies without closing it, CONNECTION_TTL after it was last refreshed."""

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from pokerroom.asgi import application
from staff.selectors import dashboard_figures, players_online
from tables import consumers
from tables.clock import redis_client
from tests.factories import player_create, table_create
from tests.factories import sit_now as sit
from tests.tables.wsclient import session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def nobody_online_yet():
    """This test's Redis database holds no one left online by an earlier test, and no event loop of an earlier
    test left this process's bookkeeping behind (a new loop may get a dead one's id)."""
    redis_client().delete(consumers.ONLINE_KEY)
    consumers._online_live.clear()
    consumers._connections_live.clear()
    consumers._connections_refreshers.clear()


def socket(path: str, user=None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver")]
    if user is not None:
        headers.append((b"cookie", f"sessionid={session_cookie_for(user)}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def opened(ws: WebsocketCommunicator) -> dict:
    connected, _ = await ws.connect()
    assert connected
    return await ws.receive_json_from(timeout=5)


def front_page_online(client) -> str:
    page = client.get("/admin/").content.decode()
    found = re.search(r'id="figure-online"><span class="value">([^<]*)</span>\s*([^<]*)</div>', page)
    assert found, "the front page shows the players online"
    assert "players online now" in found[2]
    return found[1]


def test_people_in_the_lobby_or_at_a_table_seated_or_watching_are_online_bots_and_visitors_are_not(boss):
    table = table_create(small_blind=50, big_blind=100)
    anna, bruno, carla = player_create(), player_create(), player_create()
    bot = player_create(bot=True)
    sit(table, carla, 1, 5_000)
    sit(table, bot, 2, 5_000)
    lobby, tables = "/ws/lobby/", f"/ws/tables/{table.id}/"
    sockets = {
        "anna in the lobby": socket(lobby, anna),
        "anna watching": socket(tables, anna),
        "bruno watching": socket(tables, bruno),
        "carla seated": socket(tables, carla),
        "the bot seated": socket(tables, bot),
        "the bot in the lobby": socket(lobby, bot),
        "a visitor in the lobby": socket(lobby),
        "a visitor watching": socket(tables),
    }
    front_page = database_sync_to_async(front_page_online)

    async def scenario():
        assert await front_page(boss) == "0", "nobody connected yet"
        for ws in sockets.values():
            await opened(ws)
        assert players_online() == 3, "anna (twice), bruno and carla; not the bot, not the visitors"
        assert await front_page(boss) == "3"
        figures = await database_sync_to_async(dashboard_figures)()
        assert figures.players_seated == 1, "the seated figure stays: carla, not the bot"

        await sockets.pop("anna watching").disconnect()
        assert players_online() == 3, "anna still has the lobby open"
        await sockets.pop("anna in the lobby").disconnect()
        assert players_online() == 2, "anna closed her last connection"
        await sockets.pop("bruno watching").disconnect()
        await sockets.pop("carla seated").disconnect()
        assert players_online() == 0
        assert await front_page(boss) == "0"
        for ws in sockets.values():
            await ws.disconnect()

    asyncio.run(scenario())


async def _released_by_nobody(*args, **kwargs) -> None:
    """What a killed process releases: nothing."""


def test_a_connection_its_process_never_closed_stops_counting_after_the_ttl(monkeypatch):
    """A lobby left open stays online past the TTL (its process refreshes it); once that process is gone
    (killed: nothing refreshes or closes its connections), the player stops counting CONNECTION_TTL later."""
    monkeypatch.setattr(consumers, "CONNECTION_TTL", 2)
    monkeypatch.setattr(consumers, "CONNECTION_REFRESH", 0.3)
    anna = player_create()
    lobby = socket("/ws/lobby/", anna)

    async def scenario():
        await opened(lobby)
        await asyncio.sleep(3)
        assert players_online() == 1, "a lobby open past the TTL is refreshed, still online"
        loop_key = id(asyncio.get_running_loop())
        # A killed process takes what it held with it: emptied in place, since the refresher holds these very
        # sets, and the refresher cancelled until it has ended (a cancel is only a request: one that lands
        # inside a Redis call may be lost, and the refresher, kept going, held her online past the TTL: CI).
        consumers._online_live.pop(loop_key).clear()
        consumers._connections_live.pop(loop_key, set()).clear()
        refresher = consumers._connections_refreshers.pop(loop_key)
        while not refresher.done():
            refresher.cancel()
            await asyncio.wait({refresher}, timeout=0.1)
        monkeypatch.setattr(consumers, "online_release", _released_by_nobody)  # a killed process runs no code
        lobby.future.cancel()
        await asyncio.sleep(0.1)
        assert players_online() == 1, "her process died without closing: counted until the TTL"
        await asyncio.sleep(3)
        assert players_online() == 0, "not seen for the TTL: no longer online"

    asyncio.run(scenario())
    assert redis_client().zcard(consumers.ONLINE_KEY) == 0, "the dashboard trimmed her entry"
