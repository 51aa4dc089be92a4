"""Fixtures of the table tests: four players, the ledger checked after each test, no pause between hands
(helpers to make tables and play hands: tests/factories.py)."""

import pytest

from tests.factories import player_create


@pytest.fixture
def players(db):
    return [player_create() for _ in range(4)]


@pytest.fixture(autouse=True)
def ledger_clean_after(request):
    """Every table test ends with a ledger in which nothing was created or lost."""
    yield
    if request.node.get_closest_marker("django_db") is None:
        return
    from cashier.selectors import ledger_check

    report = ledger_check()
    assert report.ok, report.violations


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    """Tests that deal by calling the service skip the pause players get between hands (the processes of
    the live tests keep it)."""
    from tables import services

    monkeypatch.setattr(services, "DEAL_PAUSE_SECONDS", 0)
