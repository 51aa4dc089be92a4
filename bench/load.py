"""Load: N bot players on real WebSockets against the room started as in production, and the bare stack's
ceiling measured the same way in the same run.

    python bench/load.py                                  # 900 players on 150 six-max tables, saturated
    python bench/load.py --players 60 --tables 10 --seconds 30
    python bench/load.py --think 2                         # each bot thinks 0.5x-1.5x 2 s before acting
    python bench/load.py --daphnes 1 --workers 2           # one web process (default: one per core), 2 workers
    python bench/load.py --profile 20                      # py-spy on the first daphne for 20 s of the window
    python bench/load.py --bot-processes 2                 # the bots split over 2 OS processes
    python bench/load.py --think 2 --spectators 5           # and 5 anonymous spectators at each table
    python bench/load.py --curve --bot-processes 2         # the capacity curve: 300 to 1,800 players, 2 s think
    python bench/load.py --think 2 --steady                # the window opens once the first hands have ended

The room: PostgreSQL and Redis (embedded under var/bench/, or DATABASE_URL / REDIS_URL), `manage.py
migrate`, the web processes as `make run` starts them (`python -m pokerroom.supervisor serve`: `--daphnes`
daphnes, ROOM_WEB_PROCESSES or one per core by default, on one port, the kernel spreading the bots'
connections over them, so a table's players are on different processes) and a Celery worker with beat
(`-B`, prefork, concurrency 2, as the supervisor starts it). Users, their play chips, their sessions and the tables are created through
the ORM and the cashier's services first; each bot then connects with its session cookie and an Origin,
joins its seat with `join` and plays from `legal` with `tables.bots.bot_choose`.

Phases, one after the other, each with a warm-up and then a measured window of `--seconds`:
1. bare (skip with `--no-bare`): the same number of bots, six to a table, on `bench/bare.py`'s consumer
   (one locked transaction + one group send per action);
2. room: the bots on the room.
Reported per phase: actions/s (acts whose broadcast came back to the actor), latency act -> the `acted`
event for it (or the next `state` with a higher action_no) p50/p95/p99, errors by code, seq gaps (and
how many of them arrived later, out of order), tables with no action in the last 10 s (+ think), and the
CPU each process used (% of one core: daphne, worker, postgres, redis, and the bots: this process alone,
plus the bot processes with `--bot-processes N`). At the end: `manage.py ledger_check`. A JSON copy of the
figures goes to var/bench/.

`--curve`: one run of the room (no bare phase, 2 s think unless `--think`, six to a table) at each of
`--curve-points` players (300,600,900,1200,1800), each in a fresh room; p50/p95/p99, CPU per process and
errors at each, and the knee (the most players with p99 at most 100 ms); a JSON copy and an SVG of the curve
in var/bench/load/ (and at `--svg PATH`), drawn by bench/curve.py, which also draws several runs in one.

`--bot-processes N` (N > 1): the tables are dealt round-robin to N spawned processes, each running the bots
of its tables in its own asyncio loop, in both phases. This process only starts the room, says when to sit
down, when the measured window opens and closes (a shared flag the bot processes follow within 10 ms) and
when to stop, and merges their figures: latencies, counts, errors, gaps, and the last action of each table
as it was when the window closed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import machine  # noqa: E402
from harness import (  # noqa: E402
    BASE_DIR,
    Bot,
    Room,
    Stats,
    latency_summary,
    ledger_check_run,
    log,
    players_create,
    raise_fd_limit,
    results_write,
    tables_create,
    tables_stalled,
)


class BareBot:
    """A bot of the bare phase: acts (after the think time) whenever the table's counter names its seat."""

    def __init__(
        self, *, url: str, seat: int, stats: Stats, think: float, rng: random.Random, table_key: int
    ) -> None:
        self.url, self.seat, self.stats, self.think, self.rng = url, seat, stats, think, rng
        self.ws = None
        self.pending: float | None = None
        self.table_key = table_key

    async def connect(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.url, open_timeout=60, max_queue=None, ping_interval=None)
        self.stats.connects += 1

    async def run(self, stop: asyncio.Event) -> None:
        await self.ws.send(json.dumps({"type": "sync"}))
        try:
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(self.ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                message = json.loads(raw)
                now = time.monotonic()
                self.stats.frames += 1
                if message["type"] == "error":
                    if self.stats.measuring:
                        self.stats.errors[message["code"]] += 1
                    self.pending = None
                    continue
                if message["type"] == "event":
                    self.stats.last_action_at[self.table_key] = now
                    if message["seat"] == self.seat and self.pending is not None:
                        if self.stats.measuring:
                            self.stats.latencies.append(now - self.pending)
                            self.stats.acts_confirmed += 1
                        self.pending = None
                if message["to_act"] == self.seat:
                    if self.think:
                        await asyncio.sleep(self.think * (0.5 + self.rng.random()))
                    self.pending = time.monotonic()
                    if self.stats.measuring:
                        self.stats.acts_sent += 1
                    await self.ws.send(json.dumps({"type": "act", "action_no": message["action_no"]}))
        except Exception:  # noqa: BLE001 - closed under us at the end
            pass
        finally:
            await self.ws.close()


async def gather_bounded(coros, limit: int = 64) -> list:
    gate = asyncio.Semaphore(limit)

    async def one(coro):
        async with gate:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros), return_exceptions=True)


