"""WebSockets as an attacker opens them (issue 11), through the real consumer (Channels' communicator) with
PostgreSQL and Redis: only the site's own origins (scheme, host and port), a few connections per player and
table, one rate limit per player over all their connections, and a chat only seated players write in, each
line carrying its author as the client shows it."""

import asyncio

import pytest
from channels.testing import WebsocketCommunicator

from pokerroom.asgi import application
from tables import services
from tables.consumers import CLOSE_TOO_MANY, CONNECTIONS_PER_USER_AND_TABLE
from tables.ws_limits import CHAT_RATE_BURST
from tests.factories import player_create, table_create
from tests.tables.wsclient import session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


def communicator(table_id: int, *, cookie: str | None = None, origin: bytes = b"http://testserver"):
    headers = [(b"origin", origin)]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)


async def opened(ws) -> dict:
    connected, _ = await ws.connect()
    assert connected
    return await ws.receive_json_from(timeout=5)


async def drain(ws) -> list[dict]:
    out = []
    while not await ws.receive_nothing(timeout=0.5):
        out.append(await ws.receive_json_from(timeout=5))
    return out


def test_only_the_sites_own_scheme_host_and_port_may_open_a_websocket(settings):
    table = table_create()
    settings.ROOM_ORIGINS = ["http://127.0.0.1:8000", "https://poker.example.com"]

    async def scenario():
        results = {}
        for origin in (
            "http://127.0.0.1:8000",
            "https://poker.example.com",
            "https://poker.example.com:443",
            "http://127.0.0.1:9999",
            "https://127.0.0.1:8000",
            "http://127.0.0.1",
            "http://testserver",
            "http://poker.example.com",
            "https://evil.example",
            "null",
            "http://127.0.0.1:8000.evil",
        ):
            ws = communicator(table.id, origin=origin.encode())
            connected, _ = await ws.connect()
            results[origin] = connected
            if connected:
                await ws.disconnect()
        return results

    results = asyncio.run(scenario())
    assert {origin for origin, ok in results.items() if ok} == {
        "http://127.0.0.1:8000",
        "https://poker.example.com",
        "https://poker.example.com:443",
    }, results


def test_the_default_origins_follow_allowed_hosts_and_the_port():
    from pokerroom.site_origins import origins_default

    assert origins_default(
        allowed_hosts=["localhost", "127.0.0.1", "*", ".example.com"], port=8000, secure=False, trusted=[]
    ) == ["http://localhost:8000", "http://127.0.0.1:8000"]
    assert origins_default(
        allowed_hosts=["poker.example.com"], port=8000, secure=True, trusted=["https://www.example.com"]
    ) == ["https://www.example.com", "https://poker.example.com"]


def test_a_player_may_open_a_table_a_few_times_not_sixty():
    table = table_create()
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def scenario():
        sockets = [communicator(table.id, cookie=cookie) for _ in range(CONNECTIONS_PER_USER_AND_TABLE)]
        for ws in sockets:
            assert (await opened(ws))["type"] == "state"
        extra = communicator(table.id, cookie=cookie)
        connected, _ = await extra.connect()
        assert connected
        refused = await extra.receive_json_from(timeout=5)
        assert refused["type"] == "error" and refused["code"] == "too_many_connections"
        closed = await extra.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": CLOSE_TOO_MANY}
        await sockets[0].disconnect()
        again = communicator(table.id, cookie=cookie)
        assert (await opened(again))["type"] == "state", "a closed one makes room for another"
        spectators = [communicator(table.id) for _ in range(CONNECTIONS_PER_USER_AND_TABLE + 2)]
        for n, ws in enumerate(
            spectators
        ):  # anonymous visitors of as many addresses (each address is capped too)
            ws.scope["client"] = [f"198.51.100.{n + 1}", 50000]
        for ws in spectators:
            assert (await opened(ws))["type"] == "state"
        for ws in [*sockets[1:], again, *spectators]:
            await ws.disconnect()

    asyncio.run(scenario())


