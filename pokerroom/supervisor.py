"""The run supervisor: what `make run` and `make test` start.

    python -m pokerroom.supervisor run [--host 127.0.0.1] [--port 8000]
        embedded PostgreSQL and Redis where DATABASE_URL / REDIS_URL are not set (data in var/run/),
        migrations, demo tables, then daphne, a Celery worker and Celery beat. Ctrl-C (or SIGTERM) stops
        every one of them, the embedded servers last.
    python -m pokerroom.supervisor exec -- COMMAND ...
        the same embedded servers (throw-away data in var/test/) around one command, whose exit code it
        returns: `make test` runs pytest this way.
    python -m pokerroom.supervisor manage ARGS ...
        `manage.py ARGS` against the room's own data: the servers of a running `make run` (their URLs are in
        var/run/urls.env while it runs), or the embedded ones started for the command: `make superuser`.

Children run in sessions of their own, so that a Ctrl-C reaches only this process, which then stops them in
order (web first, the databases last) instead of all at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pokerroom.embedded import EmbeddedPostgres, EmbeddedRedis, stop_child, wait_for_port

BASE_DIR = Path(__file__).resolve().parent.parent
PY = sys.executable
# Where `run` keeps the embedded servers' data (a test points it at a temporary folder).
RUN_DIR = Path(os.environ.get("ROOM_RUN_DIR", BASE_DIR / "var" / "run"))
URLS_FILE = RUN_DIR / "urls.env"
RESTARTS_ALLOWED = 5
RESTART_WINDOW = 60.0


class Stop(Exception):
    pass


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


def run(host: str, port: int) -> int:
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    started_at = time.monotonic()
    services = Services(RUN_DIR, for_tests=False)
    children: list[tuple[str, subprocess.Popen]] = []
    code = 0
    try:
        env = services.start(dict(os.environ))
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        URLS_FILE.write_text(f"DATABASE_URL={env['DATABASE_URL']}\nREDIS_URL={env['REDIS_URL']}\n")
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        commands = [
            ("daphne", [PY, "-m", "daphne", "-b", host, "-p", str(port), "pokerroom.asgi:application"]),
            ("worker", [PY, "-m", "celery", "-A", "pokerroom", "worker", "-l", "info", "--concurrency", "2",
                        "-n", f"worker-{os.getpid()}@%h"]),
            ("beat", [PY, "-m", "celery", "-A", "pokerroom", "beat", "-l", "info",
                      "-s", str(RUN_DIR / "celerybeat-schedule")]),
        ]
        def spawn(command: list[str]) -> subprocess.Popen:
            return subprocess.Popen(command, cwd=BASE_DIR, env=env, start_new_session=True)

        for name, command in commands:
            children.append((name, spawn(command)))
        wait_for_port(port, timeout=60, proc=children[0][1], what="daphne")
        log(f"the room is open at http://{host}:{port}/ ({time.monotonic() - started_at:.1f} s); "
            "Ctrl-C stops everything")
        # A process that dies is started again (the room's state is in PostgreSQL, so nothing is lost; a
        # Celery worker, for one, exits when its broker restarts). One that keeps dying stops the room.
        restarts: dict[str, list[float]] = {name: [] for name, _ in commands}
        while True:
            for index, (name, proc) in enumerate(children):
                if proc.poll() is None:
                    continue
                now = time.monotonic()
                recent = [t for t in restarts[name] if now - t < RESTART_WINDOW] + [now]
                restarts[name] = recent
                if len(recent) > RESTARTS_ALLOWED:
                    log(f"{name} exited with code {proc.returncode} {len(recent)} times in "
                        f"{RESTART_WINDOW:.0f} s; stopping the room")
                    code = 1
                    raise Stop(0)
                log(f"{name} exited with code {proc.returncode}; starting it again")
                children[index] = (name, spawn(dict(commands)[name]))
            time.sleep(0.5)
    except Stop:
        pass
    except (subprocess.CalledProcessError, RuntimeError) as exc:
        log(f"could not start: {exc}")
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        log("stopping…")
        for _name, proc in reversed(children):
            stop_child(proc, timeout=20)
        URLS_FILE.unlink(missing_ok=True)
        services.stop()
        log("stopped")
    return code


def _running_room_env() -> dict[str, str] | None:
    """The URLs of a `make run` that is running now, if its servers answer."""
    import socket
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
    run_parser = sub.add_parser("run")
    run_parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    run_parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    exec_parser = sub.add_parser("exec")
    exec_parser.add_argument("command", nargs=argparse.REMAINDER)
    manage_parser = sub.add_parser("manage")
    manage_parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.mode == "run":
        return run(args.host, args.port)
    if args.mode == "manage":
        return manage_command(args.args)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("exec needs a command")
    return exec_command(command)


if __name__ == "__main__":
    sys.exit(main())