async def hands_steady(hands_count, *, tables: int, timeout: float = 240) -> None:
    """`--steady`: wait until the tables have dealt as many hands again as there are tables (each table's first
    hand over, on average), so that the measured window is a room where hands end all the time. Every table's
    first hand is dealt at once (the tables are resumed together), and at 2 s think the first ~45 s after it
    hold no hand's end anywhere: a window opened then measures a room that only acts."""
    started = time.monotonic()
    count = await asyncio.to_thread(hands_count)
    target = count + tables
    while time.monotonic() - started < timeout:
        count = await asyncio.to_thread(hands_count)
        if count >= target:
            break
        await asyncio.sleep(1)
    log(f"room: steady after {time.monotonic() - started:.1f} s more ({count} hands dealt)")


async def measure(room: Room, stats: Stats, *, warmup: float, seconds: float, profile: int) -> dict:
    await asyncio.sleep(warmup)
    cpu0, t0 = room.cpu_snapshot(), time.monotonic()
    stats.measuring = True
    spy = None
    if profile and room.web_pids:
        out = room.folder / f"profile-daphne-{int(time.time())}.txt"
        spy = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "-p",
                str(room.web_pids["daphne1"]),
                "-d",
                str(min(profile, int(seconds))),
                "-f",
                "raw",
                "-o",
                str(out),
                "-r",
                "50",
                *(["--gil"] if os.environ.get("BENCH_PROFILE_GIL") == "1" else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        log(f"py-spy recording daphne into {out}")
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.monotonic() - t0
    cpu1 = room.cpu_snapshot()
    if spy is not None:
        try:
            spy.wait(timeout=60)
        except subprocess.TimeoutExpired:
            spy.kill()
    cpu = {name: round(100 * (cpu1[name] - cpu0.get(name, 0)) / elapsed, 1) for name in cpu1}
    return {"elapsed": elapsed, "cpu_percent_of_one_core": cpu}


def report(
    name: str, stats: Stats, window: dict, *, stalled: int, tables: int, extra: dict | None = None
) -> dict:
    lat = latency_summary(stats)
    figures = {
        "phase": name,
        "actions_per_second": round(stats.acts_confirmed / window["elapsed"], 1),
        "acts_sent": stats.acts_sent,
        "acts_confirmed": stats.acts_confirmed,
        "latency_ms": {
            k: (round(v, 1) if isinstance(v, float) else v)
            for k, v in lat.items()
            if k not in ("hand_end", "first_act")
        },
        "latency_hand_end_ms": {
            k: (round(v, 1) if isinstance(v, float) else v) for k, v in lat["hand_end"].items()
        },
        "latency_first_act_ms": {
            k: (round(v, 1) if isinstance(v, float) else v) for k, v in lat["first_act"].items()
        },
        "errors": dict(stats.errors),
        "sent": dict(stats.sent),
        "seq_gaps": stats.gaps,
        "seq_reordered": stats.reordered,
        "tables_stalled": f"{stalled}/{tables}",
        "connect_failures": stats.connect_failures,
        "disconnects": stats.disconnects,
        "frames_received": stats.frames,
        **window,
        **(extra or {}),
    }
    log(
        f"{name}: {figures['actions_per_second']} actions/s, latency p50 {lat['p50']:.1f} ms, p95 "
        f"{lat['p95']:.1f} ms, p99 {lat['p99']:.1f} ms (n={lat['n']}), errors {dict(stats.errors)}, "
        f"gaps {stats.gaps} (reordered {stats.reordered}), stalled {stalled}/{tables}"
    )
    end = lat["hand_end"]
    if end["n"]:  # the room's batched frames say which acts ended a hand; the bare stack has no hands
        log(
            f"{name}: acts that ended their hand: p50 {end['p50']:.1f} ms, p95 {end['p95']:.1f} ms, p99 "
            f"{end['p99']:.1f} ms (n={end['n']})"
        )
    first = lat["first_act"]
    if first["n"]:
        log(
            f"{name}: each hand's first act: p50 {first['p50']:.1f} ms, p95 {first['p95']:.1f} ms, p99 "
            f"{first['p99']:.1f} ms (n={first['n']})"
        )
    log(f"{name}: CPU % of one core: {window['cpu_percent_of_one_core']}")
    log(f"{name}: messages sent by the bots: {dict(stats.sent)}")
    return figures


async def bare_phase(room: Room, bare_tables: list, args) -> dict:
    daphne = room.start_daphne("bench.bare:application", name="daphne-bare")
    room.extra.append(daphne)
    stats = Stats()
    rng = random.Random(args.seed)
    per_table = args.players // args.tables
    bots = [
        BareBot(
            url=f"ws://127.0.0.1:{daphne.port}/ws/bare/{table.id}/?seat={seat}",
            seat=seat,
            stats=stats,
            think=args.think,
            rng=rng,
            table_key=table.id,
        )
        for table in bare_tables
        for seat in range(1, per_table + 1)
    ]
    started = time.monotonic()
    results = await gather_bounded([bot.connect() for bot in bots])
    failed = [r for r in results if isinstance(r, Exception)]
    log(f"bare: {len(bots) - len(failed)}/{len(bots)} connected in {time.monotonic() - started:.1f} s")
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(bot.run(stop)) for bot in bots if bot.ws is not None]
    window = await measure(room, stats, warmup=args.warmup, seconds=args.seconds, profile=0)
    now = time.monotonic()
    stalled = len(tables_stalled(stats, {b.table_key for b in bots}, now=now, quiet=10 + 2 * args.think))
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    daphne.stop()
    room.extra.remove(daphne)
    return report(
        "bare",
        stats,
        _bare_cpu_names(window),
        stalled=stalled,
        tables=len(bare_tables),
        extra={"connect_failures": len(failed)},
    )


