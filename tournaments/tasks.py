"""Celery tasks of tournaments: thin wrappers around one service each, safe to run late or twice."""

import logging

from celery import shared_task

from tournaments import play, services
from tournaments.errors import WrongStatus

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def tournament_floor_task(tournament_id: int) -> dict:
    """After a hand of the tournament (and from the sweep): busts, the clock, balancing, the next deals."""
    return play.tournament_floor(tournament_id=tournament_id)


@shared_task(ignore_result=True)
def tournaments_sweep() -> dict:
    """Every few seconds (beat): start the multi-table tournaments whose time has come, and run the floor of
    every running tournament (a worker killed with the next deal in memory loses nothing). One tournament's
    failure is logged and never keeps the sweep from the others."""
    starting, running = play.tournaments_due()
    failed = 0
    for tournament_id in starting:
        try:
            services.tournament_start(tournament_id=tournament_id)
        except WrongStatus:
            pass  # started meanwhile (the sweep before this one was still at it): nothing to do
        except Exception:  # noqa: BLE001 - logged with its traceback; the others go on
            log.exception("sweep: the start of tournament %s failed", tournament_id)
            failed += 1
    for tournament_id in running:
        try:
            play.tournament_floor(tournament_id=tournament_id)
        except Exception:  # noqa: BLE001 - as above
            log.exception("sweep: the floor of tournament %s failed", tournament_id)
            failed += 1
    return {"started": len(starting), "running": len(running), "failed": failed}
