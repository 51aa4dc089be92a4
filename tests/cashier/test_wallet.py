"""EUR deposits and withdrawals through the sandbox provider; play-chip refills; bad input of every kind."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from cashier import services
from cashier.amounts import amount_parse
from cashier.errors import (
    IdempotencyConflict,
    IdentityNotVerified,
    InsufficientFunds,
    InvalidAmount,
    InvalidCard,
    RefillRefused,
    UnknownCurrency,
    WrongState,
)
from cashier.models import Deposit, SandboxOperation, Transfer, Withdrawal
from cashier.selectors import ledger_check, wallet_balances
from tests.factories import CARD_DECLINED, CARD_OK, CARD_TIMEOUT, eur_fund, new_key, player_create

pytestmark = pytest.mark.django_db


def test_deposit_with_a_good_card_credits_the_wallet(player):
    deposit = services.deposit_create(
        user=player, amount=2_550, card_number="4242 4242 4242 4242", idempotency_key=new_key()
    )
    assert deposit.status == Deposit.Status.SUCCEEDED
    assert deposit.card_label == "•••• 4242"
    assert wallet_balances(user=player)["eur"] == 2_550
    assert ledger_check().ok


def test_a_retried_deposit_never_moves_money_twice(player):
    key = new_key()
    first = services.deposit_create(user=player, amount=5_000, card_number=CARD_OK, idempotency_key=key)
    again = services.deposit_create(user=player, amount=5_000, card_number=CARD_OK, idempotency_key=key)
    assert again.pk == first.pk and again.replayed
    assert wallet_balances(user=player)["eur"] == 5_000
    assert SandboxOperation.objects.get().calls == 1  # the provider was not even asked again


def test_same_key_with_other_data_is_refused_and_nothing_moves(player):
    key = new_key()
    services.deposit_create(user=player, amount=5_000, card_number=CARD_OK, idempotency_key=key)
    with pytest.raises(IdempotencyConflict, match="already used for a different deposit"):
        services.deposit_create(user=player, amount=9_000, card_number=CARD_OK, idempotency_key=key)
    other = player_create()
    with pytest.raises(IdempotencyConflict):
        services.deposit_create(user=other, amount=5_000, card_number=CARD_OK, idempotency_key=key)
    assert wallet_balances(user=player)["eur"] == 5_000
    assert wallet_balances(user=other)["eur"] == 0


def test_a_declined_card_moves_nothing(player):
    deposit = services.deposit_create(
        user=player, amount=5_000, card_number=CARD_DECLINED, idempotency_key=new_key()
    )
    assert deposit.status == Deposit.Status.DECLINED
    assert "Declined" in deposit.message
    assert wallet_balances(user=player)["eur"] == 0
    assert not Transfer.objects.filter(kind="deposit").exists()


def test_a_timeout_leaves_the_deposit_pending_and_a_retry_credits_it_once(player):
    key = new_key()
    deposit = services.deposit_create(
        user=player, amount=7_000, card_number=CARD_TIMEOUT, idempotency_key=key
    )
    assert deposit.status == Deposit.Status.PENDING
    assert wallet_balances(user=player)["eur"] == 0
    # the player sends the same form again: the provider answers this time, and the wallet is credited once
    again = services.deposit_create(user=player, amount=7_000, card_number=CARD_TIMEOUT, idempotency_key=key)
    assert again.status == Deposit.Status.SUCCEEDED
    services.deposit_retry(deposit=again)
    services.deposit_create(user=player, amount=7_000, card_number=CARD_TIMEOUT, idempotency_key=key)
    assert wallet_balances(user=player)["eur"] == 7_000
    assert Transfer.objects.filter(kind="deposit").count() == 1
    assert SandboxOperation.objects.get().amount == 7_000
    assert ledger_check().ok


def test_staff_retry_of_a_timed_out_deposit_credits_it(player):
    deposit = services.deposit_create(
        user=player, amount=1_000, card_number=CARD_TIMEOUT, idempotency_key=new_key()
    )
    assert deposit.status == "pending"
    assert services.deposit_retry(deposit=deposit).status == "succeeded"
    assert services.deposit_retry(deposit=Deposit.objects.get(pk=deposit.pk)).status == "succeeded"
    assert wallet_balances(user=player)["eur"] == 1_000


@pytest.mark.parametrize("amount", [-100, 0, 12.5, 10.0, "100", None, True, 2**53 + 1, 10**13])
def test_bad_amounts_are_refused_with_a_clear_error(player, amount):
    with pytest.raises(InvalidAmount) as error:
        services.deposit_create(user=player, amount=amount, card_number=CARD_OK, idempotency_key=new_key())
    assert str(error.value)
    assert wallet_balances(user=player)["eur"] == 0
    assert not Deposit.objects.exists()


@pytest.mark.parametrize("currency", ["usd", "EURO", "", None])
def test_unknown_currency_is_refused(player, currency):
    with pytest.raises(UnknownCurrency):
        services.deposit_create(
            user=player, amount=100, card_number=CARD_OK, idempotency_key=new_key(), currency=currency
        )
    assert not Deposit.objects.exists()


def test_play_chips_cannot_be_deposited(player):
    with pytest.raises(UnknownCurrency, match="play chips"):
        services.deposit_create(
            user=player, amount=100, card_number=CARD_OK, idempotency_key=new_key(), currency="play"
        )


@pytest.mark.parametrize("card", ["1234", "4242 4242 4242 4241", "abcd efgh ijkl mnop", ""])
def test_invalid_card_numbers_are_refused(player, card):
    with pytest.raises(InvalidCard):
        services.deposit_create(user=player, amount=100, card_number=card, idempotency_key=new_key())
    assert not Deposit.objects.exists()


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("12.50", 1250),
        ("12,50", 1250),
        ("€ 20", 2000),
        ("1.234,56", 123456),
        ("1,234.56", 123456),
        ("0.01", 1),
        ("7", 700),
        ("1,000,000", 100_000_000),
    ],
)
def test_amounts_typed_by_players(typed, cents):
    assert amount_parse(typed) == cents


@pytest.mark.parametrize(
    "typed", ["", "-5", "12.345", "abc", "1e5", "0", "0,00", "99999999999999999", "1.2.3,4,5"]
)
def test_bad_amounts_typed_by_players(typed):
    with pytest.raises(InvalidAmount):
        amount_parse(typed)


def test_withdrawal_needs_verified_identity(player):
    eur_fund(player, 10_000)
    with pytest.raises(IdentityNotVerified):
        services.withdrawal_request(user=player, amount=1_000, card_number=CARD_OK, idempotency_key=new_key())
    assert wallet_balances(user=player)["eur"] == 10_000


def test_withdrawal_is_held_then_paid_on_approval(verified_player):
    staff = player_create()
    eur_fund(verified_player, 10_000)
    withdrawal = services.withdrawal_request(
        user=verified_player, amount=4_000, card_number=CARD_OK, idempotency_key=new_key()
    )
    assert withdrawal.status == Withdrawal.Status.PENDING
    assert wallet_balances(user=verified_player)["eur"] == 6_000  # held: the player cannot spend it twice
    paid = services.withdrawal_approve(withdrawal=withdrawal, staff_user=staff)
    assert paid.status == Withdrawal.Status.PAID and paid.decided_by == staff
    assert wallet_balances(user=verified_player)["eur"] == 6_000
    with pytest.raises(WrongState):
        services.withdrawal_reject(withdrawal=paid, staff_user=staff)
    assert ledger_check().ok


def test_rejected_withdrawal_gives_the_money_back(verified_player):
    staff = player_create()
    eur_fund(verified_player, 10_000)
    withdrawal = services.withdrawal_request(
        user=verified_player, amount=10_000, card_number=CARD_OK, idempotency_key=new_key()
    )
    assert wallet_balances(user=verified_player)["eur"] == 0
    rejected = services.withdrawal_reject(withdrawal=withdrawal, staff_user=staff, reason="documents expired")
    assert rejected.status == Withdrawal.Status.REJECTED
    assert wallet_balances(user=verified_player)["eur"] == 10_000
    with pytest.raises(WrongState):
        services.withdrawal_approve(withdrawal=rejected, staff_user=staff)
    assert wallet_balances(user=verified_player)["eur"] == 10_000


def test_withdrawal_declined_by_the_provider_gives_the_money_back(verified_player):
    eur_fund(verified_player, 5_000)
    withdrawal = services.withdrawal_request(
        user=verified_player, amount=5_000, card_number=CARD_DECLINED, idempotency_key=new_key()
    )
    failed = services.withdrawal_approve(withdrawal=withdrawal, staff_user=player_create())
    assert failed.status == Withdrawal.Status.FAILED
    assert wallet_balances(user=verified_player)["eur"] == 5_000


def test_withdrawal_payout_timeout_then_retry_pays_once(verified_player):
    eur_fund(verified_player, 5_000)
    withdrawal = services.withdrawal_request(
        user=verified_player, amount=3_000, card_number=CARD_TIMEOUT, idempotency_key=new_key()
    )
    processing = services.withdrawal_approve(withdrawal=withdrawal, staff_user=player_create())
    assert processing.status == Withdrawal.Status.PROCESSING
    paid = services.withdrawal_payout_retry(withdrawal=processing)
    assert paid.status == Withdrawal.Status.PAID
    assert services.withdrawal_payout_retry(withdrawal=paid).status == Withdrawal.Status.PAID
    assert wallet_balances(user=verified_player)["eur"] == 2_000
    assert Transfer.objects.filter(kind="withdrawal_paid").count() == 1
    assert ledger_check().ok


def test_withdrawal_retry_and_conflict(verified_player):
    eur_fund(verified_player, 5_000)
    key = new_key()
    first = services.withdrawal_request(
        user=verified_player, amount=1_000, card_number=CARD_OK, idempotency_key=key
    )
    again = services.withdrawal_request(
        user=verified_player, amount=1_000, card_number=CARD_OK, idempotency_key=key
    )
    assert again.pk == first.pk
    with pytest.raises(IdempotencyConflict):
        services.withdrawal_request(
            user=verified_player, amount=2_000, card_number=CARD_OK, idempotency_key=key
        )
    assert wallet_balances(user=verified_player)["eur"] == 4_000


def test_cannot_withdraw_more_than_the_wallet(verified_player):
    eur_fund(verified_player, 1_000)
    with pytest.raises(InsufficientFunds, match="10.00"):
        services.withdrawal_request(
            user=verified_player, amount=1_001, card_number=CARD_OK, idempotency_key=new_key()
        )
    assert wallet_balances(user=verified_player)["eur"] == 1_000
    assert not Withdrawal.objects.exists()


@override_settings(PLAY_CHIPS_WELCOME=1_000_000, PLAY_CHIPS_REFILL_BELOW=100_000)
def test_refill_only_below_the_threshold_and_once_a_day(player, play_table, monkeypatch):
    with pytest.raises(RefillRefused, match="less than"):
        services.play_chips_refill(user=player)
    services.seat_buy_in(user=player, table=play_table, seat_number=1, amount=10_000)
    services.seat_cash_out(user=player, table=play_table)
    # spend it down: a hand lost at a table (big buy-ins at a table with a high maximum)
    big = play_table.__class__.objects.create(name="deep", currency="play", small_blind=5000, big_blind=10000)
    services.seat_buy_in(user=player, table=big, seat_number=1, amount=950_000)
    assert wallet_balances(user=player)["play"] == 50_000
    services.play_chips_refill(user=player)
    assert wallet_balances(user=player)["play"] == 1_000_000
    services.seat_top_up(user=player, table=big, amount=50_000)
    big2 = play_table.__class__.objects.create(
        name="deep2", currency="play", small_blind=5000, big_blind=10000
    )
    services.seat_buy_in(user=player, table=big2, seat_number=1, amount=900_000)
    assert wallet_balances(user=player)["play"] == 50_000
    with pytest.raises(RefillRefused, match="today"):
        services.play_chips_refill(user=player)
    later = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    services.play_chips_refill(user=player)
    assert wallet_balances(user=player)["play"] == 1_000_000
    assert Transfer.objects.filter(kind="refill", user=player).count() == 2
    assert ledger_check().ok


def test_the_periodic_chase_settles_timed_out_payments(verified_player):
    from cashier.tasks import payments_chase

    eur_fund(verified_player, 5_000)
    pending = services.deposit_create(
        user=verified_player, amount=1_000, card_number=CARD_TIMEOUT, idempotency_key=new_key()
    )
    withdrawal = services.withdrawal_request(
        user=verified_player, amount=2_000, card_number=CARD_TIMEOUT, idempotency_key=new_key()
    )
    services.withdrawal_approve(withdrawal=withdrawal, staff_user=player_create())
    assert payments_chase() == {"deposits": 1, "withdrawals": 1}
    assert Deposit.objects.get(pk=pending.pk).status == "succeeded"
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == "paid"
    assert wallet_balances(user=verified_player)["eur"] == 4_000
    assert payments_chase() == {"deposits": 0, "withdrawals": 0}