def _bare_cpu_names(window: dict) -> dict:
    cpu = window["cpu_percent_of_one_core"]
    for name in [n for n in cpu if n.startswith("daphne") and n != "daphne-bare"]:
        cpu[f"{name} (room, idle)"] = cpu.pop(name)
    cpu["daphne (bare app)"] = cpu.pop("daphne-bare", None)
    return window


async def room_phase(room: Room, players, tables, args) -> dict:
    from tables.models import Hand

    stats = Stats()
    rng = random.Random(args.seed + 1)
    origin = f"http://127.0.0.1:{room.web.port}"
    bots = []
    for index, player in enumerate(players):
        bots.append(
            Bot(
                url=table_url(room.web.port, player.table_id, args.frames),
                origin=origin,
                stats=stats,
                table_id=player.table_id,
                player=player,
                think=args.think,
                rng=random.Random(rng.random() + index),
            )
        )
    watchers = spectators_make(
        [(t.id, table_url(room.web.port, t.id, args.frames)) for t in tables for _ in range(args.spectators)],
        origin=origin,
        stats=stats,
    )
    stop = asyncio.Event()
    gate = asyncio.Semaphore(32)
    started = time.monotonic()
    for bot in bots:
        bot.acting = False  # connect everyone first, then sit them down table by table
    tasks = [asyncio.ensure_future(bot.run(stop, connect_gate=gate)) for bot in [*bots, *watchers]]
    deadline = started + 300
    while (
        sum(bot.connected.is_set() for bot in [*bots, *watchers]) < len(bots) + len(watchers)
        and time.monotonic() < deadline
    ):
        await asyncio.sleep(0.5)
    log(
        f"room: {sum(b.connected.is_set() for b in bots)}/{len(bots)} connected in "
        f"{time.monotonic() - started:.1f} s ({stats.connect_failures} failed attempts)"
        + (f"; {sum(w.connected.is_set() for w in watchers)}/{len(watchers)} spectators" if watchers else "")
    )
    for index, bot in enumerate(bots):
        bot.acting = True
        await bot.join()
        if index % args.join_rate == args.join_rate - 1:
            await asyncio.sleep(1)
    table_ids = [t.id for t in tables]
    await tables_deal_when_seated(table_ids, seated=len(players), started=started)
    # warm-up: until every table is playing (or the warm-up bound)
    deadline = time.monotonic() + max(args.warmup, 60)
    while time.monotonic() < deadline:
        playing = sum(1 for t in table_ids if t in stats.last_action_at)
        if playing == len(table_ids):
            break
        await asyncio.sleep(1)
    log(
        f"room: {sum(1 for t in table_ids if t in stats.last_action_at)}/{len(table_ids)} tables playing "
        f"after {time.monotonic() - started:.1f} s"
    )

    def hands_count() -> int:
        from django.db import connection

        try:
            return Hand.objects.filter(table_id__in=table_ids).count()
        finally:
            connection.close()

    if args.steady:
        await hands_steady(hands_count, tables=len(table_ids))
    hands_before = await asyncio.to_thread(hands_count)
    window = await measure(
        room, stats, warmup=min(args.warmup, 5), seconds=args.seconds, profile=args.profile
    )
    now = time.monotonic()
    stalled = tables_stalled(stats, table_ids, now=now, quiet=10 + 2 * args.think)
    hands = await asyncio.to_thread(hands_count) - hands_before
    for line in await asyncio.to_thread(stalled_describe, stalled[:5]):
        log(f"room: stalled {line}")
    for bot in bots:  # stop acting; connections closed
        bot.acting = False
    stop.set()
    await asyncio.wait(tasks, timeout=60)
    lost = sum(len(bot.missing) for bot in [*bots, *watchers])
    return report(
        "room",
        stats,
        window,
        stalled=len(stalled),
        tables=len(tables),
        extra={"hands_started_in_window": hands, "seqs_never_received": lost, "stalled_tables": stalled[:20]},
    )


