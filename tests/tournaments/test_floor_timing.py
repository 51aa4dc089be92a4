"""When the tournament's floor runs: once however many of its tables end a hand, and again when the first table
still in its pause may deal (not the last), so no table waits for another's pause."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tables import clock
from tables import services as table_services
from tables.clock import redis_client
from tables.models import Hand
from tests.factories import fast_structure, player_create, tournament_create
from tests.tournaments.play_helpers import fold_to_act
from tournaments import play, services
from tournaments.models import TournamentTable

pytestmark = pytest.mark.django_db

PAUSE = 3.0


@pytest.fixture
def due():
    redis_client().delete(clock.due_key())
    yield
    redis_client().delete(clock.due_key())


def _fold_out(table_id: int) -> None:
    """Everyone folds to the big blind: the table's hand is over."""
    while Hand.objects.filter(table_id=table_id, status=Hand.Status.RUNNING).exists():
        fold_to_act(table_id)


def _floors_due(until: float) -> list:
    return [args for kind, args in clock.due_claim(now=until) if kind == "tournament"]


def test_the_floor_is_asked_for_once_and_runs_again_at_the_first_pause_to_end(
    due, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(table_services, "DEAL_PAUSE_SECONDS", PAUSE)
    tournament = tournament_create(
        kind="mtt",
        seats=6,
        currency="play",
        buy_in=1_000,
        fee=100,
        max_entrants=12,
        min_entrants=2,
        blind_structure=fast_structure(seconds=600),
    )
    for _ in range(12):
        services.tournament_register(tournament_id=tournament.pk, user=player_create())
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_start(tournament_id=tournament.pk)
    play.tournament_floor(tournament_id=tournament.pk)  # the first deals
    first, second = (link.table_id for link in TournamentTable.objects.filter(tournament=tournament))
    assert all(Hand.objects.filter(table_id=t, status=Hand.Status.RUNNING).exists() for t in (first, second))
    redis_client().delete(clock.due_key())

    with django_capture_on_commit_callbacks(execute=True):
        _fold_out(first)
        _fold_out(second)
    asked = time.time()
    assert _floors_due(asked + PAUSE + 1) == [[tournament.pk]], "two tables' ends, one floor"

    # The first table's pause ends in 0.5 s, the second's in 2.5 s: the floor runs again in 0.5 s, not 2.5.
    now = timezone.now()
    Hand.objects.filter(table_id=first).update(ended_at=now - timedelta(seconds=PAUSE - 0.5))
    Hand.objects.filter(table_id=second).update(ended_at=now - timedelta(seconds=0.5))
    with django_capture_on_commit_callbacks(execute=True):
        done = play.tournament_floor(tournament_id=tournament.pk)
    assert done["dealt"] == 0, "both tables still in their pause"
    ran = time.time()
    assert _floors_due(ran + 0.3) == []
    assert _floors_due(ran + 0.8) == [[tournament.pk]], "again when the first pause ends"
