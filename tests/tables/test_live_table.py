"""Players at a table over real WebSockets, through daphne, with dealing and timers on a Celery worker."""

import asyncio

import pytest

from cashier.selectors import ledger_check
from tables.models import Hand
from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, cards_seen, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def is_state(message) -> bool:
    return message["type"] == "state"


def my_turn(message) -> bool:
    return message["type"] == "state" and bool(message.get("legal"))


def all_hole_cards() -> dict[int, dict[str, list[str]]]:
    return {hand.id: hand.hole_cards for hand in Hand.objects.all()}


def test_two_players_sit_down_and_play_a_hand_to_a_fold_over_websockets(live_room):
    table = table_create(seats=6, action_seconds=20)
    alice, bob = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bob)]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
            TableClient(live_room, table.id) as spectator,
        ):
            await a.until(is_state)
            await b.until(is_state)
            await a.send(type="join", seat=1, buy_in=200)
            await b.send(type="join", seat=4, buy_in=150, post="now")
            # the dealer (a Celery task) deals once both are seated
            await a.until(lambda m: is_state(m) and m["hand"] is not None)
            await b.until(lambda m: is_state(m) and m["hand"] is not None)
            assert a.my_seat()["seat"] == 1 and len(a.my_seat()["cards"]) == 2
            assert b.my_seat()["seat"] == 4
            acting = a if a.state.get("legal") else b
            waiting = b if acting is a else a
            legal = {item["action"] for item in acting.state["legal"]}
            assert {"fold", "call", "raise", "all_in"} <= legal
            assert waiting.state.get("legal") is None
            # out of turn: refused, nothing changes
            hand = waiting.state["hand"]
            await waiting.send(type="act", action="fold", hand_id=hand["id"], action_no=hand["action_no"])
            error = await waiting.until(lambda m: m["type"] == "error")
            assert error["code"] == "not_your_turn"
            hand = acting.state["hand"]
            await acting.send(type="act", action="fold", hand_id=hand["id"], action_no=hand["action_no"])
            await acting.until(lambda m: m["type"] == "event" and m["event"] == "hand_ended")
            await spectator.until(lambda m: m["type"] == "event" and m["event"] == "hand_ended")
            # the same act again names a decision already taken
            await acting.send(type="act", action="fold", hand_id=hand["id"], action_no=hand["action_no"])
            error = await acting.until(lambda m: m["type"] == "error")
            assert error["code"] == "stale"
            await a.drain()
            await spectator.drain()
            return a.frames, b.frames, spectator.frames

    frames_a, frames_b, frames_s = asyncio.run(scenario())
    hands = all_hole_cards()
    first = next(iter(hands.values()))
    alice_cards, bob_cards = first["0"], first["3"]
    assert set(alice_cards) <= cards_seen(frames_a) and set(bob_cards) <= cards_seen(frames_b)
    assert not cards_seen(frames_b) & set(alice_cards), "bob never saw alice's cards"
    assert not cards_seen(frames_a) & set(bob_cards), "alice never saw bob's cards"
    assert not cards_seen(frames_s) & set(alice_cards + bob_cards), "the spectator saw no hole card"
    seqs = [f["seq"] for f in frames_s if f["type"] in ("state", "event")]
    assert seqs == sorted(seqs), "seq never goes backwards"
    assert ledger_check().ok


def test_a_player_who_does_nothing_is_folded_by_the_timer_and_the_next_player_can_act(live_room):
    table = table_create(seats=6, action_seconds=1, time_bank_seconds=0)
    players = [player_create() for _ in range(3)]
    cookies = [session_cookie_for(p) for p in players]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
            TableClient(live_room, table.id, session=cookies[2]) as c,
        ):
            for seat, client in enumerate((a, b, c), start=1):
                await client.until(is_state)
                await client.send(type="join", seat=seat, buy_in=200, post="now")
            first = await a.until(lambda m: is_state(m) and m["hand"] is not None)
            to_act = first["to_act"]
            started = asyncio.get_running_loop().time()
            # nobody acts: the clock folds the first player (a check is not free pre-flop) and moves on
            moved = await a.until(
                lambda m: is_state(m) and m["hand"] and m["to_act"] not in (None, to_act), timeout=20
            )
            elapsed = asyncio.get_running_loop().time() - started
            folded = next(row for row in moved["seats"] if row["seat"] == to_act)
            assert folded["status"] == "folded"
            assert elapsed >= first["remaining_ms"] / 1000 - 0.25, "the clock waited for the deadline"
            clients = {1: a, 2: b, 3: c}
            nxt = clients[moved["to_act"]]
            state = await nxt.until(my_turn)
            hand = state["hand"]
            await nxt.send(type="act", action="call", hand_id=hand["id"], action_no=hand["action_no"])
            acted = await nxt.until(
                lambda m: m["type"] == "error" or (m["type"] == "event" and m["event"] == "acted")
            )
            assert acted["type"] == "event", acted

    asyncio.run(scenario())