# --- the bots split over processes (--bot-processes N) ---------------------------------------------------


class Shards:
    """The bot processes of one phase, seen from this process: started with `spawn` (a fresh interpreter,
    no inherited event loop or database connection), told what to do through shared flags, each answering
    on its own pipe. `measuring` is the flag `measure()` sets, as it sets a Stats' own."""

    def __init__(self, room: Room, kind: str, payloads: list) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.room = room
        self.flags = {name: ctx.Event() for name in ("go", "measuring", "stop")}
        self.conns, self.procs = [], []
        for index, payload in enumerate(payloads):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(
                target=shard_main,
                args=(kind, index, len(payloads), payload, theirs, self.flags),
                name=f"bots-{kind}-{index + 1}",
                daemon=True,
            )
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)
        room.bot_pids = [proc.pid for proc in self.procs]

    @property
    def measuring(self) -> bool:
        return self.flags["measuring"].is_set()

    @measuring.setter
    def measuring(self, on: bool) -> None:
        (self.flags["measuring"].set if on else self.flags["measuring"].clear)()

    async def collect(self, kind: str, timeout: float) -> list:
        """Each process's next message, which must be `kind`; None for a process that did not answer in time."""
        out: list = [None] * len(self.conns)
        deadline = time.monotonic() + timeout
        while any(o is None for o in out) and time.monotonic() < deadline:
            for index, conn in enumerate(self.conns):
                if out[index] is None and conn.poll():
                    try:
                        message = conn.recv()
                    except EOFError:
                        raise RuntimeError(
                            f"bot process {index + 1} died (exit {self.procs[index].exitcode})"
                        ) from None
                    if message[0] != kind:
                        raise RuntimeError(f"bot process {index + 1}: {message}")
                    out[index] = message[1]
            await asyncio.sleep(0.1)
        return out

    def stop(self) -> None:
        self.flags["stop"].set()

    def join(self) -> None:
        for proc in self.procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=10)
        for conn in self.conns:
            conn.close()
        self.room.bot_pids = []


def shard_main(kind: str, index: int, count: int, payload: dict, conn, flags: dict) -> None:
    """A bot process: runs its share of the bots in its own asyncio loop, then sends its figures back."""
    try:
        raise_fd_limit()
        if kind == "room":
            import django

            django.setup()  # the bots' policy, tables.bots.bot_choose, is Django code
            result = asyncio.run(room_shard(payload, index, count, conn, flags))
        else:
            result = asyncio.run(bare_shard(payload, conn, flags))
        conn.send(("result", result))
    except BaseException:  # noqa: BLE001 - the parent reports it
        import traceback

        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


async def flag_wait(flag, stop=None) -> None:
    while not flag.is_set() and not (stop is not None and stop.is_set()):
        await asyncio.sleep(0.05)


async def flags_follow(stats: Stats, flags: dict) -> dict:
    """Follow the parent's measuring flag until it says stop; returns the last action of each table as it
    was when the window closed (the stalled count is taken then)."""
    at_close: dict = {}
    while not flags["stop"].is_set():
        measuring = flags["measuring"].is_set()
        if stats.measuring and not measuring:
            at_close = dict(stats.last_action_at)
        stats.measuring = measuring
        await asyncio.sleep(0.01)
    if stats.measuring:
        at_close = dict(stats.last_action_at)
    stats.measuring = False
    return at_close or dict(stats.last_action_at)


def stats_export(stats: Stats, last_action_at: dict, **extra) -> dict:
    return {
        "latencies": stats.latencies,
        "latencies_hand_end": stats.latencies_hand_end,
        "latencies_first_act": stats.latencies_first_act,
        "acts_sent": stats.acts_sent,
        "acts_confirmed": stats.acts_confirmed,
        "errors": dict(stats.errors),
        "sent": dict(stats.sent),
        "gaps": stats.gaps,
        "reordered": stats.reordered,
        "connects": stats.connects,
        "disconnects": stats.disconnects,
        "connect_failures": stats.connect_failures,
        "frames": stats.frames,
        "last_action_at": last_action_at,
        **extra,
    }


def stats_merge(parts: list[dict]) -> Stats:
    merged = Stats()
    for part in parts:
        merged.latencies.extend(part["latencies"])
        merged.latencies_hand_end.extend(part.get("latencies_hand_end", []))
        merged.latencies_first_act.extend(part.get("latencies_first_act", []))
        merged.errors.update(part["errors"])
        merged.sent.update(part.get("sent", {}))
        for name in (
            "acts_sent",
            "acts_confirmed",
            "gaps",
            "reordered",
            "connects",
            "disconnects",
            "connect_failures",
            "frames",
        ):
            setattr(merged, name, getattr(merged, name) + part[name])
        for table, at in part["last_action_at"].items():
            merged.last_action_at[table] = max(at, merged.last_action_at.get(table, 0))
    return merged


