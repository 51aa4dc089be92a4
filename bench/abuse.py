"""The hostile probe of issue 32, measured: floods against a room started as `make run` starts it (two web
processes behind one port, a Celery worker with beat, PostgreSQL, Redis), while seated players play on at two
tables, the victims. Their round trip (an action sent -> its broadcast received, as bench/load.py measures it)
is taken quiet and during each flood, at the flooded table (A) and at another table (B):

  (a) 30 anonymous sockets asking `sync` 9 times a second each at table A;
  (b) 4 lobby sockets of one account sending `waiting_join` / `waiting_leave` for table A (full) 9 times a
      second each, as fast as a connection's own limit allows;
  (c) 200 anonymous connection attempts, half at table A and half at table B, held open;
  (d) 4 sockets of one account sending 4 KB of nested `[[[...]]]` 9 times a second each.

The target: each victim's median round trip during a flood at most 1.5 x its quiet median (the mean of the
quiet phases just before and just after the flood: on a shared machine the quiet figure drifts over minutes). Then `ledger_check`, and the web processes' log searched for tracebacks.

    python bench/abuse.py                  # 30 s a phase
    python bench/abuse.py --seconds 60

Each flood runs in a process of its own, as an attacker's machine would: the victims' event loop (this process)
is not slowed by the flood's own sockets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # noqa: E402
    BASE_DIR,
    Bot,
    Room,
    Stats,
    latency_summary,
    ledger_check_run,
    log,
    players_create,
    results_write,
    tables_create,
)
from machine import describe, probe  # noqa: E402

NESTED = "[" * 2048 + "]" * 2048
TARGET = 1.5


async def _connect(url: str, origin: str, session: str | None):
    import websockets

    headers = {"Cookie": f"sessionid={session}"} if session else {}
    return await websockets.connect(
        url, origin=origin, additional_headers=headers, open_timeout=30, max_queue=None, ping_interval=None
    )


async def _read(ws, tally: Counter) -> None:
    """Count what the server answers this socket (a state, an error by its code), until it closes."""
    import websockets

    try:
        async for frame in ws:
            message = json.loads(frame)
            tally[message.get("code") or message["type"]] += 1
    except websockets.ConnectionClosed:
        pass
    if ws.close_code not in (None, 1000):
        tally[f"closed {ws.close_code}"] += 1


async def _opened(url: str, origin: str, session: str | None, tally: Counter):
    """A socket the server accepted and kept (its first frame not a refusal), or None."""
    try:
        ws = await _connect(url, origin, session)
    except Exception:  # noqa: BLE001 - a refused handshake is a figure, not a failure
        tally["handshake failed"] += 1
        return None
    first = json.loads(await asyncio.wait_for(ws.recv(), 30))
    if first["type"] == "error":
        tally[f"refused {first['code']}"] += 1
        await ws.close()
        return None
    tally["accepted"] += 1
    return ws


async def _send_at(ws, stop: asyncio.Event, rate: float, messages, tally: Counter) -> None:
    """Send the next of `messages` `rate` times a second until `stop` (or the socket closes)."""
    import websockets

    for message in messages:
        if stop.is_set():
            return
        try:
            await ws.send(message)
        except websockets.ConnectionClosed:
            return
        tally["sent"] += 1
        try:
            await asyncio.wait_for(stop.wait(), 1 / rate)
        except TimeoutError:
            pass


async def _hold(sockets, stop: asyncio.Event, tally: Counter, senders=()) -> None:
    readers = [asyncio.ensure_future(_read(ws, tally)) for ws in sockets]
    await asyncio.gather(*senders)
    await stop.wait()
    for ws in sockets:
        await ws.close()
    await asyncio.wait(readers, timeout=10)


def flood_sync(base: str, origin: str, table_a: int):
    async def flood(stop: asyncio.Event, tally: Counter) -> None:
        url = f"{base}/ws/tables/{table_a}/"
        sockets = [
            ws for ws in [await _opened(url, origin, None, tally) for _ in range(30)] if ws is not None
        ]
        sync = json.dumps({"type": "sync"})
        senders = [_send_at(ws, stop, 9, iter(lambda: sync, None), tally) for ws in sockets]
        await _hold(sockets, stop, tally, senders)

    return flood


def flood_lobby(base: str, origin: str, table_a: int, session: str):
    async def flood(stop: asyncio.Event, tally: Counter) -> None:
        sockets = [
            ws
            for ws in [await _opened(f"{base}/ws/lobby/", origin, session, tally) for _ in range(4)]
            if ws is not None
        ]
        changes = [json.dumps({"type": kind, "table": table_a}) for kind in ("waiting_join", "waiting_leave")]

        def alternate():
            n = 0
            while True:
                yield changes[n % 2]
                n += 1

        senders = [_send_at(ws, stop, 9, alternate(), tally) for ws in sockets]
        await _hold(sockets, stop, tally, senders)

    return flood


def flood_connect(base: str, origin: str, table_ids: list[int]):
    async def flood(stop: asyncio.Event, tally: Counter) -> None:
        gate = asyncio.Semaphore(20)

        async def attempt(n: int):
            async with gate:
                return await _opened(
                    f"{base}/ws/tables/{table_ids[n % len(table_ids)]}/", origin, None, tally
                )

        sockets = [ws for ws in await asyncio.gather(*(attempt(n) for n in range(200))) if ws is not None]
        await _hold(sockets, stop, tally)

    return flood


def flood_nested(base: str, origin: str, table_a: int, session: str):
    async def flood(stop: asyncio.Event, tally: Counter) -> None:
        url = f"{base}/ws/tables/{table_a}/"
        sockets = [
            ws for ws in [await _opened(url, origin, session, tally) for _ in range(4)] if ws is not None
        ]
        senders = [_send_at(ws, stop, 9, iter(lambda: NESTED, None), tally) for ws in sockets]
        await _hold(sockets, stop, tally, senders)
        after = await _opened(url, origin, session, tally)  # the account may still open the table
        tally["opened after"] += after is not None
        if after is not None:
            await after.close()

    return flood


FLOODS = {"sync": flood_sync, "lobby": flood_lobby, "connect": flood_connect, "nested": flood_nested}


def flood_process(kind: str, params: dict, conn) -> None:
    """A flood in a process of its own (as an attacker's machine would be: its sockets' work does not share the
    victims' event loop): "ready" when it starts, until the parent sends anything; then sends its tally."""

    async def go() -> Counter:
        stop, tally = asyncio.Event(), Counter()
        task = asyncio.ensure_future(FLOODS[kind](**params)(stop, tally))
        conn.send("ready")
        await asyncio.to_thread(conn.recv)
        stop.set()
        await asyncio.wait_for(task, 60)
        return tally

    conn.send(dict(asyncio.run(go())))


async def phase(name: str, flood: tuple[str, dict] | None, stats: dict[str, Stats], seconds: float) -> dict:
    child, conn, tally = None, None, {}
    if flood is not None:
        context = multiprocessing.get_context("spawn")
        conn, theirs = context.Pipe()
        child = context.Process(target=flood_process, args=(*flood, theirs), daemon=True)
        child.start()
        assert await asyncio.to_thread(conn.recv) == "ready"
    for one in stats.values():
        one.latencies.clear()
        one.latencies_hand_end.clear()
        one.latencies_first_act.clear()
        one.measuring = True
    await asyncio.sleep(seconds)
    for one in stats.values():
        one.measuring = False
    if child is not None:
        conn.send("stop")
        tally = await asyncio.wait_for(asyncio.to_thread(conn.recv), 90)
        child.join(10)
    found = {table: latency_summary(one) for table, one in stats.items()}
    log(
        f"{name}: "
        + ", ".join(f"{t} p50 {s['p50']:.1f} p95 {s['p95']:.1f} ms (n {s['n']})" for t, s in found.items())
        + (f"; flood {dict(tally)}" if tally else "")
    )
    await asyncio.sleep(2)  # what the flood held is released before the next phase
    return {"name": name, "victims": found, "flood": dict(tally)}


async def run(room: Room, players, tables, attacker, args) -> list[dict]:
    port = room.web.port
    base, origin = f"ws://127.0.0.1:{port}", f"http://127.0.0.1:{port}"
    table_a, table_b = (table.id for table in tables)
    stats = {"A": Stats(), "B": Stats()}
    rng = random.Random(args.seed)
    bots = [
        Bot(
            url=f"{base}/ws/tables/{p.table_id}/",
            origin=origin,
            stats=stats["A" if p.table_id == table_a else "B"],
            table_id=p.table_id,
            player=p,
            think=args.think,
            rng=random.Random(rng.random()),
        )
        for p in players
    ]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(bot.run(stop)) for bot in bots]
    await asyncio.sleep(args.warmup)
    where = {"base": base, "origin": origin}
    floods = [
        ("(a) 30 anonymous sockets, sync 9/s each", ("sync", {**where, "table_a": table_a})),
        (
            "(b) 4 lobby sockets, waiting_join/leave 9/s each",
            ("lobby", {**where, "table_a": table_a, "session": attacker.session}),
        ),
        ("(c) 200 anonymous connection attempts", ("connect", {**where, "table_ids": [table_a, table_b]})),
        (
            "(d) 4 sockets, nested JSON 9/s each",
            ("nested", {**where, "table_a": table_a, "session": attacker.session}),
        ),
    ]
    out = [await phase("quiet", None, stats, args.seconds)]
    for name, flood in floods:  # each flood between two quiet phases: the machine's own drift is seen
        out.append(await phase(name, flood, stats, args.seconds))
        out.append(await phase("quiet", None, stats, args.seconds))
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    return out


