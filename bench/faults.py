"""Faults during play: kill -9 of daphne, kill -9 of the Celery worker (with its beat), a Redis restart, each
`--times` times (default 20) at random moments, with bot players playing over real WebSockets.

    python bench/faults.py                       # 24 players on 4 tables, 20 faults of each kind
    python bench/faults.py --times 3             # a quick run
    python bench/faults.py --kinds daphne,redis  # some kinds only

The room as in production (embedded PostgreSQL and Redis under var/bench/faults/, daphne on a fixed port so
clients come back to the same address, one Celery worker with `-B`: its beat runs `tables_sweep` every 2 s,
which acts on decisions whose timer was lost). Tables give 5 s a decision and no time bank, so a lost timer
shows quickly. Bots think 0.2-0.6 s, reconnect when dropped (after 0.2-1 s) and send `sync` on a seq gap.

After each fault, once the process is back (listening / its heartbeat in Redis): every client must be back
in sync within 5 s, i.e. connected (for a daphne kill: reconnected, with a fresh `state`) and holding every
message up to the table's `seq` as it was when the process came back; and every table must play on (an
`acted` within 20 s). At the end the bots stop playing and leave; every hand must end `complete` or
`cancelled`, every seat session be closed with nothing left in a seat account, and `ledger_check` be clean.
Figures per kind and the commands go to docs/reliability.md; a JSON copy to var/bench/faults/.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # noqa: E402
    BASE_DIR,
    Bot,
    Room,
    Stats,
    ledger_check_run,
    log,
    percentile,
    players_create,
    results_write,
    tables_create,
)

SYNC_LIMIT = 5.0


def db(fn):
    """Run a blocking ORM call off the event loop, closing its connection afterwards."""

    def call():
        from django.db import connection

        try:
            return fn()
        finally:
            connection.close()

    return asyncio.to_thread(call)


def table_seqs(table_ids) -> dict[int, int]:
    from tables.models import Table

    return dict(Table.objects.filter(id__in=table_ids).values_list("id", "seq"))


async def wait_synced(
    bots: list[Bot], seqs: dict[int, int], *, since: float, reconnect: bool, limit: float = 30
) -> float | None:
    """Seconds until every bot is connected (after `since`, when it had to reconnect) and has seen its table's
    messages up to `seqs`; None if not within `limit`."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        behind = [
            bot
            for bot in bots
            if not bot.connected.is_set()
            or bot.synced_at is None
            or (reconnect and bot.synced_at < since)
            or bot.last_seq < seqs.get(bot.table_id, 0)
        ]
        if not behind:
            return time.monotonic() - started
        await asyncio.sleep(0.05)
    return None


async def wait_progress(stats: Stats, table_ids, *, since: float, limit: float = 20) -> list[int]:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        idle = [t for t in table_ids if stats.last_action_at.get(t, 0) < since]
        if not idle:
            return []
        await asyncio.sleep(0.1)
    return [t for t in table_ids if stats.last_action_at.get(t, 0) < since]


async def run(room: Room, players, tables, args) -> dict:
    rng = random.Random(args.seed)
    stats = Stats()
    port = room.daphnes[0].port
    origin = f"http://127.0.0.1:{port}"
    table_ids = [t.id for t in tables]
    bots = [
        Bot(
            url=f"ws://127.0.0.1:{port}/ws/tables/{p.table_id}/",
            origin=origin,
            stats=stats,
            table_id=p.table_id,
            player=p,
            think=0.4,
            rng=random.Random(rng.random()),
        )
        for p in players
    ]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(bot.run(stop)) for bot in bots]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(stats.last_action_at) < len(table_ids):
        await asyncio.sleep(0.5)
    log(f"{len(stats.last_action_at)}/{len(table_ids)} tables playing")
    stats.measuring = True
    kinds = [k for k in args.kinds.split(",") for _ in range(args.times)]
    rng.shuffle(kinds)
    rows = []
    for number, kind in enumerate(kinds, start=1):
        await asyncio.sleep(rng.uniform(1.0, 4.0))  # a random moment of play
        hit = time.monotonic()
        if kind == "daphne":
            room.daphnes[0].kill9()
            await asyncio.sleep(rng.uniform(0.2, 1.5))
            room.daphnes[0] = await asyncio.to_thread(room.start_daphne, port=port)
            down = time.monotonic() - hit
        elif kind == "worker":
            room.workers[0].kill9()
            await asyncio.sleep(rng.uniform(0.2, 1.5))
            room.workers[0] = await asyncio.to_thread(room.start_worker, beat=True)
            down = time.monotonic() - hit
        else:
            down = await asyncio.to_thread(room.redis_restart)
        back = time.monotonic()
        died = []
        if kind == "redis":
            await asyncio.sleep(3)
            # as a process manager would (systemd Restart=always): a process the restart took down comes back
            if not room.workers[0].alive():
                died.append("worker")
                room.workers[0] = await asyncio.to_thread(room.start_worker, beat=True)
            if not room.daphnes[0].alive():
                died.append("daphne")
                room.daphnes[0] = await asyncio.to_thread(room.start_daphne, port=port)
            if died:
                back = time.monotonic()
        seqs = await db(lambda: table_seqs(table_ids))
        synced = await wait_synced(bots, seqs, since=hit, reconnect=kind == "daphne")
        idle = await wait_progress(stats, table_ids, since=back)
        resumed = max(stats.last_action_at.get(t, 0) for t in table_ids) - back if not idle else None
        row = {
            "n": number,
            "kind": kind,
            "down_s": round(down, 2),
            "processes_died": died,
            "all_tables_acted_within_s": None if resumed is None else round(resumed, 2),
            "sync_s": None if synced is None else round(synced, 2),
            "tables_not_playing_after_20s": idle,
        }
        rows.append(row)
        log(
            f"fault {number}/{len(kinds)} {kind}: away {down:.1f} s, clients in sync "
            f"{'NOT within 30 s' if synced is None else f'{synced:.2f} s'} after it came back"
            f"{f', tables idle: {idle}' if idle else ''}{f', died with it: {died}' if died else ''}"
        )
    stats.measuring = False
    # the end: stop playing, leave; every hand must end
    for bot in bots:
        bot.acting = False
        await bot.send(type="leave")
    from tables.models import Hand

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        running = await db(lambda: Hand.objects.filter(table_id__in=table_ids, status="running").count())
        if not running:
            break
        await asyncio.sleep(1)
    for bot in bots:  # a seat not released yet (a leave sent while disconnected): ask again
        await bot.send(type="leave")
    await asyncio.sleep(2)
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    return {
        "faults": rows,
        "errors": dict(stats.errors),
        "seq_gaps": stats.gaps,
        "reordered": stats.reordered,
        "reconnects": stats.connects - len(bots),
        "connect_failures": stats.connect_failures,
    }