def tables_dealt(items: list, count: int) -> list[list]:
    """Round-robin by table: process k gets tables k, k + N, ... with all their seats."""
    return [items[k::count] for k in range(count)]


async def bare_shard(payload: dict, conn, flags: dict) -> dict:
    args, stats = payload["args"], Stats()
    rng = random.Random(payload["seed"])
    bots = [
        BareBot(url=url, seat=seat, stats=stats, think=args.think, rng=rng, table_key=table_id)
        for url, seat, table_id in payload["bots"]
    ]
    results = await gather_bounded([bot.connect() for bot in bots])
    failed = sum(isinstance(r, Exception) for r in results)
    conn.send(("connected", (len(bots) - failed, failed)))
    await flag_wait(flags["go"], flags["stop"])
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(bot.run(stop)) for bot in bots if bot.ws is not None]
    at_close = await flags_follow(stats, flags)
    stop.set()
    if tasks:
        await asyncio.wait(tasks, timeout=30)
    return stats_export(stats, at_close, connect_failed=failed)


async def room_shard(payload: dict, index: int, count: int, conn, flags: dict) -> dict:
    args, stats = payload["args"], Stats()
    bots = [
        Bot(
            url=url,
            origin=payload["origin"],
            stats=stats,
            table_id=player.table_id,
            player=player,
            think=args.think,
            rng=random.Random(seed),
        )
        for player, url, seed in payload["bots"]
    ]
    watchers = spectators_make(payload["spectators"], origin=payload["origin"], stats=stats)
    stop = asyncio.Event()
    gate = asyncio.Semaphore(32)
    for bot in bots:
        bot.acting = False  # connect everyone first, then sit them down table by table
    tasks = [asyncio.ensure_future(bot.run(stop, connect_gate=gate)) for bot in [*bots, *watchers]]
    deadline = time.monotonic() + 300
    while (
        sum(bot.connected.is_set() for bot in [*bots, *watchers]) < len(bots) + len(watchers)
        and time.monotonic() < deadline
    ):
        await asyncio.sleep(0.5)
    conn.send(
        (
            "connected",
            (
                sum(b.connected.is_set() for b in bots),
                stats.connect_failures,
                sum(w.connected.is_set() for w in watchers),
            ),
        )
    )
    await flag_wait(flags["go"], flags["stop"])
    rate = max(1, round(args.join_rate / count))  # together: --join-rate joins a second
    for n, bot in enumerate(bots):
        bot.acting = True
        await bot.join()
        if n % rate == rate - 1:
            await asyncio.sleep(1)
    table_ids = sorted({bot.table_id for bot in bots})
    deadline = time.monotonic() + max(args.warmup, 60) + 60  # the tables deal once everyone is seated
    while time.monotonic() < deadline and not all(t in stats.last_action_at for t in table_ids):
        await asyncio.sleep(1)
    conn.send(("playing", sum(1 for t in table_ids if t in stats.last_action_at)))
    at_close = await flags_follow(stats, flags)
    for bot in bots:  # stop acting; connections closed
        bot.acting = False
    stop.set()
    await asyncio.wait(tasks, timeout=60)
    return stats_export(
        stats, at_close, seqs_never_received=sum(len(bot.missing) for bot in [*bots, *watchers])
    )


def spectators_make(places, *, origin: str, stats: Stats) -> list[Bot]:
    """Anonymous spectators (`--spectators` a table): they connect as the bots do and only read, their seq gaps
    counted with the players'."""
    return [Bot(url=url, origin=origin, stats=stats, table_id=table_id) for table_id, url in places]


async def bare_phase_split(room: Room, bare_tables: list, args) -> dict:
    daphne = room.start_daphne("bench.bare:application", name="daphne-bare")
    room.extra.append(daphne)
    per_table = args.players // args.tables
    started = time.monotonic()
    shards = Shards(
        room,
        "bare",
        [
            {
                "args": args,
                "seed": args.seed + k,
                "bots": [
                    (f"ws://127.0.0.1:{daphne.port}/ws/bare/{table.id}/?seat={seat}", seat, table.id)
                    for table in share
                    for seat in range(1, per_table + 1)
                ],
            }
            for k, share in enumerate(tables_dealt(bare_tables, args.bot_processes))
        ],
    )
    try:
        connected = await shards.collect("connected", timeout=300)
        ok = sum(c[0] for c in connected if c)
        failed = sum(c[1] for c in connected if c)
        log(
            f"bare: {ok}/{args.players} connected in {time.monotonic() - started:.1f} s "
            f"({args.bot_processes} bot processes)"
        )
        shards.flags["go"].set()
        window = await measure(room, shards, warmup=args.warmup, seconds=args.seconds, profile=0)
        now = time.monotonic()
        shards.stop()
        parts = await shards.collect("result", timeout=90)
    finally:
        shards.stop()
        shards.join()
        daphne.stop()
        room.extra.remove(daphne)
    if any(p is None for p in parts):
        raise RuntimeError("a bot process sent no figures")
    stats = stats_merge(parts)
    stalled = len(tables_stalled(stats, [t.id for t in bare_tables], now=now, quiet=10 + 2 * args.think))
    return report(
        "bare",
        stats,
        _bare_cpu_names(window),
        stalled=stalled,
        tables=len(bare_tables),
        extra={"connect_failures": failed, "bot_processes": args.bot_processes},
    )


