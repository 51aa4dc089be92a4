"""What the load, fault and privacy benches share: the room's processes started as in production, players
created and logged in through the ORM, and bot players speaking the table protocol over real WebSockets.

Not a test fixture: everything here runs from a plain script (`bench/load.py`, `bench/faults.py`,
`bench/privacy.py`). The room is daphne + a Celery worker (with beat, `-B`) + PostgreSQL + Redis: embedded
servers under `var/bench/` (as `make run` starts them), or the servers DATABASE_URL / REDIS_URL name.
Everything is bounded: every wait has a deadline, every run a fixed number of players and seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BASE_DIR))

from pokerroom.embedded import EmbeddedPostgres, EmbeddedRedis, free_port, stop_child, wait_for_port  # noqa: E402
from pokerroom.supervisor import web_listening  # noqa: E402

PY = sys.executable
BENCH_DB = "bench_room"
QUIET_SECONDS = 10.0  # a table silent this long: a bot looks at its last state again (Bot._read)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S', time.gmtime())} UTC] {message}", flush=True)


def results_write(*, folder, name: str, results: dict, path: Path | None = None) -> Path:
    """Keep a run's figures as JSON beside the others of its kind (or at `path`), and say where."""
    out = path or Path(folder) / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str))
    log(f"figures in {out}")
    return out


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


# --- processes --------------------------------------------------------------------------------------------


