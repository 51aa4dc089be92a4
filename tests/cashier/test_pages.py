"""What players and staff see: the account page, the cashier page and the admin."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from cashier import services
from cashier.models import Account, Deposit, Withdrawal
from cashier.selectors import wallet_balances
from tests.factories import CARD_DECLINED, CARD_OK, eur_fund, new_key, player_create
from tests.factories import eur_table_create as table_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, player):
    client.force_login(player)
    return client


def test_account_page_shows_balances_in_the_players_language(client, player):
    eur_fund(player, 123_456)
    client.force_login(player)
    page = client.get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "€\xa01,234.56" in page and "10,000.00 chips" in page
    client.cookies["django_language"] = "it"
    page = client.get("/accounts/profile/").content.decode()
    assert "€\xa01.234,56" in page and "10.000,00" in page


def test_refill_button_on_the_account_page(logged_in, player):
    table = table_create(currency="play", small_blind=5_000, big_blind=10_000)
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=950_000)
    page = logged_in.get("/accounts/profile/").content.decode()
    assert "Refill play chips" in page
    response = logged_in.post("/cashier/refill/", {"next": "/accounts/profile/"}, follow=True)
    assert "added to your play chips" in response.content.decode()
    assert wallet_balances(user=player)["play"] == 1_000_000
    response = logged_in.post("/cashier/refill/", {"next": "https://evil.example.com/"})
    assert response["Location"] == "/accounts/profile/"


def test_deposit_through_the_page_and_a_double_submit_charges_once(logged_in, player):
    page = logged_in.get("/cashier/").content.decode()
    assert 'name="idempotency_key"' in page
    form = {"amount": "25.50", "card_number": "4242 4242 4242 4242", "idempotency_key": new_key()}
    response = logged_in.post("/cashier/deposit/", form, follow=True)
    assert "deposited to your wallet" in response.content.decode()
    response = logged_in.post("/cashier/deposit/", form, follow=True)
    assert "already credited" in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 2_550
    page = logged_in.get("/cashier/").content.decode()
    assert "Deposit" in page and "+€\xa025.50" in page


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        ("-5", "cannot be negative"),
        ("0", "more than zero"),
        ("1.005", "two decimals"),
        ("lots", "as a number"),
        ("99999999999999", "too large"),
        ("", "required"),
    ],
)
def test_bad_deposit_input_shows_an_error_and_moves_nothing(logged_in, player, amount, message):
    form = {"amount": amount, "card_number": CARD_OK, "idempotency_key": new_key()}
    response = logged_in.post("/cashier/deposit/", form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 0
    assert not Deposit.objects.exists()


def test_declined_and_over_limit_deposits_say_so(logged_in, player):
    response = logged_in.post(
        "/cashier/deposit/",
        {"amount": "10", "card_number": CARD_DECLINED, "idempotency_key": new_key()},
        follow=True,
    )
    assert "was declined" in response.content.decode()
    services.deposit_limit_set(user=player, period="day", amount=500)
    response = logged_in.post(
        "/cashier/deposit/", {"amount": "10", "card_number": CARD_OK, "idempotency_key": new_key()}
    )
    assert response.status_code == 400 and "deposit limit" in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 0


def test_withdrawal_page_needs_a_verified_identity(logged_in, player):
    eur_fund(player, 5_000)
    response = logged_in.post(
        "/cashier/withdraw/", {"amount": "10", "card_number": CARD_OK, "idempotency_key": new_key()}
    )
    assert response.status_code == 400 and "identity" in response.content.decode()
    player.identity_verified_at = timezone.now()
    player.save()
    response = logged_in.post(
        "/cashier/withdraw/",
        {"amount": "10", "card_number": CARD_OK, "idempotency_key": new_key()},
        follow=True,
    )
    assert "review" in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 4_000
    assert "Waiting for review" in logged_in.get("/cashier/").content.decode()


def test_statement_covers_three_months_and_is_paginated(logged_in, player, monkeypatch):
    real_now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: real_now - timedelta(days=100))
    eur_fund(player, 7_777)  # too old to show
    monkeypatch.setattr(timezone, "now", lambda: real_now)
    for _ in range(30):
        eur_fund(player, 100)
    page = logged_in.get("/cashier/").content.decode()
    assert "Page 1 of 2" in page and "77.77" not in page.split("Statement")[1]
    page2 = logged_in.get("/cashier/?page=2").content.decode()
    assert "Page 2 of 2" in page2


def test_cashier_pages_need_a_login(client):
    assert client.get("/cashier/").status_code == 302
    assert client.post("/cashier/deposit/", {}).status_code == 302


def test_admin_ledger_is_read_only(admin_client, player):
    assert admin_client.get("/admin/cashier/account/").status_code == 200
    assert admin_client.get("/admin/cashier/transfer/").status_code == 200
    assert admin_client.get("/admin/cashier/entry/").status_code == 200
    assert admin_client.get("/admin/cashier/account/add/").status_code == 403
    account = Account.objects.filter(user=player).first()
    response = admin_client.post(f"/admin/cashier/account/{account.pk}/change/", {"balance": 5})
    assert response.status_code == 403
    assert (
        admin_client.post(f"/admin/cashier/account/{account.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    account.refresh_from_db()
    assert account.balance == 1_000_000


def test_staff_run_the_ledger_check_from_the_admin(admin_client, player):
    assert "Run the ledger check" in admin_client.get("/admin/cashier/account/").content.decode()
    page = admin_client.get("/admin/cashier/account/ledger-check/").content.decode()
    assert "Ledger OK" in page
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cashier_account SET balance = balance + 1 WHERE user_id = %s", [player.pk])
    page = admin_client.get("/admin/cashier/account/ledger-check/").content.decode()
    assert "violations found" in page and "stored balance 1000001" in page


def test_staff_approve_and_reject_withdrawals_in_the_admin(admin_client):
    alice, bob = player_create(verified=True), player_create(verified=True)
    for p in (alice, bob):
        eur_fund(p, 10_000)
    wa = services.withdrawal_request(user=alice, amount=3_000, card_number=CARD_OK, idempotency_key=new_key())
    wb = services.withdrawal_request(user=bob, amount=4_000, card_number=CARD_OK, idempotency_key=new_key())
    assert "Waiting for review" in admin_client.get("/admin/cashier/withdrawal/").content.decode()
    # each from its own page, after a confirmation (docs/staff.md)
    admin_client.post(f"/admin/cashier/withdrawal/{wa.pk}/approve/", {"confirm": "1"})
    admin_client.post(f"/admin/cashier/withdrawal/{wb.pk}/reject/", {"confirm": "1", "reason_code": "other"})
    assert Withdrawal.objects.get(pk=wa.pk).status == Withdrawal.Status.PAID
    assert Withdrawal.objects.get(pk=wb.pk).status == Withdrawal.Status.REJECTED
    assert wallet_balances(user=alice)["eur"] == 7_000
    assert wallet_balances(user=bob)["eur"] == 10_000
    # approving again changes nothing
    admin_client.post(f"/admin/cashier/withdrawal/{wb.pk}/approve/", {"confirm": "1"})
    assert wallet_balances(user=bob)["eur"] == 10_000


def test_staff_record_a_self_exclusion_in_the_admin(admin_client, player):
    table = table_create()
    eur_fund(player, 5_000)
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=5_000)
    response = admin_client.post("/admin/accounts/selfexclusion/add/", {"user": player.pk, "period": "90d"})
    assert response.status_code == 302
    assert wallet_balances(user=player)["eur"] == 5_000  # cashed out
    response = admin_client.post("/admin/accounts/selfexclusion/add/", {"user": player.pk, "period": "30d"})
    assert response.status_code == 200 and "must end later" in response.content.decode()


@pytest.fixture
def italian(logged_in):
    """The logged-in player's client in Italian; the test's thread back in the default language afterwards (a
    request leaves its language active, and amount_parse reads the active one)."""
    from django.conf import settings
    from django.utils import translation

    logged_in.cookies["django_language"] = "it"
    yield logged_in
    translation.activate(settings.LANGUAGE_CODE)


@pytest.mark.parametrize("amount", ["0.001", "0.500", "00.100", "0.250,00"])
def test_an_italian_amount_led_by_zero_is_no_thousands_and_deposits_nothing(italian, player, amount):
    """In Italian "." groups thousands ("1.000" is a thousand euros), but "0.500" is no thousand-group number:
    it used to be read as 500 euros (and "0.001" as one euro) and deposited."""
    form = {"amount": amount, "card_number": CARD_OK, "idempotency_key": new_key()}
    response = italian.post("/cashier/deposit/", form)
    assert response.status_code == 400
    assert "come numero" in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 0
    assert not Deposit.objects.exists()


def test_an_italian_thousands_amount_is_still_understood(italian, player):
    form = {"amount": "1.000", "card_number": CARD_OK, "idempotency_key": new_key()}
    response = italian.post("/cashier/deposit/", form, follow=True)
    assert "depositati" in response.content.decode()
    assert wallet_balances(user=player)["eur"] == 100_000
