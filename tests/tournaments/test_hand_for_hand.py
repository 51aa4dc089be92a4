"""Hand-for-hand on the bubble, made certain: four players on two tables of a tournament that pays three, so
the first hand is already on the bubble. Each table deals once per round; a table whose hand is over waits
for the other table's hand to end before either deals the next round (SPEC 1.3, seed 004)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models import F

from tables import services as table_services
from tables.models import Hand
from tests.factories import player_create, tournament_create
from tests.tournaments.play_helpers import fold_to_act
from tournaments import play, services
from tournaments.models import PayoutBand, PayoutTable, Tournament, TournamentTable

pytestmark = pytest.mark.django_db


def _three_paid_of_four() -> PayoutTable:
    table = PayoutTable.objects.create(name="Three paid of four")
    PayoutBand.objects.create(
        payout_table=table, entrants_min=2, entrants_max=3, percentages=[Decimal("100")]
    )
    PayoutBand.objects.create(
        payout_table=table,
        entrants_min=4,
        entrants_max=4,
        percentages=[Decimal("50"), Decimal("30"), Decimal("20")],
    )
    return table


def _floor(tournament: Tournament) -> dict:
    """The floor as the worker runs it once the tables' pause after their last hands has passed (the hands'
    ends moved back by the pause instead of the test sleeping through it)."""
    pause = timedelta(seconds=table_services.DEAL_PAUSE_SECONDS + 1)
    Hand.objects.filter(table__tournament_table__tournament=tournament, ended_at__isnull=False).update(
        ended_at=F("ended_at") - pause
    )
    return play.tournament_floor(tournament_id=tournament.pk)


def _running(table_id: int) -> Hand | None:
    return Hand.objects.filter(table_id=table_id, status=Hand.Status.RUNNING).first()


def _fold_to_the_big_blind(table_id: int) -> None:
    """Heads-up: the button (small blind) acts first before the flop and folds; the hand is over."""
    fold_to_act(table_id)
    assert _running(table_id) is None


def test_on_the_bubble_each_table_deals_once_a_round_and_waits_for_the_other():
    tournament = tournament_create(
        kind="mtt",
        seats=3,
        currency="play",
        buy_in=1_000,
        fee=0,
        max_entrants=4,
        min_entrants=2,
        payout_table=_three_paid_of_four(),
    )
    for player in [player_create() for _ in range(4)]:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.tournament_start(tournament_id=tournament.pk)
    first, second = TournamentTable.objects.filter(tournament=tournament).order_by("number")
    assert [link.table.seat_set.filter(user__isnull=False).count() for link in (first, second)] == [2, 2]

    done = _floor(tournament)
    assert done["hand_for_hand"] == 1 and done["dealt"] == 2, done
    dealt_in_round_1 = {_running(first.table_id).pk, _running(second.table_id).pk}

    # Round 1: the first table's hand ends; it waits while the second table's hand runs.
    _fold_to_the_big_blind(first.table_id)
    done = _floor(tournament)
    assert done["dealt"] == 0 and done["hand_for_hand"] == 1, done
    assert _running(first.table_id) is None and _running(second.table_id).pk in dealt_in_round_1
    assert Tournament.objects.get(pk=tournament.pk).hand_for_hand_round == 1

    # The second table's hand ends: both deal round 2 together.
    _fold_to_the_big_blind(second.table_id)
    done = _floor(tournament)
    assert done["hand_for_hand"] == 2 and done["dealt"] == 2, done
    assert {link.round for link in TournamentTable.objects.filter(tournament=tournament)} == {2}

    # Round 2, the other way round: the second table finishes first and waits for the first.
    _fold_to_the_big_blind(second.table_id)
    assert _floor(tournament)["dealt"] == 0
    assert _running(second.table_id) is None and _running(first.table_id) is not None
    _fold_to_the_big_blind(first.table_id)
    done = _floor(tournament)
    assert done["hand_for_hand"] == 3 and done["dealt"] == 2, done
    # No table dealt twice in a round: three rounds, three hands at each table.
    assert [Hand.objects.filter(table_id=link.table_id).count() for link in (first, second)] == [3, 3]