async def room_phase_split(room: Room, players, tables, args) -> dict:
    from tables.models import Hand

    rng = random.Random(args.seed + 1)
    origin = f"http://127.0.0.1:{room.web.port}"
    seeds = [rng.random() + index for index in range(len(players))]  # the same bots as in one process
    by_table: dict = {}
    for index, player in enumerate(players):
        by_table.setdefault(player.table_id, []).append(
            (player, table_url(room.web.port, player.table_id, args.frames), seeds[index])
        )
    started = time.monotonic()
    shards = Shards(
        room,
        "room",
        [
            {
                "args": args,
                "origin": origin,
                "bots": [bot for table in share for bot in by_table[table.id]],
                "spectators": [
                    (table.id, table_url(room.web.port, table.id, args.frames))
                    for table in share
                    for _ in range(args.spectators)
                ],
            }
            for share in tables_dealt(tables, args.bot_processes)
        ],
    )
    table_ids = [t.id for t in tables]

    def hands_count() -> int:
        from django.db import connection

        try:
            return Hand.objects.filter(table_id__in=table_ids).count()
        finally:
            connection.close()

    try:
        connected = await shards.collect("connected", timeout=330)
        log(
            f"room: {sum(c[0] for c in connected if c)}/{len(players)} connected in "
            f"{time.monotonic() - started:.1f} s ({sum(c[1] for c in connected if c)} failed attempts, "
            f"{args.bot_processes} bot processes)"
            + (
                f"; {sum(c[2] for c in connected if c)}/{args.spectators * len(tables)} spectators"
                if args.spectators
                else ""
            )
        )
        shards.flags["go"].set()
        joins = len(players) / args.join_rate
        await tables_deal_when_seated(table_ids, seated=len(players), started=started, timeout=joins + 120)
        playing = await shards.collect("playing", timeout=max(args.warmup, 60) + 30)
        log(
            f"room: {sum(p for p in playing if p)}/{len(tables)} tables playing after "
            f"{time.monotonic() - started:.1f} s"
        )
        if args.steady:
            await hands_steady(hands_count, tables=len(table_ids))
        hands_before = await asyncio.to_thread(hands_count)
        window = await measure(
            room, shards, warmup=min(args.warmup, 5), seconds=args.seconds, profile=args.profile
        )
        now = time.monotonic()
        hands = await asyncio.to_thread(hands_count) - hands_before
        shards.stop()
        parts = await shards.collect("result", timeout=120)
    finally:
        shards.stop()
        shards.join()
    if any(p is None for p in parts):
        raise RuntimeError("a bot process sent no figures")
    stats = stats_merge(parts)
    stalled = tables_stalled(stats, table_ids, now=now, quiet=10 + 2 * args.think)
    for line in await asyncio.to_thread(stalled_describe, stalled[:5]):
        log(f"room: stalled {line}")
    lost = sum(p["seqs_never_received"] for p in parts)
    return report(
        "room",
        stats,
        window,
        stalled=len(stalled),
        tables=len(tables),
        extra={
            "hands_started_in_window": hands,
            "seqs_never_received": lost,
            "stalled_tables": stalled[:20],
            "bot_processes": args.bot_processes,
        },
    )


async def tables_deal_when_seated(
    table_ids: list[int], *, seated: int, started: float, timeout: float = 120
) -> None:
    """The room's tables are created paused: the players join, and once `seated` of them sit at these tables
    (or after `timeout` s) staff resume them (`tables.services.table_resume`, as the admin does), so every
    table deals its first hand to all its players. Dealt as the players came, the first hands had two or three
    of them and the others waited for the big blind: with the window opening after the first action, runs
    measured tables still filling (3.6 players a hand in one, 5.8 in another: a lighter room)."""

    def seated_now() -> int:
        from django.db import connection

        from tables.models import Seat

        try:
            return Seat.objects.filter(table_id__in=table_ids, user__isnull=False).count()
        finally:
            connection.close()

    def resume() -> None:
        from django.contrib.auth import get_user_model
        from django.db import connection

        from tables.services import table_resume

        try:
            staff = get_user_model().objects.create(
                username=f"bench-staff-{uuid.uuid4().hex[:6]}", is_staff=True
            )
            for table_id in table_ids:
                table_resume(table_id=table_id, staff_user=staff)
        finally:
            connection.close()

    deadline = time.monotonic() + timeout
    while (count := await asyncio.to_thread(seated_now)) < seated and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    await asyncio.to_thread(resume)
    log(f"room: {count}/{seated} seated after {time.monotonic() - started:.1f} s; the tables deal from now")


