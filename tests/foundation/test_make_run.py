"""`make run`'s supervisor, as a new user meets it: embedded PostgreSQL and Redis, the lobby served, Ctrl-C
leaving nothing running, and a second start finding the data of the first."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from pokerroom.embedded import free_port

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.live


def start(run_dir: Path, port: int) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["ROOM_RUN_DIR"] = str(run_dir)
    env["ROOM_WEB_PROCESSES"] = "2"
    return subprocess.Popen(
        [sys.executable, "-m", "pokerroom.supervisor", "run", "--port", str(port)],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for_lobby(port: int, proc: subprocess.Popen, timeout: float = 90) -> tuple[float, str]:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        assert proc.poll() is None, proc.stdout.read()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                return time.monotonic() - started, response.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the lobby was not served within 90 s")


def family(proc: subprocess.Popen) -> list[psutil.Process]:
    """The supervisor's children, and the embedded PostgreSQL's, which runs in a session of its own."""
    return psutil.Process(proc.pid).children(recursive=True)


def cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return []


def stop_with_ctrl_c(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=90)
    return output


def test_make_run_serves_the_lobby_and_ctrl_c_leaves_nothing_running(tmp_path):
    port = free_port()
    proc = start(tmp_path, port)
    try:
        elapsed, page = wait_for_lobby(port, proc)
        assert "Allenamento Roma" in page and "Venezia NL10" in page
        assert elapsed < 90
        children = family(proc)
        names = " ".join(" ".join(cmdline(c)) for c in children)
        for program in ("pokerroom.web", "worker", "beat", "redis-server", "postgres"):
            assert program in names, f"{program} is running"
        web = [c for c in children if "pokerroom.web" in cmdline(c)]
        assert len(web) == 2, "ROOM_WEB_PROCESSES web processes (daphne each), on the one port"
        assert all("--fd" in cmdline(c) for c in web)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/", timeout=5) as response:
            tables_first = response.read()
        # management commands reach the running room's own servers (how staff create the first superuser)
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        checked = subprocess.run(
            [sys.executable, "-m", "pokerroom.supervisor", "manage", "ledger_check"],
            cwd=BASE_DIR,
            env={**env, "ROOM_RUN_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert checked.returncode == 0 and "ledger OK" in checked.stdout, checked.stdout + checked.stderr
        # a worker that dies (as Celery's does when its broker restarts) is started again
        worker = next(c for c in children if "worker" in cmdline(c) and c.ppid() == proc.pid)
        worker.kill()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            workers = [c for c in family(proc) if "worker" in cmdline(c) and c.ppid() == proc.pid]
            if workers and workers[0].pid != worker.pid:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the worker was not started again")
        assert proc.poll() is None, "the room goes on"
        children = family(proc)
    finally:
        output = stop_with_ctrl_c(proc)
    assert proc.returncode == 0, output
    time.sleep(0.5)
    alive = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"left running: {[cmdline(c) for c in alive]}"

    # the second start keeps the data of the first: the same tables (same ids), seeded only once
    port = free_port()
    proc = start(tmp_path, port)
    try:
        wait_for_lobby(port, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/", timeout=5) as response:
            tables_second = response.read()
    finally:
        output = stop_with_ctrl_c(proc)
    assert proc.returncode == 0, output
    assert "0 table(s) created" in output
    import json

    ids = lambda body: sorted(t["id"] for t in json.loads(body))  # noqa: E731
    assert ids(tables_first) == ids(tables_second)
