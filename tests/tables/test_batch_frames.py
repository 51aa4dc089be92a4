"""A client that connects with `?frames=batch` (the browser's table page does) gets each change of the table in
one frame: its events and the state after them, in seq order, with its own cards and `legal` as ever; a client
that does not ask gets the same messages a frame each. Over real WebSockets through daphne, the deal on a
Celery worker."""

import asyncio

import pytest

from cashier.selectors import ledger_check
from tables.models import Hand
from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, cards_seen, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def messages_of(frames: list[dict]) -> list[dict]:
    """The messages in `frames`, a batch's in their order."""
    return [
        inner for frame in frames for inner in (frame["messages"] if frame["type"] == "batch" else [frame])
    ]


def has_state_with_hand(frame: dict) -> bool:
    return any(m["type"] == "state" and m["hand"] is not None for m in messages_of([frame]))


def has_acted(frame: dict) -> bool:
    return any(m["type"] == "event" and m["event"] == "acted" for m in messages_of([frame]))


def test_a_batched_client_gets_each_change_in_one_frame_with_its_own_cards_and_the_same_seqs(live_room):
    table = table_create(seats=6, action_seconds=20)
    alice, bob = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bob)]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0], query="?frames=batch") as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
            TableClient(live_room, table.id, query="?frames=batch") as spectator,
        ):
            await a.until(lambda m: m["type"] == "state")
            await b.until(lambda m: m["type"] == "state")
            await a.send(type="join", seat=1, buy_in=200)
            await b.send(type="join", seat=4, buy_in=200, post="now")
            await a.until(has_state_with_hand)
            await b.until(has_state_with_hand)
            acting = a if a.state.get("legal") else b
            hand = acting.state["hand"]
            await acting.send(type="act", action="call", hand_id=hand["id"], action_no=hand["action_no"])
            await a.until(has_acted)
            await b.until(has_acted)
            await spectator.until(has_acted)
            for client in (a, b, spectator):
                await client.drain(0.5)
            return a.frames, b.frames, spectator.frames

    frames_a, frames_b, frames_s = asyncio.run(scenario())
    hand = Hand.objects.get(table=table)
    alice_cards, bob_cards = hand.hole_cards["0"], hand.hole_cards["3"]

    # The call: one frame to alice holding its `acted` event and then the state after it, numbered in a row.
    call = next(frame for frame in frames_a if has_acted(frame))
    assert call["type"] == "batch", call
    kinds = [m["type"] for m in call["messages"]]
    assert kinds[0] == "event" and kinds[-1] == "state", kinds
    seqs = [m["seq"] for m in call["messages"]]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
    state = call["messages"][-1]
    mine = next(row for row in state["seats"] if row["seat"] == 1)
    assert sorted(mine["cards"]) == sorted(alice_cards), "alice's own cards ride in the batch's state"
    theirs = next(row for row in state["seats"] if row["seat"] == 4)
    assert theirs["cards"] is None, "never bob's"

    # Bob, who did not ask, gets the same messages, a frame each, with the same seqs.
    assert not any(frame["type"] == "batch" for frame in frames_b)
    bob_seqs = [m["seq"] for m in frames_b if m["type"] in ("state", "event")]
    assert set(seqs) <= set(bob_seqs)
    assert [m["event"] for m in frames_b if m["type"] == "event" and m["seq"] in seqs] == [
        m["event"] for m in call["messages"] if m["type"] == "event"
    ]

    # From the deal on, alice needed fewer frames for the same messages; nobody saw a card not theirs.
    numbered_a = [m for m in messages_of(frames_a) if m["type"] in ("state", "event")]
    assert [m["seq"] for m in numbered_a] == sorted(m["seq"] for m in numbered_a), "in seq order"
    assert len(frames_a) < len(messages_of(frames_a))
    assert not cards_seen(frames_a) & set(bob_cards)
    assert not cards_seen(frames_b) & set(alice_cards)
    assert not cards_seen(frames_s) & set(alice_cards + bob_cards), "the spectator saw no hole card"
    assert ledger_check().ok


def test_a_change_of_one_message_is_a_plain_frame_and_a_bad_frames_value_means_a_frame_each(live_room):
    table = table_create(seats=6)
    alice = player_create()
    cookie = session_cookie_for(alice)

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookie, query="?frames=batch") as a,
            TableClient(live_room, table.id, query="?frames=%00%ff&frames=batch") as odd,
        ):
            await a.until(lambda m: m["type"] == "state")
            await odd.until(lambda m: m["type"] == "state")
            await a.send(type="join", seat=2, buy_in=200)
            await a.until(
                lambda m: any((row["player"] or {}).get("name") == alice.username for row in a.state["seats"])
            )
            await a.send(type="chat", text="ciao a tutti")
            line = await a.until(lambda m: m["type"] == "event" and m["event"] == "chat")
            await odd.until(lambda m: m["type"] == "event" and m["event"] == "chat")
            await odd.drain(0.3)
            return line, odd.frames

    line, odd_frames = asyncio.run(scenario())
    assert line["text"] == "ciao a tutti", "a chat line is one message: a plain event frame"
    assert odd_frames and not any(frame["type"] == "batch" for frame in odd_frames)