def stalled_describe(table_ids: list[int]) -> list[str]:
    """What the database says of stalled tables: their running hand (whose turn, how long past its deadline)
    and their seats, so a stall can be told apart from a table whose bots all sat out."""
    from django.db import connection
    from django.utils import timezone

    from cashier.models import SeatSession
    from tables.models import Hand, Seat

    lines = []
    try:
        for table_id in table_ids:
            hand = Hand.objects.filter(table_id=table_id, status="running").first()
            stacks = dict(
                SeatSession.objects.filter(table_id=table_id, closed_at__isnull=True).values_list(
                    "seat_number", "account__balance"
                )
            )
            seats = ", ".join(
                f"{s.number}:{s.status}:{stacks.get(s.number, 0)}"
                for s in Seat.objects.filter(table_id=table_id, user__isnull=False)
            )
            if hand is None:
                last = Hand.objects.filter(table_id=table_id).order_by("-number").first()
                ended = (
                    f"last hand ended {(timezone.now() - last.ended_at).total_seconds():.1f} s ago"
                    if (last and last.ended_at)
                    else "no hand"
                )
                lines.append(f"table {table_id}: no hand running ({ended}); seats {seats}")
            else:
                late = (timezone.now() - hand.deadline).total_seconds() if hand.deadline else None
                lines.append(
                    f"table {table_id}: hand {hand.number} action {hand.action_no} to act seat "
                    f"{(hand.to_act or 0) + 1}, {late} s past its deadline; seats {seats}"
                )
    finally:
        connection.close()
    return lines


