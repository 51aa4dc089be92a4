"""Seats come free on a real room (issue 18): daphne, and a Celery worker running beat's sweep, with the
limits short. A player who disconnects in the middle of a hand, one who busts and does nothing, and one who
sits out: each seat comes free, each stack is back in the wallet, the lobby counts the table again, the
ledger is clean and a newcomer sits down."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from cashier.models import SeatSession
from cashier.selectors import ledger_check, wallet_balances
from tables.models import Seat
from tests.factories import player_create, table_create
from tests.live import Room
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def room_with_beat(room_env):
    room = Room(room_env)
    try:
        room.start_worker(beat=True)
        room.start_daphne()
        yield room
    finally:
        room.stop()


async def _play(client: TableClient, seat: int, choose, stop: asyncio.Event) -> None:
    """Answer every decision of `seat` with `choose(legal actions)` until `stop` is set."""
    answered = None
    while not stop.is_set():
        try:
            message = await client.recv(timeout=0.5)
        except TimeoutError:
            continue
        if message["type"] != "state" or not message.get("legal") or message.get("to_act") != seat:
            continue
        hand = message["hand"]
        if hand is None or (hand["id"], hand["action_no"]) == answered:
            continue
        legal = {item["action"] for item in message["legal"]}
        action = choose(legal)
        if action is None:
            continue
        answered = (hand["id"], hand["action_no"])
        await client.send(type="act", action=action, hand_id=hand["id"], action_no=hand["action_no"])


def _all_in(legal: set[str]) -> str | None:
    for action in ("all_in", "call", "check"):
        if action in legal:
            return action
    return None


def _call(legal: set[str]) -> str | None:
    for action in ("call", "check"):
        if action in legal:
            return action
    return None


def test_gone_busted_and_sitting_out_players_free_their_seats(room_with_beat):
    room = room_with_beat
    table = table_create(
        seats=6,
        small_blind=1,
        big_blind=2,
        min_buy_in=20,
        max_buy_in=20000,
        action_seconds=2,
        time_bank_seconds=0,
        sit_out_limit_seconds=4,
        bust_limit_seconds=2,
    )
    alice, bob, carol, dave, newcomer = (player_create() for _ in range(5))
    welcome = wallet_balances(user=carol)["play"]
    cookies = {user.id: session_cookie_for(user) for user in (alice, bob, carol, dave, newcomer)}

    async def scenario() -> dict:
        told: dict[str, dict] = {}
        async with TableClient(room, table.id, session=cookies[carol.id]) as c:
            await c.until(lambda m: m["type"] == "state")
            await c.send(type="join", seat=3, buy_in=200)
            await c.until(lambda m: m["type"] == "state" and m["seats"][2]["player"] is not None)
            await c.send(type="sit_out")  # Carol sits out at once and never comes back
            await c.until(lambda m: m["type"] == "state" and m["seats"][2]["status"] == "sitting_out")
            async with (
                TableClient(room, table.id, session=cookies[bob.id]) as b,
                TableClient(room, table.id, session=cookies[dave.id]) as d,
            ):
                await b.send(type="join", seat=2, buy_in=20)
                await d.send(type="join", seat=4, buy_in=20000)  # Bob would have to double up ten times
                alice_client = TableClient(room, table.id, session=cookies[alice.id])
                async with alice_client as a:
                    await a.send(type="join", seat=1, buy_in=200)
                    # Alice's connection drops in the middle of the first hand she is dealt into.
                    await a.until(
                        lambda m: (
                            m["type"] == "state"
                            and m["hand"] is not None
                            and m["seats"][0]["status"] in ("active", "folded", "all_in")
                        ),
                        timeout=30,
                    )
                stop = asyncio.Event()
                players = [
                    asyncio.ensure_future(_play(b, 2, _all_in, stop)),
                    asyncio.ensure_future(_play(d, 4, _call, stop)),
                ]

                def removed(client: TableClient) -> dict | None:
                    return next((f for f in client.frames if f["type"] == "removed"), None)

                try:
                    for _ in range(240):  # up to two minutes
                        await asyncio.sleep(0.5)
                        seats = await asyncio.to_thread(_people_seated, table.id)
                        if seats == {dave.id}:
                            break
                    else:
                        raise AssertionError(f"seats still held: {seats}")
                    await asyncio.sleep(1)
                finally:
                    stop.set()
                    await asyncio.gather(*players)
                await c.drain(0.5)
                told["carol"] = removed(c)
                told["bob"] = removed(b)
                told["dave_saw"] = [f for f in d.frames if f["type"] == "event" and f.get("removed")]
        async with TableClient(room, table.id, session=cookies[newcomer.id]) as n:
            await n.until(lambda m: m["type"] == "state")
            await n.send(type="join", seat=1, buy_in=200)
            await n.until(
                lambda m: (
                    m["type"] == "state"
                    and m["seats"][0]["player"] is not None
                    and m["seats"][0]["player"]["name"] == newcomer.username
                )
            )
        return told

    try:
        told = asyncio.run(scenario())
    except (TimeoutError, AssertionError) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(60)}" for p in room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure

    # Each was told why, on their own connection, and everyone at the table read it in the log.
    assert told["carol"]["reason"] == "sat_out" and told["carol"]["table"] == table.id
    assert told["bob"]["reason"] == "busted"
    reasons = {f["name"]: f["removed"] for f in told["dave_saw"]}
    assert reasons == {carol.username: "sat_out", bob.username: "busted", alice.username: "sat_out"}

    # The stacks are back in the wallets through ordinary cash-outs.
    for user in (alice, bob, carol):
        session = SeatSession.objects.get(table=table, user=user)
        assert session.closed_at is not None
        assert wallet_balances(user=user)["play"] == welcome - session.moved_in + session.left_with
    assert SeatSession.objects.get(table=table, user=bob).left_with == 0, "Bob busted"
    assert wallet_balances(user=carol)["play"] == welcome, "Carol never played: every chip is back"

    # The lobby (from daphne) counts the people seated now: Dave and the newcomer.
    with urllib.request.urlopen(f"{room.http_url}/api/tables/", timeout=10) as response:
        listed = next(t for t in json.load(response) if t["id"] == table.id)
    assert listed["players"] == 2
    report = ledger_check()
    assert report.ok, report.violations


def _people_seated(table_id: int) -> set[int]:
    from django.db import connection

    try:
        return set(
            Seat.objects.filter(table_id=table_id, user__isnull=False).values_list("user_id", flat=True)
        )
    finally:
        connection.close()
