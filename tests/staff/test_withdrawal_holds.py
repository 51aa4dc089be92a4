"""A withdrawal is held while any deposit of the same player is flagged and not reviewed: neither approval is
taken, staff read why on the withdrawal's page and in the refusal, and once the flag is reviewed it is paid."""

import pytest

from cashier import services
from cashier.errors import WithdrawalHeld
from cashier.models import Withdrawal
from cashier.selectors import wallet_balances
from staff.models import AuditEntry, DepositFlag
from tests.admin_client import staff_client
from tests.factories import CARD_OK, eur_fund, new_key, player_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def thresholds(settings):
    settings.DEPOSIT_REVIEW_FROM = 100_000
    settings.WITHDRAWAL_SECOND_APPROVAL_FROM = 100_000


def withdrawal_of(player, amount):
    return services.withdrawal_request(
        user=player, amount=amount, card_number=CARD_OK, idempotency_key=new_key()
    )


def test_a_withdrawal_is_held_while_the_players_large_deposit_is_flagged(boss):
    player = player_create(verified=True)
    deposit = eur_fund(player, 150_000)  # EUR 1,500: flagged as large
    flag = DepositFlag.objects.get(deposit=deposit)
    withdrawal = withdrawal_of(player, 120_000)  # EUR 1,200
    url = f"/admin/cashier/withdrawal/{withdrawal.pk}"

    detail = boss.get(f"{url}/change/").content.decode()
    assert 'id="withdrawal-holds"' in detail
    assert f"deposit #{deposit.pk} of €\xa01,500.00" in detail and "not reviewed yet" in detail
    assert f"deposit #{deposit.pk}" in boss.get(f"{url}/approve/").content.decode(), (
        "the confirmation says it"
    )

    refused = boss.post(f"{url}/approve/", {"confirm": "1"}, follow=True).content.decode()

    assert "flagged for review" in refused and "Large deposit".lower() in refused
    withdrawal.refresh_from_db()
    assert (withdrawal.status, withdrawal.first_approved_by) == (Withdrawal.Status.PENDING, None)
    assert not AuditEntry.objects.filter(action__startswith="withdrawal.").exists()
    assert wallet_balances(user=player)["eur"] == 30_000, "the EUR 1,200 stay held, nothing paid"

    boss.post(f"/admin/staff/depositflag/{flag.pk}/review/", {"note": "Salary, payslip seen."})
    assert 'id="withdrawal-holds"' not in boss.get(f"{url}/change/").content.decode()
    boss.post(f"{url}/approve/", {"confirm": "1"})
    second, carla = staff_client(username="carla")
    second.post(f"{url}/approve/", {"confirm": "1"})

    withdrawal.refresh_from_db()
    assert (withdrawal.status, withdrawal.first_approved_by, withdrawal.decided_by) == (
        Withdrawal.Status.PAID,
        boss.staff,
        carla,
    )


def test_a_flag_raised_after_the_first_approval_holds_the_second(boss, deposit_with):
    player = player_create(verified=True)
    eur_fund(player, 90_000)
    deposit_with(player, 60_000)
    withdrawal = withdrawal_of(player, 100_000)
    first = services.withdrawal_approve(withdrawal=withdrawal, staff_user=boss.staff)
    assert first.first_approved_by == boss.staff
    flagged = deposit_with(player, 100_000)
    _client, carla = staff_client(username="carla")

    with pytest.raises(WithdrawalHeld, match=f"deposit #{flagged.pk}"):
        services.withdrawal_approve(withdrawal=withdrawal, staff_user=carla)

    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING


def test_a_reviewed_flag_or_another_players_flag_holds_nothing(boss):
    player, other = player_create(verified=True), player_create(verified=True)
    flag = DepositFlag.objects.get(deposit=eur_fund(player, 100_000))
    eur_fund(other, 100_000)
    DepositFlag.objects.filter(pk=flag.pk).update(reviewed_by=boss.staff, reviewed_at=flag.created_at)
    withdrawal = withdrawal_of(player, 5_000)

    assert services.withdrawal_approve(withdrawal=withdrawal, staff_user=boss.staff).status == "paid"