class Proc:
    """A child process started like production starts it, its output in a log file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.name, self.command, self.env = name, command, env
        self.log_path = folder / f"{name}.log"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill9(self) -> None:
        """SIGKILL the whole process group (a prefork worker's children and beat die with it)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15) -> None:
        stop_child(self.proc, timeout=timeout)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # leftovers of the group, if any
        except (ProcessLookupError, PermissionError):
            pass
        self._log.close()

    def tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [child.pid for child in psutil.Process(pid).children()]
    except psutil.NoSuchProcess:
        return []


def tree_cpu_seconds(pid: int | None) -> float:
    """CPU seconds (user + system) of a process and its descendants, the reaped ones included."""
    import psutil

    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        times = root.cpu_times()
        total = times.user + times.system + times.children_user + times.children_system
        for child in root.children(recursive=True):
            try:
                t = child.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return total
    except psutil.NoSuchProcess:
        return 0.0


class Room:
    """PostgreSQL, Redis, daphne(s) and Celery worker(s), as `make run` starts them (embedded servers where
    DATABASE_URL / REDIS_URL are unset)."""

    def __init__(self, folder: Path, *, pg_fast: bool = False, address_limits: bool = False) -> None:
        self.folder = folder
        self.pg_fast = pg_fast
        # The bench's clients all come from 127.0.0.1: the room's limits per address (tables/ws_limits.py: an
        # anonymous address's sockets, its messages, `sync`) would refuse its spectators, so they are lifted,
        # unless a bench measures them (bench/abuse.py).
        self.address_limits = address_limits
        self.pg: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.env: dict[str, str] = {}
        self.daphnes: list[Proc] = []
        self.web: Proc | None = None  # the supervisor's web processes (start_web)
        self.web_pids: dict[str, int] = {}
        self.workers: list[Proc] = []
        self.extra: list[Proc] = []
        self.bot_pids: list[int] = []  # bot processes besides this one (bench/load.py --bot-processes)
        self.ports: dict[str, int] = {}

    # services
    def start_services(self) -> dict[str, str]:
        raise_fd_limit()
        env = dict(os.environ)
        env.setdefault("DJANGO_SETTINGS_MODULE", "pokerroom.settings")
        env["DEBUG"] = env.get("BENCH_DEBUG", "0")
        env.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex)
        env.setdefault("ALLOWED_HOSTS", "localhost,127.0.0.1")
        env["SECURE_SSL"] = "0"
        env.setdefault("LOG_LEVEL", "WARNING")
        if not self.address_limits:
            for name in ("ROOM_ANONYMOUS_PER_TABLE", "ROOM_ANONYMOUS_PER_ADDRESS", "ROOM_ADDRESS_BURST"):
                env.setdefault(name, "1000000")
            env.setdefault("ROOM_ADDRESS_RATE", "1000000")
            env.setdefault("ROOM_SYNC_RATE", "1000")
            env.setdefault("ROOM_SYNC_BURST", "1000")
        if not env.get("DATABASE_URL"):
            self.pg = EmbeddedPostgres(self.folder / "pg", fast=self.pg_fast)
            self.pg.start()
            self._fresh_database(self.pg.url("postgres"))
            env["DATABASE_URL"] = self.pg.url(BENCH_DB)
            log(
                f"embedded PostgreSQL on 127.0.0.1:{self.pg.port} (fsync {'off' if self.pg_fast else 'on'}), "
                f"fresh database {BENCH_DB}"
            )
        else:
            self._ensure_database(env["DATABASE_URL"])
        if not env.get("REDIS_URL"):
            shutil.rmtree(self.folder / "redis", ignore_errors=True)  # a fresh Redis: no queue of a past run
            self.redis = EmbeddedRedis(self.folder / "redis", persistent=True)
            env["REDIS_URL"] = self.redis.start()
            self._flush_redis(env["REDIS_URL"])
            log(f"embedded Redis on 127.0.0.1:{self.redis.port} (append-only file on)")
        self.env = env
        os.environ.update(
            {
                k: env[k]
                for k in (
                    "DATABASE_URL",
                    "REDIS_URL",
                    "DEBUG",
                    "SECRET_KEY",
                    "ALLOWED_HOSTS",
                    "SECURE_SSL",
                    "DJANGO_SETTINGS_MODULE",
                    "LOG_LEVEL",
                )
            }
        )
        return env

    @staticmethod
    def _fresh_database(admin_url: str) -> None:
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {BENCH_DB}")

    @staticmethod
    def _ensure_database(url: str) -> None:
        import psycopg

        base, name = url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')

    @staticmethod
    def _flush_redis(url: str) -> None:
        import redis

        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 60
        while True:
            try:
                client.flushdb()
                break
            except redis.BusyLoadingError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        client.close()

    def migrate(self) -> None:
        started = time.monotonic()
        subprocess.run(
            [PY, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=self.env, check=True
        )
        log(f"migrated ({time.monotonic() - started:.1f} s)")

    def django_setup(self) -> None:
        import django

        django.setup()

    # processes
    def start_daphne(
        self, app: str = "pokerroom.asgi:application", *, port: int | None = None, name: str = "daphne"
    ) -> Proc:
        port = port or free_port()
        proc = Proc(
            name,
            [PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app],
            {**self.env, "PORT": str(port)},
            self.folder,
        )
        try:
            wait_for_port(port, timeout=60, proc=proc.proc, what=name)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{proc.tail()}") from exc
        proc.port = port  # type: ignore[attr-defined]
        return proc

    def start_web(self, *, processes: int) -> Proc:
        """The room's web processes as `make run` starts them: the supervisor's `serve`, `processes` daphnes
        on one port (a socket each, the kernel spreading connections over them). Returns once all listen."""
        port = free_port()
        command = [PY, "-m", "pokerroom.supervisor", "serve", "--port", str(port)]
        proc = Proc("web", command, {**self.env, "ROOM_WEB_PROCESSES": str(processes)}, self.folder)
        proc.port = port  # type: ignore[attr-defined]
        self.web = proc
        deadline = time.monotonic() + 120
        while len(listening := web_listening(_children(proc.pid), port)) < processes:
            if not proc.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web processes did not start\n{proc.tail()}")
            time.sleep(0.2)
        self.web_pids = {f"daphne{n}": pid for n, pid in enumerate(sorted(listening), start=1)}
        return proc

    def start_worker(
        self, *, beat: bool = True, name: str = "worker", pool: str = "prefork", concurrency: int = 2
    ) -> Proc:
        hostname = f"bench-{name}-{uuid.uuid4().hex[:6]}@localhost"
        command = [
            PY,
            "-m",
            "celery",
            "-A",
            "pokerroom",
            "worker",
            "-l",
            "warning",
            "-P",
            pool,
            "--concurrency",
            str(concurrency),
            "-n",
            hostname,
            "--without-mingle",
            "--without-gossip",
        ]
        if beat:
            command += ["-B", "-s", str(self.folder / f"beat-{uuid.uuid4().hex[:6]}")]
        proc = Proc(name, command, self.env, self.folder)
        import redis

        client = redis.Redis.from_url(self.env["REDIS_URL"])
        deadline = time.monotonic() + 60
        while not client.exists(f"room:worker:{hostname}"):
            if not proc.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start\n{proc.tail()}")
            time.sleep(0.1)
        client.close()
        return proc

    def redis_restart(self) -> float:
        """Stop the embedded Redis (SIGTERM: it writes its append-only file) and start it again on the same
        port. Returns the seconds it was away."""
        assert self.redis is not None, "a Redis restart needs the embedded Redis"
        started = time.monotonic()
        port = self.redis.port
        self.redis.stop()
        binary_args = self.redis.proc.args
        self.redis.proc = subprocess.Popen(binary_args, stdout=subprocess.DEVNULL, start_new_session=True)
        wait_for_port(port, timeout=30, proc=self.redis.proc, what="Redis")
        return time.monotonic() - started

    def cpu_pids(self) -> dict[str, int | None]:
        pids: dict[str, int | None] = {}
        for proc in self.daphnes:
            pids[proc.name] = proc.pid
        pids.update(self.web_pids)
        for proc in self.workers:
            pids[proc.name] = proc.pid
        for proc in self.extra:
            pids[proc.name] = proc.pid
        pids["postgres"] = self.pg.proc.pid if self.pg and self.pg.proc else None
        pids["redis"] = self.redis.proc.pid if self.redis and self.redis.proc else None
        return pids

    def cpu_snapshot(self) -> dict[str, float]:
        """CPU seconds so far of each process (with its own children), and of the bots: this process alone
        (not its children: daphne, the workers, PostgreSQL and Redis are its children too) plus the bot
        processes of `bot_pids`, if any."""
        import psutil

        snapshot = {name: tree_cpu_seconds(pid) for name, pid in self.cpu_pids().items()}
        own = psutil.Process().cpu_times()
        snapshot["bots"] = own.user + own.system + sum(tree_cpu_seconds(pid) for pid in self.bot_pids)
        return snapshot

    def stop(self) -> None:
        for proc in [*self.extra, *self.daphnes, *([self.web] if self.web else []), *self.workers]:
            if proc.alive():
                proc.stop(timeout=45)
        if self.redis:
            self.redis.stop()
        if self.pg:
            self.pg.stop()


# --- players ----------------------------------------------------------------------------------------------


@dataclass
class Player:
    user_id: int
    name: str
    session: str
    table_id: int
    seat: int


def tables_create(
    *,
    count: int,
    seats: int = 6,
    action_seconds: int = 20,
    time_bank_seconds: int = 30,
    prefix: str = "Load",
    **settings,
) -> list:
    """`count` play-chip NL Hold'em 1/2 tables; `settings`: any other Table fields (limits, bots_allowed)."""
    from tables.management.commands.seed_demo import rake_schedules_seed
    from tables.models import Currency, Structure, Table

    schedule, _nickel = rake_schedules_seed()
    tag = uuid.uuid4().hex[:6]
    return [
        Table.objects.create(
            name=f"{prefix} {tag} {n}",
            currency=Currency.PLAY,
            small_blind=1,
            big_blind=2,
            structure=Structure.NO_LIMIT,
            seats=seats,
            rake_schedule=schedule,
            action_seconds=action_seconds,
            time_bank_seconds=time_bank_seconds,
            **settings,
        )
        for n in range(1, count + 1)
    ]


def players_create(*, tables: list, per_table: int, prefix: str = "load") -> list[Player]:
    """Users (people, not house bots: a table deals only with a person seated), their welcome play chips,
    and a logged-in session each (what the login form would store)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore

    from cashier import services as cashier

    User = get_user_model()
    tag = uuid.uuid4().hex[:5]
    unusable = make_password(None)
    users = User.objects.bulk_create(
        [
            User(username=f"{prefix}{tag}-{t}-{s}", password=unusable, email="")
            for t in range(len(tables))
            for s in range(per_table)
        ]
    )
    # The backend a login records is the one that authenticated the user: never Axes' (it only refuses
    # locked-out attempts and has no get_user), so the first other backend.
    backend = next(
        (b for b in getattr(settings, "AUTHENTICATION_BACKENDS", []) if not b.startswith("axes.")),
        "django.contrib.auth.backends.ModelBackend",
    )
    players = []
    for index, user in enumerate(users):
        cashier.play_chips_welcome(user=user)
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        table = tables[index // per_table]
        players.append(Player(user.pk, user.username, store.session_key, table.id, index % per_table + 1))
    return players


# --- the bot players --------------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, act sent -> its broadcast received
    # the same, of the acts that ended their hand (settled, the seats' requests carried out): the heavy ones
    latencies_hand_end: list[float] = field(default_factory=list)
    # the same, of each hand's first act, the one after the deal (made by the worker, another process: the web
    # process reads the new hand with the players' cards, and its first act is then one statement as any other)
    latencies_first_act: list[float] = field(default_factory=list)
    acts_sent: int = 0
    acts_confirmed: int = 0
    errors: Counter = field(default_factory=Counter)
    sent: Counter = field(default_factory=Counter)  # messages sent while measuring, by type
    gaps: int = 0  # a seq jumped (a message missing at that moment)
    reordered: int = 0  # a missing seq arrived later
    connects: int = 0
    disconnects: int = 0
    connect_failures: int = 0
    frames: int = 0
    measuring: bool = False
    last_action_at: dict = field(default_factory=dict)  # table id -> monotonic time of the last `acted`

    def missing_total(self, bots) -> int:
        return sum(len(bot.missing) for bot in bots)


class Bot:
    """A player on a real WebSocket: joins its seat, acts on its turn with `bot_choose` (the house bots' former
    policy) at once or after a think time, tops up and sits in when broke, reconnects when dropped.

    `spectator=True`: only watches. `capture=True`: keeps every frame received (for the privacy check)."""

    def __init__(
        self,
        *,
        url: str,
        origin: str,
        stats: Stats,
        table_id: int,
        player: Player | None = None,
        think: float = 0.0,
        rng: random.Random | None = None,
        capture: bool = False,
        buy_in: int = 200,
        max_buy_in: int = 200,
        big_blind: int = 2,
    ) -> None:
        self.url, self.origin, self.stats = url, origin, stats
        self.table_id = table_id
        self.player = player
        self.think = think
        self.rng = rng or random.Random()
        self.capture = capture
        self.frames: list[dict] = []
        self.buy_in, self.max_buy_in, self.big_blind = buy_in, max_buy_in, big_blind
        self.ws = None
        self.last_seq = 0
        self.missing: set[int] = set()
        self.decided: tuple[int, int] | None = None  # the last decision answered
        self.pending: tuple[int, int, float] | None = None  # (hand id, action no, sent at)
        self.frame_ends_hand = False  # the frame being read ended a hand
        self.hand_first_action: tuple[int, int] | None = None  # (hand id, its action_no when first seen)
        self.state: dict | None = None
        self.connected = asyncio.Event()
        self.synced_at: float | None = None  # when the first state after the latest connect arrived
        self.acting = True
        self.last_fix = 0.0
        self.topped_up_from: int | None = None  # the stack our last top-up was asked from
        self.sitting_in = False  # a sit_in sent, and no state since showing us back in
        self.seen_seated = False
        self.join_pending = False  # a join sent on this connection that no state or error has answered yet
        self._think_task: asyncio.Task | None = None

    # connection
    async def run(self, stop: asyncio.Event, *, connect_gate: asyncio.Semaphore | None = None) -> None:
        import websockets

        headers = {"Cookie": f"sessionid={self.player.session}"} if self.player else {}
        backoff = 0.2
        while not stop.is_set():
            try:
                if connect_gate is not None:
                    async with connect_gate:
                        self.ws = await websockets.connect(
                            self.url,
                            origin=self.origin,
                            additional_headers=headers,
                            open_timeout=120,
                            max_queue=None,
                            ping_interval=None,
                        )
                else:
                    self.ws = await websockets.connect(
                        self.url,
                        origin=self.origin,
                        additional_headers=headers,
                        open_timeout=120,
                        max_queue=None,
                        ping_interval=None,
                    )
            except (TimeoutError, OSError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                self.stats.connect_failures += 1
                await self._sleep(stop, backoff)
                backoff = min(1.0, backoff * 1.5)
                continue
            backoff = 0.2
            self.stats.connects += 1
            self.synced_at = None
            self.pending = None
            self.join_pending = False  # the new connection's first state says whether a join took
            self.connected.set()
            try:
                await self._read(stop)
            except websockets.ConnectionClosed:
                pass
            finally:
                self.connected.clear()
                if self._think_task:
                    self._think_task.cancel()
            if not stop.is_set():
                self.stats.disconnects += 1
                await self._sleep(stop, 0.1 + self.rng.random() * 0.3)
        if self.ws is not None:
            await self.ws.close()

    @staticmethod
    async def _sleep(stop: asyncio.Event, seconds: float) -> None:
        try:
            await asyncio.wait_for(stop.wait(), timeout=seconds)
        except TimeoutError:
            pass

    async def _read(self, stop: asyncio.Event) -> None:
        """Read frames until `stop`. A table with nothing to say for QUIET_SECONDS has the bot look at its last
        state again, as a person looks at the screen: a top-up it held back (the last state showed the stack it
        had just topped up from, so it seemed older than the top-up) is made then, where no later state would
        ever come to prompt it (a table whose players all busted again waits for them forever)."""
        stop_wait = asyncio.ensure_future(stop.wait())
        recv = None
        try:
            while True:
                recv = recv or asyncio.ensure_future(self.ws.recv())
                done, _ = await asyncio.wait(
                    {recv, stop_wait}, timeout=QUIET_SECONDS, return_when=asyncio.FIRST_COMPLETED
                )
                if stop_wait in done:
                    recv.cancel()
                    return
                if recv not in done:
                    if self.state is not None and self.player is not None:
                        await self.on_state(self.state)
                    continue
                frame, recv = recv.result(), None
                await self.handle(json.loads(frame))
        finally:
            stop_wait.cancel()
            if recv is not None:
                recv.cancel()

    async def join(self) -> None:
        """Ask for our seat. The room answers a join with a state that seats us or with an error, however
        long it waits for the table; until then the states that still show the seat empty are older than the
        join, and joining again only earns an `already_seated` refusal."""
        self.join_pending = True
        self.last_fix = time.monotonic()
        await self.send(type="join", seat=self.player.seat, buy_in=self.buy_in, post="now")

    async def send(self, **message) -> None:
        if self.stats.measuring:
            self.stats.sent[message.get("type")] += 1
        try:
            await self.ws.send(json.dumps(message))
        except Exception:  # noqa: BLE001 - a dropped connection: the reader reconnects
            pass

    # messages
    async def handle(self, frame: dict) -> None:
        """One frame: a message, or one change's messages together (`batch`, for `?frames=batch`)."""
        self.stats.frames += 1
        messages = frame.get("messages", ()) if frame.get("type") == "batch" else (frame,)
        # A change that ended a hand: its act is counted among `latencies_hand_end` too (batched frames only:
        # unbatched, the `acted` that confirms an act comes before the end of its hand).
        self.frame_ends_hand = any(message.get("event") == "hand_ended" for message in messages)
        for message in messages:
            await self.handle_message(message)

    async def handle_message(self, message: dict) -> None:
        now = time.monotonic()
        if self.capture:
            self.frames.append(message)
        kind = message.get("type")
        seq = message.get("seq")
        if kind in ("state", "event") and isinstance(seq, int):
            if kind == "state" and self.synced_at is None:
                self.synced_at = now  # the first state of a connection gives the current seq
                self.missing = {s for s in self.missing if s > seq}
                self.last_seq = max(self.last_seq, seq)
            elif seq > self.last_seq + 1 and self.last_seq:
                self.stats.gaps += 1
                self.missing.update(range(self.last_seq + 1, seq))
                self.last_seq = seq
                await self.send(type="sync")
            elif seq <= self.last_seq:
                if seq in self.missing:
                    self.missing.discard(seq)
                    self.stats.reordered += 1
            else:
                self.last_seq = seq
        if kind == "error":
            if self.stats.measuring:
                self.stats.errors[message.get("code")] += 1
            if self.pending is not None:
                self.pending = None
            self.join_pending = False  # unseated, a bot sends nothing else that can be refused
            return
        if self.player is None:
            return
        if kind == "event" and message.get("event") == "acted":
            self.stats.last_action_at[self.table_id] = now
            if self.pending is not None and message.get("seat") == self.player.seat:
                self._confirm(now)
            return
        if kind == "state":
            self.state = message
            hand = message.get("hand")
            if hand is not None and (
                self.hand_first_action is None or self.hand_first_action[0] != hand["id"]
            ):
                self.hand_first_action = (hand["id"], hand["action_no"])
            if (
                self.pending is not None
                and hand is not None
                and (hand["id"] != self.pending[0] or hand["action_no"] > self.pending[1])
            ):
                self._confirm(now)
            await self.on_state(message)

    def _confirm(self, now: float) -> None:
        if self.pending is None:
            return
        if self.stats.measuring:
            self.stats.latencies.append(now - self.pending[2])
            if self.frame_ends_hand:
                self.stats.latencies_hand_end.append(now - self.pending[2])
            if self.hand_first_action == self.pending[:2]:
                self.stats.latencies_first_act.append(now - self.pending[2])
            self.stats.acts_confirmed += 1
        self.pending = None

    def my_row(self, state: dict) -> dict | None:
        return next(
            (row for row in state["seats"] if (row.get("player") or {}).get("name") == self.player.name), None
        )

    async def on_state(self, state: dict) -> None:
        row = self.my_row(state)
        now = time.monotonic()
        if row is not None:
            self.seen_seated = True
            self.join_pending = False
        if row is None:
            # Not seated yet: sit down. Once seen seated, a state without us is only a late one (a busy
            # client reads old frames), and so is one while our join waits for its answer: joining again
            # would only cost the server a refused `already_seated`.
            if not self.acting or self.seen_seated or self.join_pending:
                return
            if now - self.last_fix > 5:
                await self.join()
            return
        # A state still showing the stack from before our last top-up is an old one (a busy client reads late
        # frames): topping up from it again would ask for more than the maximum buy-in.
        waiting_top_up = self.topped_up_from == row["stack"] and now - self.last_fix < 10
        # A state still showing us out after our sit_in is one from before it (the top-up's, read late by a
        # busy client): asking again would cost the room a locked change that changes nothing. One showing
        # us back in ends the wait; a refused sit_in (an error) is asked again after 10 s.
        if row["status"] != "sitting_out":
            self.sitting_in = False
        waiting_sit_in = self.sitting_in and now - self.last_fix < 10
        if (
            self.acting
            and row["status"] == "sitting_out"
            and now - self.last_fix > 2
            and not waiting_top_up
            and not waiting_sit_in
        ):
            # Broke, or timed out twice: buy back up and come back. A seat sitting out is not in the hand in
            # play, so this need not wait for the hand to end (hands won without a showdown never show a state
            # without a hand: the winner may show until the next deal).
            self.last_fix = now
            self.sitting_in = True
            if row["stack"] < self.max_buy_in:  # the top-up sits us back in with the same change
                self.topped_up_from = row["stack"]
                await self.send(type="top_up", amount=self.max_buy_in - row["stack"], sit_in="now")
            else:
                await self.send(type="sit_in", post="now")
            return
        legal = state.get("legal")
        hand = state.get("hand")
        if not (self.acting and legal and hand):
            return
        decision = (hand["id"], hand["action_no"])
        if decision == self.decided:
            return
        self.decided = decision
        if self.think > 0:
            delay = self.think * (0.5 + self.rng.random())
            self._think_task = asyncio.ensure_future(self._act_later(delay, decision, state))
        else:
            await self._act(decision, state)

    async def _act_later(self, delay: float, decision: tuple[int, int], state: dict) -> None:
        await asyncio.sleep(delay)
        current = self.state.get("hand") if self.state else None
        if current and (current["id"], current["action_no"]) == decision and self.state.get("legal"):
            await self._act(decision, self.state)

    async def _act(self, decision: tuple[int, int], state: dict) -> None:
        from tables.bots import bot_choose

        pot = sum(p["amount"] for p in state.get("pots") or []) + sum(r["bet"] for r in state["seats"])
        kind, amount = bot_choose(legal=state["legal"], pot=pot, stack=0, rng=self.rng)
        message = {"type": "act", "action": kind, "hand_id": decision[0], "action_no": decision[1]}
        if amount is not None:
            message["amount"] = amount
        self.pending = (*decision, time.monotonic())
        if self.stats.measuring:
            self.stats.acts_sent += 1
        await self.send(**message)


def latency_summary(stats: Stats) -> dict:
    """p50/p95/p99/max/n of every confirmed act, of the acts that ended their hand (`hand_end`) and of each
    hand's first act after its deal (`first_act`)."""

    def summary(seconds: list[float]) -> dict:
        ms = [x * 1000 for x in seconds]
        return {
            "p50": percentile(ms, 50),
            "p95": percentile(ms, 95),
            "p99": percentile(ms, 99),
            "max": max(ms) if ms else float("nan"),
            "n": len(ms),
        }

    return {
        **summary(stats.latencies),
        "hand_end": summary(stats.latencies_hand_end),
        "first_act": summary(stats.latencies_first_act),
    }


def tables_stalled(stats: Stats, table_ids, *, now: float, quiet: float) -> list[int]:
    return [t for t in table_ids if now - stats.last_action_at.get(t, 0) > quiet]


def ledger_check_run(env: dict[str, str]) -> tuple[bool, str]:
    done = subprocess.run(
        [PY, "manage.py", "ledger_check"], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300
    )
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def group_by(items, key) -> dict:
    out = defaultdict(list)
    for item in items:
        out[key(item)].append(item)
    return out
