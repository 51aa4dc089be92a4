"""WebSockets as a hostile visitor uses them (issue 32): a message nested too deep, hundreds of anonymous sockets
from one address, `sync` asked many times a second, a lobby flooding waiting-list changes. Each is refused
with an `error` the client can read, the connection stays usable, and nothing the consumer counted is left
behind. Through the room's ASGI application (Channels' communicator) with PostgreSQL and Redis, and over a
real daphne for what its log shows."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from channels.testing import WebsocketCommunicator

from pokerroom.asgi import application
from tables import ws_limits
from tables.consumers import CLOSE_TOO_MANY, CONNECTIONS_PER_USER_AND_TABLE
from tests.factories import player_create, table_create
from tests.live import Room
from tests.tables.wsclient import session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)

NESTED = "[" * 2048 + "]" * 2048  # 4,096 bytes: the probe's message


@pytest.fixture(autouse=True)
def addresses_forgotten():
    """No address's bucket or sockets left from an earlier test or run against the same Redis."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    for pattern in ("room:rate:*:address:*", "room:ws:*address:*"):
        for key in client.scan_iter(pattern):
            client.delete(key)
    client.close()
    ws_limits._refused_until.clear()  # this process's memory of empty buckets (event loops' ids are reused)
    ws_limits._user_leases.clear()


def socket(path: str, *, cookie: str | None = None, address: str = "127.0.0.1") -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    ws = WebsocketCommunicator(application, path, headers=headers)
    ws.scope["client"] = [address, 50000]
    return ws


async def opened(ws: WebsocketCommunicator) -> dict:
    connected, _ = await ws.connect()
    assert connected
    return await ws.receive_json_from(timeout=5)


async def answers(ws: WebsocketCommunicator, count: int) -> list[dict]:
    """The next `count` frames answering this connection's messages (states and errors; chat history skipped)."""
    out: list[dict] = []
    while len(out) < count:
        message = await ws.receive_json_from(timeout=10)
        if message["type"] in ("state", "error"):
            out.append(message)
    return out


def test_a_deeply_nested_message_is_answered_bad_json_and_the_table_goes_on():
    table = table_create()
    cookie = session_cookie_for(player_create())

    async def scenario():
        ws = socket(f"/ws/tables/{table.id}/", cookie=cookie)
        assert (await opened(ws))["type"] == "state"
        await ws.receive_json_from(timeout=5)  # chat history
        await ws.send_to(text_data=NESTED)
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "bad_json", error
        await ws.send_to(text_data='{"type": "sync", "x": ' + "{" * 9 + "}" * 9 + "}")
        assert (await ws.receive_json_from(timeout=5))["code"] == "bad_json"
        await ws.send_json_to({"type": "sync"})
        assert (await ws.receive_json_from(timeout=5))["type"] == "state", "the same socket still works"
        await ws.disconnect()

    asyncio.run(scenario())


def test_after_ten_nested_messages_the_player_may_still_open_the_table():
    """Each crashed connection used to stay counted among the player's 4 at the table until the web process
    restarted: the 5th was refused with `too_many_connections` though none was open."""
    table = table_create()
    cookie = session_cookie_for(player_create())

    async def scenario():
        for _ in range(10):
            ws = socket(f"/ws/tables/{table.id}/", cookie=cookie)
            assert (await opened(ws))["type"] == "state"
            await ws.send_to(text_data=NESTED)
            try:
                await answers(ws, 1)
            except Exception:  # noqa: BLE001 - the code before: the consumer raised, the socket closed 1011
                pass
            await ws.disconnect()
        last = socket(f"/ws/tables/{table.id}/", cookie=cookie)
        first = await opened(last)
        assert first["type"] == "state", first
        await last.disconnect()

    asyncio.run(scenario())


def test_a_consumer_that_fails_releases_what_it_counted(monkeypatch):
    """Whatever ends a consumer (here a service raising something no handler expects), its clean-up runs: the
    player's connections at the table are released, so a new window opens."""
    from tables import consumers

    table = table_create()
    cookie = session_cookie_for(player_create())

    def broken(self, message):
        raise RuntimeError("a bug")

    monkeypatch.setattr(consumers.TableConsumer, "dispatch_message", broken)

    async def scenario():
        for _ in range(CONNECTIONS_PER_USER_AND_TABLE + 1):
            ws = socket(f"/ws/tables/{table.id}/", cookie=cookie)
            assert (await opened(ws))["type"] == "state"
            await ws.send_json_to({"type": "sit_out"})
            with pytest.raises(RuntimeError):
                await ws.receive_json_from(timeout=5)
                await ws.receive_json_from(timeout=5)
        monkeypatch.undo()
        last = socket(f"/ws/tables/{table.id}/", cookie=cookie)
        assert (await opened(last))["type"] == "state"
        await last.disconnect()

    asyncio.run(scenario())


