"""Fixtures for the staff admin's tests: staff members, players with money, tables with hands played."""

import pytest

from cashier import services as cashier
from tables import services
from tests.admin_client import staff_client
from tests.factories import CARD_OK, eur_fund, new_key, player_create


@pytest.fixture
def boss():
    client, user = staff_client(username="boss")
    client.staff = user
    return client


@pytest.fixture
def funded_players(db):
    """Two verified players with EUR 500.00 each and their play chips."""
    players = [player_create(verified=True) for _ in range(2)]
    for player in players:
        eur_fund(player, 50_000)
    return players


@pytest.fixture
def deposit_with():
    def deposit(user, amount):
        result = cashier.deposit_create(
            user=user, amount=amount, card_number=CARD_OK, idempotency_key=new_key()
        )
        assert result.status == "succeeded", result.message
        return result

    return deposit


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    monkeypatch.setattr(services, "DEAL_PAUSE_SECONDS", 0)


@pytest.fixture(autouse=True)
def ledger_clean_after(request):
    """Whatever staff did, nothing was created or lost."""
    yield
    if request.node.get_closest_marker("django_db") is None:
        return
    from cashier.selectors import ledger_check

    report = ledger_check()
    assert report.ok, report.violations