async def _handshakes_given_up(table_id: int, cookie: str, *, rounds: int, pause: float) -> None:
    """`rounds` times, the player's cap of connections to the table opened and then cancelled by the server
    (as daphne cancels the application of a client that went away), `pause` seconds apart."""
    for _round in range(rounds):
        sockets = [communicator(table_id, cookie=cookie) for _ in range(CONNECTIONS_PER_USER_AND_TABLE)]
        for ws in sockets:
            assert (await opened(ws))["type"] == "state"
        for ws in sockets:
            ws.future.cancel()
        await asyncio.sleep(pause)


def test_connections_the_server_gave_up_on_are_released_at_once(monkeypatch):
    """daphne cancels the application of a client that went away when it does not end in time (a handshake
    given up while the server was busy): the cancelled consumer releases what it counted, so the player's
    retries are not refused as too many windows for a minute."""
    from tables import consumers

    monkeypatch.setattr(consumers, "CONNECTION_TTL", 60)
    table = table_create()
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def scenario():
        await _handshakes_given_up(table.id, cookie, rounds=3, pause=0.2)  # more than the cap
        again = communicator(table.id, cookie=cookie)
        assert (await opened(again))["type"] == "state", "the retry is let in"
        await again.disconnect()

    asyncio.run(scenario())


def test_a_seated_players_given_up_connections_are_released_even_while_the_database_is_slow(monkeypatch):
    """A tournament's start: hundreds of seated players connect at once, daphne gives up handshakes and
    cancels them, and the seat's disconnection mark waits on a busy database thread for longer than a
    cancelled consumer's cleanup may take. The connection counts are released first, by Redis alone: before,
    they stayed counted (and refreshed by the live process) for good, and the player's bot at a 900-entrant
    bench was refused as having the table open in too many windows until the tournament ended without it."""
    import time

    from tables import consumers, presence

    closed_slowly = presence.connection_closed

    def busy_database(**kwargs):
        time.sleep(0.6)
        return closed_slowly(**kwargs)

    monkeypatch.setattr(consumers, "CANCELLED_CLEANUP_SECONDS", 0.2)
    monkeypatch.setattr(presence, "connection_closed", busy_database)
    table = table_create()
    alice = player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=1, buy_in=200, post="wait_bb")
    cookie = session_cookie_for(alice)

    async def scenario():
        await _handshakes_given_up(table.id, cookie, rounds=2, pause=0.4)  # more than the cap
        again = communicator(table.id, cookie=cookie)
        first = await opened(again)
        assert first["type"] == "state", first
        await again.disconnect()
        await asyncio.sleep(1.5)  # the slow closes' threads end before the test's database goes

    asyncio.run(scenario())


def test_a_rush_of_players_connecting_at_once_waits_for_redis_rather_than_failing(monkeypatch):
    """More players connect to one web process at the same moment than its Redis pool has connections (a
    tournament's start: hundreds within seconds): each handshake waits for a connection and gets its table,
    none fails. Here a pool of 4 and 24 players."""
    from tables import ws_limits

    monkeypatch.setattr(ws_limits, "REDIS_POOL_SIZE", 4)
    monkeypatch.setattr(ws_limits, "_redis_clients", {})  # this test's own pool, of that size
    table = table_create()
    cookies = [session_cookie_for(player_create()) for _ in range(24)]

    async def scenario():
        sockets = [communicator(table.id, cookie=cookie) for cookie in cookies]
        firsts = await asyncio.gather(*(opened(ws) for ws in sockets))
        assert [first["type"] for first in firsts] == ["state"] * 24
        await asyncio.gather(*(ws.disconnect() for ws in sockets))

    asyncio.run(scenario())


async def _released_by_nobody(*args, **kwargs) -> None:
    """What a killed process releases: nothing."""