def test_nested_messages_over_daphne_leave_no_traceback_in_the_log(room_env):
    table = table_create()
    cookie = session_cookie_for(player_create())
    room = Room(room_env)
    try:
        daphne = room.start_daphne()

        async def scenario():
            for _ in range(10):
                async with websockets.connect(
                    f"{room.ws_url}/ws/tables/{table.id}/",
                    origin=room.http_url,
                    additional_headers={"Cookie": f"sessionid={cookie}"},
                ) as ws:
                    await ws.send(NESTED)
                    frames = []
                    while not any(frame.get("type") == "error" for frame in frames):
                        frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                    assert frames[-1]["code"] == "bad_json", frames[-1]
            async with websockets.connect(
                f"{room.ws_url}/ws/tables/{table.id}/",
                origin=room.http_url,
                additional_headers={"Cookie": f"sessionid={cookie}"},
            ) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert first["type"] == "state", first

        asyncio.run(scenario())
        log = daphne.log_path.read_text(errors="replace")
        assert "Traceback" not in log and "RecursionError" not in log, log[-3000:]
    finally:
        room.stop()


def test_one_address_may_hold_only_a_few_anonymous_sockets_at_a_table_and_in_all(monkeypatch):
    monkeypatch.setattr(ws_limits, "ANONYMOUS_CONNECTIONS_PER_ADDRESS_AND_TABLE", 3)
    monkeypatch.setattr(ws_limits, "ANONYMOUS_CONNECTIONS_PER_ADDRESS", 5)
    tables = [table_create(), table_create()]
    address, other = "203.0.113.7", "203.0.113.8"

    async def refused(path: str, who: str) -> bool:
        ws = socket(path, address=who)
        first = await opened(ws)
        if first["type"] == "error":
            assert first["code"] == "too_many_connections", first
            assert (await ws.receive_output(timeout=5))["code"] == CLOSE_TOO_MANY
            return True
        held.append(ws)
        return False

    held: list[WebsocketCommunicator] = []

    async def scenario():
        first_table, second_table = (f"/ws/tables/{table.id}/" for table in tables)
        assert [await refused(first_table, address) for _ in range(4)] == [False, False, False, True]
        assert not await refused(first_table, other), "another address is not counted with it"
        assert [await refused(second_table, address) for _ in range(2)] == [False, False]
        assert await refused(second_table, address), "5 in all from one address"
        assert await refused("/ws/lobby/", address), "the lobby counts in all too"
        await held.pop(0).disconnect()  # one closed: one may open again
        assert not await refused(second_table, address)
        for ws in held:
            await ws.disconnect()

    asyncio.run(scenario())


def test_anonymous_sync_is_held_to_one_limit_per_address(monkeypatch):
    """30 `sync` from 3 anonymous sockets of one address: the address's bucket (here 5, refilling slowly)
    answers 5 of them with a state and the rest `rate_limited`; another address is not held back."""
    monkeypatch.setattr(ws_limits, "ADDRESS_RATE_BURST", 5)
    monkeypatch.setattr(ws_limits, "ADDRESS_RATE_PER_SECOND", 0.01)
    table = table_create()
    address = "192.0.2.1"

    async def scenario():
        sockets = [socket(f"/ws/tables/{table.id}/", address=address) for _ in range(3)]
        for ws in sockets:
            assert (await opened(ws))["type"] == "state"
            await ws.receive_json_from(timeout=5)  # chat history
        for ws in sockets:
            for _ in range(10):
                await ws.send_json_to({"type": "sync"})
        got = [message for ws in sockets for message in await answers(ws, 10)]
        states = sum(message["type"] == "state" for message in got)
        limited = sum(message.get("code") == "rate_limited" for message in got)
        assert (states, limited) == (5, 25), (states, limited)
        stranger = socket(f"/ws/tables/{table.id}/", address="192.0.2.254")
        await opened(stranger)
        await stranger.receive_json_from(timeout=5)
        await stranger.send_json_to({"type": "sync"})
        assert (await answers(stranger, 1))[0]["type"] == "state"
        for ws in [*sockets, stranger]:
            await ws.disconnect()

    asyncio.run(scenario())


def test_a_players_sync_counts_in_their_limit(monkeypatch):
    monkeypatch.setattr(ws_limits, "USER_RATE_BURST", 5)
    monkeypatch.setattr(ws_limits, "USER_RATE_PER_SECOND", 0.01)
    table = table_create()
    cookie = session_cookie_for(player_create())

    async def scenario():
        ws = socket(f"/ws/tables/{table.id}/", cookie=cookie)
        await opened(ws)
        await ws.receive_json_from(timeout=5)
        for _ in range(12):
            await ws.send_json_to({"type": "sync"})
        got = await answers(ws, 12)
        assert [message["type"] for message in got].count("state") == 5
        assert all(message.get("code") == "rate_limited" for message in got if message["type"] == "error")
        await ws.disconnect()

    asyncio.run(scenario())


