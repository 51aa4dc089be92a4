"""The clock: one thread in each Celery worker that finds the decisions whose time ran out and hands each to
the worker's pool as a `hand_timeout_task`, and sends the tasks the room asked to run a moment later.

A hand stores the deadline of the decision it waits for (`Hand.deadline`, moved on by every action and by the
time bank), so the clock needs nothing from the action that set it: no message per action, nothing lost
when a worker dies with timers in memory. Five times a second it asks PostgreSQL for running hands past
their deadline (an index on status and deadline); a timer fires at most 0.2 s late. Every timeout is keyed
by `(hand_id, action_no)`, so one sent twice (two workers' clocks, or a resend) does nothing the second time.

Once a second the clock also sends the lobby its fresh list of tables if anything changed
(tables.broadcast.lobby_publish_if_stale): a busy room changes seats and ends hands many times a second, and
one list a second is what a lobby can show.

The clock imports nothing of the room's other table modules: what it sends and asks is handed to `clock_loop`
by the worker's start (`tables.tasks.clock_run`), and the services reach it through `tables.effects`.

It also sends the tasks the room wants run a moment later (the deal 3 s after a hand, a house bot's move 1 s
after its turn comes): `later()` puts them in a Redis sorted set by due time and each tick the clock claims
those due (one Lua call: read and remove, so of several workers' clocks exactly one sends each) and sends
them at once. No worker holds them as Celery ETA messages: a worker holding unacknowledged ETA messages died
when Redis restarted under it (kombu's `restore_unacked`), and one killed lost them for an hour (Redis's
visibility timeout). A table's deal is one entry however often it is asked for (the end of a hand, each seat
change while no hand runs): the earliest time asked is kept, and a deal that comes before the pause after a
hand has ended asks again for the pause's end; in a full room every seat change was a deal task of its own,
three or four a hand, and the worker's queue grew past a thousand (docs/performance.md). If Redis loses the
set, the beat sweep still deals at idle tables within 2 s and a house bot's decision times out like anyone's.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import DatabaseError, connection

log = logging.getLogger(__name__)

TICK_SECONDS = 0.1
OVERDUE_EVERY_TICKS = 2  # the deadlines in PostgreSQL: five times a second
LOBBY_EVERY_TICKS = 10
RESEND_SECONDS = 5.0  # a decision still due this long after its task was sent gets another (a lost task)
CLAIM_AT_MOST = 500  # tasks sent per tick

_CLAIM_SCRIPT = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
"""


_redis: redis.Redis | None = None


def redis_client() -> redis.Redis:
    """The room's Redis for its own keys (the clock's due set, the lobby's mark), made once per process."""
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    return _redis


def due_key() -> str:
    """The sorted set of tasks to send later, one per room database (rooms may share a Redis)."""
    return f"room:due:{settings.DATABASES['default']['NAME']}"


def later(kind: str, args: tuple, *, delay: float, once: bool = False) -> None:
    """Have a worker's clock send task `kind` ("deal", "bot") with `args` in `delay` seconds (at most a tick
    late). Each call is its own entry, as each Celery task was; with `once`, the set holds one entry per
    `(kind, args)` and the earliest time asked wins (a table's deal: its task, sent once, is where the table
    looks whether it is time, and asks again for later itself)."""
    entry = json.dumps([kind, list(args)] if once else [kind, list(args), secrets.token_hex(4)])
    try:
        redis_client().zadd(due_key(), {entry: time.time() + delay}, lt=once)
    except redis.RedisError:
        log.warning("could not schedule %s %s (Redis is not answering); the sweep takes over", kind, args)


def due_claim(*, now: float | None = None, limit: int = CLAIM_AT_MOST) -> list[tuple[str, list]]:
    """Take the entries due by `now` out of the set and return them as (kind, args): no other caller gets them."""
    claimed = redis_client().eval(_CLAIM_SCRIPT, 1, due_key(), time.time() if now is None else now, limit)
    return [tuple(json.loads(entry)[:2]) for entry in claimed]


def _send_due(send: Callable[[str, list], None]) -> None:
    for kind, args in due_claim():
        send(kind, args)


def clock_loop(
    stop: threading.Event,
    *,
    send: Callable[[str, list], None],
    overdue: Callable[[], list[tuple[int, int]]],
    timeout: Callable[[tuple[int, int]], None],
    lobby: Callable[[], bool],
    tick: float = TICK_SECONDS,
) -> None:
    """Tick until `stop` is set: `send(kind, args)` each task due from `later`; `overdue()` lists the decisions
    past their deadline, `timeout(decision)` sends one's timeout (again only after RESEND_SECONDS); `lobby()`
    sends the lobby its list if it changed, once a second."""
    sent: dict[tuple[int, int], float] = {}
    ticks = 0
    while not stop.wait(tick):
        ticks += 1
        try:
            _send_due(send)
        except Exception:  # noqa: BLE001 - Redis is down: what is due stays in the set for the next tick
            log.warning("clock: could not send the tasks due")
        if ticks % OVERDUE_EVERY_TICKS:
            continue
        if ticks % LOBBY_EVERY_TICKS == 0:
            try:
                lobby()
            except Exception:  # noqa: BLE001 - Redis or the database is down: the next second tries again
                log.warning("clock: could not send the lobby its list")
                connection.close()
        try:
            due = overdue()
        except DatabaseError:
            log.warning("decision clock: the database is not answering; trying again")
            connection.close()
            continue
        now = time.monotonic()
        for decision in due:
            if now - sent.get(decision, float("-inf")) < RESEND_SECONDS:
                continue
            try:
                timeout(decision)
            except Exception:  # noqa: BLE001 - the broker is down: the next tick tries again
                log.warning("decision clock: could not send the timeout of hand %s", decision[0])
                break
            sent[decision] = now
        current = set(due)
        for decision in [d for d in sent if d not in current]:
            del sent[decision]
    connection.close()
