"""SPEC 1.1's uncalled-bet ruling at a live table: what a watcher is sent, what the hand's record keeps and what
the ledger books must agree that only the part of a raise nobody matched goes back."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection

from cashier.models import AccountKind, Entry, TransferKind
from pokerroom.asgi import application
from tables import services
from tables.history.selectors import hand_pokerstars
from tables.models import Hand, Seat
from tests.factories import table_create

pytestmark = pytest.mark.django_db(transaction=True)  # the watcher's messages are sent after commit


def _act(*, table, players, action: str, amount: int | None = None) -> int:
    """The player to act takes `action`; returns their engine seat."""
    hand = Hand.objects.get(table=table, status=Hand.Status.RUNNING)
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    user = next(player for player in players if player.id == seat.user_id)
    services.table_act(
        table_id=table.id, user=user, hand_id=hand.id, action_no=hand.action_no, action=action, amount=amount
    )
    return hand.to_act


def _raise_folded_to(*, table, players) -> tuple[int, int, int]:
    """10/20, three players: everyone calls or checks to a pot of 60; on the flop a bet of 40 is raised to 200
    and both others fold. Returns the hand's id and the engine seats of the bettor and the raiser."""
    hand = services.hand_deal(table_id=table.id)
    while (state := services.hand_engine(hand=Hand.objects.get(pk=hand.id), table=table)).street == "preflop":
        legal = {entry["action"] for entry in state.legal_actions()}
        _act(table=table, players=players, action="check" if "check" in legal else "call")
    bettor = _act(table=table, players=players, action="bet", amount=40)
    raiser = _act(table=table, players=players, action="raise", amount=200)
    _act(table=table, players=players, action="fold")
    _act(table=table, players=players, action="fold")
    connection.close()  # this runs in a thread of its own: its connection would outlive the test
    return hand.id, bettor, raiser


def test_a_raise_everyone_folds_to_returns_160_and_rakes_a_pot_of_140_everywhere(players):
    table = table_create(small_blind=10, big_blind=20)
    for number, user in enumerate(players[:3], start=1):
        services.seat_take(table_id=table.id, user=user, seat_number=number, buy_in=1000, post="wait_bb")

    async def watch() -> tuple[tuple[int, int, int], list[dict]]:
        watcher = WebsocketCommunicator(
            application, f"/ws/tables/{table.id}/", headers=[(b"origin", b"http://testserver")]
        )
        connected, _ = await watcher.connect()
        assert connected
        played = await sync_to_async(_raise_folded_to)(table=table, players=players)
        events = []
        while not events or events[-1]["event"] != "hand_ended":
            message = await watcher.receive_json_from(timeout=20)
            if message["type"] == "event":
                events.append(message)
        await watcher.disconnect()
        return played, events

    (hand_id, bettor, raiser), events = asyncio.run(watch())
    others = [seat for seat in range(3) if seat not in (bettor, raiser)]
    pot = {"amount": 140, "rake": 7, "net": 133, "eligible": [raiser + 1], "winners": {str(raiser + 1): 133}}

    returned = [(e["seat"], e["amount"]) for e in events if e["event"] == "uncalled_returned"]
    assert returned == [(raiser + 1, 160)]
    ended = events[-1]
    assert [{key: p[key] for key in pot} for p in ended["pots"]] == [pot] and ended["rake"] == 7

    hand = Hand.objects.get(pk=hand_id)
    assert hand.result["returned"] == {str(raiser): 160}
    assert [{key: p[key] for key in ("amount", "rake", "net")} for p in hand.result["pots"]] == [
        {"amount": 140, "rake": 7, "net": 133}
    ]
    assert hand.result["rake"] == 7 and hand.pot_total == 140
    assert hand.result["finishing_stacks"] == {str(raiser): 1073, str(bettor): 940, str(others[0]): 980}

    entries = Entry.objects.filter(
        transfer__kind=TransferKind.HAND, transfer__hand_ref=f"hand:{hand_id}"
    ).select_related("account__seat_session")
    rake_legs = [e.amount for e in entries if e.account.kind == AccountKind.RAKE]
    seat_legs = {
        e.account.seat_session.seat_number: e.amount for e in entries if e.account.kind == AccountKind.SEAT
    }
    assert rake_legs == [7]
    assert seat_legs == {raiser + 1: 1073 - 1000, bettor + 1: 940 - 1000, others[0] + 1: 980 - 1000}

    # The hand history the raiser downloads (PokerStars text, play chips in units) says the same.
    name = Seat.objects.get(table=table, number=raiser + 1).user.username
    text = hand_pokerstars(hand=hand, viewer=raiser)
    lines = text.splitlines()
    assert f"{name}: raises 1.60 to 2" in lines
    assert f"Uncalled bet (1.60) returned to {name}" in lines
    assert f"{name} collected 1.33 from pot" in lines
    assert "Total pot 1.40 | Rake 0.07" in lines
