"""Large or unusual deposits are flagged for staff (thresholds: the DEPOSIT_REVIEW_* settings), listed until
someone reviews them, and the review is recorded."""

import pytest

from staff.models import AuditEntry, DepositFlag
from tests.factories import player_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def thresholds(settings):
    settings.DEPOSIT_REVIEW_FROM = 100_000
    settings.DEPOSIT_REVIEW_DAY_TOTAL = 150_000
    settings.DEPOSIT_REVIEW_COUNT_PER_DAY = 5
    settings.DEPOSIT_REVIEW_FACTOR = 5


def reasons(deposit) -> list[str]:
    flag = DepositFlag.objects.filter(deposit=deposit).first()
    return flag.reasons if flag else []


def test_a_deposit_from_the_threshold_is_flagged_one_below_is_not(deposit_with):
    player = player_create()
    assert reasons(deposit_with(player, 99_999)) == []
    assert reasons(deposit_with(player, 100_000)) == ["large", "day_total"], "199,999 in 24 hours too"


def test_many_deposits_in_a_day_are_flagged_from_the_sixth(deposit_with):
    player = player_create()
    deposits = [deposit_with(player, 1_000) for _ in range(6)]
    assert [reasons(d) for d in deposits[:5]] == [[]] * 5
    assert reasons(deposits[5]) == ["many"]


def test_a_deposit_far_above_the_players_usual_ones_is_flagged(deposit_with, settings):
    settings.DEPOSIT_REVIEW_COUNT_PER_DAY = 100
    below, above = player_create(), player_create()
    for player in (below, above):
        for amount in (1_000, 2_000, 1_500):
            deposit_with(player, amount)
    assert reasons(deposit_with(below, 7_400)) == [], "under five times the median of 1,500"
    assert reasons(deposit_with(above, 7_500)) == ["unusual"]


def test_flagged_deposits_are_listed_for_staff_until_reviewed(boss, deposit_with):
    player = player_create()
    deposit = deposit_with(player, 120_000)
    flag = DepositFlag.objects.get(deposit=deposit)
    listed = boss.get("/admin/staff/depositflag/?reviewed=no").content.decode()
    assert "€\xa01,200.00" in listed and player.username in listed and "Large deposit" in listed
    assert "flagged deposits to review" in boss.get("/admin/").content.decode()

    page = boss.get(f"/admin/staff/depositflag/{flag.pk}/change/").content.decode()
    assert "Mark as reviewed" in page
    empty = boss.post(f"/admin/staff/depositflag/{flag.pk}/review/", {"note": ""}, follow=True)
    assert "Say what you found" in empty.content.decode()
    assert DepositFlag.objects.get(pk=flag.pk).reviewed_at is None
    assert boss.get(f"/admin/staff/depositflag/{flag.pk}/review/").status_code == 403

    boss.post(f"/admin/staff/depositflag/{flag.pk}/review/", {"note": "Salary, payslip seen."})

    flag.refresh_from_db()
    assert flag.reviewed_by == boss.staff and flag.review_note == "Salary, payslip seen."
    assert (
        player.username
        not in boss.get("/admin/staff/depositflag/?reviewed=no")
        .content.decode()
        .split('id="result_list"')[-1]
    )
    entry = AuditEntry.objects.get(action="deposit_flag.review")
    assert entry.player == player and entry.note == "Salary, payslip seen."


def test_a_failing_flag_check_never_undoes_a_deposit(deposit_with, monkeypatch):
    from staff import selectors

    def broken(**kwargs):
        raise RuntimeError("review rules broken")

    monkeypatch.setattr(selectors, "deposit_review_reasons", broken)
    monkeypatch.setattr("staff.services.deposit_review_reasons", broken)
    player = player_create()
    deposit = deposit_with(player, 150_000)
    assert deposit.status == "succeeded"
    from cashier.selectors import wallet_balances

    assert wallet_balances(user=player)["eur"] == 150_000
