"""A rebuy is one change: a player sitting out tops up and sits back in with the same `top_up` (its `sit_in`),
one locked change and one state to the table, instead of a top-up and then a sit-in (docs/protocol.md). A top-up
that asks to sit in but leaves the stack below the big blind is refused whole; one that does not ask leaves the
player sitting out, as before."""

import pytest

from cashier.selectors import ledger_check, wallet_balances
from tables import services
from tables.models import Seat
from tables.selectors import seat_stacks
from tests.factories import all_in_until_one_busts, hand_played, sit, states_sent, table_create

pytestmark = pytest.mark.django_db


def _busted_heads_up(players):
    """Alice and Bob heads-up (blinds 1/2) until one loses everything: the table and the broke seat."""
    table = table_create(time_bank_seconds=0)
    alice, bob = players[:2]
    sit(table, alice, 1, buy_in=200)
    sit(table, bob, 2, buy_in=200)
    busted = all_in_until_one_busts(table, alice, bob)
    assert busted is not None
    seat = Seat.objects.select_related("user").get(table=table, number=busted)
    assert seat.status == "sitting_out", "broke: sat out as the hand ended"
    return table, seat


def test_a_broke_player_buys_back_and_is_dealt_the_next_hand_with_one_change(
    players, monkeypatch, django_capture_on_commit_callbacks
):
    table, seat = _busted_heads_up(players)
    wallet = wallet_balances(user=seat.user)["play"]
    states = states_sent(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):  # what goes out after the change's commit
        services.seat_top_up(table_id=table.id, user=seat.user, amount=150, sit_in="wait_bb")
    assert len(states) == 1, "one change told to the table, not a top-up and then a sit-in"
    told = next(row for row in states[0]["seats"] if row["seat"] == seat.number)
    assert told["stack"] == 150 and told["status"] != "sitting_out"
    assert wallet_balances(user=seat.user)["play"] == wallet - 150
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None and str(seat.number - 1) in hand.players, "dealt in at once"
    assert ledger_check().ok


def test_a_rebuy_that_leaves_the_stack_below_the_big_blind_is_refused_whole(players):
    table, seat = _busted_heads_up(players)
    before = (seat_stacks(table=table), wallet_balances(user=seat.user))
    with pytest.raises(services.TableError) as refused:
        services.seat_top_up(table_id=table.id, user=seat.user, amount=1, sit_in="now")
    assert refused.value.code == "no_chips"
    assert (seat_stacks(table=table), wallet_balances(user=seat.user)) == before, "nothing moved"
    assert Seat.objects.get(pk=seat.pk).status == "sitting_out"


def test_a_top_up_without_sit_in_leaves_the_broke_player_out(players):
    table, seat = _busted_heads_up(players)
    services.seat_top_up(table_id=table.id, user=seat.user, amount=150)
    assert seat_stacks(table=table)[seat.number] == 150
    assert Seat.objects.get(pk=seat.pk).status == "sitting_out", "a top-up alone does not sit anyone in"
    assert services.hand_deal(table_id=table.id) is None, "nobody to play with"


def test_a_player_who_missed_blinds_chooses_to_wait_or_post_with_the_rebuy(players):
    """Carol sits out while Alice and Bob play on (she owes a big blind). Topping up with "wait_bb" she waits for
    the big blind; with "now" she is dealt the next hand, posting what she owes."""
    alice, bob, carol = players[:3]
    for post in ("wait_bb", "now"):
        table = table_create()
        for number, user in enumerate((alice, bob, carol), start=1):
            sit(table, user, number, buy_in=100)
        services.seat_sit_out(table_id=table.id, user=carol)
        for _ in range(3):
            hand_played(table, players, fold=True)
        out = Seat.objects.get(table=table, number=3)
        assert out.is_new or out.missed_big, "owes a big blind to come in"
        services.seat_top_up(table_id=table.id, user=carol, amount=50, sit_in=post)
        seat = Seat.objects.get(table=table, number=3)
        assert (seat.status, seat.post_now) == ("waiting_bb", post == "now"), post
        assert seat_stacks(table=table)[3] == 150
        hand = services.hand_deal(table_id=table.id)
        assert hand is not None
        if post == "now":
            assert "2" in hand.players, "posts what she owes and is dealt in at once"