def verdict(phases: list[dict]) -> list[dict]:
    """Each flood's victims' median against the quiet median around it (the mean of the quiet phases just
    before and just after), per table."""
    rows = []
    for n, p in enumerate(phases):
        if p["flood"] == {}:
            continue
        quiet = {
            table: (phases[n - 1]["victims"][table]["p50"] + phases[n + 1]["victims"][table]["p50"]) / 2
            for table in ("A", "B")
        }
        ratios = {table: p["victims"][table]["p50"] / quiet[table] for table in quiet}
        rows.append(
            {"flood": p["name"], "ratio": ratios, "within": all(r <= TARGET for r in ratios.values())}
        )
        log(
            f"{p['name']}: A {ratios['A']:.2f} x, B {ratios['B']:.2f} x the quiet median "
            f"({'within' if rows[-1]['within'] else 'OVER'} {TARGET} x)"
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=30, help="each phase")
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--think", type=float, default=0.1, help="the victims' think time before acting")
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "abuse"))
    args = parser.parse_args(argv)
    folder = Path(args.folder).resolve()
    room = Room(folder, address_limits=True)  # the room's own limits per address, as `make run` has them
    code = 1
    try:
        machine = probe(folder)
        log(describe(machine))
        room.start_services()
        room.migrate()
        room.django_setup()
        tables = tables_create(count=2, seats=2, prefix="Abuse")
        players = players_create(tables=tables, per_table=2, prefix="victim")
        attacker = players_create(tables=tables[:1], per_table=1, prefix="attacker")[0]
        room.workers.append(room.start_worker(beat=True))
        web_log_from = (folder / "web.log").stat().st_size if (folder / "web.log").exists() else 0
        room.start_web(processes=args.web_processes)
        from django.db import connection

        connection.close()
        phases = asyncio.run(run(room, players, tables, attacker, args))
        rows = verdict(phases)
        ok, text = ledger_check_run(room.env)
        with room.web.log_path.open("rb") as found:  # this run's part (the log is appended to, run after run)
            found.seek(web_log_from)
            web_log = found.read().decode(errors="replace")
        tracebacks = web_log.count("Traceback")
        log(f"ledger_check {'clean' if ok else text}; tracebacks in the web processes' log: {tracebacks}")
        machine_after = probe(folder)
        log(describe(machine_after))
        results_write(
            folder=folder,
            name="abuse",
            results={
                "args": vars(args),
                "machine_before": machine,
                "machine_after": machine_after,
                "phases": phases,
                "verdict": rows,
                "ledger_check": ok,
                "tracebacks": tracebacks,
                "at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            },
        )
        code = 0 if ok and tracebacks == 0 else 1
    finally:
        room.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
