"""The run supervisor: what `make run`, `make test` and a production machine start.

    python -m pokerroom.supervisor run [--host 127.0.0.1] [--port 8000]
        embedded PostgreSQL and Redis where DATABASE_URL / REDIS_URL are not set (data in var/run/),
        migrations, demo tables, then the web processes (ROOM_WEB_PROCESSES daphnes, one per core unless
        set, all on the one port), a Celery worker and Celery beat. Ctrl-C (or SIGTERM) stops every one of
        them, the embedded servers last.
    python -m pokerroom.supervisor serve [--host 127.0.0.1] [--port 8000] [--worker] [--beat]
        production, under a process manager: the same web processes against the servers the settings name
        (DATABASE_URL, REDIS_URL), nothing embedded, no migrations; with --worker and --beat a Celery worker
        and Celery beat as well (one beat in the whole room).
    python -m pokerroom.supervisor exec -- COMMAND ...
        the same embedded servers (throw-away data in var/test/) around one command, whose exit code it
        returns: `make test` runs pytest this way.
    python -m pokerroom.supervisor manage ARGS ...
        `manage.py ARGS` against the room's own data: the servers of a running `make run` (their URLs are in
        var/run/urls.env while it runs), or the embedded ones started for the command: `make superuser`.

Children run in sessions of their own, so that a Ctrl-C reaches only this process, which then stops them in
order (web first, the databases last) instead of all at once. A child that dies is started again.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import NoReturn

import psutil

from pokerroom.embedded import EmbeddedPostgres, EmbeddedRedis, stop_child, stop_children, wait_for_http
from pokerroom.secret import secret_key_ensure, secret_key_path

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable
# Where `run` keeps the embedded servers' data (a test points it at a temporary folder).
RUN_DIR = Path(os.environ.get("ROOM_RUN_DIR", BASE_DIR / "var" / "run"))
URLS_FILE = RUN_DIR / "urls.env"
RESTARTS_ALLOWED = 5
RESTART_WINDOW = 60.0
WEB_APP = "pokerroom.asgi:application"


class Stop(Exception):
    pass


class RoomFailed(Exception):
    """A child kept dying, or the room could not start: stop everything and exit with 1."""


def _raise_stop(signum, frame):  # noqa: ARG001
    raise Stop(signum)


def log(message: str) -> None:
    print(f"[room] {message}", flush=True)


class Services:
    """Embedded servers for the URLs that are not set, stopped in reverse order."""

    def __init__(self, folder: Path, *, for_tests: bool) -> None:
        self.folder = folder
        self.for_tests = for_tests
        self.started: list = []

    def start(self, env: dict[str, str]) -> dict[str, str]:
        env = dict(env)
        if not env.get("DATABASE_URL"):
            started = time.monotonic()
            pg = EmbeddedPostgres(self.folder / "pg", fast=self.for_tests)
            self.started.append(pg)
            env["DATABASE_URL"] = pg.start()
            log(f"embedded PostgreSQL on 127.0.0.1:{pg.port} ({time.monotonic() - started:.1f} s)")
        if not env.get("REDIS_URL"):
            redis = EmbeddedRedis(self.folder / "redis", persistent=not self.for_tests)
            self.started.append(redis)
            env["REDIS_URL"] = redis.start()
            log(f"embedded Redis on 127.0.0.1:{redis.port}")
        return env

    def stop(self) -> None:
        for service in reversed(self.started):
            service.stop()
        self.started.clear()


def _manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PY, "manage.py", *args], cwd=BASE_DIR, env=env, check=True)


# --- the web processes: one port, one daphne per core ----------------------------------------------------


def web_processes_count(environ: Mapping[str, str]) -> int:
    """ROOM_WEB_PROCESSES, else one per core: a daphne runs its event loop on one core at most."""
    raw = environ.get("ROOM_WEB_PROCESSES", "").strip()
    if not raw:
        return max(1, os.cpu_count() or 1)
    if not raw.isdigit() or int(raw) < 1:
        raise RoomFailed(f"ROOM_WEB_PROCESSES must be a whole number of at least 1 (it is {raw!r})")
    return int(raw)


class WebPort:
    """The room's address. Every web process listens on it with a socket of its own, bound here with
    SO_REUSEPORT and handed over (pokerroom.web: daphne's `--fd`), and the kernel spreads new connections
    evenly over the sockets that listen. (One socket shared by all, the other way, gave one of two daphnes
    220 of 240 connections opened at once: whichever process is woken first accepts all that wait.) A
    process's socket closes when it dies, and its successor's listens only once it can answer, so meanwhile
    new connections go to the others."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port

    def claim(self) -> None:
        """Refuse an address another program listens on (another room, say: sockets with SO_REUSEPORT would
        share it silently); port 0 takes a free one."""
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((self.host, self.port))
                self.port = probe.getsockname()[1]
        except OSError as exc:
            raise RoomFailed(f"cannot listen on {self.host}:{self.port}: {exc}") from exc

    def bind(self) -> socket.socket:
        """A socket on the room's address for one web process, bound, not yet listening."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise RoomFailed(f"cannot listen on {self.host}:{self.port}: {exc}") from exc
        sock.setblocking(False)  # Twisted adopts the socket as it is
        return sock


def _spawn(command: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=BASE_DIR, env=env, start_new_session=True, pass_fds=pass_fds)


def web_spawn(port: WebPort, env: dict[str, str]) -> subprocess.Popen:
    sock = port.bind()
    try:
        fd = sock.fileno()
        return _spawn([PY, "-m", "pokerroom.web", "--fd", str(fd), WEB_APP], env, pass_fds=(fd,))
    finally:
        sock.close()  # the web process holds it now, and it closes with that process


@dataclass
class Child:
    name: str
    start: Callable[[], subprocess.Popen]
    web: bool = False
    proc: subprocess.Popen | None = None
    deaths: list[float] = field(default_factory=list)


def web_env(env: dict[str, str], port: WebPort, *, index: int, count: int) -> dict[str, str]:
    """Web process `index`'s environment: with others beside it, its place among them, by which each serves
    the connections of its own tables (pokerroom.web_route) unless ROOM_WEB_ROUTING is 0."""
    if count < 2 or env.get("ROOM_WEB_ROUTING", "1").strip() == "0":
        return env
    route = f"{port.port}-{os.getpid()}"  # one room's processes: its port, its supervisor
    return {**env, "ROOM_WEB_ROUTE": route, "ROOM_WEB_INDEX": str(index), "ROOM_WEB_COUNT": str(count)}


def children_make(env: dict[str, str], port: WebPort, *, web: int, worker: bool, beat: bool) -> list[Child]:
    children = [
        Child(f"daphne-{n}", partial(web_spawn, port, web_env(env, port, index=n, count=web)), web=True)
        for n in range(1, web + 1)
    ]
    celery = [PY, "-m", "celery", "-A", "pokerroom"]
    if worker:
        command = [*celery, "worker", "-l", "info", "--concurrency", "2", "-n", f"worker-{os.getpid()}@%h"]
        children.append(Child("worker", partial(_spawn, command, env)))
    if beat:
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        command = [*celery, "beat", "-l", "info", "-s", str(RUN_DIR / "celerybeat-schedule")]
        children.append(Child("beat", partial(_spawn, command, env)))
    return children


def child_restart(child: Child) -> None:
    """A process that dies is started again (the room's state is in PostgreSQL, so nothing is lost; a Celery
    worker, for one, exits when its broker restarts). One that keeps dying stops the room."""
    now = time.monotonic()
    child.deaths = [t for t in child.deaths if now - t < RESTART_WINDOW] + [now]
    if len(child.deaths) > RESTARTS_ALLOWED:
        raise RoomFailed(
            f"{child.name} exited with code {child.proc.returncode} {len(child.deaths)} times in "
            f"{RESTART_WINDOW:.0f} s"
        )
    log(f"{child.name} exited with code {child.proc.returncode}; starting it again")
    child.proc = child.start()


def children_watch(children: list[Child]) -> NoReturn:
    while True:
        for child in children:
            if child.proc.poll() is not None:
                child_restart(child)
        time.sleep(0.5)


def children_stop(children: list[Child]) -> None:
    """The web processes first (together), then the others in the reverse of their start."""
    stop_children([c.proc for c in children if c.web and c.proc], timeout=20)
    for child in reversed([c for c in children if not c.web and c.proc]):
        stop_children([child.proc], timeout=20)


def web_listening(pids: list[int], port: int) -> list[int]:
    """Those of the web processes `pids` that listen on `port`: each does once its application is loaded."""
    found = []
    for pid in pids:
        try:
            connections = psutil.Process(pid).net_connections("tcp")
        except psutil.Error:
            continue
        if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in connections):
            found.append(pid)
    return found


def web_wait(children: list[Child], port: WebPort, env: Mapping[str, str], timeout: float = 90) -> None:
    """Until every web process listens and the room answers a request."""
    web = [c.proc for c in children if c.web]
    deadline = time.monotonic() + timeout
    while len(web_listening([proc.pid for proc in web], port.port)) < len(web):
        if dead := [proc for proc in web if proc.poll() is not None]:
            raise RoomFailed(f"a web process exited with code {dead[0].returncode} before it listened")
        if time.monotonic() > deadline:
            raise RoomFailed(
                f"the web processes did not all listen on {port.host}:{port.port} within {timeout:.0f} s"
            )
        time.sleep(0.1)
    left = max(1.0, deadline - time.monotonic())
    wait_for_http(port.port, timeout=left, procs=tuple(web), what="daphne", host_header=_host_header(env))


def _host_header(env: Mapping[str, str]) -> str:
    """A name the room answers to, for the readiness request (any other is refused, and logged)."""
    for name in env.get("ALLOWED_HOSTS", "localhost").split(","):
        name = name.strip().lstrip(".")
        if name and name != "*":
            return name
    return "localhost"


def room_supervise(
    prepare: Callable[[], dict[str, str]], *, host: str, port: int, worker: bool, beat: bool
) -> int:
    """Start the room's processes in the environment `prepare()` returns, and watch them until Ctrl-C or
    SIGTERM (0) or until one keeps dying (1)."""
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    started_at = time.monotonic()
    children: list[Child] = []
    try:
        web = web_processes_count(os.environ)
        web_port = WebPort(host, port)
        web_port.claim()
        env = prepare()
        env["PORT"] = str(web_port.port)  # the room's own origins (pokerroom.origins) name this port
        children = children_make(env, web_port, web=web, worker=worker, beat=beat)
        for child in children:
            child.proc = child.start()
        web_wait(children, web_port, env)
        log(
            f"the room is open at http://{host}:{web_port.port}/ ({web} web process{'es' if web > 1 else ''}, "
            f"{time.monotonic() - started_at:.1f} s); Ctrl-C stops everything"
        )
        children_watch(children)
    except Stop:
        return 0
    except (RoomFailed, subprocess.CalledProcessError, RuntimeError) as exc:
        log(f"stopping the room: {exc}")
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        log("stopping…")
        children_stop(children)


def secret_prepare(env: Mapping[str, str]) -> None:
    """Without SECRET_KEY, the key every child will read: generated now (once, kept under var/), before the
    children start, so that they never race to make it."""
    if not env.get("SECRET_KEY"):
        secret_key_ensure()
        log(f"secret key: {secret_key_path()} (set SECRET_KEY to use another)")


def run(host: str, port: int) -> int:
    services = Services(RUN_DIR, for_tests=False)

    def prepare() -> dict[str, str]:
        secret_prepare(os.environ)
        env = services.start(dict(os.environ))
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        URLS_FILE.write_text(f"DATABASE_URL={env['DATABASE_URL']}\nREDIS_URL={env['REDIS_URL']}\n")
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        _manage(env, "seed_tournaments")
        return env

    try:
        return room_supervise(prepare, host=host, port=port, worker=True, beat=True)
    finally:
        URLS_FILE.unlink(missing_ok=True)
        services.stop()
        log("stopped")


def serve(host: str, port: int, *, worker: bool, beat: bool) -> int:
    try:

        def prepare() -> dict[str, str]:
            secret_prepare(os.environ)
            return dict(os.environ)

        return room_supervise(prepare, host=host, port=port, worker=worker, beat=beat)
    finally:
        log("stopped")


def _running_room_env() -> dict[str, str] | None:
    """The URLs of a `make run` that is running now, if its servers answer."""
    from urllib.parse import urlsplit

    if not URLS_FILE.exists():
        return None
    urls = dict(line.split("=", 1) for line in URLS_FILE.read_text().splitlines() if "=" in line)
    for url in urls.values():
        parts = urlsplit(url)
        try:
            socket.create_connection((parts.hostname, parts.port), timeout=1).close()
        except OSError:
            return None
    return urls


def manage_command(args: list[str]) -> int:
    env = dict(os.environ)
    services = Services(RUN_DIR, for_tests=False)
    try:
        if not (env.get("DATABASE_URL") and env.get("REDIS_URL")):
            running = _running_room_env()
            if running:
                env.update({name: url for name, url in running.items() if not env.get(name)})
            else:
                env = services.start(env)
        return subprocess.run([PY, "manage.py", *args], cwd=BASE_DIR, env=env).returncode
    finally:
        services.stop()


def exec_command(command: list[str]) -> int:
    signal.signal(signal.SIGTERM, _raise_stop)
    services = Services(BASE_DIR / "var" / "test", for_tests=True)
    try:
        env = services.start(dict(os.environ))
        proc = subprocess.Popen(command, cwd=BASE_DIR, env=env)
        try:
            return proc.wait()
        except (KeyboardInterrupt, Stop):
            stop_child(proc, sig=signal.SIGINT, timeout=30)
            return 130
    finally:
        services.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pokerroom.supervisor")
    sub = parser.add_subparsers(dest="mode", required=True)
    for mode in ("run", "serve"):
        mode_parser = sub.add_parser(mode)
        mode_parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        mode_parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        if mode == "serve":
            mode_parser.add_argument("--worker", action="store_true", help="a Celery worker too")
            mode_parser.add_argument(
                "--beat", action="store_true", help="Celery beat too (one in the whole room)"
            )
    exec_parser = sub.add_parser("exec")
    exec_parser.add_argument("command", nargs=argparse.REMAINDER)
    manage_parser = sub.add_parser("manage")
    manage_parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.mode == "run":
        return run(args.host, args.port)
    if args.mode == "serve":
        return serve(args.host, args.port, worker=args.worker, beat=args.beat)
    if args.mode == "manage":
        return manage_command(args.args)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("exec needs a command")
    return exec_command(command)


if __name__ == "__main__":
    sys.exit(main())
