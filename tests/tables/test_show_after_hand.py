"""Issue 11, hidden cards: after a hand won uncontested only the player who won it may show their cards, only
until the next hand is dealt, and a finished hand's record never changes after that. Played over the table
consumer (Channels' WebsocketCommunicator) against PostgreSQL and Redis, as an attacker would send it."""

import asyncio

import pytest

from tables import presenters, services
from tables.models import Hand, Seat
from tests.factories import player_create, table_create
from tests.tables.wsclient import communicator, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


def _send_show(user, table, hand: Hand) -> dict:
    """`user` sends a `show` for `hand` through the table's WebSocket; the first error answered, or {} if none."""

    cookie = session_cookie_for(user)

    async def scenario():
        ws = communicator(table.id, cookie=cookie)
        connected, _ = await ws.connect()
        assert connected
        await ws.receive_json_from(timeout=5)  # the table's state
        await ws.send_json_to(
            {"type": "act", "action": "show", "hand_id": hand.id, "action_no": hand.action_no}
        )
        answer = {}
        while not await ws.receive_nothing(timeout=1):
            message = await ws.receive_json_from(timeout=5)
            if message["type"] == "error":
                answer = message
                break
        await ws.disconnect()
        return answer

    return asyncio.run(scenario())


def _fold_first(table, users) -> tuple:
    """The player to act folds the running hand; returns (winner, folder)."""
    hand = Hand.objects.get(table=table, status="running")
    folder = next(u for u in users if Seat.objects.get(table=table, number=hand.to_act + 1).user_id == u.id)
    services.table_act(
        table_id=table.id, user=folder, hand_id=hand.id, action_no=hand.action_no, action="fold", amount=None
    )
    return next(u for u in users if u != folder), folder


def _heads_up():
    table = table_create()
    alice, bob = player_create(), player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=1, buy_in=200, post="wait_bb")
    services.seat_take(table_id=table.id, user=bob, seat_number=2, buy_in=200, post="wait_bb")
    return table, alice, bob


def test_a_new_player_in_the_winners_seat_cannot_open_the_cards_of_the_player_who_left():
    table, alice, bob = _heads_up()
    hand = services.hand_deal(table_id=table.id)
    winner, _folder = _fold_first(table, [alice, bob])
    hand.refresh_from_db()
    seat_number = Seat.objects.get(table=table, user=winner).number
    before = (hand.result, hand.actions)
    services.seat_leave(table_id=table.id, user=winner)
    carol = player_create()
    services.seat_take(table_id=table.id, user=carol, seat_number=seat_number, buy_in=200, post="wait_bb")

    refused = _send_show(carol, table, hand)

    assert refused.get("code") == "stale", refused
    hand.refresh_from_db()
    assert (hand.result, hand.actions) == before, "the finished hand's record is untouched"
    assert hand.result["shown"] == {}
    opened = {o["card"] for o in presenters.hand_openings_for(hand=hand, user=None)}
    assert not opened & set(hand.hole_cards[str(seat_number - 1)]), "the winner's cards stay hidden"


def test_the_winner_cannot_show_a_hand_once_the_next_hand_was_dealt():
    table, alice, bob = _heads_up()
    first = services.hand_deal(table_id=table.id)
    winner, _folder = _fold_first(table, [alice, bob])
    first.refresh_from_db()
    before = (first.result, first.actions)
    second = services.hand_deal(table_id=table.id)
    assert second is not None
    _fold_first(table, [alice, bob])  # the second hand ends too: no hand runs at the table now

    refused = _send_show(winner, table, first)

    assert refused.get("code") == "stale", refused
    first.refresh_from_db()
    assert (first.result, first.actions) == before, "a finished hand's record never changes afterwards"
    assert first.result["shown"] == {}


def test_the_winner_still_in_the_seat_may_show_before_the_next_deal():
    table, alice, bob = _heads_up()
    hand = services.hand_deal(table_id=table.id)
    winner, folder = _fold_first(table, [alice, bob])
    hand.refresh_from_db()
    seat_number = Seat.objects.get(table=table, user=winner).number

    assert _send_show(folder, table, hand).get("code") == "stale", "the loser may not show for the winner"
    assert _send_show(winner, table, hand) == {}

    hand.refresh_from_db()
    assert hand.result["shown"] == {str(seat_number): hand.hole_cards[str(seat_number - 1)]}