def test_the_lobby_answers_bad_json_and_holds_waiting_list_changes_to_a_limit():
    """A player's lobby socket sending `waiting_leave` as fast as it may: the first WAITING_RATE_BURST reach the
    table (`not_waiting`: she is on no list), the rest are `rate_limited` without taking the table's lock."""
    table = table_create()
    cookie = session_cookie_for(player_create())

    async def scenario():
        ws = socket("/ws/lobby/", cookie=cookie)
        assert (await opened(ws))["type"] == "tables"
        await ws.send_to(text_data=NESTED)
        assert (await ws.receive_json_from(timeout=5))["code"] == "bad_json"
        sent = ws_limits.WAITING_RATE_BURST + 8
        for _ in range(sent):
            await ws.send_json_to({"type": "waiting_leave", "table": table.id})
        codes = [(await ws.receive_json_from(timeout=10))["code"] for _ in range(sent)]
        assert codes.count("not_waiting") <= ws_limits.WAITING_RATE_BURST + 1, codes
        assert codes.count("rate_limited") >= 7, codes
        await ws.disconnect()

    asyncio.run(scenario())


def test_the_address_counted_is_the_one_the_proxy_saw(settings):
    """Behind PROXY_COUNT proxies the address is read from X-Forwarded-For as for logins: a client cannot
    forge another one by adding entries on the left."""
    from pokerroom.addresses import scope_ip

    scope = {"client": ["10.0.0.1", 5000], "headers": [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.9")]}
    settings.PROXY_COUNT = 0
    assert scope_ip(scope) == "10.0.0.1"
    settings.PROXY_COUNT = 1
    assert scope_ip(scope) == "203.0.113.9"
    assert ws_limits.address_of({"room_address": scope_ip(scope)}) == "address:203.0.113.9"


def test_a_frame_to_a_client_just_gone_ends_nothing():
    """A broadcast reaching a consumer whose client has just closed (30 flooding sockets closing at once):
    daphne refuses the frame (autobahn's Disconnected). The consumer lets it go, its clean-up follows with the
    disconnect, and no traceback is written to the log (the bench saw one after a flood)."""
    from autobahn.exception import Disconnected

    from tables.consumers import TableConsumer

    async def gone(message):
        raise Disconnected("Attempt to send on a closed protocol")

    async def scenario():
        consumer = TableConsumer()
        consumer.base_send = gone
        await consumer.send(text_data='{"type": "state"}')
        await consumer.send_json({"type": "event"})

    asyncio.run(scenario())


def test_a_refused_flood_is_not_asked_of_redis_message_by_message(monkeypatch):
    """Once a bucket is found empty, this process refuses the sender's next messages itself until the bucket can
    hold a token again: a flood costs the room one Redis call per refill, not one per message."""
    monkeypatch.setattr(ws_limits, "USER_RATE_BURST", 5)
    monkeypatch.setattr(ws_limits, "USER_RATE_PER_SECOND", 0.01)
    player = player_create()
    asks = []
    ask = ws_limits._user_ask

    async def counted(key, *, slow):
        asks.append(slow)
        return await ask(key, slow=slow)

    monkeypatch.setattr(ws_limits, "_user_ask", counted)

    async def scenario():
        return [await ws_limits.user_allow(player.pk) for _ in range(30)]

    answers = asyncio.run(scenario())
    assert answers.count(0) == 5 and answers.count(ws_limits.USER_REFUSED) == 25
    assert len(asks) == 2, asks  # the lease of 5, then the one that found the bucket empty


def test_sync_has_a_slower_limit_of_its_own():
    """Each `sync` reads the table and its hand from the database (the browser asks at most once in 3 s): a
    player asking 15 times at once gets SYNC_RATE_BURST states (and one more a second), the rest
    `rate_limited`, while their other messages still go through."""
    table = table_create()
    cookie = session_cookie_for(player_create())

    async def scenario():
        ws = socket(f"/ws/tables/{table.id}/", cookie=cookie)
        await opened(ws)
        await ws.receive_json_from(timeout=5)
        started = asyncio.get_running_loop().time()
        for _ in range(15):
            await ws.send_json_to({"type": "sync"})
        got = await answers(ws, 15)
        elapsed = asyncio.get_running_loop().time() - started
        await ws.send_json_to({"type": "sit_out"})
        after = await answers(ws, 1)
        await ws.disconnect()
        return got, elapsed, after

    got, elapsed, after = asyncio.run(scenario())
    states = [message["type"] for message in got].count("state")
    burst, rate = ws_limits.SYNC_RATE_BURST, ws_limits.SYNC_RATE_PER_SECOND
    assert burst <= states <= burst + rate * elapsed + 1, (states, elapsed)
    assert after[0].get("code") == "not_seated", after  # not rate_limited: a player's other messages go on
