"""Players with money and tournaments on the room's default structures and payout tables (migration data)."""

import pytest
from django.utils import translation

from tests.factories import tournament_create
from tournaments.models import Tournament


@pytest.fixture(autouse=True)
def in_english():
    """The refusals are read in English here, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


@pytest.fixture
def sit_and_go(db) -> Tournament:
    """A EUR sit-and-go of 6: buy-in 10.00 + 1.00."""
    return tournament_create()
