"""One player's rate limits hold over every web process (issue 11): two real daphne processes, as `make run`
starts one per core and the kernel spreads a player's connections over them. A player with connections on
both is held to one budget of messages and one of chat lines, not one per process."""

from __future__ import annotations

import asyncio
import time

import pytest

from tables import services
from tables.consumers import CONNECTIONS_PER_USER_AND_TABLE
from tables.ws_limits import CHAT_RATE_BURST, CHAT_RATE_PER_SECOND, USER_RATE_BURST, USER_RATE_PER_SECOND
from tests.factories import player_create, table_create
from tests.live import Room
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_web_processes(room_env):
    """Two daphne processes on two ports against the test's PostgreSQL and Redis (no worker: nothing here
    needs a deal)."""
    rooms = [Room(room_env), Room(room_env)]
    try:
        for room in rooms:
            room.start_daphne()
        yield rooms
    finally:
        for room in rooms:
            room.stop()


async def _open(rooms: list[Room], table_ids: list[int], cookie: str, per_table: int) -> list[TableClient]:
    """`per_table` connections to each table, alternately on each web process, each answered with its state."""
    clients = []
    for table_id in table_ids:
        for n in range(per_table):
            client = TableClient(rooms[n % len(rooms)], table_id, session=cookie)
            await client.__aenter__()
            assert (await client.recv())["type"] == "state"
            clients.append(client)
    for client in clients:
        await client.drain(0.3)  # chat history and the rest of the greeting
        client.frames.clear()
    return clients


async def _answers(client: TableClient, count: int) -> list[dict]:
    """The next `count` answers of the server to this connection's messages (its errors)."""
    out = []
    while len(out) < count:
        message = await client.recv(timeout=30)
        if message["type"] == "error":
            out.append(message)
    return out


def test_a_players_messages_over_two_web_processes_share_one_limit(two_web_processes):
    """Twelve connections (four at each of three tables, six on each process), twenty messages each: each
    connection's own limit lets them all through, so only the player's limit stops them, and it lets through
    no more than its burst and its rate over the seconds taken, whichever process took each message. With a
    budget per process twice as many would reach the tables."""
    tables = [table_create() for _ in range(3)]
    alice = player_create()
    cookie = session_cookie_for(alice)
    per_connection = 20

    async def scenario():
        clients = await _open(
            two_web_processes, [t.id for t in tables], cookie, CONNECTIONS_PER_USER_AND_TABLE
        )
        started = time.monotonic()
        for client in clients:  # not seated anywhere: each message that reaches a table is refused there
            for _ in range(per_connection):
                await client.send(type="sit_out")
        answers = await asyncio.gather(*(_answers(client, per_connection) for client in clients))
        elapsed = time.monotonic() - started
        for client in clients:
            await client.__aexit__()
        return [a for own in answers for a in own], elapsed

    answers, elapsed = asyncio.run(scenario())
    codes = [a["code"] for a in answers]
    reached = codes.count("not_seated")
    assert set(codes) == {"not_seated", "rate_limited"}, set(codes)
    assert reached + codes.count("rate_limited") == 12 * per_connection
    assert reached <= USER_RATE_BURST + USER_RATE_PER_SECOND * elapsed + 1, (reached, elapsed)
    assert reached >= USER_RATE_BURST, "the burst itself is let through"
    assert "Too many messages" in next(a["message"] for a in answers if a["code"] == "rate_limited")


def test_a_players_chat_over_two_web_processes_is_held_to_one_limit(two_web_processes):
    table = table_create()
    alice = player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=1, buy_in=200, post="wait_bb")
    cookie = session_cookie_for(alice)
    lines_each = 10

    async def scenario():
        clients = await _open(two_web_processes, [table.id], cookie, CONNECTIONS_PER_USER_AND_TABLE)
        started = time.monotonic()
        for n in range(lines_each):
            for i, client in enumerate(clients):
                await client.send(type="chat", text=f"spam {i}-{n}")
        refused = await asyncio.gather(  # each line said or refused
            *(_refusals(client, i, lines_each) for i, client in enumerate(clients))
        )
        elapsed = time.monotonic() - started
        await clients[0].drain(1.0)  # every connection hears every line said
        for client in clients:
            await client.__aexit__()
        said = [f["text"] for f in clients[0].frames if f.get("event") == "chat"]
        return said, sum(refused), elapsed

    said, refused, elapsed = asyncio.run(scenario())
    total = lines_each * CONNECTIONS_PER_USER_AND_TABLE
    assert 1 <= len(said) <= CHAT_RATE_BURST + CHAT_RATE_PER_SECOND * elapsed + 1, (said, elapsed)
    assert refused == total - len(said), "every other line was refused, on whichever process it came"


async def _refusals(client: TableClient, index: int, sent: int) -> int:
    """How many of the `sent` chat lines of this connection were refused, once each has been answered (a line
    said comes back as a `chat` event to every connection, so those are counted by their text)."""
    mine, refused = set(), 0
    own = {f"spam {index}-{n}" for n in range(sent)}
    deadline = time.monotonic() + 30
    while refused + len(mine) < sent:
        assert time.monotonic() < deadline, "every line answered"
        message = await client.recv(timeout=30)
        if message["type"] == "error" and message["code"] == "rate_limited":
            refused += 1
        elif message.get("event") == "chat" and message["text"] in own:
            mine.add(message["text"])
    return refused
