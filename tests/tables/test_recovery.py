"""A hand survives its processes: daphne and the Celery worker killed mid-hand (SIGKILL) and restarted."""

import asyncio
import time

import pytest

from cashier.selectors import ledger_check
from tables.models import Hand
from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def test_killing_daphne_and_the_worker_mid_hand_loses_nothing(live_room):
    table = table_create(seats=6, action_seconds=2, time_bank_seconds=0)
    alice, bob = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bob)]

    async def sit_and_wait_for_a_hand():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
        ):
            await a.until(lambda m: m["type"] == "state")
            await b.until(lambda m: m["type"] == "state")
            await a.send(type="join", seat=1, buy_in=200)
            await b.send(type="join", seat=2, buy_in=200)
            state = await a.until(lambda m: m["type"] == "state" and m["hand"] is not None)
            return state["hand"]["id"]

    hand_id = asyncio.run(sit_and_wait_for_a_hand())
    for process in list(live_room.processes):
        process.kill()
    live_room.processes.clear()
    assert Hand.objects.get(pk=hand_id).status == "running", "killed mid-hand"

    time.sleep(2.5)  # the decision's deadline passes while nothing runs
    live_room.start_worker(beat=True)
    live_room.start_daphne()

    async def come_back():
        async with TableClient(live_room, table.id, session=cookies[0]) as a:
            first = await a.recv(timeout=10)
            assert first["type"] == "state", "a returning player sees the table at once"
            await a.until(
                lambda m: (
                    m["type"] == "event"
                    and m["event"] == "hand_ended"
                    or (m["type"] == "state" and (m["hand"] is None or m["hand"]["id"] != hand_id))
                ),
                timeout=60,
            )

    try:
        asyncio.run(come_back())
    except (TimeoutError, AssertionError) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(40)}" for p in live_room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure
    hand = Hand.objects.get(pk=hand_id)
    assert hand.status == "complete"
    assert hand.actions, "the clock acted for the player who was to act"
    report = ledger_check()
    assert report.ok, report.violations
