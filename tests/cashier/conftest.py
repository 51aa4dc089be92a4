"""Fixtures for the cashier's tests: players, tables, and money put into wallets the way players do it."""

import itertools
import uuid

import pytest

from cashier import services
from cashier.providers import SandboxProvider
from tables.models import Currency, Structure, Table

CARD_OK = SandboxProvider.CARD_OK
CARD_DECLINED = SandboxProvider.CARD_DECLINED
CARD_TIMEOUT = SandboxProvider.CARD_TIMEOUT

_names = itertools.count(1)


def new_key() -> str:
    return uuid.uuid4().hex


def player_create(*, verified: bool = False, bot: bool = False, welcome: bool = True, email_verified: bool = True):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    n = next(_names)
    user = get_user_model().objects.create_user(
        username=f"{'bot' if bot else 'player'}{n}-{uuid.uuid4().hex[:6]}", password=None, is_bot=bot,
        identity_verified_at=timezone.now() if verified else None,
        email_verified_at=timezone.now() if email_verified and not bot else None,
    )
    if welcome:
        services.play_chips_welcome(user=user)
    return user


def eur_fund(user, amount: int):
    """Deposit `amount` cents with the sandbox's good card, as the player would."""
    deposit = services.deposit_create(user=user, amount=amount, card_number=CARD_OK, idempotency_key=new_key())
    assert deposit.status == "succeeded", deposit.message
    return deposit


def table_create(*, currency=Currency.EUR, small_blind=50, big_blind=100, structure=Structure.NO_LIMIT, **extra):
    return Table.objects.create(
        name=f"T{next(_names)}-{uuid.uuid4().hex[:6]}", currency=currency, small_blind=small_blind,
        big_blind=big_blind, structure=structure, **extra,
    )


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
