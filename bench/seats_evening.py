"""An evening of players who never press Leave (issue 18): do the seats come free within the limits?

    python bench/seats_evening.py                              # 24 players on 6 practice tables
    python bench/seats_evening.py --players 12 --tables 3 --play 30

The room is started as bench/harness.py starts it (embedded PostgreSQL and Redis unless DATABASE_URL /
REDIS_URL, migrate, the web processes, a Celery worker with beat). `--tables` practice tables (play chips,
NL Hold'em 1/2, six seats, house bots allowed) with short limits (`--sit-out-limit` 20 s, `--bust-limit`
10 s, `--action-seconds` 5, `--time-bank` 5), two house bots seated at each by `tables.services.bots_seat`
(as seed_demo does), which leaves four seats for people: `--players` spread over them fill every table, the
shape of the complaint (two bots and four people, `table_full` to a newcomer).

The players are bots on real WebSockets (harness.Bot: join, play from `legal` with `bot_choose`) for
`--play` seconds; then each walks away without ever sending `leave`, a third each way:
- disconnect: closes its WebSocket on its next turn (mid-hand) and never comes back; the clock times it out
  twice, which sits it out, and then the sit-out limit applies;
- sit_out: sends `sit_out` and stays connected, doing nothing;
- bust: goes all in every hand until it has no chips (it bought in for the minimum) and never buys back;
  one still holding chips after `--bust-within` seconds sits out instead (reported as such).

Then it watches the database (every 0.5 s) and a spectator on each table until every player's seat is
free or the deadline, and reports per table: seats taken at the peak, each player's walk-away time, when
the room's limit clock started (`Seat.sat_out_at`), when the seat was freed (the seat session's
`closed_at`) and why (the table's `seat` event), seats free at the end, house bots seated again, the lobby's
count (/api/tables/); per player, that the seat session is closed, its account at zero and the wallet
= welcome chips - buy-ins + cash-outs as the ledger recorded them; and `manage.py ledger_check`.

Exit status 1 when a seat is held longer than its limit + `--hand-allowance` (one hand) + `--margin` after
the limit's clock started, a seat is still held at the end, a player's money is not back in the wallet, or
the ledger is not clean. A JSON copy of the figures goes to var/bench/seats/.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import statistics
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # noqa: E402
    BASE_DIR,
    Bot,
    Room,
    Stats,
    ledger_check_run,
    log,
    players_create,
    results_write,
    tables_create,
)
from load import app_commit  # noqa: E402

KINDS = ("disconnect", "sit_out", "bust")


class EveningBot(Bot):
    """A player who plays normally (harness.Bot) until `walk_away()`, then leaves as its `kind` says, never
    sending `leave`. Notes when it walked away and the `removed` message the room sent it, if any."""

    def __init__(self, *, kind: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.kind = kind
        self.mode = "play"
        self.stop = asyncio.Event()  # its own: a disconnecting player's connection ends, the others' do not
        self.walked_at: float | None = None  # wall clock, to compare with the database's times
        self.walk_started: float | None = None
        self.removed: dict | None = None
        self.outcome = kind

    async def handle(self, message: dict) -> None:
        if message.get("type") == "removed":
            self.removed = {"reason": message.get("reason"), "at": time.time()}
        await super().handle(message)

    async def walk_away(self) -> None:
        self.walk_started = time.time()
        if self.kind == "sit_out":
            self.mode = "idle"
            self.walked_at = time.time()
            await self.send(type="sit_out")
        elif self.kind == "disconnect":
            self.mode = "close_on_turn"
        else:
            self.mode = "shove"

    def drop(self) -> None:
        """Close the connection now (it does not come back)."""
        if self.walked_at is None:
            self.walked_at = time.time()
        self.mode = "gone"
        self.stop.set()

    async def on_state(self, state: dict) -> None:
        if self.mode == "play":
            await super().on_state(state)
            return
        if self.mode in ("idle", "gone", "broke"):
            return
        row = self.my_row(state)
        hand, legal = state.get("hand"), state.get("legal")
        if self.mode == "close_on_turn":
            if row is not None and hand and legal and not any(a["action"] == "show" for a in legal):
                self.drop()  # our turn, mid-hand: the hand now waits for us
            return
        # shove: all in on every decision, never a top-up or a sit-in
        if row is None:
            return
        if row["stack"] == 0 and row["status"] == "sitting_out":  # broke (all in mid-hand is stack 0 too)
            self.walked_at = time.time()
            self.mode = "broke"
            return
        if not (hand and legal):
            return
        decision = (hand["id"], hand["action_no"])
        if decision == self.decided:
            return
        self.decided = decision
        by_action = {item["action"]: item for item in legal}
        message = {"type": "act", "hand_id": decision[0], "action_no": decision[1]}
        if "show" in by_action or "muck" in by_action:
            return  # not choosing is mucking
        if "all_in" in by_action:
            message["action"] = "all_in"
        elif wager := by_action.get("raise") or by_action.get("bet"):
            message.update(action=wager["action"], amount=wager["max"])
        elif "call" in by_action:
            message["action"] = "call"
        else:
            message["action"] = "check" if "check" in by_action else "fold"
        await self.send(**message)

    async def sit_out_instead(self) -> None:
        """A shover that did not go broke in time: it sits out and stays (the sit-out limit applies)."""
        self.outcome = "bust (never broke: sat out)"
        self.mode = "idle"
        self.walked_at = time.time()
        await self.send(type="sit_out")


class Watcher(Bot):
    """A spectator of one table: keeps the `seat` events that free a seat (who, why, when)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.stop = asyncio.Event()
        self.freed: list[dict] = []

    async def handle(self, message: dict) -> None:
        if message.get("type") == "event" and message.get("event") == "seat" and message.get("removed"):
            self.freed.append(
                {"name": message.get("name"), "reason": message["removed"], "seat": message.get("seat")}
            )
        await super().handle(message)


