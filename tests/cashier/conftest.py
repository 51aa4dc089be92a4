"""Fixtures for the cashier's tests: players, tables, and money put into wallets the way players do it."""

import pytest

from tables.models import Currency
from tests.factories import eur_table_create as table_create
from tests.factories import player_create


@pytest.fixture
def player(db):
    return player_create()


@pytest.fixture
def verified_player(db):
    return player_create(verified=True)


@pytest.fixture
def eur_table(db):
    """NL 0.50/1.00: buy-in 30.00 to 100.00."""
    return table_create()


@pytest.fixture
def cap_table(db):
    """NL 5/10: buy-in 300.00 to 1,000.00, the maximum equal to the EUR session cap."""
    return table_create(small_blind=500, big_blind=1000)


@pytest.fixture
def play_table(db):
    """Play chips NL 50/100: buy-in 3,000 to 10,000 chips... in cents of chips: 30.00 to 100.00."""
    return table_create(currency=Currency.PLAY, bots_allowed=True)
