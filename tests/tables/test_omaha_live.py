"""Omaha Hi-Lo and bomb pots at live tables: players on real WebSockets through daphne, the dealer and the
clocks on a Celery worker, the money in the ledger."""

import asyncio

import pytest

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tables import services
from tables.models import Game, Hand, Structure
from tests.engine.engine_helpers import stacked_deck
from tests.factories import player_create, sit, table_create
from tests.live import Room
from tests.tables.wsclient import TableClient, hand_ended, hand_state, play_hand, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def test_an_omaha_hi_lo_pot_is_quartered_after_the_rake_and_settled_in_the_ledger(room_env, monkeypatch):
    """PL 50/100 heads-up. Alice (the button) holds Ah 4c Kc Qd, Bruno As 4d Qh Jh; the board 2c 3d 7h Kd Ks
    gives Alice three kings for the high and both the same 7-4-3-2-A low. Alice raises to 300 (the pot limit),
    Bruno calls, both check down: pots of 600, rake 600 // 18 = 33 taken before halving, net 567: the high
    half 284 to Alice, the low half 283 split 142 to Bruno (the odd chip: first after the button) and 141 to
    Alice. Alice +125, Bruno -158."""
    table = table_create(
        game=Game.OMAHA_HILO, structure=Structure.POT_LIMIT, small_blind=50, big_blind=100, action_seconds=30
    )
    alice, bruno = player_create(), player_create()
    sit(table, alice, 1, buy_in=10_000)
    sit(table, bruno, 2, buy_in=10_000)
    deck = stacked_deck(order=[1, 0], holes={0: "Ah4cKcQd", 1: "As4dQhJh"}, board="2c3d7hKdKs", hole_count=4)
    monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: list(deck))
    dealt = services.hand_deal(
        table_id=table.id
    )  # here, with the stacked deck, before the room's dealer runs
    assert dealt.hole_cards == {"0": ["Ah", "4c", "Kc", "Qd"], "1": ["As", "4d", "Qh", "Jh"]}
    room = Room(room_env)
    cookies = [session_cookie_for(alice), session_cookie_for(bruno)]

    async def scenario():
        async with (
            TableClient(room, table.id, session=cookies[0]) as a,
            TableClient(room, table.id, session=cookies[1]) as b,
        ):
            first = await a.until(hand_state)
            await b.until(hand_state)
            assert a.my_seat()["cards"] == ["Ah", "4c", "Kc", "Qd"], "four cards to their owner"
            assert [row["cards"] for row in b.state["seats"] if row["seat"] == 1] == [None], (
                "and to nobody else"
            )
            assert first["to_act"] == 1

            def decide(state):
                legal = {item["action"]: item for item in state["legal"]}
                if state["hand"]["action_no"] == 0:
                    assert legal["raise"]["max"] == 300, (
                        "the pot limit: 100 + (150 in the middle + 50 to call)"
                    )
                    return "raise", 300
                return ("call", None) if "call" in legal else ("check", None)

            ended = await play_hand({1: a, 2: b}, first, decide)
            await b.until(hand_ended)
            return ended

    try:
        room.start_worker()
        room.start_daphne()
        ended = asyncio.run(scenario())
    finally:
        room.stop()
    [pot] = ended["pots"]
    assert (pot["amount"], pot["rake"], pot["net"]) == (600, 33, 567)
    assert pot["high_winners"] == [1] and sorted(pot["low_winners"]) == [1, 2]
    assert (pot["high_amount"], pot["low_amount"]) == (284, 283)
    assert pot["winners"] == {"1": 425, "2": 142}
    assert ended["hands"] == {
        "1": {
            "high": {"category": "trips", "cards": ["Ks", "Kd", "Kc", "Ah", "7h"]},
            "low": {"cards": ["7h", "4c", "3d", "2c", "Ah"]},
        },
        "2": {
            "high": {"category": "pair", "cards": ["Ks", "Kd", "As", "Qh", "7h"]},
            "low": {"cards": ["7h", "4d", "3d", "2c", "As"]},
        },
    }
    hand = Hand.objects.get(pk=dealt.pk)
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    legs = {
        (e.account.kind, e.account.seat_session.seat_number if e.account.kind == "seat" else None): e.amount
        for e in transfer.entries.select_related("account__seat_session")
    }
    assert legs == {("seat", 1): 125, ("seat", 2): -158, ("rake", None): 33}
    assert (transfer.pot, transfer.pot_people) == (600, 600)
    assert ledger_check().ok


def test_a_bomb_pot_deals_at_a_live_table_that_asks_for_it_and_is_raked(live_room):
    """Every hand a bomb pot of 2 big blinds at 10/20: three players join, the room's dealer deals a hand
    with no blinds that starts on the flop with 120 in the middle; checked down, the rake is 120 // 18 = 6."""
    table = table_create(
        small_blind=10, big_blind=20, bomb_pot_every=1, bomb_pot_ante_bb=2, action_seconds=30
    )
    players = [player_create() for _ in range(3)]
    cookies = [session_cookie_for(p) for p in players]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
            TableClient(live_room, table.id, session=cookies[2]) as c,
        ):
            lobby_view = await a.until(lambda m: m["type"] == "state")
            assert lobby_view["table"]["bomb_pot"] == {"every": 1, "ante_bb": 2, "ante": 40, "next_in": 1}
            for seat, client in enumerate((a, b, c), start=1):
                await client.send(type="join", seat=seat, buy_in=2_000, post="now")
            first = await a.until(hand_state, timeout=30)
            for client in (b, c):
                await client.until(hand_state)
            assert first["hand"]["bomb_pot"] == 40 and first["hand"]["street"] == "flop"
            assert len(first["board"]) == 3 and [pot["amount"] for pot in first["pots"]] == [120]
            assert sorted(row["stack"] for row in first["seats"] if row["has_cards"]) == [1_960] * 3
            clients = {1: a, 2: b, 3: c}

            def decide(state):
                return "check", None

            return await play_hand(clients, first, decide)

    ended = asyncio.run(scenario())
    assert ended["rake"] == 6 and [pot["amount"] for pot in ended["pots"]] == [120]
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{ended['hand_id']}")
    assert transfer.entries.get(account__kind="rake").amount == 6 and transfer.pot == 120
    assert ledger_check().ok
