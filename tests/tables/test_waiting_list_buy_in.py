"""A waiting-list seat only for a player who could buy in then (issue 32). Before: a player with EUR 0.00 and
no confirmed email could join a full EUR table's list, be offered the freed seat and hold it 30 s while a
funded player was refused, again and again. Now joining is refused with the reason, and when a seat comes free
a player on the list who can no longer buy in is dropped from it (and told why), the seat going to the next."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import SelfExclusion
from cashier.selectors import ledger_check
from tables import effects, services
from tables.models import WaitingEntry
from tests.factories import eur_player, eur_table_create, player_create, sit

pytestmark = pytest.mark.django_db

MIN_BUY_IN = 3_000  # eur_table_create's NL 0.50/1.00: 30.00 to 100.00


@pytest.fixture
def full_eur_table():
    """A two-seat EUR table, both seats taken by funded players (alice at 1, bob at 2)."""
    table = eur_table_create(seats=2)
    alice, bob = eur_player(), eur_player()
    sit(table, alice, 1, buy_in=MIN_BUY_IN)
    sit(table, bob, 2, buy_in=MIN_BUY_IN)
    return table, alice, bob


@pytest.fixture
def told(monkeypatch) -> list[dict]:
    """What each player is told on their own connections (the real effect, recorded on the way)."""
    messages: list[dict] = []
    real = effects.tell_player

    def recording(*, user_id: int, message: dict) -> None:
        messages.append({"user_id": user_id, **message})
        real(user_id=user_id, message=message)

    monkeypatch.setattr(effects, "tell_player", recording)
    return messages


def _refused_code(table, user) -> str:
    with pytest.raises(services.TableError) as refused:
        services.waiting_join(table_id=table.id, user=user)
    return refused.value.code


def test_joining_a_eur_list_needs_a_confirmed_email_and_the_smallest_buy_in(full_eur_table):
    table, _alice, _bob = full_eur_table
    broke = player_create()
    assert _refused_code(table, broke) == "insufficient_funds"
    unconfirmed = player_create(email_verified=False)
    assert _refused_code(table, unconfirmed) == "email_not_verified"
    short = eur_player(MIN_BUY_IN - 1)
    assert _refused_code(table, short) == "insufficient_funds"
    excluded = eur_player()
    SelfExclusion.objects.create(
        user=excluded,
        period=SelfExclusion.Period.DAYS_30,
        starts_at=timezone.now() - timedelta(hours=1),
        ends_at=timezone.now() + timedelta(days=30),
    )
    assert _refused_code(table, excluded) == "self_excluded"
    closed = eur_player()
    type(closed).objects.filter(pk=closed.pk).update(is_active=False)
    assert _refused_code(table, closed) == "account_closed"
    assert not WaitingEntry.objects.filter(table=table).exists(), "nobody refused is on the list"
    table.refresh_from_db()
    assert table.waiting_count == 0
    funded = eur_player(MIN_BUY_IN)
    assert services.waiting_join(table_id=table.id, user=funded)["position"] == 1


def test_the_refusal_says_why_in_the_players_language(full_eur_table):
    table, _alice, _bob = full_eur_table
    broke = player_create()
    broke.preferred_language = "it"
    from django.utils import translation

    with translation.override("it"):
        with pytest.raises(services.TableError) as refused:
            services.waiting_join(table_id=table.id, user=broke)
    assert "il tuo portafoglio" in refused.value.message.lower() and "30,00" in refused.value.message


def test_a_freed_seat_skips_a_player_who_can_no_longer_buy_in_and_goes_to_the_next(full_eur_table, told):
    table, alice, _bob = full_eur_table
    carol, dave = eur_player(5_000), eur_player(5_000)
    services.waiting_join(table_id=table.id, user=carol)
    services.waiting_join(table_id=table.id, user=dave)
    elsewhere = eur_table_create(seats=2)
    sit(elsewhere, carol, 1, buy_in=MIN_BUY_IN)  # her wallet now holds 20.00, less than 30.00

    told.clear()
    services.seat_leave(table_id=table.id, user=alice)
    assert not WaitingEntry.objects.filter(table=table, user=carol).exists(), "carol is off the list"
    assert WaitingEntry.objects.get(table=table, user=dave).offered_seat == 1, "the seat goes to dave"
    table.refresh_from_db()
    assert table.waiting_count == 1
    dropped = [m for m in told if m["user_id"] == carol.id]
    assert [m["type"] for m in dropped] == ["waiting_dropped"]
    assert dropped[0]["code"] == "insufficient_funds" and "off its waiting list" in dropped[0]["message"]
    assert [m["type"] for m in told if m["user_id"] == dave.id] == ["seat_offer"]
    sit(table, dave, 1, buy_in=MIN_BUY_IN)
    assert ledger_check().ok


def test_a_player_who_self_excluded_while_waiting_is_not_offered_the_seat(full_eur_table, told):
    table, alice, _bob = full_eur_table
    carol, dave = eur_player(), eur_player()
    services.waiting_join(table_id=table.id, user=carol)
    services.waiting_join(table_id=table.id, user=dave)
    SelfExclusion.objects.create(
        user=carol,
        period=SelfExclusion.Period.DAYS_30,
        starts_at=timezone.now() - timedelta(minutes=1),
        ends_at=timezone.now() + timedelta(days=30),
    )
    told.clear()
    services.seat_leave(table_id=table.id, user=alice)
    assert not WaitingEntry.objects.filter(user=carol).exists()
    assert WaitingEntry.objects.get(user=dave).offered_seat == 1
    assert [m["code"] for m in told if m["user_id"] == carol.id] == ["self_excluded"]