def test_connections_a_killed_process_never_closed_stop_counting_within_the_ttl(monkeypatch):
    """A web process killed with a player's 4 windows of a table open cannot release them: they count against
    the player's cap until CONNECTION_TTL after their last refresh, not for hours; live ones stay counted."""
    from tables import consumers

    monkeypatch.setattr(consumers, "CONNECTION_TTL", 3)
    monkeypatch.setattr(consumers, "CONNECTION_REFRESH", 0.5)
    table = table_create()
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def refused() -> bool:
        extra = communicator(table.id, cookie=cookie)
        connected, _ = await extra.connect()
        assert connected
        first = await extra.receive_json_from(timeout=5)
        if first["type"] == "error":
            assert first["code"] == "too_many_connections"
            return True
        await extra.disconnect()
        return False

    async def the_process_that_dies():
        sockets = [communicator(table.id, cookie=cookie) for _ in range(CONNECTIONS_PER_USER_AND_TABLE)]
        for ws in sockets:
            assert (await opened(ws))["type"] == "state"
        await asyncio.sleep(7)  # over twice the TTL: the open connections are refreshed, so still counted
        assert await refused(), "live connections kept counting past the TTL"
        # Killed: nothing refreshes or releases its connections any more (a killed process runs no code: not
        # even the release a cancelled consumer makes).
        loop_key = id(asyncio.get_running_loop())
        consumers._connections_live.pop(loop_key, None)
        consumers._connections_refreshers.pop(loop_key).cancel()
        release = consumers.connection_release
        consumers.connection_release = _released_by_nobody
        try:
            for ws in sockets:
                ws.future.cancel()
            await asyncio.sleep(0.1)
        finally:
            consumers.connection_release = release

    async def another_process():
        assert await refused(), "the dead process's connections count at first"
        await asyncio.sleep(4)
        assert not await refused(), "they stop counting once the TTL is past"

    asyncio.run(the_process_that_dies())
    asyncio.run(another_process())


def test_a_player_flooding_the_chat_over_several_connections_is_held_to_one_limit():
    table = table_create()
    alice = player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=1, buy_in=200, post="wait_bb")
    cookie = session_cookie_for(alice)

    async def scenario():
        sockets = [communicator(table.id, cookie=cookie) for _ in range(CONNECTIONS_PER_USER_AND_TABLE)]
        for ws in sockets:
            await opened(ws)
        for n in range(10):
            for ws in sockets:
                await ws.send_json_to({"type": "chat", "text": f"spam {n}"})
        frames = [await drain(ws) for ws in sockets]
        for ws in sockets:
            await ws.disconnect()
        return frames

    frames = asyncio.run(scenario())
    said = [f["text"] for f in frames[0] if f.get("event") == "chat"]  # every connection hears every line
    refused = [f for own in frames for f in own if f["type"] == "error" and f["code"] == "rate_limited"]
    assert 1 <= len(said) <= CHAT_RATE_BURST + 1, said
    assert len(refused) == 40 - len(said), "every other line was refused, on whichever connection it came"


def test_seated_players_chat_with_their_name_and_seat_and_spectators_only_read():
    table = table_create()
    alice, watcher = player_create(), player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=3, buy_in=200, post="wait_bb")
    alice_cookie, watcher_cookie = session_cookie_for(alice), session_cookie_for(watcher)

    async def scenario():
        seated, spectator, anonymous = (
            communicator(table.id, cookie=alice_cookie),
            communicator(table.id, cookie=watcher_cookie),
            communicator(table.id),
        )
        for ws in (seated, spectator, anonymous):
            await opened(ws)
        await spectator.send_json_to({"type": "chat", "text": "alice: I fold my aces"})
        await anonymous.send_json_to({"type": "chat", "text": "hello"})
        spectator_frames, anonymous_frames = await drain(spectator), await drain(anonymous)
        await seated.send_json_to({"type": "chat", "text": "good luck"})
        line = next(f for f in await drain(anonymous) if f.get("event") == "chat")
        seated_frames = await drain(seated)
        for ws in (seated, spectator, anonymous):
            await ws.disconnect()
        return spectator_frames, anonymous_frames, line, seated_frames

    spectator_frames, anonymous_frames, line, seated_frames = asyncio.run(scenario())
    assert [f["code"] for f in spectator_frames if f["type"] == "error"] == ["not_seated"]
    assert "spectators read" in next(f["message"] for f in spectator_frames if f["type"] == "error")
    assert [f["code"] for f in anonymous_frames if f["type"] == "error"] == ["login_required"]
    assert not any(f.get("event") == "chat" for f in [*spectator_frames, *anonymous_frames]), (
        "nothing was said"
    )
    # the client renders `ev.player.name` (static/js/table.js): an object with the author's name, and the seat
    assert line["player"] == {"name": alice.username, "bot": False} and line["seat"] == 3
    assert line["text"] == "good luck"
    assert any(f.get("event") == "chat" for f in seated_frames)
