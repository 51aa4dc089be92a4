"""A hand's end in two steps: the action that ends it is written and told at once (its events, then the table
with every stack as it will be), and the settlement (the ledger transfer, players' requests carried out, the
next deal asked for) follows off the player's path. What players see: the answer to the last action does not
wait for the settlement, the stacks they are told are the ledger's once it is made, and a settlement that never
came (the web process stopped) is made by whatever touches the table next, or by the workers' sweep."""

import asyncio
import threading
from datetime import timedelta

import pytest

from cashier.selectors import ledger_check, wallet_balances
from tables import services, tasks
from tables.models import Hand, Seat, Table
from tables.selectors import seat_stacks
from tests.factories import play_out_counting, player_create, sit, table_create, three_handed
from tests.tables.wsclient import communicator, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


def _heads_up():
    table = table_create()
    alice, bob = player_create(), player_create()
    sit(table, alice, 1)
    sit(table, bob, 2)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    to_act = Seat.objects.get(table=table, number=hand.to_act + 1).user_id
    folder, winner = (alice, bob) if to_act == alice.id else (bob, alice)
    return table, hand, folder, winner


def _stacks_told(state: dict) -> dict[int, int]:
    return {row["seat"]: row["stack"] for row in state["seats"] if row["player"]}


def test_the_player_who_ends_a_hand_has_the_answer_while_the_settlement_still_waits(monkeypatch):
    table, hand, folder, _winner = _heads_up()
    before = seat_stacks(table=table)
    started, release = threading.Event(), threading.Event()
    settle = services.hand_settle

    def settle_held(**kwargs):  # the settlement the web process makes after the answer, held until released
        started.set()
        assert release.wait(10)
        return settle(**kwargs)

    monkeypatch.setattr(services, "hand_settle", settle_held)
    cookie = session_cookie_for(folder)

    async def next_state(ws) -> tuple[list[dict], dict]:
        events = []
        while True:
            message = await ws.receive_json_from(timeout=5)
            if message["type"] == "state":
                return events, message
            events.append(message)

    async def scenario():
        ws = communicator(table.id, cookie=cookie)
        connected, _ = await ws.connect()
        assert connected
        await next_state(ws)
        await ws.receive_json_from(timeout=5)  # the chat's history
        await ws.send_json_to({"type": "act", "action": "fold", "hand_id": hand.id, "action_no": 0})
        events, told = await next_state(ws)
        told_events = [e["event"] for e in events]
        assert told_events[0] == "acted" and "hand_ended" in told_events, told_events
        assert await asyncio.to_thread(started.wait, 5), "the settlement was asked for"
        # Told, not settled: the hand's row is over, the money has not moved yet.
        hand_row = await asyncio.to_thread(lambda: Hand.objects.get(pk=hand.pk))
        assert hand_row.status == "settling" and hand_row.result["pots"]
        assert await asyncio.to_thread(seat_stacks, table=table) == before
        release.set()
        seat_events, settled = await next_state(ws)  # the settlement tells the table again
        assert settled["seq"] > told["seq"] and seat_events == []
        await ws.disconnect()
        return told, settled

    told, settled = asyncio.run(scenario())
    assert _stacks_told(told) == _stacks_told(settled) == seat_stacks(table=table)
    assert sum(_stacks_told(told).values()) == sum(before.values()), "no flop, no drop: nothing raked"
    assert _stacks_told(told) != before, "the blinds moved"
    hand.refresh_from_db()
    table.refresh_from_db()
    assert hand.status == "complete" and table.settling_hand_id is None
    assert ledger_check().ok


def _two_fold(table, hand, players):
    """The first two players to act fold (the settlement left for later); returns the uncontested winner."""
    for _ in range(2):
        hand.refresh_from_db()
        user = Seat.objects.get(table=table, number=hand.to_act + 1).user
        ended = services.table_act(
            table_id=table.id,
            user=user,
            hand_id=hand.id,
            action_no=hand.action_no,
            action="fold",
            amount=None,
            settle_later=True,
        )
    assert ended == table.id, "the second fold ended the hand and left its settlement"
    hand.refresh_from_db()
    assert hand.status == "settling"
    (seat,) = [seat for seat, won in hand.result["won"].items() if won > 0]
    return next(p for p in players[:3] if p.id == hand.players[seat]["user"])


def test_a_player_who_leaves_before_the_settlement_cashes_out_what_the_hand_gave_them(players):
    table, hand = three_handed(players)
    winner = _two_fold(table, hand, players)  # nobody settles it
    final = hand.result["finishing_stacks"][
        next(s for s, p in hand.players.items() if p["user"] == winner.id)
    ]
    assert final > 200, "the winner took a blind"
    wallet = wallet_balances(user=winner)["play"]

    services.seat_leave(table_id=table.id, user=winner)  # locks the table: the settlement comes first

    hand.refresh_from_db()
    assert hand.status == "complete"
    assert wallet_balances(user=winner)["play"] == wallet + final
    assert ledger_check().ok


def test_the_sweep_settles_a_hand_whose_settlement_was_lost_and_the_table_deals_on(players):
    table, hand = three_handed(players)
    play_out_counting(table, hand, players, settle_later=True)
    assert services.tables_unsettled() == [], "not before its grace has passed"
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at - timedelta(seconds=10))
    assert services.tables_unsettled() == [table.id]
    hand.refresh_from_db()
    final = {int(seat) + 1: chips for seat, chips in hand.result["finishing_stacks"].items()}

    swept = tasks.tables_sweep()

    assert swept["unsettled"] == 1 and swept["failed"] == 0
    hand.refresh_from_db()
    assert hand.status == "complete"
    assert Table.objects.get(pk=table.pk).settling_hand_id is None
    assert Hand.objects.filter(table=table, status="running").exists(), "the idle table was dealt again"
    dealt = Hand.objects.get(table=table, status="running")
    assert {int(seat) + 1: chips for seat, chips in dealt.config["stacks"].items()} == final
    assert ledger_check().ok


def test_the_uncontested_winner_may_show_before_the_settlement_is_made(players):
    table, hand = three_handed(players)
    winner = _two_fold(table, hand, players)

    services.table_act(
        table_id=table.id,
        user=winner,
        hand_id=hand.id,
        action_no=hand.action_no,
        action="show",
        amount=None,
        settle_later=True,
    )

    hand.refresh_from_db()
    assert hand.status == "complete" and hand.actions[-1]["action"] == "show"
    assert hand.result["shown"], "the cards shown are on the record"
    assert ledger_check().ok
