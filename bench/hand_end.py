"""The cost of one action through the table's services, in one process with nothing else running: the actions
in the middle of a hand (one statement) against the one that ends it (one statement too, since the hand's end
is told first), and the settlement a web process makes after it (its own transaction).

    python bench/hand_end.py [--hands 80] [--players 6] [--profile]

A fresh room's database (embedded PostgreSQL with fsync on, or DATABASE_URL; Redis likewise), one play-chip
1/2 No-Limit table, `--players` players seated with 100 big blinds, and `--hands` hands played to the
showdown, each player checking or calling (so every hand sees a flop and pays a rake), through
`tables.services.table_act` as a player's message does (`settle_later`, then `hand_settle`), without a web
process. Reported: p50/p95/max of the actions that ended their hand, of their settlements and of the other
actions, in milliseconds, and the statements of the last hand's end and of its settlement.
`--profile` prints the cProfile of the hand-ending actions and their settlements (cumulative, the table's and
the cashier's calls).

Under load the same actions wait for the event loop, the database threads and the CPU the other processes
use (`bench/load.py`); this is the floor those figures stand on, and it moves with the statements a hand's
end makes (`tests/tables/test_statement_counts.py`).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from datetime import timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Room, log, percentile, players_create, tables_create  # noqa: E402


def _summary(values: list[float]) -> str:
    ms = [value * 1000 for value in values]
    return f"p50 {percentile(ms, 50):.1f} ms, p95 {percentile(ms, 95):.1f} ms, max {max(ms):.1f} ms (n={len(ms)})"


def run(args) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from tables import services
    from tables.models import Hand, Seat

    table = tables_create(count=1)[0]
    users = get_user_model().objects.in_bulk(
        [p.user_id for p in players_create(tables=[table], per_table=args.players)]
    )
    for number, user in enumerate(users.values(), start=1):
        services.seat_take(table_id=table.id, user=user, seat_number=number, buy_in=200, post="now")
    seat_user = {
        seat.number - 1: users[seat.user_id] for seat in Seat.objects.filter(table=table, user__isnull=False)
    }
    profile = cProfile.Profile() if args.profile else None
    ends: list[float] = []
    settlements: list[float] = []
    others: list[float] = []
    last_end: list[str] = []
    last_settlement: list[str] = []

    def timed(call):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            if profile is not None:
                profile.enable()
            call()
            if profile is not None:
                profile.disable()
            took = time.perf_counter() - started
        return took, [query["sql"] for query in captured.captured_queries]

    for _ in range(args.hands):
        # the pause a table keeps between two hands is the room's, not this bench's
        Hand.objects.filter(table=table).update(ended_at=timezone.now() - timedelta(minutes=1))
        hand = services.hand_deal(table_id=table.id)
        if hand is None:
            raise SystemExit("no hand was dealt (a player broke?): run with fewer --hands")
        while hand.status == Hand.Status.RUNNING:
            state = services.hand_engine(hand=hand, table=table)
            legal = {item["action"] for item in state.legal_actions()}
            user = seat_user[state.to_act]
            services.hand_engine_keep(hand.id, state)
            action = "check" if "check" in legal else "call"
            took, statements = timed(
                partial(
                    services.table_act,
                    table_id=table.id,
                    user=user,
                    hand_id=hand.id,
                    action_no=hand.action_no,
                    action=action,
                    amount=None,
                    settle_later=True,
                )
            )
            hand.refresh_from_db()
            if hand.status == Hand.Status.RUNNING:
                others.append(took)
                continue
            ends.append(took)
            last_end = statements
            took, last_settlement = timed(partial(services.hand_settle, table_id=table.id))
            settlements.append(took)
    log(f"actions that ended their hand: {_summary(ends)}")
    log(f"their settlements, after: {_summary(settlements)}")
    log(f"the other actions: {_summary(others)}")
    log(
        f"the last hand's end: {len(last_end)} statements; its settlement: {len(last_settlement)} "
        "(begin and commit included)"
    )
    if profile is not None:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(r"tables/services|cashier/services|cashier/ledger", 30)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=80)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--folder", default="var/bench/hand_end")
    args = parser.parse_args()
    room = Room(Path(args.folder).resolve(), pg_fast=False)
    try:
        room.start_services()
        room.migrate()
        room.django_setup()
        run(args)
    finally:
        room.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
