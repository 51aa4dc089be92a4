"""The decision clock: one thread in each Celery worker that finds the decisions whose time ran out and hands
each to the worker's pool as a `hand_timeout_task`.

A hand stores the deadline of the decision it waits for (`Hand.deadline`, moved on by every action and by the
time bank), so the clock needs nothing from the action that set it: no message per action, nothing lost
when a worker dies with timers in memory. Four times a second it asks PostgreSQL for running hands past
their deadline (an index on status and deadline); a timer fires at most a tick late. Every timeout is keyed
by `(hand_id, action_no)`, so one sent twice (two workers' clocks, or a resend) does nothing the second time.

Once a second the clock also sends the lobby its fresh list of tables if anything changed
(tables.broadcast.lobby_publish_if_stale): a busy room changes seats and ends hands many times a second, and
one list a second is what a lobby can show.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger(__name__)

TICK_SECONDS = 0.25
RESEND_SECONDS = 5.0  # a decision still due this long after its task was sent gets another (a lost task)
LOBBY_EVERY_TICKS = 4


def clock_loop(stop: threading.Event, *, tick: float = TICK_SECONDS) -> None:
    from django.db import DatabaseError, connection

    from tables.broadcast import lobby_publish_if_stale
    from tables.services import hands_overdue
    from tables.tasks import hand_timeout_task

    sent: dict[tuple[int, int], float] = {}
    ticks = 0
    while not stop.wait(tick):
        ticks += 1
        if ticks % LOBBY_EVERY_TICKS == 0:
            try:
                lobby_publish_if_stale()
            except Exception:  # noqa: BLE001 - Redis or the database is down: the next second tries again
                log.warning("decision clock: could not send the lobby its list")
                connection.close()
        try:
            due = hands_overdue(grace_seconds=0)
        except DatabaseError:
            log.warning("decision clock: the database is not answering; trying again")
            connection.close()
            continue
        now = time.monotonic()
        for decision in due:
            if now - sent.get(decision, float("-inf")) < RESEND_SECONDS:
                continue
            try:
                hand_timeout_task.apply_async(decision, expires=RESEND_SECONDS)
            except Exception:  # noqa: BLE001 - the broker is down: the next tick tries again
                log.warning("decision clock: could not send the timeout of hand %s", decision[0])
                break
            sent[decision] = now
        current = set(due)
        for decision in [d for d in sent if d not in current]:
            del sent[decision]
    connection.close()
