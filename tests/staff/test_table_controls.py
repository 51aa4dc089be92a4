"""Staff's table controls from the table's admin page (issue 17): pause with a notice and resume, message the
table, remove a player (cashed out after the hand), cancel the hand in play with every bet returned; each
written to the audit log. The money is checked through the ledger."""

import pytest
from django.urls import reverse

from cashier.models import SeatSession, Transfer
from cashier.selectors import ledger_check, wallet_balances
from staff.models import AuditEntry
from tables import services
from tables.models import Hand, Seat
from tables.selectors import seat_stacks
from tests.factories import player_create, table_create
from tests.factories import sit_now as sit

pytestmark = pytest.mark.django_db


def _act(table, players, action, amount=None):
    hand = Hand.objects.get(table=table, status="running")
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    user = next(p for p in players if p.id == seat.user_id)
    services.table_act(
        table_id=table.id, user=user, hand_id=hand.id, action_no=hand.action_no, action=action, amount=amount
    )


def _play_out(table, players) -> Hand:
    """Check or call the running hand down to its end."""
    while (hand := Hand.objects.filter(table=table, status="running").first()) is not None:
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        services.hand_engine_keep(hand.id, state)
        _act(table, players, "check" if "check" in legal else "call")
    return Hand.objects.filter(table=table).order_by("-number").first()


@pytest.fixture
def three_at_a_table(db):
    players = [player_create() for _ in range(3)]
    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2000)
    for number, user in enumerate(players, start=1):
        sit(table, user, number, 1000)
    return table, players


def test_cancelling_a_hand_gives_every_chip_back_and_marks_it_cancelled(boss, three_at_a_table):
    table, players = three_at_a_table
    welcome = {p.id: wallet_balances(user=p)["play"] + 1000 for p in players}
    hand = services.hand_deal(table_id=table.id)
    _act(table, players, "raise", 60)
    _act(table, players, "call")
    _act(table, players, "call")  # the flop: 180 in the pot
    _act(table, players, "bet", 100)
    state = services.hand_engine(hand=Hand.objects.get(pk=hand.pk), table=table)
    put_in = {seat + 1: 1000 - state.stacks[seat] for seat in state.stacks}
    assert sum(put_in.values()) == 280

    page = boss.get(reverse("admin:tables_table_change", args=[table.pk])).content.decode()
    assert 'id="table-controls"' in page and "control-cancel-hand" in page
    url = reverse("admin:tables_table_cancel_hand", args=[table.pk])
    assert "Every chip put into this hand goes back" in boss.get(url).content.decode()
    boss.post(url, {"confirm": "1", "note": "a misdeal reported by the players"})

    hand.refresh_from_db()
    assert hand.status == "cancelled"
    assert {int(k): v for k, v in hand.result["returned"].items()} == put_in
    # The ledger: no settlement was booked, every seat holds what it was dealt with, no rake was taken.
    assert not Transfer.objects.filter(hand_ref=f"hand:{hand.id}").exists()
    assert seat_stacks(table=table) == {1: 1000, 2: 1000, 3: 1000}
    report = ledger_check()
    assert report.ok, report.violations
    entry = AuditEntry.objects.get(action="hand.cancel")
    assert entry.actor == boss.staff and entry.note == "a misdeal reported by the players"
    assert entry.after["returned"] == {str(k): v for k, v in put_in.items()}
    # Its page says so and what went back; the table deals the next hand.
    record = boss.get(reverse("admin:tables_hand_change", args=[hand.pk])).content.decode()
    assert 'id="hand-cancelled"' in record and "Cancelled by boss" in record
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at.replace(year=2000))
    assert services.hand_deal(table_id=table.id).number == 2
    Hand.objects.filter(table=table, status="running").delete()
    for player in players:
        services.seat_leave(table_id=table.id, user=player)
        assert wallet_balances(user=player)["play"] == welcome[player.id], "every chip is back in the wallet"


