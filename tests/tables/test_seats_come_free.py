"""Seats come free (issue 18), decided by the services the sweep calls: players sitting out past the table's
limit, or busted and not buying back, lose the seat after the hand in play with their stack back in the
wallet; waiting lists are offered the seats; house bots make room for people and come back. The live test
(test_seats_come_free_live.py) runs the same on a real worker."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from cashier.models import SeatSession
from cashier.selectors import ledger_check, wallet_balances
from tables import services
from tables.models import Hand, Seat, WaitingEntry
from tests.factories import all_in_until_one_busts, player_create, sit, table_create

pytestmark = pytest.mark.django_db


def _age(table, number: int, seconds: float) -> None:
    """Seat `number` began sitting out `seconds` ago."""
    Seat.objects.filter(table=table, number=number).update(
        sat_out_at=timezone.now() - timedelta(seconds=seconds)
    )


def _running(table) -> Hand | None:
    return Hand.objects.filter(table=table, status="running").first()


def _finish(table, players) -> None:
    """Play the running hand out passively (house bots as they play)."""
    while (hand := _running(table)) is not None:
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        seat = Seat.objects.select_related("user").get(table=table, number=hand.to_act + 1)
        if seat.user.is_bot:
            services.bot_act(hand_id=hand.id, action_no=hand.action_no)
            continue
        user = next(p for p in players if p.id == seat.user_id)
        action = "check" if "check" in legal else ("call" if "call" in legal else "fold")
        services.table_act(
            table_id=table.id,
            user=user,
            hand_id=hand.id,
            action_no=hand.action_no,
            action=action,
            amount=None,
        )


def test_a_player_sitting_out_past_the_limit_is_cashed_out_and_the_seat_is_free(players):
    table = table_create(sit_out_limit_seconds=600)
    alice, bob, carol = players[:3]
    welcome = wallet_balances(user=alice)["play"]
    for number, user in enumerate((alice, bob, carol), start=1):
        sit(table, user, number)
    services.seat_sit_out(table_id=table.id, user=alice)
    seat = Seat.objects.get(table=table, number=1)
    assert seat.status == "sitting_out" and seat.sat_out_at is not None

    _age(table, 1, 590)
    from tables.state import table_snapshot

    rows = {row["seat"]: row for row in table_snapshot(table=table, hand=None, state=None)["seats"]}
    kept = datetime.fromisoformat(rows[1]["kept_until"])
    assert 5 <= (kept - timezone.now()).total_seconds() <= 10, "the table shows her when she loses the seat"
    assert rows[2]["kept_until"] is None, "nothing for those who play"
    assert services.seats_expired_release() == 0, "ten seconds before the limit the seat is still hers"
    _age(table, 1, 601)
    assert services.seats_expired_release() == 1
    seat.refresh_from_db()
    assert seat.user_id is None and seat.status == "empty"
    assert wallet_balances(user=alice)["play"] == welcome, "the whole stack is back in the wallet"
    assert not SeatSession.objects.filter(user=alice, closed_at__isnull=True).exists()
    assert services.seats_expired_release() == 0, "done once"
    dave = player_create()
    sit(table, dave, 1)  # a newcomer takes the seat
    assert ledger_check().ok


def test_a_player_who_comes_back_before_the_limit_keeps_the_seat(players):
    table = table_create(sit_out_limit_seconds=600)
    alice, bob = players[:2]
    sit(table, alice, 1)
    sit(table, bob, 2)
    services.seat_sit_out(table_id=table.id, user=alice)
    _age(table, 1, 500)
    services.seat_sit_in(table_id=table.id, user=alice, post="wait_bb")
    _age(table, 1, 5000)  # no effect: she plays, the sit-out clock is not running
    assert Seat.objects.get(table=table, number=1).sat_out_at is not None
    assert services.seats_expired_release() == 0
    assert Seat.objects.get(table=table, number=1).user_id == alice.id


def test_a_busted_player_who_does_not_buy_back_loses_the_seat_after_the_shorter_limit(players):
    table = table_create(sit_out_limit_seconds=600, bust_limit_seconds=120, time_bank_seconds=0)
    alice, bob = players[:2]
    sit(table, alice, 1, buy_in=200)
    sit(table, bob, 2, buy_in=200)
    busted = all_in_until_one_busts(table, alice, bob)
    assert busted is not None
    seat = Seat.objects.get(table=table, number=busted)
    assert seat.status == "sitting_out" and seat.sat_out_at is not None, "busted: sat out as the hand ended"
    loser = seat.user
    _age(table, busted, 110)
    assert services.seats_expired_release() == 0
    _age(table, busted, 121)
    assert services.seats_expired_release() == 1, "two minutes, not ten: nothing to play with"
    assert Seat.objects.get(table=table, number=busted).user_id is None
    assert not SeatSession.objects.filter(user=loser, closed_at__isnull=True).exists()
    assert ledger_check().ok


def test_a_player_in_the_hand_is_removed_when_it_ends(players):
    """Staff remove a player dealt into the hand in play: they finish it, then the seat is free."""
    table = table_create()
    alice, bob, carol = players[:3]
    for number, user in enumerate((alice, bob, carol), start=1):
        sit(table, user, number)
    services.hand_deal(table_id=table.id)
    assert services.seat_remove(table_id=table.id, seat_number=2, reason="staff") == "after_hand"
    assert Seat.objects.get(table=table, number=2).user_id == bob.id, "not during the hand"
    _finish(table, players)
    seat = Seat.objects.get(table=table, number=2)
    assert seat.user_id is None and seat.remove_reason == ""
    assert not SeatSession.objects.filter(user=bob, closed_at__isnull=True).exists()
    assert ledger_check().ok


def test_the_limits_are_checked_again_under_the_lock(players):
    """A player the sweep found past the limit who sits in meanwhile keeps the seat."""
    table = table_create(sit_out_limit_seconds=600)
    alice, bob = players[:2]
    sit(table, alice, 1)
    sit(table, bob, 2)
    services.seat_sit_out(table_id=table.id, user=alice)
    _age(table, 1, 700)
    found = services.seats_expired()
    assert [(t, n, u) for t, n, u, _reason in found] == [(table.id, 1, alice.id)]
    services.seat_sit_in(table_id=table.id, user=alice, post="wait_bb")
    assert services.seat_remove(table_id=table.id, seat_number=1, reason="sat_out", user_id=alice.id) == ""
    assert Seat.objects.get(table=table, number=1).user_id == alice.id


# --- waiting lists ------------------------------------------------------------------------------------------


def _full_table(players, seats=2):
    table = table_create(seats=seats)
    for number, user in enumerate(players[:seats], start=1):
        sit(table, user, number)
    return table


def test_the_waiting_list_offers_a_freed_seat_to_the_first_then_the_next(players):
    table = _full_table(players)
    alice, bob, carol, dave = players
    with pytest.raises(services.TableError) as refused:
        services.waiting_join(table_id=table.id, user=alice)
    assert refused.value.code == "already_seated"
    assert services.waiting_join(table_id=table.id, user=carol)["position"] == 1
    assert services.waiting_join(table_id=table.id, user=dave)["position"] == 2
    assert services.waiting_join(table_id=table.id, user=carol)["position"] == 1, (
        "joining twice changes nothing"
    )
    table.refresh_from_db()
    assert table.waiting_count == 2

    services.seat_leave(table_id=table.id, user=alice)
    entry = WaitingEntry.objects.get(table=table, user=carol)
    assert entry.offered_seat == 1 and entry.offer_expires_at > timezone.now()
    from tables.state import table_snapshot

    table.refresh_from_db()
    rows = {row["seat"]: row for row in table_snapshot(table=table, hand=None, state=None)["seats"]}
    assert rows[1]["reserved"] and rows[1]["player"] is None, "everyone sees the seat is held"
    assert not rows[2]["reserved"]
    with pytest.raises(services.TableError) as refused:
        sit(table, dave, 1)
    assert refused.value.code == "seat_reserved", "the seat is held for the first on the list"
    with pytest.raises(services.TableError) as refused:
        services.seat_take(
            table_id=table.id, user=player_create(), seat_number=None, buy_in=200, post="wait_bb"
        )
    assert refused.value.code == "table_full"

    # Carol lets the offer run out: she is off the list and Dave is offered the seat.
    WaitingEntry.objects.filter(pk=entry.pk).update(offer_expires_at=timezone.now() - timedelta(seconds=1))
    assert services.waiting_offers_expire() == 1
    assert not WaitingEntry.objects.filter(user=carol).exists()
    assert WaitingEntry.objects.get(user=dave).offered_seat == 1
    sit(table, dave, 1)
    assert not WaitingEntry.objects.filter(table=table).exists(), "seated: off the list"
    table.refresh_from_db()
    assert table.waiting_count == 0


def test_a_seat_freed_by_the_sit_out_limit_is_offered_to_the_first_on_the_list(players):
    """A full table, two people waiting; the sweep removes a player sitting out past the limit: the seat is
    held for the first on the list (not the second, nor a stranger), who sits down in it."""
    table = _full_table(players)
    alice, bob, carol, dave = players
    seated_with = wallet_balances(user=alice)["play"]  # her buy-in of 200 at the table
    services.waiting_join(table_id=table.id, user=carol)
    services.waiting_join(table_id=table.id, user=dave)
    services.seat_sit_out(table_id=table.id, user=alice)
    _age(table, 1, table.sit_out_limit_seconds - 5)
    assert services.seats_expired_release() == 0, "not yet: the seat stays hers"
    _age(table, 1, table.sit_out_limit_seconds + 1)
    assert services.seats_expired_release() == 1
    assert Seat.objects.get(table=table, number=1).user_id is None
    assert wallet_balances(user=alice)["play"] == seated_with + 200, "her stack is back in the wallet"
    assert WaitingEntry.objects.get(user=carol).offered_seat == 1
    assert WaitingEntry.objects.get(user=dave).offered_seat is None
    for stranger in (dave, player_create()):
        with pytest.raises(services.TableError) as refused:
            sit(table, stranger, 1)
        assert refused.value.code == "seat_reserved"
    sit(table, carol, 1)
    assert Seat.objects.get(table=table, number=1).user_id == carol.id
    assert list(WaitingEntry.objects.filter(table=table).values_list("user_id", flat=True)) == [dave.id]
    assert ledger_check().ok


def test_a_seat_freed_by_the_buy_back_limit_is_offered_to_the_first_on_the_list(players):
    table = table_create(seats=2, bust_limit_seconds=120, time_bank_seconds=0)
    alice, bob, carol, dave = players
    sit(table, alice, 1)
    sit(table, bob, 2)
    busted = all_in_until_one_busts(table, alice, bob)
    assert busted is not None
    services.waiting_join(table_id=table.id, user=carol)  # the table is full: the busted player sits on
    services.waiting_join(table_id=table.id, user=dave)
    assert WaitingEntry.objects.get(user=carol).offered_seat is None
    _age(table, busted, 121)
    assert services.seats_expired_release() == 1
    assert WaitingEntry.objects.get(user=carol).offered_seat == busted
    assert WaitingEntry.objects.get(user=dave).offered_seat is None
    sit(table, carol, busted)
    assert Seat.objects.get(table=table, number=busted).user_id == carol.id
    assert ledger_check().ok


def test_a_player_leaves_the_list_and_an_offer_goes_on(players):
    table = _full_table(players)
    _alice, bob, carol, dave = players
    services.waiting_join(table_id=table.id, user=carol)
    services.waiting_join(table_id=table.id, user=dave)
    services.seat_leave(table_id=table.id, user=bob)
    assert WaitingEntry.objects.get(user=carol).offered_seat == 2
    position = services.waiting_leave(table_id=table.id, user=carol)
    assert position["position"] is None and position["count"] == 1
    assert WaitingEntry.objects.get(user=dave).offered_seat == 2, "her offer goes to the next"
    with pytest.raises(services.TableError) as refused:
        services.waiting_leave(table_id=table.id, user=carol)
    assert refused.value.code == "not_waiting"


def test_a_table_with_a_free_seat_has_no_waiting_list(players):
    table = table_create(seats=3)
    sit(table, players[0], 1)
    with pytest.raises(services.TableError) as refused:
        services.waiting_join(table_id=table.id, user=players[1])
    assert refused.value.code == "seat_free"
    assert not WaitingEntry.objects.exists()


def test_the_lobby_shows_the_length_of_the_list(players):
    from tables.selectors import table_list_open

    table = _full_table(players)
    services.waiting_join(table_id=table.id, user=players[2])
    row = next(t for t in table_list_open() if t["id"] == table.id)
    assert row["waiting"] == 1 and row["players"] == 2


# --- house bots ---------------------------------------------------------------------------------------------


def test_a_house_bot_makes_room_for_a_waiting_player_and_comes_back_when_people_leave(players):
    table = table_create(seats=3)
    assert services.bots_seat(table_id=table.id, count=2) == 2
    alice, bob = players[:2]
    services.seat_take(table_id=table.id, user=alice, seat_number=None, buy_in=200, post="now")
    # A full table: two bots and Alice. Bob waits; between hands a bot leaves at once and Bob is offered its seat.
    assert not Seat.objects.filter(table=table, user__isnull=True).exists()
    services.waiting_join(table_id=table.id, user=bob)
    assert Seat.objects.filter(table=table, user__is_bot=True).count() == 1
    offered = WaitingEntry.objects.get(user=bob).offered_seat
    services.seat_take(table_id=table.id, user=bob, seat_number=offered, buy_in=200, post="wait_bb")
    # The table is full of two people and a bot: after its hand the bot leaves too, so a newcomer finds a seat.
    services.hand_deal(table_id=table.id)
    _finish(table, players)
    assert Seat.objects.filter(table=table, user__is_bot=True).count() == 0
    assert Seat.objects.filter(table=table, user__isnull=True).count() == 1
    table.refresh_from_db()
    assert table.bots_made_room == 2
    assert services.tables_bots_return() == 0, "one free seat stays for a person"
    # Both people leave: the bots come back, so a newcomer alone finds a game.
    services.seat_leave(table_id=table.id, user=alice)
    services.seat_leave(table_id=table.id, user=bob)
    assert services.tables_bots_return() == 2
    assert Seat.objects.filter(table=table, user__is_bot=True).count() == 2
    table.refresh_from_db()
    assert table.bots_made_room == 0
    assert ledger_check().ok


def test_waiting_list_messages_are_checked_for_shape():
    from tables.protocol import ProtocolError, WaitingJoin, WaitingLeave, parse_client_message

    assert parse_client_message('{"type": "waiting_join", "table": 7}') == WaitingJoin(table=7)
    assert parse_client_message('{"type": "waiting_leave"}') == WaitingLeave(table=None)
    for bad in (
        '{"type": "waiting_join", "table": "7"}',
        '{"type": "waiting_join", "table": 0}',
        '{"type": "waiting_leave", "table": 1.0}',
        '{"type": "waiting_join", "table": true}',
    ):
        with pytest.raises(ProtocolError):
            parse_client_message(bad)


def test_joining_the_list_of_a_table_that_does_not_exist_is_refused(players):
    with pytest.raises(services.TableError) as refused:
        services.waiting_join(table_id=999_999, user=players[0])
    assert refused.value.code == "no_table"
    assert not WaitingEntry.objects.exists()
