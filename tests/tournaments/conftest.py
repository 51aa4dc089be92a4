"""Players with money and tournaments on the room's default structures and payout tables (migration data)."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from tests.cashier.conftest import eur_fund, player_create
from tournaments.defaults import defaults_ensure
from tournaments.models import BlindStructure, PayoutTable, Tournament

_numbers = itertools.count(1)


def tournament_create(*, kind="sng", seats=6, currency="eur", buy_in=1_000, fee=100, **extra) -> Tournament:
    """A tournament on the default turbo structure: a sit-and-go of `seats`, or a multi-table one."""
    defaults_ensure()  # a transactional test's flush removed the migration's rows
    defaults = {
        "name": f"Tournament {next(_numbers)}",
        "kind": kind,
        "currency": currency,
        "buy_in": buy_in,
        "fee": fee,
        "starting_stack": 1_500,
        "seats_per_table": seats,
        "blind_structure": BlindStructure.objects.get(name="Turbo (5 minutes)"),
        "payout_table": PayoutTable.objects.get(
            name="Sit-and-go" if kind == "sng" else "Multi-table (15 % paid)"
        ),
        "max_entrants": seats if kind == "sng" else 60,
        "min_entrants": seats if kind == "sng" else 2,
    }
    if kind == "mtt":
        defaults["starts_at"] = timezone.now() + timedelta(hours=1)
    defaults.update(extra)
    tournament = Tournament(**defaults)
    tournament.full_clean()
    tournament.save()
    return tournament


def eur_player(amount: int = 10_000):
    player = player_create()
    eur_fund(player, amount)
    return player


@pytest.fixture(autouse=True)
def in_english():
    """The refusals are read in English here, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


@pytest.fixture
def sit_and_go(db) -> Tournament:
    """A EUR sit-and-go of 6: buy-in 10.00 + 1.00."""
    return tournament_create()
