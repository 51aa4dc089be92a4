"""Web and worker processes talk through Redis: real daphne, real Celery worker, real sockets."""

import asyncio
import json
import time
import urllib.error
import urllib.request

import pytest
import websockets

from pokerroom.embedded import EmbeddedRedis
from tables.models import Table
from tables.tasks import table_announce
from tests.live import Room

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def make_table() -> Table:
    return Table.objects.create(name="Live test", small_blind=1, big_blind=2)


def test_a_task_with_a_countdown_is_run_by_a_worker_process(live_room):
    table = make_table()
    started = time.monotonic()
    result = table_announce.apply_async((table.id, "closing soon"), countdown=2)
    seq = result.get(timeout=30)
    elapsed = time.monotonic() - started
    assert elapsed >= 2.0, "the task waited for its countdown"
    table.refresh_from_db()
    assert seq == table.seq == 1, "the worker numbered the table's message in the database"


def test_a_websocket_client_on_daphne_receives_what_a_worker_task_sent(live_room):
    table = make_table()

    async def scenario():
        url = f"{live_room.ws_url}/ws/tables/{table.id}/"
        async with websockets.connect(url, origin=live_room.http_url) as ws:
            await asyncio.sleep(0.2)  # the group join happens during the handshake; leave it time to settle
            table_announce.delay(table.id, "Benvenuti!")
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=20))
                if message.get("event") == "announcement":
                    return message

    message = asyncio.run(scenario())
    assert message == {"type": "event", "seq": 1, "event": "announcement", "text": "Benvenuti!"}


def test_a_websocket_from_a_foreign_origin_is_refused(live_room):
    table = make_table()

    async def scenario():
        async with websockets.connect(
            f"{live_room.ws_url}/ws/tables/{table.id}/", origin="http://evil.example"
        ):
            pass

    with pytest.raises(websockets.exceptions.InvalidStatus):
        asyncio.run(scenario())


HEALTH_TOKEN = "operator-health-token"


def fetch(url: str, *, token: str | None = HEALTH_TOKEN) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"X-Health-Token": token} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_healthz_reports_every_service_and_turns_503_when_redis_stops(room_env, tmp_path):
    redis_server = EmbeddedRedis(tmp_path / "redis", persistent=False)
    room = Room({**room_env, "REDIS_URL": redis_server.start(), "HEALTHZ_TOKEN": HEALTH_TOKEN})
    try:
        room.start_worker()
        room.start_daphne()
        status, body = fetch(f"{room.http_url}/healthz")
        assert status == 200, body
        assert body["services"]["postgresql"]["ok"] and body["services"]["redis"]["ok"]
        assert body["services"]["celery"]["workers"], "the worker is listed"
        assert fetch(f"{room.http_url}/healthz", token=None) == (200, {"ok": True}), (
            "anyone: up, nothing more"
        )
        assert fetch(f"{room.http_url}/healthz", token="wrong") == (200, {"ok": True})

        redis_server.stop()
        status, body = fetch(f"{room.http_url}/healthz")
        assert status == 503
        assert body["ok"] is False and body["services"]["redis"]["ok"] is False
        assert body["services"]["postgresql"]["ok"] is True
        assert fetch(f"{room.http_url}/healthz", token=None) == (503, {"ok": False}), "anyone: down"
    finally:
        room.stop()
        redis_server.stop()


def test_healthz_is_503_when_no_worker_is_running(room_env):
    room = Room({**room_env, "HEALTHZ_TOKEN": HEALTH_TOKEN})
    try:
        room.start_daphne()
        status, body = fetch(f"{room.http_url}/healthz")
        # another test's worker may still be announcing itself for a few seconds after it stopped
        deadline = time.monotonic() + 20
        while status == 200 and time.monotonic() < deadline:
            time.sleep(1)
            status, body = fetch(f"{room.http_url}/healthz")
        assert status == 503
        assert body["services"]["celery"]["ok"] is False and body["services"]["redis"]["ok"] is True
    finally:
        room.stop()
