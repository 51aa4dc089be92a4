"""Balance adjustments (issue 36): staff propose one with a reason and a note; from
ADJUSTMENT_SECOND_APPROVAL_FROM a second, different member of staff approves it; it is one balanced transfer
against the room's adjustments account, idempotent, on the player page and in the audit log, and never takes a
wallet below zero. `ledger_check` runs after each test (tests/staff/conftest.py)."""

import pytest

from cashier import adjustments
from cashier.errors import CashierError, SecondApprovalNeeded
from cashier.models import AccountKind, Adjustment, Transfer
from cashier.selectors import wallet_balances
from staff.models import AuditEntry
from tests.admin_client import staff_client
from tests.factories import eur_fund, player_create

pytestmark = pytest.mark.django_db

PROPOSE = "/admin/cashier/adjustment/propose/"


@pytest.fixture(autouse=True)
def threshold(settings):
    settings.ADJUSTMENT_SECOND_APPROVAL_FROM = 10_000  # EUR 100.00


@pytest.fixture
def anna():
    player = player_create(verified=True)
    eur_fund(player, 5_000)
    return player


def form(who, **changes) -> dict:
    data = {
        "player": who.username,
        "currency": "eur",
        "direction": "credit",
        "amount": "25.00",
        "reason_code": "error",
        "note": "Hand #324 settled short, ticket 88",
        "idempotency_key": "k-1",
    }
    return {**data, **changes}


def test_a_small_credit_is_booked_at_once_against_the_rooms_account(boss, anna):
    assert "Propose an adjustment…" in boss.get(f"/admin/staff/player/{anna.pk}/change/").content.decode()
    page = boss.post(PROPOSE, form(anna), follow=True).content.decode()

    assert "Adjustment booked" in page
    assert wallet_balances(user=anna)["eur"] == 7_500
    adjustment = Adjustment.objects.get()
    assert (adjustment.status, adjustment.decided_by) == ("done", boss.staff)
    legs = {e.account.kind: e.amount for e in adjustment.transfer.entries.select_related("account")}
    assert legs == {AccountKind.PLAYER_EUR: 2_500, AccountKind.ADJUSTMENTS: -2_500}
    boss.post(PROPOSE, form(anna), follow=True)  # the same form sent again
    assert Adjustment.objects.count() == 1 and wallet_balances(user=anna)["eur"] == 7_500
    player_page = boss.get(f"/admin/staff/player/{anna.pk}/change/").content.decode()
    assert 'id="player-adjustments"' in player_page and "+€\xa025.00" in player_page
    assert "Correction of an error" in player_page
    assert [e.action for e in AuditEntry.objects.filter(player=anna).order_by("id")] == [
        "adjustment.propose",
        "adjustment.approve",
    ]


def test_from_the_threshold_a_second_member_of_staff_approves(boss, anna):
    boss.post(PROPOSE, form(anna, amount="150.00", reason_code="goodwill", idempotency_key="k-2"))
    adjustment = Adjustment.objects.get()
    assert adjustment.status == "pending" and wallet_balances(user=anna)["eur"] == 5_000, "nothing moved yet"
    url = f"/admin/cashier/adjustment/{adjustment.pk}"

    again = boss.post(f"{url}/approve/", {"confirm": "1"}, follow=True).content.decode()
    assert "another member of staff must approve it" in again
    with pytest.raises(SecondApprovalNeeded):
        adjustments.adjustment_approve(adjustment=adjustment, staff_user=boss.staff)
    assert wallet_balances(user=anna)["eur"] == 5_000

    second, carla = staff_client(username="carla")
    assert "Approve…" in second.get(f"{url}/change/").content.decode()
    second.post(f"{url}/approve/", {"confirm": "1"})

    adjustment.refresh_from_db()
    assert (adjustment.status, adjustment.proposed_by, adjustment.decided_by) == ("done", boss.staff, carla)
    assert wallet_balances(user=anna)["eur"] == 20_000
    entry = AuditEntry.objects.get(action="adjustment.approve")
    assert (entry.actor, entry.player) == (carla, anna)


def test_a_debit_never_takes_a_wallet_below_zero(boss, anna):
    refused = boss.post(PROPOSE, form(anna, direction="debit", amount="50.01"), follow=True).content.decode()
    assert "below zero" in refused and "€\xa050.00" in refused
    assert not Adjustment.objects.exists() and not AuditEntry.objects.filter(player=anna).exists()

    large = boss.post(PROPOSE, form(anna, direction="debit", amount="500.00", idempotency_key="k-3"))
    assert "below zero" in large.content.decode(), "one needing two approvers is refused at once too"
    boss.post(PROPOSE, form(anna, direction="debit", amount="50.00", idempotency_key="k-4"))
    assert wallet_balances(user=anna)["eur"] == 0
    assert Adjustment.objects.get().amount == -5_000


def test_bad_input_is_refused_with_a_reason_and_changes_nothing(boss, anna):
    cases = [
        (form(anna, amount="0"), "amount"),
        (form(anna, amount="-5"), "amount"),
        (form(anna, amount="abc"), "amount"),
        (form(anna, reason_code="because"), "Select a valid choice"),
        (form(anna, note=""), "This field is required"),
        (form(anna, player="nobody-here"), "No player has this user name or email"),
        (form(anna, currency="usd"), "Select a valid choice"),
        (form(boss.staff), "Nobody may adjust their own balance"),
    ]
    for data, said in cases:
        response = boss.post(PROPOSE, data)
        assert response.status_code == 200 and said in response.content.decode(), (data, said)
    assert not Adjustment.objects.exists() and not Transfer.objects.filter(kind="adjustment").exists()
    with pytest.raises(CashierError):
        adjustments.adjustment_propose(
            user=anna,
            currency="eur",
            amount=0,
            reason_code="error",
            note="x",
            staff_user=boss.staff,
            idempotency_key="k",
        )
