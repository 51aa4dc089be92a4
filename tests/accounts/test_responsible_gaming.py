"""SPEC 2's responsible gaming: deposit limits (lower at once, raise after a delay) and self-exclusion
(30/60/90 days, not liftable early; for good, liftable after 6 months), which blocks deposits and sitting down
and cashes a seated player out once the hand in play ends."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import SelfExclusion
from cashier import services
from cashier.errors import DepositLimitExceeded, ExclusionLocked, SelfExcluded
from cashier.models import Deposit, SeatSession
from cashier.selectors import deposit_limits_for, ledger_check, self_exclusion_active, wallet_balances
from tables import services as tables
from tables.models import Seat
from tests.factories import (
    CARD_OK,
    CARD_TIMEOUT,
    act,
    eur_fund,
    new_key,
    passive,
    play_out,
    player_create,
    sit_now,
    to_act_user,
)
from tests.factories import eur_table_create as table_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def player(db):
    return player_create()


def deposit(user, amount, card=CARD_OK, now=None):
    return services.deposit_create(
        user=user, amount=amount, card_number=card, idempotency_key=new_key(), now=now
    )


def later(monkeypatch, **delta):
    moment = timezone.now() + timedelta(**delta)
    monkeypatch.setattr(timezone, "now", lambda: moment)
    return moment


def test_a_daily_limit_blocks_the_deposit_that_would_pass_it(player):
    services.deposit_limit_set(user=player, period="day", amount=10_000)
    deposit(player, 6_000)
    with pytest.raises(DepositLimitExceeded, match="at most .*40.00"):
        deposit(player, 4_001)
    deposit(player, 4_000)
    assert wallet_balances(user=player)["eur"] == 10_000
    assert Deposit.objects.filter(user=player).count() == 2


def test_weekly_and_monthly_limits_count_their_own_windows(player, monkeypatch):
    services.deposit_limit_set(user=player, period="week", amount=20_000)
    services.deposit_limit_set(user=player, period="month", amount=30_000)
    deposit(player, 15_000)
    later(monkeypatch, days=2)
    with pytest.raises(DepositLimitExceeded, match="week"):
        deposit(player, 6_000)
    later(monkeypatch, days=8)
    deposit(player, 15_000)  # a new week, the month is now full
    with pytest.raises(DepositLimitExceeded, match="month"):
        deposit(player, 1)
    later(monkeypatch, days=31)
    deposit(player, 1)


def test_a_pending_deposit_counts_toward_the_limit(player):
    services.deposit_limit_set(user=player, period="day", amount=10_000)
    assert deposit(player, 8_000, card=CARD_TIMEOUT).status == "pending"
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 3_000)


def test_lowering_a_limit_takes_effect_at_once(player):
    services.deposit_limit_set(user=player, period="day", amount=50_000)
    services.deposit_limit_set(user=player, period="day", amount=1_000)
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 1_001)
    [day] = [v for v in deposit_limits_for(user=player) if v.period == "day"]
    assert day.amount == 1_000 and not day.has_pending


@override_settings(DEPOSIT_LIMIT_RAISE_DELAY_DAYS=7)
def test_raising_a_limit_waits_seven_days(player, monkeypatch):
    services.deposit_limit_set(user=player, period="day", amount=1_000)
    services.deposit_limit_set(user=player, period="day", amount=50_000)
    [day] = [v for v in deposit_limits_for(user=player) if v.period == "day"]
    assert day.amount == 1_000 and day.has_pending and day.pending_amount == 50_000
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 2_000)
    later(monkeypatch, days=6, hours=23)
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 2_000)
    later(monkeypatch, days=7, minutes=1)
    deposit(player, 2_000)
    assert wallet_balances(user=player)["eur"] == 2_000


def test_removing_a_limit_is_a_raise_and_waits(player, monkeypatch):
    services.deposit_limit_set(user=player, period="day", amount=1_000)
    services.deposit_limit_set(user=player, period="day", amount=None)
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 5_000)
    later(monkeypatch, days=8)
    deposit(player, 5_000)


def test_lowering_cancels_a_pending_raise(player, monkeypatch):
    services.deposit_limit_set(user=player, period="day", amount=1_000)
    services.deposit_limit_set(user=player, period="day", amount=9_000)
    services.deposit_limit_set(user=player, period="day", amount=500)
    later(monkeypatch, days=8)
    with pytest.raises(DepositLimitExceeded):
        deposit(player, 600)


@override_settings(DEPOSIT_LIMIT_RAISE_DELAY_DAYS=2)
def test_the_raise_delay_is_a_setting(player, monkeypatch):
    services.deposit_limit_set(user=player, period="day", amount=1_000)
    services.deposit_limit_set(user=player, period="day", amount=9_000)
    later(monkeypatch, days=2, minutes=1)
    deposit(player, 9_000)


@pytest.mark.parametrize(("period", "days"), [("30d", 30), ("60d", 60), ("90d", 90)])
def test_timed_self_exclusion_blocks_deposits_and_seats_and_cannot_be_lifted(
    player, period, days, monkeypatch
):
    table = table_create()
    eur_fund(player, 10_000)
    exclusion = services.player_self_exclude(user=player, period=period)
    with pytest.raises(SelfExcluded, match="Deposits are blocked"):
        deposit(player, 1_000)
    with pytest.raises(SelfExcluded, match="cannot sit down"):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=3_000)
    with pytest.raises(ExclusionLocked, match="cannot be lifted early"):
        services.self_exclusion_lift(exclusion=exclusion, lifted_by=player)
    assert wallet_balances(user=player)["eur"] == 10_000
    later(monkeypatch, days=days - 1)
    assert self_exclusion_active(user=player) is not None
    later(monkeypatch, days=days, minutes=1)
    assert self_exclusion_active(user=player) is None
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=3_000)
    deposit(player, 1_000)


def test_permanent_self_exclusion_can_be_lifted_only_after_six_months(player, monkeypatch):
    staff = player_create()
    exclusion = services.player_self_exclude(user=player, period="permanent")
    later(monkeypatch, days=150)
    with pytest.raises(ExclusionLocked, match="only from"):
        services.self_exclusion_lift(exclusion=exclusion, lifted_by=staff)
    assert self_exclusion_active(user=player) is not None
    later(monkeypatch, days=185)
    services.self_exclusion_lift(exclusion=exclusion, lifted_by=staff)
    assert self_exclusion_active(user=player) is None
    deposit(player, 1_000)


def test_a_shorter_exclusion_cannot_replace_a_longer_one(player):
    services.player_self_exclude(user=player, period="90d")
    with pytest.raises(ExclusionLocked):
        services.player_self_exclude(user=player, period="30d")
    services.player_self_exclude(user=player, period="permanent")
    assert self_exclusion_active(user=player).period == SelfExclusion.Period.PERMANENT


def test_self_exclusion_cashes_out_every_idle_seat_at_once(player):
    eur_fund(player, 20_000)
    tables = [table_create(), table_create()]
    for n, table in enumerate(tables, start=1):
        Seat.objects.filter(table=table, number=n).update(user=player, status=Seat.Status.ACTIVE)
        services.seat_buy_in(user=player, table=table, seat_number=n, amount=5_000)
    play = table_create(currency="play")
    services.seat_buy_in(user=player, table=play, seat_number=1, amount=5_000)
    assert wallet_balances(user=player) == {"eur": 10_000, "play": 995_000}
    services.player_self_exclude(user=player, period="30d")
    assert wallet_balances(user=player) == {"eur": 20_000, "play": 1_000_000}
    assert not SeatSession.objects.filter(user=player, closed_at__isnull=True).exists()
    assert not Seat.objects.filter(user=player).exists()  # the seats were freed
    assert ledger_check().ok


def test_a_seat_in_a_hand_is_cashed_out_when_the_hand_ends(player):
    busy, idle = table_create(currency="play"), table_create(currency="play")
    opponent = player_create()
    sit_now(busy, player, 1, 5_000)
    sit_now(busy, opponent, 2, 5_000)
    sit_now(idle, player, 1, 5_000)
    hand = tables.hand_deal(table_id=busy.id)
    assert hand is not None
    services.player_self_exclude(user=player, period="60d")
    assert wallet_balances(user=player)["play"] == 995_000  # the idle seat came back at once
    assert not Seat.objects.filter(table=idle, user=player).exists(), "and its chair is free"
    mine = SeatSession.objects.get(table=busy, user=player)
    assert mine.closed_at is None and mine.cash_out_after_hand, "still in the hand"
    with pytest.raises(SelfExcluded):
        sit_now(idle, player, 2, 5_000)
    # the hand goes on without their say: their actions are refused, the clock checks or folds for them
    if to_act_user(busy, [player, opponent]) == player:
        with pytest.raises(tables.TableError, match="may not play"):
            act(busy, player, "fold")
    play_out(
        busy, [player, opponent], hand, choose=lambda user, legal: None if user == player else passive(legal)
    )
    # the hand ended: the seat is cashed out with what is left of its stack
    mine.refresh_from_db()
    assert mine.closed_at is not None
    assert wallet_balances(user=player)["play"] == 995_000 + mine.left_with
    assert not Seat.objects.filter(table=busy, user=player).exists()
    assert SeatSession.objects.get(table=busy, user=opponent).closed_at is None, "the opponent stays"
    assert ledger_check().ok


def test_limits_and_exclusion_from_the_account_pages(client, player):
    client.force_login(player)
    response = client.post("/accounts/limits/", {"period": "day", "amount": "25,00"})
    assert response.status_code == 302
    page = client.get("/accounts/limits/").content.decode()
    assert "25.00" in page
    response = client.post("/accounts/self-exclusion/", {"period": "30d", "confirm": "on"})
    assert response.status_code == 302
    page = client.get("/accounts/profile/").content.decode()
    assert "excluded yourself" in page
    assert self_exclusion_active(user=player).period == "30d"


def test_staff_see_and_record_self_exclusions_in_the_admin(admin_client, player):
    services.player_self_exclude(user=player, period="permanent")
    page = admin_client.get("/admin/accounts/selfexclusion/").content.decode()
    assert player.username in page
    assert admin_client.get("/admin/accounts/depositlimit/").status_code == 200