# --- the database's side --------------------------------------------------------------------------------


def _db(fn):
    """Run `fn` with a database connection closed afterwards (called in a thread, out of the event loop)."""
    from django.db import connection

    try:
        return fn()
    finally:
        connection.close()


def seats_snapshot(table_ids: list[int]) -> list[tuple]:
    from tables.models import Seat

    return list(
        Seat.objects.filter(table_id__in=table_ids, user__isnull=False).values_list(
            "table_id", "number", "user_id", "user__is_bot", "status", "sat_out_at"
        )
    )


class Observer:
    """What the polls saw: the most seats taken at each table, and when each player's limit clock started."""

    def __init__(self, table_ids: list[int]) -> None:
        self.table_ids = table_ids
        self.peak: Counter = Counter()
        self.sat_out_at: dict[int, float] = {}  # user id -> the last sat_out_at seen
        self.last: list[tuple] = []

    def poll(self) -> list[tuple]:
        rows = _db(lambda: seats_snapshot(self.table_ids))
        taken = Counter(row[0] for row in rows)
        for table_id, count in taken.items():
            self.peak[table_id] = max(self.peak[table_id], count)
        for _table, _number, user_id, is_bot, _status, sat_out_at in rows:
            if not is_bot and sat_out_at is not None:
                self.sat_out_at[user_id] = sat_out_at.timestamp()
        self.last = rows
        return rows


def money_check(user_ids: list[int]) -> dict[int, dict]:
    """Per player: every seat session closed with its account at zero, and the play wallet = welcome -
    buy-ins - top-ups + cash-outs as the ledger's entries on it record them (and those match the sessions'
    `moved_in` and `left_with`)."""
    from django.db.models import Sum

    from cashier.models import AccountKind, Entry, SeatSession
    from cashier.selectors import wallet_balances

    out = {}
    for user_id in user_ids:
        sessions = list(SeatSession.objects.filter(user_id=user_id).select_related("account"))
        by_kind = dict(
            Entry.objects.filter(account__user_id=user_id, account__kind=AccountKind.PLAYER_PLAY)
            .values_list("transfer__kind")
            .annotate(total=Sum("amount"))
        )
        from django.contrib.auth import get_user_model

        wallet = wallet_balances(user=get_user_model().objects.get(pk=user_id))["play"]
        moved_in = sum(s.moved_in for s in sessions)
        left_with = sum(s.left_with or 0 for s in sessions)
        buy_ins = -(by_kind.get("buy_in", 0) + by_kind.get("top_up", 0))
        cash_outs = by_kind.get("cash_out", 0)
        ok = (
            all(s.closed_at is not None and s.account.balance == 0 for s in sessions)
            and wallet == by_kind.get("welcome", 0) - buy_ins + cash_outs
            and buy_ins == moved_in
            and cash_outs == left_with
        )
        out[user_id] = {
            "ok": ok,
            "sessions": len(sessions),
            "open": sum(s.closed_at is None for s in sessions),
            "wallet": wallet,
            "buy_ins": buy_ins,
            "cash_outs": cash_outs,
            "closed_at": max((s.closed_at.timestamp() for s in sessions if s.closed_at), default=None),
            "left_with": sessions[0].left_with if sessions else None,  # the last session (newest first)
        }
    return out