def load_run(args, results: dict) -> bool:
    """One run: the room started as `make run` starts it, its phases, `ledger_check`. Fills `results` as it
    goes; True when the ledger is clean."""
    room = Room(Path(args.folder), pg_fast=args.pg_fast)
    try:
        room.start_services()
        room.migrate()
        room.django_setup()
        started = time.monotonic()
        tables = tables_create(count=args.tables, paused=True)  # dealt once every player is seated
        bare_tables = tables_create(count=args.tables, prefix="Bare") if not args.no_bare else []
        players = players_create(tables=tables, per_table=args.players // args.tables)
        log(
            f"{len(players)} players with sessions and play chips, {len(tables)} tables "
            f"({time.monotonic() - started:.1f} s)"
        )
        for n in range(args.workers):
            room.workers.append(
                room.start_worker(beat=n == 0, name=f"worker{n + 1}" if args.workers > 1 else "worker")
            )
        room.start_web(processes=args.daphnes)
        log(f"{args.daphnes} web process(es) listening on port {room.web.port}")
        from django.db import connection

        connection.close()  # the bots' process keeps no database connection open during the run
        load_before = Path("/proc/loadavg").read_text().split()[:3]
        split = args.bot_processes > 1
        if not args.no_bare:
            results["bare"] = asyncio.run(
                (bare_phase_split if split else bare_phase)(room, bare_tables, args)
            )
        results["room"] = asyncio.run(
            (room_phase_split if split else room_phase)(room, players, tables, args)
        )
        results["loadavg_before"] = load_before
        results["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
        if "bare" in results and results["bare"]["actions_per_second"]:
            results["ratio_to_bare"] = round(
                results["room"]["actions_per_second"] / results["bare"]["actions_per_second"], 3
            )
            log(f"room / bare actions/s: {results['ratio_to_bare']:.2f}")
        ok, text = ledger_check_run(room.env)
        results["ledger_check"] = "clean" if ok else text
        log(f"ledger_check: {'clean' if ok else text}")
        return ok
    finally:
        room.stop()


def curve_main(args) -> int:
    """`--curve`: a load run of the room (its own process, a fresh room) at each of `--curve-points` players,
    six to a table: latency, CPU and errors at each, and the knee; a JSON copy and the curve drawn as SVG."""
    from curve import curve_point, curve_svg, curve_table, knee

    stamp = time.strftime("%Y%m%d-%H%M%S")
    run: dict = {
        "args": vars(args),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "app": app_commit(),
        "web_routing": web_routing(),
        "points": [],
    }
    ok = True
    try:
        for players in args.curve_points:
            log(f"curve: {players} players on {players // 6} tables")
            out = Path(args.folder) / f"curve-{stamp}-{players}.json"
            done = subprocess.run(
                [sys.executable, __file__, *curve_point_argv(args, players), "--json", str(out)], cwd=BASE_DIR
            )
            ok = ok and done.returncode == 0
            run["points"].append(curve_point(players, json.loads(out.read_text()) if out.exists() else {}))
        run["knee"] = knee(run["points"])
    finally:
        out = results_write(folder=args.folder, name="curve", results=run)
        svg = curve_svg([run])
        for path in {out.with_suffix(".svg"), *([Path(args.svg)] if args.svg else [])}:
            path.write_text(svg)
            log(f"curve drawn in {path}")
        print(curve_table([run]), flush=True)
    log(f"knee (the most players with p99 at most 100 ms): {run.get('knee')}")
    return 0 if ok else 1


def web_routing() -> bool:
    """Whether the web processes serve each table's connections on one of them (pokerroom.web_route), as
    they do unless ROOM_WEB_ROUTING is 0; with one web process there is nothing to route."""
    return os.environ.get("ROOM_WEB_ROUTING", "1").strip() != "0"


def table_url(port: int, table_id: int, frames: str) -> str:
    """The room's table socket for a bench bot; `?frames=batch` as the browser's table page asks."""
    query = "?frames=batch" if frames == "batch" else ""
    return f"ws://127.0.0.1:{port}/ws/tables/{table_id}/{query}"


def curve_point_argv(args, players: int) -> list[str]:
    """The load run of one point of the curve: the curve's own options, `players` six to a table, no bare."""
    argv = ["--players", str(players), "--tables", str(players // 6), "--no-bare", "--think", str(args.think)]
    for name in (
        "seconds",
        "warmup",
        "daphnes",
        "workers",
        "seed",
        "bot_processes",
        "join_rate",
        "spectators",
        "folder",
        "profile",
        "frames",
    ):
        argv += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    return argv + (["--pg-fast"] if args.pg_fast else []) + (["--steady"] if args.steady else [])


def app_commit() -> str | None:
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=BASE_DIR, capture_output=True, text=True
    )
    return done.stdout.strip() or None


def curve_points(text: str) -> list[int]:
    try:
        points = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError("players, comma-separated: 300,600,900") from None
    if not points or any(n < 12 or n % 6 for n in points):
        raise argparse.ArgumentTypeError("each point a multiple of 6 players (six to a table), at least 12")
    return points


def main(argv=None) -> int:
    from pokerroom.supervisor import web_processes_count

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=900)
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=60, help="the measured window of each phase")
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument(
        "--steady",
        action="store_true",
        help="open the room's window once every table's first hand is over on average (as many hands again "
        "as tables), not 5 s after the first deals",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=None,
        help="seconds a bot thinks (0: saturated; the default, but 2 with --curve)",
    )
    parser.add_argument("--no-bare", action="store_true")
    parser.add_argument(
        "--daphnes",
        type=int,
        default=web_processes_count(os.environ),
        help="web processes on the room's one port, as make run starts them "
        "(default: ROOM_WEB_PROCESSES, else one per core)",
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--pg-fast", action="store_true", help="embedded PostgreSQL without fsync")
    parser.add_argument(
        "--profile", type=int, default=0, help="py-spy on the first daphne for this many seconds"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=1,
        help="split the bots (by table) over this many OS processes, each with its own loop",
    )
    parser.add_argument("--join-rate", type=int, default=60, help="joins sent a second after all connected")
    parser.add_argument(
        "--spectators", type=int, default=0, help="anonymous spectators a table, connected with the players"
    )
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "load"))
    parser.add_argument(
        "--curve",
        action="store_true",
        help="the capacity curve: a run at each of --curve-points players, six to a table, no bare",
    )
    parser.add_argument("--curve-points", type=curve_points, default=curve_points("300,600,900,1200,1800"))
    parser.add_argument(
        "--svg", help="with --curve: draw the curve here too (docs/...), besides the JSON copy"
    )
    parser.add_argument(
        "--frames",
        choices=("batch", "single"),
        default="batch",
        help="batch: the room's bots ask for a change in one frame, as the browser does; single: a frame a message",
    )
    parser.add_argument("--json", help="write the figures here (default: var/bench/load/load-<time>.json)")
    args = parser.parse_args(argv)
    if args.think is None:
        args.think = 2.0 if args.curve else 0.0
    if args.daphnes < 1:
        parser.error("--daphnes: at least 1")
    if args.curve:
        if not 1 <= args.bot_processes <= min(args.curve_points) // 6:
            parser.error("--bot-processes: 1 to the tables of the smallest point")
        return curve_main(args)
    if args.players % args.tables:
        parser.error("--players must be a multiple of --tables")
    per_table = args.players // args.tables
    if not 2 <= per_table <= 6:
        parser.error("2 to 6 players a table (six-max tables)")
    if not 1 <= args.bot_processes <= args.tables:
        parser.error("--bot-processes: 1 to --tables processes")
    results: dict = {
        "args": vars(args),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "app": app_commit(),
        "web_routing": web_routing(),
        "machine": machine.probe(Path(args.folder)),
    }
    log(machine.describe(results["machine"]))
    ok = False
    try:
        ok = load_run(args, results)
    finally:
        results_write(folder=args.folder, name="load", results=results, path=args.json and Path(args.json))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