def test_cancelling_without_a_hand_in_play_changes_nothing(boss, three_at_a_table):
    table, _players = three_at_a_table
    response = boss.post(
        reverse("admin:tables_table_cancel_hand", args=[table.pk]), {"confirm": "1"}, follow=True
    )
    assert response.status_code == 200 and "No hand is in play" in response.content.decode()
    assert not AuditEntry.objects.filter(action="hand.cancel").exists()


def test_a_paused_table_finishes_its_hand_and_deals_no_other_until_resumed(boss, three_at_a_table):
    table, players = three_at_a_table
    services.hand_deal(table_id=table.id)
    boss.post(
        reverse("admin:tables_table_pause", args=[table.pk]),
        {"confirm": "1", "text": "Short break: back in five minutes"},
    )
    table.refresh_from_db()
    assert table.paused and table.pause_notice == "Short break: back in five minutes"
    hand = _play_out(table, players)  # the hand in play goes on to its end
    assert hand.status == "complete"
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at.replace(year=2000))
    assert services.hand_deal(table_id=table.id) is None, "no new hand while paused"
    assert table.id not in services.tables_idle()
    page = boss.get(reverse("admin:tables_table_change", args=[table.pk])).content.decode()
    assert "Short break" in page and "control-resume" in page
    boss.post(reverse("admin:tables_table_resume", args=[table.pk]), {"confirm": "1"})
    table.refresh_from_db()
    assert not table.paused
    assert services.hand_deal(table_id=table.id) is not None
    actions = list(AuditEntry.objects.filter(action__startswith="table.").values_list("action", flat=True))
    assert sorted(actions) == ["table.pause", "table.resume"]


def test_a_message_reaches_the_table_log_and_the_audit_log(boss, three_at_a_table):
    table, _players = three_at_a_table
    url = reverse("admin:tables_table_message", args=[table.pk])
    table.refresh_from_db()
    seq = table.seq
    response = boss.post(url, {"confirm": "1", "text": ""})
    assert response.status_code == 200 and "errorlist" in response.content.decode(), "a message needs text"
    assert not AuditEntry.objects.filter(action="table.message").exists()
    boss.post(url, {"confirm": "1", "text": "The room closes at midnight"})
    table.refresh_from_db()
    assert table.seq == seq + 1, "one announcement sent to the table"
    assert AuditEntry.objects.get(action="table.message").note == "The room closes at midnight"


def test_removing_a_player_during_a_hand_cashes_them_out_when_it_ends(boss, three_at_a_table):
    table, players = three_at_a_table
    victim = players[1]
    services.hand_deal(table_id=table.id)
    boss.post(reverse("admin:tables_table_remove", args=[table.pk, 2]), {"confirm": "1", "note": "collusion"})
    assert Seat.objects.get(table=table, number=2).leave_after_hand
    assert SeatSession.objects.get(table=table, user=victim).closed_at is None, (
        "not in the middle of the hand"
    )
    _play_out(table, players)
    session = SeatSession.objects.get(table=table, user=victim)
    assert session.closed_at is not None and Seat.objects.get(table=table, number=2).user_id is None
    entry = AuditEntry.objects.get(action="table.remove_player")
    assert entry.player_id == victim.id and entry.note == "collusion" and entry.after["when"] == "after_hand"
    # Between hands it is at once.
    boss.post(reverse("admin:tables_table_remove", args=[table.pk, 3]), {"confirm": "1"})
    assert Seat.objects.get(table=table, number=3).user_id is None
    # An empty seat: a warning, nothing recorded.
    response = boss.post(
        reverse("admin:tables_table_remove", args=[table.pk, 3]), {"confirm": "1"}, follow=True
    )
    assert "Nobody sits at seat 3" in response.content.decode()
    assert AuditEntry.objects.filter(action="table.remove_player").count() == 2
    assert ledger_check().ok