def hand_seconds(table_ids: list[int]) -> float | None:
    from tables.models import Hand

    spans = [
        (end - start).total_seconds()
        for start, end in Hand.objects.filter(table_id__in=table_ids, ended_at__isnull=False).values_list(
            "started_at", "ended_at"
        )
    ]
    return round(statistics.median(spans), 1) if spans else None


def lobby(port: int) -> dict[int, dict]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/", timeout=30) as response:
        return {row["id"]: row for row in json.loads(response.read())}


# --- the evening -----------------------------------------------------------------------------------------


async def evening(room: Room, tables: list, players: list, args) -> dict:
    port = room.web.port
    origin = f"http://127.0.0.1:{port}"
    stats = Stats()
    stats.measuring = True  # count refusals by code
    rng = random.Random(args.seed)
    table_ids = [t.id for t in tables]
    table_by_id = {t.id: t for t in tables}
    bots = []
    for index, player in enumerate(players):
        kind = KINDS[index % 3]
        table = table_by_id[player.table_id]
        buy_in = table.min_buy_in if kind == "bust" else table.max_buy_in
        bots.append(
            EveningBot(
                kind=kind,
                url=f"ws://127.0.0.1:{port}/ws/tables/{player.table_id}/",
                origin=origin,
                stats=stats,
                table_id=player.table_id,
                player=player,
                think=args.think,
                rng=random.Random(rng.random() + index),
                buy_in=buy_in,
                max_buy_in=buy_in,
            )
        )
    watchers = [
        Watcher(url=f"ws://127.0.0.1:{port}/ws/tables/{t}/", origin=origin, stats=Stats(), table_id=t)
        for t in table_ids
    ]
    gate = asyncio.Semaphore(16)
    tasks = [asyncio.ensure_future(b.run(b.stop, connect_gate=gate)) for b in [*watchers, *bots]]
    observer = Observer(table_ids)
    try:
        started = time.monotonic()
        while time.monotonic() - started < args.play:
            await asyncio.to_thread(observer.poll)
            await asyncio.sleep(0.5)
        seated = sum(1 for row in observer.last if not row[3])
        log(
            f"played {args.play:.0f} s: {seated}/{len(bots)} players seated, peak seats taken "
            f"{dict(observer.peak)}, {sum(stats.last_action_at.get(t, 0) > 0 for t in table_ids)}/"
            f"{len(table_ids)} tables acting; {stats.connects} connections ({stats.connect_failures} failed), "
            f"refusals {dict(stats.errors)}"
        )
        walk = time.time()
        for bot in bots:
            await bot.walk_away()
        log("every player walked away: a third closed the connection, a third sat out, a third shoves")
        deadline = time.monotonic() + args.watch
        bust_deadline = time.monotonic() + args.bust_within
        money = {}
        while time.monotonic() < deadline:
            rows = await asyncio.to_thread(observer.poll)
            now = time.monotonic()
            for bot in bots:
                if bot.mode == "close_on_turn" and time.time() - bot.walk_started > args.turn_within:
                    bot.drop()  # no turn came: close anyway
                if bot.mode == "shove" and now > bust_deadline:
                    await bot.sit_out_instead()
            if not any(not row[3] for row in rows):
                break
            await asyncio.sleep(0.5)
        people_left = sum(1 for row in observer.last if not row[3])
        log(
            f"watched {time.time() - walk:.0f} s after the walk-away: {people_left} player seat(s) still taken"
        )
        await asyncio.sleep(args.settle)  # the sweep's next pass (every 2 s) seats house bots again
        rows = await asyncio.to_thread(observer.poll)
        money = await asyncio.to_thread(_db, lambda: money_check([b.player.user_id for b in bots]))
        try:
            lobby_rows = await asyncio.to_thread(lobby, port)
        except OSError as exc:
            log(f"/api/tables/ failed: {exc}")
            lobby_rows = {}
        typical_hand = await asyncio.to_thread(_db, lambda: hand_seconds(table_ids))
    finally:
        for b in [*bots, *watchers]:
            b.acting = False
            b.stop.set()
        await asyncio.wait(tasks, timeout=30)
    reasons = {e["name"]: e["reason"] for w in watchers for e in w.freed}
    return report(
        args=args,
        tables=tables,
        bots=bots,
        observer=observer,
        rows=rows,
        money=money,
        reasons=reasons,
        lobby_rows=lobby_rows,
        typical_hand=typical_hand,
        walk=walk,
    )


