"""Shared fixtures: real processes of the room (daphne, Celery worker) against the test database.

pytest-django creates the test database on the PostgreSQL that DATABASE_URL names (`make test` starts an
embedded one when it is not set); the processes started here are pointed at that test database and at the
same Redis, so a test sees exactly what a player would, through real sockets.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import redis as redis_lib

from pokerroom.embedded import free_port, stop_child, wait_for_port

BASE_DIR = Path(__file__).resolve().parent.parent
ARTIFACTS = BASE_DIR / "var" / "test" / "artifacts"


def database_url_for(settings_dict: dict) -> str:
    user = quote(settings_dict.get("USER") or "")
    password = quote(settings_dict.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or ""
    host = quote(host, safe="") if host.startswith("/") else host
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgresql://{auth}{host}{port}/{settings_dict['NAME']}"


class LiveProcess:
    """One process of the room, started like production starts it, stopped at the end of the test."""

    def __init__(self, name: str, command: list[str], env: dict[str, str]) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log_path = ARTIFACTS / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = 15) -> None:
        stop_child(self.proc, timeout=timeout)
        self._log.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._log.close()


class Room:
    """A running room: daphne on a free port and a Celery worker, sharing PostgreSQL and Redis."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.processes: list[LiveProcess] = []
        self.port = 0

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start_daphne(self) -> LiveProcess:
        self.port = free_port()
        proc = LiveProcess("daphne", [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                                      "pokerroom.asgi:application"], {**self.env, "PORT": str(self.port)})
        self.processes.append(proc)
        try:
            wait_for_port(self.port, timeout=30, proc=proc.proc, what="daphne")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{proc.log_tail()}") from exc
        return proc

    def start_worker(self, *, beat: bool = False) -> LiveProcess:
        hostname = f"test-{os.getpid()}-{time.monotonic_ns()}@localhost"
        command = [sys.executable, "-m", "celery", "-A", "pokerroom", "worker", "-l", "info", "-P", "threads",
                   "--concurrency", "4", "-n", hostname, "--without-mingle", "--without-gossip"]
        if beat:
            command += ["-B", "-s", str(ARTIFACTS / f"beat-{time.monotonic_ns()}")]
        proc = LiveProcess("worker", command, self.env)
        self.processes.append(proc)
        client = redis_lib.Redis.from_url(self.env["REDIS_URL"])
        deadline = time.monotonic() + 40
        while not client.exists(f"room:worker:{hostname}"):
            if proc.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start\n{proc.log_tail()}")
            time.sleep(0.1)
        client.close()
        return proc

    def stop(self) -> None:
        for proc in reversed(self.processes):
            if proc.proc.poll() is None:
                proc.stop()
        self.processes.clear()


@pytest.fixture(autouse=True)
def testserver_origin(settings):
    """Django's test client and Channels' communicator speak as http://testserver: one of the site's
    origins in tests only (pokerroom.origins)."""
    settings.ROOM_ORIGINS = [*settings.ROOM_ORIGINS, "http://testserver"]


@pytest.fixture
def room_env(transactional_db, settings, backends_ended_at_the_end) -> dict[str, str]:
    """The environment a room process needs to share this test's database and Redis."""
    from django.db import connection

    env = dict(os.environ)
    env["DATABASE_URL"] = database_url_for(connection.settings_dict)
    env["REDIS_URL"] = settings.REDIS_URL
    env["DEBUG"] = "0"  # as `make run` and production run
    env.setdefault("LOG_LEVEL", "INFO")
    return env


@pytest.fixture
def live_room(room_env):
    """daphne and a Celery worker against the test database; stopped when the test ends."""
    room = Room(room_env)
    try:
        room.start_worker()
        room.start_daphne()
        yield room
    finally:
        room.stop()


@pytest.fixture(scope="session")
def backends_ended_at_the_end(django_db_setup, django_db_blocker):
    """Killed daphne and worker processes (the recovery and fault tests) can leave a server backend behind
    for a moment; end them before the test database is dropped (this tears down before django_db_setup)."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
