"""A multi-table freezeout played to its winner by bot players over real WebSockets, on the room's processes
(daphne, a Celery worker with beat, PostgreSQL, Redis: bench/harness.py's Room), with 1-minute levels.

    .venv/bin/python bench/tournament.py                          # 900 entrants on 150 six-seat tables
    .venv/bin/python bench/tournament.py --entrants 120 --level-seconds 20

Each entrant is a bot program on its own connection: it acts as soon as it gets `legal` (all in a third of
the time it may when not facing a bet, else check or call, folding to big bets), follows the `moved` events
naming it to its new table, and stops when a `places` event names it. The tournament starts by the beat
sweep at its time. Reported: the time to the winner, hands and hands per second, action latency (`act` sent
to the first `state` showing the decision taken) p50/p99, balancing moves and broken tables, how long
tables waited in hand-for-hand (a hand's end to the table's next deal, less the 3 s pause players get to
see a hand's end), stalls (a table with players and no message for 30 s), and at the end: chips conserved
(the winner holds entrants x the starting stack), the pool at zero, the ledger clean.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import types
from collections import defaultdict
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BASE_DIR))

from bench.harness import Room, ledger_check_run, log, percentile, players_create, results_write  # noqa: E402

STALL_SECONDS = 30.0


def choose(legal: list[dict], rng: random.Random, stack_hint: int) -> dict:
    by = {item["action"]: item for item in legal}
    call = by.get("call")
    if call and call["min"] * 3 >= max(stack_hint, 1) and rng.random() < 0.6:
        return {"action": "fold"}
    if "all_in" in by and not call and rng.random() < 0.33:
        return {"action": "all_in"}
    for action in ("check", "call", "fold", "muck"):
        if action in by:
            return {"action": action}
    return {"action": next(iter(by))}


class Figures:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.h4h_waits: list[float] = []
        self.last_message: dict[int, float] = {}
        self.table_h4h: dict[int, bool] = {}
        self.table_ended: dict[int, float] = {}
        self.table_hand: dict[int, int] = {}
        self.stalls: set[int] = set()
        self.errors: defaultdict[str, int] = defaultdict(int)
        self.current: dict[str, int] = {}  # player -> the table they sit at now


async def bot(
    *, url: str, origin: str, player, first_table: int, figures: Figures, rng: random.Random, deadline: float
) -> None:
    import websockets

    table_id = first_table
    figures.current[player.name] = table_id
    await asyncio.sleep(rng.random() * 5)  # a field connecting over a few seconds, not in one instant
    while time.monotonic() < deadline:
        headers = {"Cookie": f"sessionid={player.session}"}
        for attempt in range(
            20
        ):  # a handshake refused under the first rush is tried again, as a browser would
            try:
                ws = await websockets.connect(
                    f"{url}/ws/tables/{table_id}/",
                    origin=origin,
                    additional_headers=headers,
                    max_size=2**22,
                    open_timeout=60,  # as a browser waits (websockets' 10 s gave up and retried: a storm)
                    ping_interval=None,  # browsers do not ping: daphne pings them (a late pong closed the bot's)
                )
                break
            except (
                TimeoutError,
                OSError,
                websockets.exceptions.InvalidMessage,
                websockets.exceptions.InvalidStatus,
            ):
                figures.errors["connect_retry"] += 1
                await asyncio.sleep(0.5 + attempt * 0.5)
        else:
            raise RuntimeError(f"{player.name} could not connect to table {table_id}")
        try:
            async with ws:
                pending: tuple[int, int, float] | None = None
                moved_to = None
                while moved_to is None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=min(left, 5.0)))
                    except TimeoutError:
                        continue  # a quiet table: look at the deadline again
                    now = time.monotonic()
                    figures.last_message[table_id] = now
                    kind = message.get("type")
                    if kind == "error":
                        figures.errors[message.get("code", "?")] += 1
                        pending = None
                        continue
                    if kind == "event":
                        event = message.get("event")
                        if pending is not None and event == "hand_ended":  # our decision ended the hand
                            figures.latencies.append(now - pending[2])
                            pending = None
                        if event == "places" and any(p["player"] == player.name for p in message["places"]):
                            figures.current.pop(player.name, None)
                            return
                        if event == "moved" and message["player"] == player.name:
                            figures.moves += 1
                            moved_to = message["table"]
                        if event == "hand_ended":
                            figures.table_ended[table_id] = now
                        continue
                    if kind != "state":
                        continue
                    if not any(
                        s.get("player") and s["player"]["name"] == player.name for s in message["seats"]
                    ):
                        # Not seated here: moved while (re)connecting, the `moved` event unseen. Ask where, as the
                        # browser's page asks the tournament list.
                        where = await asyncio.to_thread(table_now, player.user_id)
                        if where is None:  # out of the tournament (its `places` event missed too)
                            figures.current.pop(player.name, None)
                            return
                        if where != table_id:
                            figures.errors["found_moved"] += 1
                            moved_to = where  # the loop ends: the bot goes there
                        continue
                    hand = message.get("hand")
                    info = message.get("tournament") or {}
                    if hand is not None and figures.table_hand.get(table_id) != hand["id"]:
                        if figures.table_h4h.get(table_id) and table_id in figures.table_ended:
                            figures.h4h_waits.append(max(0.0, now - figures.table_ended.pop(table_id) - 3.0))
                        figures.table_hand[table_id] = hand["id"]
                    figures.table_h4h[table_id] = bool(info.get("hand_for_hand"))
                    if pending is not None and (
                        hand is None or hand["id"] != pending[0] or hand["action_no"] > pending[1]
                    ):  # None: a show or muck done
                        figures.latencies.append(now - pending[2])
                        pending = None
                    if message.get("legal") and hand is not None:
                        mine = next(
                            (
                                s
                                for s in message["seats"]
                                if s.get("player") and s["player"]["name"] == player.name
                            ),
                            {},
                        )
                        choice = choose(
                            message["legal"], rng, (mine.get("stack") or 0) + (mine.get("bet") or 0)
                        )
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "act",
                                    "hand_id": hand["id"],
                                    "action_no": hand["action_no"],
                                    **choice,
                                }
                            )
                        )
                        pending = (hand["id"], hand["action_no"], time.monotonic())
        except websockets.exceptions.ConnectionClosed as closed:
            # Closed by the room (a web process restarting, too many windows while a given-up handshake is
            # being released): connect again, as the page does, and find the seat by the first state.
            figures.errors[f"closed_{closed.rcvd.code if closed.rcvd else 'none'}"] += 1
            await asyncio.sleep(1.0)
            continue
        table_id = moved_to
        figures.current[player.name] = table_id


def table_now(user_id: int) -> int | None:
    """Where the player sits now in the running tournament (None: out of it)."""
    from django.db import connection

    from tournaments.models import Entry

    try:
        return (
            Entry.objects.filter(user_id=user_id, status=Entry.Status.PLAYING)
            .values_list("table_id", flat=True)
            .first()
        )
    finally:
        connection.close()


async def watch_stalls(figures: Figures, finished: asyncio.Event) -> None:
    while not finished.is_set():
        await asyncio.sleep(5)
        now = time.monotonic()
        occupied = set(figures.current.values())  # tables broken or finished have nobody left to play
        for table_id, seen in list(figures.last_message.items()):
            if table_id in occupied and now - seen > STALL_SECONDS:
                figures.stalls.add(table_id)


def tournament_prepare(*, entrants: int, seats: int, level_seconds: int):
    from django.utils import timezone

    from tournaments import services
    from tournaments.defaults import defaults_ensure, levels_create
    from tournaments.models import BlindLevel, BlindStructure, PayoutTable, Tournament
    from tournaments.rules.structures import Speed, default_schedule

    defaults_ensure()
    structure = BlindStructure.objects.create(
        name=f"Bench {level_seconds}s {time.time_ns()}", speed=Speed.HYPER, starting_stack=1_500
    )
    levels_create(
        blind_level=BlindLevel,
        structure=structure,
        schedule=default_schedule(Speed.HYPER, level_seconds=level_seconds),
    )
    tournament = Tournament.objects.create(
        name=f"Bench {entrants}",
        kind="mtt",
        currency="play",
        buy_in=1_000,
        fee=100,
        starting_stack=1_500,
        seats_per_table=seats,
        blind_structure=structure,
        payout_table=PayoutTable.objects.get(name="Multi-table (15 % paid)"),
        min_entrants=2,
        max_entrants=entrants,
        starts_at=timezone.now() + timezone.timedelta(hours=1),
        action_seconds=20,
        time_bank_seconds=30,
    )
    players = players_create(tables=[types.SimpleNamespace(id=0)] * entrants, per_table=1, prefix="tb")
    from django.contrib.auth import get_user_model

    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=[p.user_id for p in players])}
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=users[player.user_id])
    return tournament, players


def run(args, results: dict) -> bool:
    room = Room(Path(args.folder), pg_fast=args.pg_fast)
    try:
        room.start_services()
        room.migrate()
        room.django_setup()
        from django.db import connection
        from django.utils import timezone

        from tables.models import Hand
        from tournaments.models import Entry, Tournament, TournamentTable

        tournament, players = tournament_prepare(
            entrants=args.entrants, seats=args.seats, level_seconds=args.level_seconds
        )
        log(f"{args.entrants} entrants registered")
        room.workers.append(room.start_worker(beat=True))
        web = room.start_daphne()
        room.daphnes.append(web)  # stopped with the room, whatever happens
        url, origin = f"ws://127.0.0.1:{web.port}", f"http://127.0.0.1:{web.port}"
        Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
        started = time.monotonic()
        while not Entry.objects.filter(tournament=tournament, table__isnull=False).exists():
            if time.monotonic() - started > 60:
                raise RuntimeError("the sweep did not start the tournament")
            time.sleep(0.2)
        start_seconds = time.monotonic() - started
        tables = TournamentTable.objects.filter(tournament=tournament).count()
        seat_of = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "table_id"))
        connection.close()
        log(f"started by the sweep in {start_seconds:.1f} s on {tables} tables")
        figures = Figures()
        deadline = time.monotonic() + args.max_seconds

        async def everyone() -> None:
            finished = asyncio.Event()
            watcher = asyncio.create_task(watch_stalls(figures, finished))
            rng = random.Random(args.seed)
            await asyncio.gather(
                *(
                    bot(
                        url=url,
                        origin=origin,
                        player=p,
                        first_table=seat_of[p.user_id],
                        figures=figures,
                        rng=random.Random(rng.random()),
                        deadline=deadline,
                    )
                    for p in players
                )
            )
            finished.set()
            await watcher

        asyncio.run(everyone())
        seconds = time.monotonic() - started
        tournament.refresh_from_db()
        hands = Hand.objects.filter(table__tournament_table__tournament=tournament).count()
        winner = Entry.objects.filter(tournament=tournament, place=1).first()
        from cashier.ledger import system_account_get
        from cashier.models import AccountKind

        pool = system_account_get(
            kind=AccountKind.PRIZE_POOL, currency="play", ref=tournament.pool_ref
        ).balance
        ledger_ok, ledger_text = ledger_check_run(room.env)
        broken = TournamentTable.objects.filter(tournament=tournament, broken=True).count()
        results.update(
            {
                "entrants": args.entrants,
                "tables": tables,
                "level_seconds": args.level_seconds,
                "status": tournament.status,
                "seconds_to_winner": round(seconds, 1),
                "start_seconds": round(start_seconds, 1),
                "hands": hands,
                "hands_per_second": round(hands / seconds, 2),
                "levels_reached": tournament.level,
                "action_p50_ms": round(1000 * percentile(figures.latencies, 50), 1),
                "action_p99_ms": round(1000 * percentile(figures.latencies, 99), 1),
                "actions": len(figures.latencies),
                "moves": figures.moves,
                "tables_broken": broken,
                "hand_for_hand_waits": len(figures.h4h_waits),
                "hand_for_hand_wait_p50_s": round(percentile(figures.h4h_waits, 50), 2)
                if figures.h4h_waits
                else None,
                "hand_for_hand_wait_max_s": round(max(figures.h4h_waits), 2) if figures.h4h_waits else None,
                "stalls": sorted(figures.stalls),
                "errors": dict(figures.errors),
                "chips_conserved": bool(winner and winner.chips == args.entrants * tournament.starting_stack),
                "pool_left": pool,
                "ledger_clean": ledger_ok,
            }
        )
        log(json.dumps(results, indent=1))
        if not ledger_ok:
            log(ledger_text)
        return (
            tournament.status == Tournament.Status.FINISHED
            and not figures.stalls
            and ledger_ok
            and pool == 0
            and results["chips_conserved"]
        )
    finally:
        room.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entrants", type=int, default=900)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--level-seconds", type=int, default=60)
    parser.add_argument("--max-seconds", type=float, default=3600, help="give up after this long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pg-fast", action="store_true", help="embedded PostgreSQL without fsync")
    parser.add_argument("--folder", default=str(BASE_DIR / "var" / "bench" / "tournament"))
    parser.add_argument(
        "--json", help="write the figures here (default: var/bench/tournament/tournament-<time>.json)"
    )
    args = parser.parse_args(argv)
    results: dict = {"args": vars(args), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    ok = False
    try:
        ok = run(args, results)
    finally:
        results_write(
            folder=args.folder, name="tournament", results=results, path=args.json and Path(args.json)
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