def report(*, args, tables, bots, observer, rows, money, reasons, lobby_rows, typical_hand, walk) -> dict:
    still = {row[2] for row in rows if not row[3]}
    failures = []
    per_table = []
    for table in tables:
        mine = [b for b in bots if b.table_id == table.id]
        at_end = [row for row in rows if row[0] == table.id]
        players_out = []
        for bot in mine:
            uid = bot.player.user_id
            m = money[uid]
            freed = m["closed_at"] if uid not in still else None
            clock = observer.sat_out_at.get(uid)
            limit = args.bust_limit if (m["left_with"] == 0 and bot.outcome == "bust") else args.sit_out_limit
            after_clock = round(freed - clock, 1) if (freed and clock) else None
            entry = {
                "player": bot.player.name,
                "kind": bot.outcome,
                "walked_s": round(bot.walked_at - walk, 1) if bot.walked_at else None,
                "freed_after_walk_s": round(freed - bot.walked_at, 1) if (freed and bot.walked_at) else None,
                "freed_after_limit_clock_s": after_clock,
                "limit_s": limit,
                "reason": reasons.get(bot.player.name) or (bot.removed or {}).get("reason"),
                "told": bool(bot.removed),
                "money_ok": m["ok"],
                "wallet": m["wallet"],
                "buy_ins": m["buy_ins"],
                "cash_outs": m["cash_outs"],
            }
            if m["sessions"] == 0:
                failures.append(f"{bot.player.name}: never sat down")
            elif freed is None:
                failures.append(f"{bot.player.name}: seat still held")
            elif after_clock is None or after_clock > limit + args.hand_allowance + args.margin:
                failures.append(f"{bot.player.name}: freed {after_clock} s after its limit clock started")
            if not m["ok"]:
                failures.append(f"{bot.player.name}: money not back in the wallet ({m})")
            players_out.append(entry)
        row = lobby_rows.get(table.id, {})
        per_table.append(
            {
                "table": table.name,
                "peak_taken": observer.peak[table.id],
                "free_at_end": table.seats - len(at_end),
                "house_bots_at_end": sum(1 for r in at_end if r[3]),
                "lobby": {"players": row.get("players"), "bots": row.get("bots")},
                "players": players_out,
            }
        )
    return {"tables": per_table, "typical_hand_s": typical_hand, "failures": failures}


def print_report(results: dict) -> None:
    for table in results["tables"]:
        log(
            f"{table['table']}: peak {table['peak_taken']}/6 taken; at the end {table['free_at_end']} free, "
            f"{table['house_bots_at_end']} house bots, lobby {table['lobby']}"
        )
        for p in table["players"]:
            log(
                f"  {p['kind']:<28} walked +{p['walked_s']} s, freed {p['freed_after_walk_s']} s later, "
                f"{p['freed_after_limit_clock_s']} s after its limit clock (limit {p['limit_s']} s), "
                f"{p['reason']}, told {p['told']}, money {'ok' if p['money_ok'] else 'WRONG'} "
                f"(in {p['buy_ins']}, out {p['cash_outs']})"
            )
    by_kind: dict[str, list] = {}
    for table in results["tables"]:
        for p in table["players"]:
            by_kind.setdefault(p["kind"], []).append(p)
    for kind, ps in by_kind.items():
        walk = [p["freed_after_walk_s"] for p in ps if p["freed_after_walk_s"] is not None]
        clock = [p["freed_after_limit_clock_s"] for p in ps if p["freed_after_limit_clock_s"] is not None]
        log(
            f"{kind}: {len(ps)} players, freed after walk-away median {round(statistics.median(walk), 1) if walk else '-'}"
            f" s max {max(walk, default='-')} s; after the limit clock max {max(clock, default='-')} s"
        )
    log(f"typical hand {results['typical_hand_s']} s; failures: {results['failures'] or 'none'}")