def end_state(table_ids, user_ids) -> dict:
    from django.db.models import Count, Sum

    from cashier.models import Account, SeatSession
    from tables.models import Hand

    by_status = dict(
        Hand.objects.filter(table_id__in=table_ids).values_list("status").annotate(n=Count("id"))
    )
    open_sessions = SeatSession.objects.filter(table_id__in=table_ids, closed_at__isnull=True).count()
    in_seats = (
        Account.objects.filter(user_id__in=user_ids, kind="seat").aggregate(total=Sum("balance"))["total"]
        or 0
    )
    return {"hands": by_status, "open_seat_sessions": open_sessions, "left_in_seat_accounts": in_seats}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--times", type=int, default=20, help="faults of each kind")
    parser.add_argument("--kinds", default="daphne,worker,redis")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "faults"))
    args = parser.parse_args(argv)
    room = Room(Path(args.folder), pg_fast=False)
    results: dict = {"args": vars(args), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    code = 1
    try:
        room.start_services()
        if room.redis is None and "redis" in args.kinds:
            parser.error("a Redis restart needs the embedded Redis: unset REDIS_URL")
        room.migrate()
        room.django_setup()
        tables = tables_create(count=args.tables, action_seconds=5, time_bank_seconds=0, prefix="Faults")
        players = players_create(tables=tables, per_table=args.players // args.tables, prefix="fault")
        room.workers.append(room.start_worker(beat=True))
        room.daphnes.append(room.start_daphne())
        from django.db import connection

        connection.close()
        results.update(asyncio.run(run(room, players, tables, args)))
        results["end"] = end_state([t.id for t in tables], [p.user_id for p in players])
        ok, text = ledger_check_run(room.env)
        results["ledger_check"] = "clean" if ok else text
        rows = results["faults"]
        summary = {}
        for kind in args.kinds.split(","):
            mine = [r for r in rows if r["kind"] == kind]
            syncs = [r["sync_s"] for r in mine if r["sync_s"] is not None]
            summary[kind] = {
                "faults": len(mine),
                "in_sync_within_5s": sum(1 for s in syncs if s <= SYNC_LIMIT),
                "never_in_sync_30s": len(mine) - len(syncs),
                "sync_p50_s": round(percentile(syncs, 50), 2) if syncs else None,
                "sync_max_s": round(max(syncs), 2) if syncs else None,
                "tables_stalled": sum(len(r["tables_not_playing_after_20s"]) for r in mine),
                "down_avg_s": round(sum(r["down_s"] for r in mine) / len(mine), 2) if mine else None,
                "processes_died": sum(len(r["processes_died"]) for r in mine),
            }
        results["summary"] = summary
        end = results["end"]
        good = (
            ok
            and not end["hands"].get("running")
            and not end["open_seat_sessions"]
            and not end["left_in_seat_accounts"]
            and all(
                s["in_sync_within_5s"] == s["faults"] and not s["tables_stalled"] for s in summary.values()
            )
        )
        for kind, s in summary.items():
            log(f"{kind}: {s}")
        log(
            f"end: {end}; ledger_check: {results['ledger_check']}; errors {results['errors']}; "
            f"gaps {results['seq_gaps']}"
        )
        log("ALL CHECKS PASSED" if good else "SOME CHECKS FAILED")
        code = 0 if good else 1
    finally:
        room.stop()
        results_write(folder=args.folder, name="faults", results=results)
    return code


if __name__ == "__main__":
    sys.exit(main())
