"""Signing up: the accounts app creates the player; the cashier, which accounts import nothing of, gives the
welcome play chips through the hook it registered (accounts.services.user_signed_up_register)."""

import pytest
from django.contrib.auth import get_user_model

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check, wallet_balances

pytestmark = pytest.mark.django_db

FORM = {
    "username": "marta",
    "email": "marta@example.com",
    "password1": "a-Long-pass-123",
    "password2": "a-Long-pass-123",
    "date_of_birth": "1990-04-01",
}


def test_a_new_player_gets_the_welcome_play_chips_once(client):
    response = client.post("/accounts/signup/", FORM)
    assert response.status_code == 200 and "Check your email" in response.content.decode()
    marta = get_user_model().objects.get(username="marta")
    assert wallet_balances(user=marta) == {"play": 1_000_000, "eur": 0}
    assert Transfer.objects.filter(kind=TransferKind.WELCOME, user=marta).count() == 1
    client.post("/accounts/login/", {"username": "marta", "password": FORM["password1"]})
    assert "10,000.00" in client.get("/accounts/profile/").content.decode()
    assert ledger_check().ok


def test_a_refused_sign_up_creates_no_player_and_moves_no_chips(client):
    response = client.post("/accounts/signup/", {**FORM, "password2": "another-Pass-456"})
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="marta").exists()
    assert not Transfer.objects.filter(kind=TransferKind.WELCOME).exists()