def parser_make() -> argparse.ArgumentParser:
    from pokerroom.supervisor import web_processes_count

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--tables", type=int, default=6, help="four people a table beside two house bots")
    parser.add_argument("--play", type=float, default=60, help="seconds of play before walking away")
    parser.add_argument("--sit-out-limit", type=int, default=20)
    parser.add_argument("--bust-limit", type=int, default=10)
    parser.add_argument("--action-seconds", type=int, default=5)
    parser.add_argument("--time-bank", type=int, default=5)
    parser.add_argument("--think", type=float, default=0.5, help="seconds a player thinks (0.5x-1.5x)")
    parser.add_argument("--bust-within", type=float, default=120, help="a shover not broke by then sits out")
    parser.add_argument(
        "--turn-within",
        type=float,
        default=30,
        help="a disconnecting player with no turn by then closes anyway",
    )
    parser.add_argument("--hand-allowance", type=float, default=30, help="one hand, for the verdict")
    parser.add_argument("--margin", type=float, default=10, help="the sweep (2 s) and slack, for the verdict")
    parser.add_argument("--watch", type=float, default=300, help="seconds to watch after the walk-away")
    parser.add_argument("--settle", type=float, default=6, help="seconds for house bots to come back")
    parser.add_argument("--daphnes", type=int, default=web_processes_count(os.environ))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "seats"))
    parser.add_argument("--json", help="write the figures here (default: var/bench/seats/seats-<time>.json)")
    return parser


def main(argv=None) -> int:
    parser = parser_make()
    args = parser.parse_args(argv)
    if args.players % args.tables or not 1 <= args.players // args.tables <= 4:
        parser.error("--players: a multiple of --tables, 1 to 4 a table (two seats are the house bots')")
    results: dict = {"args": vars(args), "started": time.strftime("%Y-%m-%d %H:%M:%S"), "app": app_commit()}
    ok = False
    room = Room(Path(args.folder))
    try:
        room.start_services()
        room.migrate()
        room.django_setup()
        from tables.models import Seat
        from tables.services import bots_seat

        tables = tables_create(
            count=args.tables,
            prefix="Evening",
            action_seconds=args.action_seconds,
            time_bank_seconds=args.time_bank,
            sit_out_limit_seconds=args.sit_out_limit,
            bust_limit_seconds=args.bust_limit,
            bots_allowed=True,
        )
        per_table = args.players // args.tables
        for table in tables:
            bots_seat(table_id=table.id)
            table.refresh_from_db()
        players = players_create(tables=tables, per_table=per_table, prefix="evening")
        free = {
            t.id: list(
                Seat.objects.filter(table=t, user__isnull=True)
                .order_by("number")
                .values_list("number", flat=True)
            )
            for t in tables
        }
        players = [dataclasses.replace(p, seat=free[p.table_id][p.seat - 1]) for p in players]
        log(
            f"{len(tables)} practice tables with {sum(6 - len(f) for f in free.values())} house bots, {len(players)} players"
        )
        room.workers.append(room.start_worker(beat=True))
        room.start_web(processes=args.daphnes)
        log(f"{args.daphnes} web process(es) on port {room.web.port}")
        from django.db import connection

        connection.close()
        results.update(asyncio.run(evening(room, tables, players, args)))
        print_report(results)
        ledger_ok, text = ledger_check_run(room.env)
        results["ledger_check"] = "clean" if ledger_ok else text
        log(f"ledger_check: {results['ledger_check']}")
        ok = ledger_ok and not results["failures"]
    finally:
        room.stop()
        results_write(folder=args.folder, name="seats", results=results, path=args.json and Path(args.json))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
