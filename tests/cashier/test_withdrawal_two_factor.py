"""A EUR withdrawal needs a code from the app once the player turned two-factor sign-in on (issue 32): without
one, or with a wrong one, it is refused with a clear message and no money moves; with the code it is
requested as before. Before: the session alone (a stolen password) could withdraw."""

import pytest
from django.test import Client

from cashier import services
from cashier.errors import CashierError
from cashier.models import Entry, Withdrawal
from cashier.selectors import ledger_check, wallet_balances
from tests.admin_client import totp_code, two_factor_device
from tests.factories import CARD_OK, eur_fund, new_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def careful(verified_player):
    """A player with EUR 50.00, their identity verified, two-factor on, logged in."""
    eur_fund(verified_player, 5_000)
    two_factor_device(verified_player)
    client = Client()
    client.force_login(verified_player)
    client.player = verified_player
    return client


def withdraw(client: Client, **extra):
    return client.post(
        "/cashier/withdraw/",
        {"amount": "20", "card_number": CARD_OK, "idempotency_key": new_key(), **extra},
        follow=True,
    )


def test_the_withdrawal_form_asks_for_the_code_once_two_factor_is_on(careful, player):
    page = careful.get("/cashier/").content.decode()
    assert "Code from your authenticator app" in page and 'name="otp_code"' in page
    without = Client()
    without.force_login(player)
    assert 'name="otp_code"' not in without.get("/cashier/").content.decode(), "not for a player without it"


def test_without_the_code_or_with_a_wrong_one_nothing_moves_and_with_it_the_withdrawal_is_made(careful):
    player = careful.player
    entries = Entry.objects.count()
    for extra in ({}, {"otp_code": ""}, {"otp_code": "000000"}, {"otp_code": "x" * 41}):
        answer = withdraw(careful, **extra)
        assert answer.status_code == 400, extra
        page = answer.content.decode()
        assert "authenticator app" in page or "code is not right" in page or "at most 40" in page, extra
    assert wallet_balances(user=player)["eur"] == 5_000
    assert not Withdrawal.objects.filter(user=player).exists() and Entry.objects.count() == entries
    assert ledger_check().ok

    answer = withdraw(careful, otp_code=totp_code(two_factor_device(player)))
    assert answer.status_code == 200 and "review" in answer.content.decode()
    assert wallet_balances(user=player)["eur"] == 3_000
    assert Withdrawal.objects.filter(user=player, amount=2_000).count() == 1


def test_the_service_refuses_without_the_code_and_a_recovery_code_does_not_do(careful):
    from django_otp.plugins.otp_static.models import StaticDevice

    player = careful.player
    StaticDevice.objects.create(user=player, name="recovery").token_set.create(token="abcdefgh")
    for code in ("", "abcdefgh"):
        with pytest.raises(CashierError, match="authenticator app|code is not right"):
            services.withdrawal_request(
                user=player, amount=1_000, card_number=CARD_OK, idempotency_key=new_key(), otp_code=code
            )
    assert wallet_balances(user=player)["eur"] == 5_000
