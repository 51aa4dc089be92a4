"""Staff decide withdrawals from each one's page: a confirmation first, a typed reason for a rejection that
the player reads in their language, and two approvers from WITHDRAWAL_SECOND_APPROVAL_FROM."""

import pytest
from django.utils import timezone

from cashier import services
from cashier.models import Withdrawal
from cashier.selectors import wallet_balances
from staff.models import AuditEntry, DepositFlag
from tests.admin_client import staff_client
from tests.factories import CARD_OK, eur_fund, new_key, player_create, staff_with_perms

pytestmark = pytest.mark.django_db


def withdrawal_of(player, amount):
    return services.withdrawal_request(
        user=player, amount=amount, card_number=CARD_OK, idempotency_key=new_key()
    )


@pytest.fixture
def anna():
    player = player_create(verified=True)
    eur_fund(player, 300_000)
    DepositFlag.objects.filter(deposit__user=player).update(reviewed_at=timezone.now())  # no hold
    return player


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_approving_asks_for_a_confirmation_then_pays_and_is_recorded(boss, anna):
    withdrawal = withdrawal_of(anna, 2_500)
    detail = page(boss, f"/admin/cashier/withdrawal/{withdrawal.pk}/change/")
    assert "€\xa025.00" in detail and "Approve…" in detail and "Reject…" in detail

    confirmation = page(boss, f"/admin/cashier/withdrawal/{withdrawal.pk}/approve/")
    assert "€\xa025.00" in confirmation and "Confirm" in confirmation
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING, (
        "nothing before confirming"
    )
    boss.post(f"/admin/cashier/withdrawal/{withdrawal.pk}/approve/", {})  # no confirmation: the page again
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING

    response = boss.post(f"/admin/cashier/withdrawal/{withdrawal.pk}/approve/", {"confirm": "1"}, follow=True)

    assert "approved" in response.content.decode()
    withdrawal.refresh_from_db()
    assert withdrawal.status == Withdrawal.Status.PAID and withdrawal.decided_by == boss.staff
    entry = AuditEntry.objects.get(action="withdrawal.approve")
    assert (entry.actor, entry.player, entry.before, entry.after) == (
        boss.staff,
        anna,
        {"status": "pending"},
        {"status": "processing"},
    )


def test_a_rejection_needs_a_reason_which_the_player_reads_in_their_language(boss, anna, client):
    withdrawal = withdrawal_of(anna, 4_000)
    url = f"/admin/cashier/withdrawal/{withdrawal.pk}/reject/"
    assert "Reason the player reads" in page(boss, url)
    no_reason = boss.post(url, {"confirm": "1", "reason_code": ""})
    assert no_reason.status_code == 200 and "This field is required" in no_reason.content.decode()
    bad_reason = boss.post(url, {"confirm": "1", "reason_code": "because"})
    assert bad_reason.status_code == 200 and "Select a valid choice" in bad_reason.content.decode()
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING

    boss.post(url, {"confirm": "1", "reason_code": "destination", "reason": "Carta 4242"})

    withdrawal.refresh_from_db()
    assert withdrawal.status == Withdrawal.Status.REJECTED
    assert (withdrawal.reason_code, withdrawal.reason) == ("destination", "Carta 4242")
    assert wallet_balances(user=anna)["eur"] == 300_000, "the money is back"
    client.force_login(anna)
    english = client.get("/cashier/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This card cannot receive the payout" in english and "Carta 4242" in english
    client.cookies["django_language"] = "it"
    italian = client.get("/cashier/").content.decode()
    assert "Questa carta non può ricevere il pagamento" in italian
    entry = AuditEntry.objects.get(action="withdrawal.reject")
    assert entry.after == {"status": "rejected", "reason_code": "destination"} and entry.note == "Carta 4242"


def test_a_large_withdrawal_is_paid_only_when_a_second_member_of_staff_approves(boss, anna, settings):
    settings.WITHDRAWAL_SECOND_APPROVAL_FROM = 100_000
    small, large = withdrawal_of(anna, 99_999), withdrawal_of(anna, 100_000)
    boss.post(f"/admin/cashier/withdrawal/{small.pk}/approve/", {"confirm": "1"})
    assert Withdrawal.objects.get(pk=small.pk).status == Withdrawal.Status.PAID, (
        "below the threshold: one approver"
    )

    assert "two approvals" in page(boss, f"/admin/cashier/withdrawal/{large.pk}/change/")
    first = boss.post(f"/admin/cashier/withdrawal/{large.pk}/approve/", {"confirm": "1"}, follow=True)
    assert "a second member of staff must approve" in first.content.decode()
    large.refresh_from_db()
    assert large.status == Withdrawal.Status.PENDING and large.first_approved_by == boss.staff
    again = boss.post(f"/admin/cashier/withdrawal/{large.pk}/approve/", {"confirm": "1"}, follow=True)
    assert "another member of staff must approve it too" in again.content.decode()
    assert Withdrawal.objects.get(pk=large.pk).status == Withdrawal.Status.PENDING
    listed = page(boss, "/admin/cashier/withdrawal/?status__exact=pending")
    assert "waiting for a second approver" in listed

    second, carla = staff_client(username="carla")
    second.post(f"/admin/cashier/withdrawal/{large.pk}/approve/", {"confirm": "1"})

    large.refresh_from_db()
    assert large.status == Withdrawal.Status.PAID and large.decided_by == carla
    assert wallet_balances(user=anna)["eur"] == 300_000 - 99_999 - 100_000
    assert [e.action for e in AuditEntry.objects.filter(target_id=str(large.pk)).order_by("id")] == [
        "withdrawal.first_approval",
        "withdrawal.approve",
    ]


def test_an_unverified_player_is_not_paid_and_staff_are_told_why(boss, anna):
    withdrawal = withdrawal_of(anna, 1_000)
    type(anna).objects.filter(pk=anna.pk).update(identity_verified_at=None)
    assert "identity is not verified" in page(boss, f"/admin/cashier/withdrawal/{withdrawal.pk}/change/")
    response = boss.post(f"/admin/cashier/withdrawal/{withdrawal.pk}/approve/", {"confirm": "1"}, follow=True)
    assert "identity is not verified" in response.content.decode()
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING


def test_staff_without_the_permission_cannot_decide(anna):
    viewer, _user = staff_with_perms("viewer", "cashier.view_withdrawal")
    withdrawal = withdrawal_of(anna, 1_000)
    detail = page(viewer, f"/admin/cashier/withdrawal/{withdrawal.pk}/change/")
    assert "Approve…" not in detail
    assert (
        viewer.post(f"/admin/cashier/withdrawal/{withdrawal.pk}/approve/", {"confirm": "1"}).status_code
        == 403
    )
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING
