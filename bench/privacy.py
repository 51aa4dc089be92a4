"""Privacy over 1,000 hands: every frame sent to every client (the players and an anonymous spectator at each
table) captured, and the hand-history API as each player and an anonymous visitor see it, checked hand by
hand: nobody ever receives a card of another player that was not shown (tests/tables/test_privacy.py is the
short version in `make test`; the checks are the same functions).

    python bench/privacy.py                     # 1,000 hands: 40 tables of 3 players
    python bench/privacy.py --hands 100 --tables 10
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import BASE_DIR, Bot, Room, Stats, ledger_check_run, log, players_create, tables_create  # noqa: E402


async def play(room: Room, players, tables, args) -> tuple[list[Bot], int]:
    from django.db import connection

    from tables.models import Hand

    stats = Stats()
    port = room.daphnes[0].port
    origin = f"http://127.0.0.1:{port}"
    rng = random.Random(args.seed)
    bots = [
        Bot(
            url=f"ws://127.0.0.1:{port}/ws/tables/{p.table_id}/",
            origin=origin,
            stats=stats,
            table_id=p.table_id,
            player=p,
            rng=random.Random(rng.random()),
            capture=True,
        )
        for p in players
    ]
    bots += [
        Bot(
            url=f"ws://127.0.0.1:{port}/ws/tables/{t.id}/",
            origin=origin,
            stats=stats,
            table_id=t.id,
            capture=True,
        )
        for t in tables
    ]
    stop = asyncio.Event()
    gate = asyncio.Semaphore(32)
    tasks = [asyncio.ensure_future(bot.run(stop, connect_gate=gate)) for bot in bots]
    table_ids = [t.id for t in tables]

    def complete() -> int:
        try:
            return Hand.objects.filter(table_id__in=table_ids, status="complete").count()
        finally:
            connection.close()

    started = time.monotonic()
    done = 0
    while time.monotonic() - started < args.max_seconds:
        await asyncio.sleep(5)
        done = await asyncio.to_thread(complete)
        log(f"{done} hands complete ({time.monotonic() - started:.0f} s)")
        if done >= args.hands:
            break
    for bot in bots:
        bot.acting = False
    await asyncio.sleep(1)
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    log(
        f"frames captured: {sum(len(b.frames) for b in bots)}; errors {dict(stats.errors)}; gaps {stats.gaps}"
    )
    return bots, done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--per-table", type=int, default=3)
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "privacy"))
    args = parser.parse_args(argv)
    room = Room(Path(args.folder))
    code = 1
    try:
        room.start_services()
        room.migrate()
        room.django_setup()
        tables = tables_create(count=args.tables, prefix="Privacy")
        players = players_create(tables=tables, per_table=args.per_table, prefix="priv")
        room.workers.append(room.start_worker(beat=True))
        room.daphnes.append(room.start_daphne())
        from django.db import connection

        connection.close()
        started = time.monotonic()
        bots, _done = asyncio.run(play(room, players, tables, args))
        played = time.monotonic() - started

        from tables.models import Hand
        from tests.tables.test_privacy import api_hand, check_frames, visible_to
        from tests.tables.wsclient import cards_seen

        hands = {h.id: h for h in Hand.objects.filter(table__in=tables)}
        complete = [h for h in hands.values() if h.status == Hand.Status.COMPLETE]
        segments = 0
        for bot in bots:
            user_id = bot.player.user_id if bot.player else None
            segments += check_frames(
                bot.frames,
                user_id,
                hands,
                f"{'user ' + str(user_id) if user_id else 'spectator'} at table {bot.table_id}",
            )
        log(f"frames: {segments} (client, hand) pairs checked, no foreign card")
        base = f"http://127.0.0.1:{room.daphnes[0].port}"
        sessions = {p.user_id: p.session for p in players}
        jobs = []
        for hand in complete:
            viewers = [None] + [int(p["user"]) for p in hand.players.values()][:3]
            jobs += [(hand, user_id) for user_id in viewers]

        def check(job) -> int:
            hand, user_id = job
            data = api_hand(base, hand.id, sessions.get(user_id))
            allowed, forbidden = visible_to(hand, user_id)
            seen = cards_seen(data)
            assert not seen & forbidden and seen <= allowed, (hand.id, user_id, seen - allowed)
            assert {o["card"] for o in data["openings"]} <= allowed
            return 1

        with ThreadPoolExecutor(8) as pool:
            api_checked = sum(pool.map(check, jobs))
        shown = sum(1 for h in complete if h.result.get("shown"))
        ok, text = ledger_check_run(room.env)
        log(
            f"PASSED: {len(complete)} hands complete ({shown} with cards shown) in {played:.0f} s, "
            f"{sum(len(b.frames) for b in bots)} frames to {len(bots)} clients, {segments} (client, hand) pairs "
            f"and {api_checked} /api/hands/ answers checked: no card of another player that was not shown; "
            f"ledger_check {'clean' if ok else text}"
        )
        code = 0 if ok else 1
    finally:
        room.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
