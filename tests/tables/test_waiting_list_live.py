"""Waiting lists, live over WebSockets (issue 16): a player joins a full table's list from the lobby, another
from the table; a seat comes free and the first is offered it (an event on their own connection), does not
take it in time, and the seat goes to the next, who sits down; the lobby shows the list's length; a player
leaves the list. daphne and a worker running beat's sweep, with the offer held 3 s instead of 30."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import websockets

from cashier.selectors import ledger_check
from tables import services
from tables.models import WaitingEntry
from tests.factories import player_create, table_create
from tests.live import Room
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

OFFER_SECONDS = 3


@pytest.fixture
def room_short_offers(room_env):
    room = Room({**room_env, "WAITING_OFFER_SECONDS": str(OFFER_SECONDS)})
    try:
        room.start_worker(beat=True)
        room.start_daphne()
        yield room
    finally:
        room.stop()


class LobbyClient:
    def __init__(self, room, session: str) -> None:
        self.room, self.session, self.frames = room, session, []

    async def __aenter__(self) -> LobbyClient:
        self.ws = await websockets.connect(
            f"{self.room.ws_url}/ws/lobby/",
            origin=self.room.http_url,
            additional_headers={"Cookie": f"sessionid={self.session}"},
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def send(self, **message) -> None:
        await self.ws.send(json.dumps(message))

    async def until(self, predicate, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching lobby message; last: {self.frames[-3:]}")
            message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=left))
            self.frames.append(message)
            if predicate(message):
                return message


def _listed(message: dict, table_id: int) -> dict | None:
    if message["type"] != "tables":
        return None
    return next((t for t in message["tables"] if t["id"] == table_id), None)


def test_a_full_tables_waiting_list_offers_the_seat_in_turn(room_short_offers):
    room = room_short_offers
    table = table_create(seats=2)
    alice, bob, carol, dave, eve = (player_create() for _ in range(5))
    for number, user in enumerate((alice, bob), start=1):
        services.seat_take(table_id=table.id, user=user, seat_number=number, buy_in=200, post="wait_bb")
        services.seat_sit_out(table_id=table.id, user=user)  # a quiet table: nobody is dealt a hand
    cookie = {user.id: session_cookie_for(user) for user in (bob, carol, dave, eve)}

    async def scenario() -> None:
        async with (
            LobbyClient(room, cookie[carol.id]) as lobby,
            TableClient(room, table.id, session=cookie[dave.id]) as d,
            TableClient(room, table.id, session=cookie[eve.id]) as e,
        ):
            await lobby.until(lambda m: m["type"] == "tables")
            await d.until(lambda m: m["type"] == "state")
            await e.until(lambda m: m["type"] == "state")
            # Carol joins from the lobby, Dave from the table.
            await lobby.send(type="waiting_join", table=table.id)
            mine = await lobby.until(lambda m: m["type"] == "waiting")
            assert mine["position"] == 1 and mine["table"] == table.id
            await d.send(type="waiting_join")
            mine = await d.until(lambda m: m["type"] == "waiting")
            assert mine["position"] == 2 and mine["count"] == 2
            await e.until(lambda m: m["type"] == "event" and m["event"] == "waiting" and m["count"] == 2)
            await lobby.until(lambda m: (_listed(m, table.id) or {}).get("waiting") == 2)

            # Bob leaves: Carol, first on the list, is offered seat 2 (in the lobby), for OFFER_SECONDS.
            async with TableClient(room, table.id, session=cookie[bob.id]) as b:
                await b.until(lambda m: m["type"] == "state")
                await b.send(type="leave")
                await b.until(
                    lambda m: m["type"] == "event" and m["event"] == "seat" and m.get("player", 1) is None
                )
            offer = await lobby.until(lambda m: m["type"] == "seat_offer")
            assert offer["table"] == table.id and offer["seat"] == 2 and offer["seconds"] == OFFER_SECONDS
            assert not any(f["type"] == "seat_offer" for f in d.frames), "only the first is offered the seat"
            # Everyone sees it held, and nobody else may take it meanwhile.
            held = await e.until(lambda m: m["type"] == "state" and m["seats"][1]["reserved"])
            assert held["seats"][1]["player"] is None
            await e.send(type="join", seat=2, buy_in=200)
            refused = await e.until(lambda m: m["type"] == "error")
            assert refused["code"] == "seat_reserved"

            # Carol lets it go: she hears so, and Dave is offered it on his table connection; he sits down.
            gone = await lobby.until(lambda m: m["type"] == "seat_offer_expired", timeout=OFFER_SECONDS + 10)
            assert gone["seat"] == 2 and gone["message"]
            offer = await d.until(lambda m: m["type"] == "seat_offer", timeout=10)
            assert offer["seat"] == 2
            await d.send(type="join", seat=2, buy_in=200)
            await d.until(
                lambda m: (
                    m["type"] == "state" and (m["seats"][1]["player"] or {}).get("name") == dave.username
                )
            )
            await lobby.until(lambda m: (_listed(m, table.id) or {}).get("waiting") == 0)

            # Eve joins the full table's list; a lobby she opens later shows her place; she leaves the list.
            await e.send(type="waiting_join")
            assert (await e.until(lambda m: m["type"] == "waiting"))["position"] == 1
            async with LobbyClient(room, cookie[eve.id]) as eve_lobby:
                place = await eve_lobby.until(lambda m: m["type"] == "waiting")
                assert place["table"] == table.id and place["position"] == 1
            await e.send(type="waiting_leave")
            left = await e.until(lambda m: m["type"] == "waiting")
            assert left["position"] is None and left["count"] == 0

    try:
        asyncio.run(scenario())
    except (TimeoutError, AssertionError) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(60)}" for p in room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure
    assert not WaitingEntry.objects.filter(table=table).exists()
    report = ledger_check()
    assert report.ok, report.violations
