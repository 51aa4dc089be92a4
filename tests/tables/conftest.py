import itertools
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from cashier import services as cashier
from tables.management.commands.seed_demo import rake_schedules_seed
from tables.models import Currency, Structure, Table

_names = itertools.count(1)


def player_create(*, bot: bool = False):
    user = get_user_model().objects.create_user(
        username=f"{'bot' if bot else 'p'}{next(_names)}-{uuid.uuid4().hex[:5]}", password="pw-Secret-123", is_bot=bot,
        email_verified_at=None if bot else timezone.now(),
    )
    if bot:
        cashier.bot_wallet_fund(bot=user, amount=1_000_000)
    else:
        cashier.play_chips_welcome(user=user)
    return user


def table_create(*, seats: int = 6, small_blind: int = 1, big_blind: int = 2, structure=Structure.NO_LIMIT,
                 currency=Currency.PLAY, **extra):
    schedule, _nickel = rake_schedules_seed()
    return Table.objects.create(
        name=f"Test {next(_names)} {uuid.uuid4().hex[:5]}", currency=currency, small_blind=small_blind,
        big_blind=big_blind, structure=structure, seats=seats, rake_schedule=schedule, bots_allowed=True,
        **extra,
    )


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
