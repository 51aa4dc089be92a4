"""Fixtures for the staff admin's tests: staff members, players with money, tables with hands played."""

import pytest
from django.contrib.auth.models import Permission

from cashier import services as cashier
from tables import services
from tables.models import Hand, Seat
from tests.admin_client import staff_client
from tests.cashier.conftest import CARD_OK, eur_fund, new_key
from tests.cashier.conftest import player_create as cashier_player_create
from tests.tables.conftest import table_create

__all__ = [
    "CARD_OK",
    "eur_fund",
    "new_key",
    "player_create",
    "table_create",
    "hand_played",
    "staff_with_perms",
]


def player_create(**options):
    return cashier_player_create(**options)


def staff_with_perms(username: str, *codenames: str):
    """A member of staff (not a superuser) with these permissions ("app.codename"), logged in."""
    client, user = staff_client(username=username, superuser=False)
    for name in codenames:
        app, codename = name.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
    return client, user


def sit(table, user, seat, buy_in):
    return services.seat_take(table_id=table.id, user=user, seat_number=seat, buy_in=buy_in, post="now")


def hand_played(table, players, *, fold: bool = False) -> Hand:
    """Deal one hand at `table` and play it to its end: the player to act folds (`fold`), else everyone checks
    or calls down to the showdown."""
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    while True:
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        services.hand_engine_keep(hand.id, state)
        seat = Seat.objects.get(table=table, number=hand.to_act + 1)
        user = next(p for p in players if p.id == seat.user_id)
        action = "fold" if fold and "fold" in legal else ("check" if "check" in legal else "call")
        services.table_act(
            table_id=table.id,
            user=user,
            hand_id=hand.id,
            action_no=hand.action_no,
            action=action,
            amount=None,
        )


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
