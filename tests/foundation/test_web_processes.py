"""Every core in use: the supervisor's web processes (one daphne each) share the room's one port, each
table's connections served by one of them, and one killed (SIGKILL) while people play costs nothing but a
reconnect to its own players."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psutil
import pytest
import websockets

from cashier.selectors import ledger_check
from pokerroom.embedded import free_port
from pokerroom.supervisor import web_listening
from pokerroom.web_route import owner_of
from tables.bots import bot_choose
from tables.models import Hand, Table
from tests.factories import player_create, table_create
from tests.live import ARTIFACTS, BASE_DIR, Room
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = pytest.mark.live


@pytest.fixture
def room_env(room_env) -> dict[str, str]:
    """The room's environment with the per-address limits on anonymous sockets raised: these tests open many
    anonymous connections from one address to see where they land (the limits are tests/tables/test_ws_abuse.py's)."""
    lifted = (
        "ROOM_ANONYMOUS_PER_TABLE",
        "ROOM_ANONYMOUS_PER_ADDRESS",
        "ROOM_ADDRESS_BURST",
        "ROOM_ADDRESS_RATE",
    )
    return {**room_env, **dict.fromkeys(lifted, "100000")}


class Supervised:
    """`python -m pokerroom.supervisor serve` on a free port, against the test's database and Redis."""

    def __init__(self, env: dict[str, str], *, web: int, extra: tuple[str, ...] = ()) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = ARTIFACTS / f"supervisor-{os.getpid()}-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        command = [sys.executable, "-m", "pokerroom.supervisor", "serve", "--port", str(self.port), *extra]
        self.proc = subprocess.Popen(
            command,
            cwd=BASE_DIR,
            env={**env, "ROOM_WEB_PROCESSES": str(web)},
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_open(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while "the room is open" not in self.output():
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, f"not open within {timeout:.0f} s\n{self.output()}"
            time.sleep(0.2)

    def children(self, word: str) -> list[psutil.Process]:
        found = []
        for child in psutil.Process(self.proc.pid).children():
            try:
                if word in " ".join(child.cmdline()):
                    found.append(child)
            except psutil.Error:
                pass
        return found

    def web_pids(self) -> list[int]:
        """The web processes that listen on the room's port (each does once its application is loaded)."""
        return sorted(web_listening([child.pid for child in self.children("pokerroom.web")], self.port))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=90)
        self._log.close()


def serving_pid(pids: list[int], local_port: int) -> int | None:
    """The web process holding the server end of the client connection from `local_port`."""
    for pid in pids:
        try:
            if any(
                c.raddr and c.raddr.port == local_port for c in psutil.Process(pid).net_connections("tcp")
            ):
                return pid
        except psutil.NoSuchProcess:
            continue
    return None


def http_status(port: int, path: str = "/") -> int:
    """The page's status; a connection reset in the instant a web process dies or its successor starts
    listening (README: SO_REUSEPORT without tcp_migrate_req) is asked again once, as a browser retries it."""
    for attempt in (1, 2):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except ConnectionResetError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def spectators_served_by(port: int, table_id: int, pids: list[int], count: int) -> list[int | None]:
    """Open `count` spectator connections to the table, each answered with its state; which process holds each."""
    address = Room({})
    address.port = port
    clients = [TableClient(address, table_id) for _ in range(count)]
    try:
        for client in clients:
            await client.__aenter__()
            assert (await client.recv())["type"] == "state", "each connection is answered"
        return [serving_pid(pids, client.ws.local_address[1]) for client in clients]
    finally:
        for client in clients:
            if client.ws is not None:
                await client.__aexit__()


def web_index(pid: int) -> int:
    """Which of the room's web processes (1 … N) `pid` is, as the supervisor numbered it."""
    return int(psutil.Process(pid).environ()["ROOM_WEB_INDEX"])


@pytest.mark.django_db(transaction=True)
def test_serve_runs_every_web_process_on_one_port_with_a_worker_and_beat(room_env):
    tables = [Table.objects.create(name=f"Ports {n}", small_blind=1, big_blind=2) for n in range(6)]
    room = Supervised(room_env, web=3, extra=("--worker", "--beat"))
    try:
        room.wait_open()
        pids = room.web_pids()
        assert len(pids) == 3, room.output()
        assert room.children("worker") and room.children("beat"), "the worker and beat run beside them"
        served = {t.id: asyncio.run(spectators_served_by(room.port, t.id, pids, 5)) for t in tables}
        for table_id, by in served.items():
            assert len(set(by)) == 1, f"table {table_id}: its connections on one web process, not {by}"
            assert web_index(by[0]) == owner_of(table_id, 3), "the process that owns the table"
        assert {by[0] for by in served.values()} == set(pids), f"every web process serves tables: {served}"
        opened = _pages_open(room.port, 30)
        pages = [serving_pid(pids, sock.getsockname()[1]) for sock in opened]
        for sock in opened:
            sock.close()
        assert set(pages) == set(pids), f"pages are answered where the kernel puts them: {pages}"
        deadline = time.monotonic() + 60  # the worker announces itself once it is up
        while http_status(room.port, "/healthz") != 200:
            assert time.monotonic() < deadline, "healthz: PostgreSQL, Redis and the worker"
            time.sleep(0.5)
    finally:
        room.stop()
    assert room.proc.returncode == 0, room.output()
    assert not [pid for pid in pids if psutil.pid_exists(pid)], "SIGTERM stopped them all"


def _pages_open(port: int, count: int) -> list[socket.socket]:
    """`count` connections that each asked for a page and were answered, kept open (keep-alive)."""
    opened = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.recv(1)
        opened.append(sock)
    return opened


class Seated:
    """A person at the table who plays every turn (the house bots' policy, after 0.2-0.4 s) and notes what it
    receives."""

    def __init__(self, address: Room, table_id: int, user, seat: int) -> None:
        self.address, self.table_id, self.seat = address, table_id, seat
        self.cookie = session_cookie_for(user)
        self.rng = random.Random(seat)
        self.client: TableClient | None = None
        self.acted_seen = 0  # `acted` events received, over every connection
        self.closed = asyncio.Event()

    async def connect(self) -> dict:
        self.client = TableClient(self.address, self.table_id, session=self.cookie)
        await self.client.__aenter__()
        self.closed.clear()
        first = await self.client.recv()
        assert first["type"] == "state", "a connection starts with the table as it is"
        return first

    def local_port(self) -> int:
        return self.client.ws.local_address[1]

    async def play(self) -> None:
        """Until the connection drops: act on each turn."""
        try:
            while True:
                message = await self.client.recv(timeout=120)
                if message.get("event") == "acted":
                    self.acted_seen += 1
                hand = message.get("hand") if message["type"] == "state" else None
                if hand and message.get("legal"):
                    # a moment's thought, as a person takes: a hand of players acting at once lasts a few
                    # tens of milliseconds, and the test would not find one running to kill the process in
                    await asyncio.sleep(0.2 + 0.2 * self.rng.random())
                    kind, amount = bot_choose(legal=message["legal"], pot=0, stack=0, rng=self.rng)
                    act = {
                        "type": "act",
                        "action": kind,
                        "hand_id": hand["id"],
                        "action_no": hand["action_no"],
                    }
                    await self.client.send(**act, **({"amount": amount} if amount is not None else {}))
        except websockets.ConnectionClosed:
            self.closed.set()


async def until(condition, *, timeout: float, what: str, in_thread: bool = False) -> None:
    """Wait for `condition()` (run off the event loop with `in_thread`: a database read, say)."""
    deadline = time.monotonic() + timeout
    while not (await asyncio.to_thread(condition) if in_thread else condition()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        await asyncio.sleep(0.1)


@pytest.mark.django_db(transaction=True)
def test_a_web_process_killed_mid_hand_costs_its_players_a_reconnect_and_nothing_else(room_env):
    tables = [table_create(seats=6, action_seconds=20, time_bank_seconds=0) for _ in range(2)]
    users = [player_create() for _ in range(6)]
    room = Supervised(room_env, web=2)
    workers = Room(room_env)
    try:
        workers.start_worker(beat=True)
        room.wait_open()
        pids = room.web_pids()
        address = Room({})
        address.port = room.port
        players = {  # three at each table: consecutive ids, one table to each web process
            table.id: [
                Seated(address, table.id, user, seat)
                for seat, user in enumerate(users[3 * n : 3 * n + 3], start=1)
            ]
            for n, table in enumerate(tables)
        }
        asyncio.run(_kill_one_while_playing(room, players, pids))
    finally:
        room.stop()
        workers.stop()
    assert room.proc.returncode == 0, room.output()
    assert "daphne-" in room.output() and "starting it again" in room.output()
    report = ledger_check()
    assert report.ok, report.violations


async def _kill_one_while_playing(room: Supervised, players: dict[int, list[Seated]], pids) -> None:
    everyone = [player for group in players.values() for player in group]
    for player in everyone:
        await player.connect()
    served = {t: {serving_pid(pids, p.local_port()) for p in group} for t, group in players.items()}
    assert all(len(by) == 1 for by in served.values()), f"a table's players on one web process: {served}"
    owner = {table_id: by.pop() for table_id, by in served.items()}
    assert set(owner.values()) == set(pids), f"one table on each: {owner}"
    for player in everyone:
        await player.client.send(type="join", seat=player.seat, buy_in=200, post="now")
    tasks = [asyncio.ensure_future(player.play()) for player in everyone]
    await until(lambda: all(p.acted_seen >= 2 for p in everyone), timeout=90, what="everyone sees play")
    lost_table, kept_table = players
    hand = await asyncio.to_thread(_running_hand, lost_table)
    victim, survivor = owner[lost_table], owner[kept_table]
    victim_index = web_index(victim)
    os.kill(victim, signal.SIGKILL)
    # (a connection that reaches its socket in the instant it dies is reset, see the README)
    await until(lambda: not _running(victim), timeout=30, what="the killed process gone")

    # the other process goes on serving: pages at once, and its players' connections stay up
    statuses = [await asyncio.to_thread(http_status, room.port) for _ in range(6)]
    assert statuses == [200] * 6, statuses
    survivors, dropped = players[kept_table], players[lost_table]
    await until(
        lambda: all(p.closed.is_set() for p in dropped), timeout=30, what="the killed one's players dropped"
    )

    # the killed one's players come back (to the other process, while theirs is down) and find the table as
    # it is, their own cards with it
    for player in dropped:
        state = await player.connect()
        truth = await asyncio.to_thread(_table_now, lost_table)
        assert state["seq"] <= truth["seq"]
        row = next(r for r in state["seats"] if r["seat"] == player.seat)
        assert row["player"]["name"] == truth["seats"][player.seat], "still in their seat"
        if state["hand"] and row.get("has_cards"):
            assert len(row["cards"]) == 2, "their cards again"
        tasks.append(asyncio.ensure_future(player.play()))
    seen = {id(p): p.acted_seen for p in everyone}
    await until(
        lambda: all(p.acted_seen > seen[id(p)] for p in everyone), timeout=90, what="everyone plays on"
    )
    await until(
        lambda: _hand_status(hand) == Hand.Status.COMPLETE,
        timeout=90,
        what="the hand killed mid-way ends",
        in_thread=True,
    )
    assert not any(p.closed.is_set() for p in survivors), "the other process's players were never dropped"

    # the supervisor started another web process in its place, which serves its tables' new connections again
    await until(
        lambda: len(room.web_pids()) == 2 and victim not in room.web_pids(),
        timeout=90,
        what="a new web process",
    )
    successor = next(pid for pid in room.web_pids() if pid != survivor)
    assert web_index(successor) == victim_index
    served_by = await spectators_served_by(room.port, lost_table, room.web_pids(), 5)
    assert set(served_by) == {successor}, served_by
    for player in everyone:
        await player.client.__aexit__()
    await asyncio.wait(tasks, timeout=30)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _running_hand(table_id: int, timeout: float = 30) -> int:
    """The table's running hand, waiting for the next deal if it is between two."""
    from django.db import connection

    deadline = time.monotonic() + timeout
    try:
        while True:
            running = Hand.objects.filter(table_id=table_id, status=Hand.Status.RUNNING)
            hand_id = running.values_list("id", flat=True).first()
            if hand_id is not None:
                return hand_id
            assert time.monotonic() < deadline, "no hand dealt"
            time.sleep(0.1)
    finally:
        connection.close()


def _hand_status(hand_id: int) -> str:
    from django.db import connection

    try:
        return Hand.objects.get(pk=hand_id).status
    finally:
        connection.close()


def _table_now(table_id: int) -> dict:
    from django.db import connection

    from tables.models import Seat

    try:
        table = Table.objects.get(pk=table_id)
        seats = {
            s.number: s.user.username
            for s in Seat.objects.filter(table=table, user__isnull=False).select_related("user")
        }
        return {"seq": table.seq, "seats": seats}
    finally:
        connection.close()


def _supervisor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pokerroom.supervisor", "serve", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_web_process_count_is_refused_before_anything_starts(value):
    env = {**os.environ, "ROOM_WEB_PROCESSES": value}
    done = _supervisor(env, "--port", str(free_port()))
    assert done.returncode == 1
    assert "ROOM_WEB_PROCESSES must be a whole number of at least 1" in done.stdout
    assert "pokerroom.web" not in done.stdout and "the room is open" not in done.stdout


def test_a_port_another_program_listens_on_is_refused():
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        done = _supervisor({**os.environ, "ROOM_WEB_PROCESSES": "2"}, "--port", str(port))
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stdout


def test_the_web_process_refuses_to_start_without_its_socket():
    done = subprocess.run(
        [sys.executable, "-m", "pokerroom.web", "pokerroom.asgi:application"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "--fd N" in done.stderr


def test_one_web_process_per_core_unless_set():
    from pokerroom.supervisor import web_processes_count

    assert web_processes_count({}) == max(1, os.cpu_count() or 1)
    assert web_processes_count({"ROOM_WEB_PROCESSES": " 3 "}) == 3


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_connections_to_one_table_all_reach_its_owner(room_env):
    """Sixty spectators open the same table at once: about half land on the process that does not own it and
    are handed over in a burst, more than the owner's queue of sockets holds (10, net.unix.max_dgram_qlen), so
    some are sent again a few milliseconds later. Every one is answered, by the owner."""
    table = Table.objects.create(name="Burst", small_blind=1, big_blind=2)
    room = Supervised(room_env, web=2)
    try:
        room.wait_open()
        pids = room.web_pids()
        assert len(pids) == 2, room.output()

        async def burst() -> list[int | None]:
            address = Room({})
            address.port = room.port
            clients = [TableClient(address, table.id) for _ in range(60)]
            try:
                await asyncio.gather(*(client.__aenter__() for client in clients))
                states = await asyncio.gather(*(client.recv() for client in clients))
                assert all(state["type"] == "state" for state in states), "each connection is answered"
                return [serving_pid(pids, client.ws.local_address[1]) for client in clients]
            finally:
                await asyncio.gather(*(client.__aexit__() for client in clients if client.ws is not None))

        served = asyncio.run(burst())
        assert {web_index(pid) for pid in served if pid} == {owner_of(table.id, 2)}, served
        assert None not in served, served
        assert "stayed busy" not in room.output(), "no connection was kept where it landed"
    finally:
        room.stop()
