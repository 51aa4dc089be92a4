"""Celery tasks: thin wrappers that call one service. Each carries what it guards, so a task that runs
late or twice does nothing (a hand's decision is `(hand_id, action_no)`). Also the worker's clock, wired here
to the tasks it sends (`clock_run`).

The tasks the room runs by the hundred (deals, timeouts, house bots' moves, the sweep) keep no result: nothing
reads one, and storing it was a Redis call in every task."""

import logging
import threading

from celery import shared_task
from django.db import transaction

from tables import clock, closing, services
from tables.broadcast import lobby_publish_if_stale, table_send_event_on_commit
from tables.payout.services import payout_days_refresh

log = logging.getLogger(__name__)


@shared_task
def table_announce(table_id: int, text: str) -> int:
    """A message from the room to everyone at a table ("this table closes in 5 minutes"); returns its seq."""
    with transaction.atomic():
        return table_send_event_on_commit(
            table_id=table_id, event="announcement", data={"text": str(text)[:500]}
        )


@shared_task(ignore_result=True)
def hand_deal_task(table_id: int) -> int | None:
    hand = services.hand_deal(table_id=table_id)
    return hand.id if hand is not None else None


@shared_task(ignore_result=True)
def hand_timeout_task(hand_id: int, action_no: int) -> bool:
    return services.hand_timeout(hand_id=hand_id, action_no=action_no)


@shared_task(ignore_result=True)
def bot_act_task(hand_id: int, action_no: int) -> bool:
    return services.bot_act(hand_id=hand_id, action_no=action_no)


@shared_task(ignore_result=True)
def tables_sweep() -> dict:
    """Every few seconds (beat): settle the hands whose settlement was lost with a web process, act on decisions
    whose timer was lost with a worker, deal at idle tables, free the seats of players past the tables' limits,
    move waiting lists on, bring house bots back, cash out anyone left seated at a closed table. One table's failure is logged and never keeps the sweep from
    the others."""
    failed = 0
    unsettled = services.tables_unsettled()
    for table_id in unsettled:
        try:
            services.hand_settle(table_id=table_id)
        except Exception:  # noqa: BLE001 - logged with its traceback; the other tables go on
            log.exception("sweep: the settlement at table %s failed", table_id)
            failed += 1
    overdue = services.hands_overdue()
    for hand_id, action_no in overdue:
        try:
            services.hand_timeout(hand_id=hand_id, action_no=action_no)
        except Exception:  # noqa: BLE001 - logged with its traceback; the other tables go on
            log.exception("sweep: the timeout of hand %s failed", hand_id)
            failed += 1
    idle = services.tables_idle()
    for table_id in idle:
        try:
            services.hand_deal(table_id=table_id)
        except Exception:  # noqa: BLE001 - as above
            log.exception("sweep: the deal at table %s failed", table_id)
            failed += 1
    # Seats come free: players past the sit-out or buy-back limits, offers from waiting lists not taken in
    # time; house bots that made room come back. Each logs its own tables' failures and goes on.
    removed = services.seats_expired_release()
    offers_ended = services.waiting_offers_expire()
    bots_back = services.tables_bots_return()
    closed = closing.closed_tables_release()  # nobody stays seated at a closed table
    return {
        "unsettled": len(unsettled),
        "overdue": len(overdue),
        "idle": len(idle),
        "failed": failed,
        "removed": removed,
        "offers_ended": offers_ended,
        "bots_back": bots_back,
        "closed_released": closed,
    }


@shared_task
def payout_days_refresh_task(days_back: int = 0) -> int:
    """The payout statistics' daily rows of today and the `days_back` days before, recomputed from the ledger
    (beat: today every minute, yesterday too just after midnight). Idempotent."""
    return payout_days_refresh(days_back=days_back)


_LATER_TASKS = {"deal": hand_deal_task, "bot": bot_act_task}


def later_task_register(kind: str, task) -> None:
    """Let another app have its own task sent by the clock when due (`clock.later(kind, ...)`): the
    tournaments' floor, `tournament`."""
    _LATER_TASKS[kind] = task


def _later_send(kind: str, args: list) -> None:
    task = _LATER_TASKS.get(kind)
    if task is not None:
        task.apply_async(tuple(args), expires=30)


def clock_run(stop: threading.Event) -> None:
    """The worker's clock (tables.clock), until `stop` is set: the tasks asked for later, the decisions whose
    time ran out, the lobby's list."""
    clock.clock_loop(
        stop,
        send=_later_send,
        overdue=lambda: services.hands_overdue(grace_seconds=0),
        timeout=lambda decision: hand_timeout_task.apply_async(decision, expires=clock.RESEND_SECONDS),
        lobby=lobby_publish_if_stale,
    )
