"""Over real WebSockets, through daphne and a Celery worker (issue 16): running a board twice, the kept chat
and staff's mute, and a player whose connection dropped marked at the seat and finding the table as it is."""

import asyncio

import pytest
from django.db import transaction

from cashier.selectors import ledger_check
from tables import services
from tables.models import ChatLine, ChatMute, Hand, Table
from tests.engine.engine_helpers import stacked_deck
from tests.factories import player_create, sit, table_create
from tests.tables.wsclient import TableClient, cards_seen, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def is_state(message) -> bool:
    return message["type"] == "state"


def event(name):
    return lambda m: m["type"] == "event" and m["event"] == name


def test_two_players_all_in_run_the_board_twice_and_everyone_sees_both_boards(live_room, monkeypatch):
    """Heads-up at 1/2, both turn "run it twice" on over the WebSocket, both all in before the flop: Alice's
    aces win the first board, Bruno's queens make a set on the second; the pot (rake taken once) is halved."""
    table = table_create(seats=2, action_seconds=30)
    alice, bruno = player_create(), player_create()
    sit(table, alice, 1, buy_in=200)
    sit(table, bruno, 2, buy_in=200)
    Table.objects.filter(pk=table.id).update(is_open=False)  # nothing dealt until both chose
    # Seat 1 (engine 0) has the first button: heads-up it is the small blind, dealt second.
    deck = stacked_deck(
        order=[1, 0], holes={0: "AsAd", 1: "QsQd"}, board="2c7h9s3d4c", second_run="Qh8c2d5hJc"
    )
    burns = {deck[4], deck[8], deck[10], deck[12], deck[16], deck[18]}
    cookies = [session_cookie_for(alice), session_cookie_for(bruno)]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as a,
            TableClient(live_room, table.id, session=cookies[1]) as b,
            TableClient(live_room, table.id) as spectator,
        ):
            for client in (a, b):
                await client.until(is_state)
                await client.send(type="options", run_twice=True)
                chosen = await client.until(lambda m: is_state(m) and m.get("options", {}).get("run_twice"))
                assert chosen["options"]["run_twice"] is True
            await spectator.until(is_state)
            assert "options" not in spectator.state

            def deal():
                monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: list(deck))
                with transaction.atomic():
                    Table.objects.filter(pk=table.id).update(is_open=True)
                    return services.hand_deal(table_id=table.id)

            dealt = await asyncio.to_thread(deal)
            assert dealt.hole_cards == {"0": ["As", "Ad"], "1": ["Qs", "Qd"]}
            clients = {1: a, 2: b}
            while not any(f["type"] == "event" and f["event"] == "hand_ended" for f in a.frames):
                state = await a.until(
                    lambda m: (
                        (is_state(m) and m["hand"] is not None and m["to_act"])
                        or (m["type"] == "event" and m["event"] == "hand_ended")
                    )
                )
                if not is_state(state):
                    break
                actor = clients[state["to_act"]]
                number = state["hand"]["action_no"]
                mine = actor.state
                if not (mine.get("legal") and mine["hand"] and mine["hand"]["action_no"] == number):
                    mine = await actor.until(lambda m: is_state(m) and m.get("legal"))
                legal = {item["action"] for item in mine["legal"]}
                hand = mine["hand"]
                await actor.send(
                    type="act",
                    action="all_in" if "all_in" in legal else "call",
                    hand_id=hand["id"],
                    action_no=hand["action_no"],
                )
                reply = await actor.until(lambda m: m["type"] in ("error", "event"))
                assert reply["type"] == "event", reply
            ended = [await c.until(event("hand_ended")) for c in (spectator, b)]
            await asyncio.sleep(0.3)
            await spectator.drain()
            return ended, spectator.frames

    ended, frames = asyncio.run(scenario())
    for message in ended:
        assert message["boards"] == [["2c", "7h", "9s", "3d", "4c"], ["Qh", "8c", "2d", "5h", "Jc"]]
        [pot] = message["pots"]
        first, second = pot["runs"]
        assert first["winners"] == {"1": first["amount"]} and second["winners"] == {"2": second["amount"]}
        assert first["amount"] + second["amount"] == pot["amount"] - pot["rake"] == 400 - message["rake"]
        assert message["hands_by_board"][1]["2"]["high"]["category"] == "trips"
        opened = {o["card"] for o in message["openings"]}
        assert opened == {"2c", "7h", "9s", "3d", "4c", "Qh", "8c", "2d", "5h", "Jc", "As", "Ad", "Qs", "Qd"}
    runs = [f.get("run") for f in frames if f["type"] == "event" and f["event"] == "street"]
    assert runs == [1, 1, 1, 2, 2, 2], "each run's flop, turn and river, the first run first"
    # The spectator saw no hole card before the players' hands were turned up, and never a burn.
    first_show = next(i for i, f in enumerate(frames) if f["type"] == "event" and f["event"] == "showdown")
    assert not cards_seen(frames[:first_show]) & {"As", "Ad", "Qs", "Qd"}
    assert not cards_seen(frames) & burns
    hand = Hand.objects.get(table=table)
    assert len(hand.result["boards"]) == 2
    assert ledger_check().ok


def test_a_player_who_joins_or_reloads_sees_the_last_20_chat_lines_and_a_muted_player_is_refused(live_room):
    """Alice, Bruno and Carla sit at a table (only seated players chat). 20 lines were written before the room's
    processes started: the chat is stored, not one process's memory. Alice adds two over her WebSocket; a reload
    shows the last 20, oldest first, with their authors; staff mute Carla in the admin and her line is refused."""
    table = table_create(seats=6)
    alice, bruno, carla = player_create(), player_create(), player_create()
    for number, user in enumerate((alice, bruno, carla), start=1):
        sit(table, user, number)
    Table.objects.filter(pk=table.id).update(is_open=False)  # no hand: only the chat moves here
    for number in range(1, 21):
        services.table_chat(table_id=table.id, user=bruno, text=f"earlier {number}")
    cookies = [session_cookie_for(u) for u in (alice, bruno, carla)]

    async def scenario():
        async with TableClient(live_room, table.id, session=cookies[0]) as a:
            await a.until(is_state)
            history = await a.until(lambda m: m["type"] == "chat_history")
            assert [line["text"] for line in history["lines"]] == [f"earlier {n}" for n in range(1, 21)]
            assert history["lines"][0]["player"] == {"name": bruno.username, "bot": False}
            for number in (1, 2):
                await a.send(type="chat", text=f"line {number}")
                await a.until(lambda m, n=number: m["type"] == "event" and m.get("text") == f"line {n}")
        # A reload (a new connection): the last 20 lines, oldest first.
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as again,
            TableClient(live_room, table.id, session=cookies[2]) as c,
        ):
            history = await again.until(lambda m: m["type"] == "chat_history")
            texts = [line["text"] for line in history["lines"]]
            assert texts == [*[f"earlier {n}" for n in range(3, 21)], "line 1", "line 2"]
            assert (
                history["lines"][-1]["player"]["name"] == alice.username and history["lines"][-1]["seat"] == 1
            )
            await c.until(lambda m: m["type"] == "chat_history")
            # Staff mute Carla in the admin: her line is refused with the reason, nobody receives it.
            await asyncio.to_thread(_mute_in_admin, carla)
            await c.send(type="chat", text="buy my chips")
            refused = await c.until(lambda m: m["type"] == "error")
            assert refused["code"] == "muted" and "muted" in refused["message"]
            await again.drain(0.5)
            assert not any(m.get("text") == "buy my chips" for m in again.frames)

    asyncio.run(scenario())
    assert not ChatLine.objects.filter(text="buy my chips").exists()
    assert ChatLine.objects.filter(table=table).count() == 22


def _mute_in_admin(user) -> None:
    from tests.admin_client import staff_client

    client, staff = staff_client(username=f"boss-{user.pk}")
    response = client.post("/admin/tables/chatmute/add/", {"user": user.pk, "reason": "selling chips"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert ChatMute.objects.get(user=user).muted_by == staff


def test_a_player_whose_connections_all_dropped_is_marked_and_finds_the_table_as_it_is_on_return(live_room):
    table = table_create(seats=6, action_seconds=60)
    alice, bruno = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bruno)]

    def seat_row(state, number):
        return next(row for row in state["seats"] if row["seat"] == number)

    async def scenario():
        async with TableClient(live_room, table.id, session=cookies[0]) as a:
            b1 = await TableClient(live_room, table.id, session=cookies[1]).__aenter__()
            b2 = await TableClient(live_room, table.id, session=cookies[1]).__aenter__()
            await a.until(is_state)
            await b1.until(is_state)
            await a.send(type="join", seat=1, buy_in=200, post="now")
            await b1.send(type="join", seat=2, buy_in=200, post="now")
            dealt = await a.until(lambda m: is_state(m) and m["hand"] is not None)
            assert not seat_row(dealt, 2)["disconnected"]
            # One of Bruno's two tabs closes: he is still there.
            await b2.__aexit__(None, None, None)
            await a.drain(0.8)
            assert not seat_row(a.state, 2)["disconnected"]
            # The other closes too: everyone sees him marked at his seat, in an event and in the state.
            await b1.__aexit__(None, None, None)
            marked = await a.until(
                lambda m: m["type"] == "event" and m["event"] == "seat" and "disconnected" in m
            )
            assert marked == {**marked, "seat": 2, "disconnected": True}
            state = await a.until(is_state)
            assert seat_row(state, 2)["disconnected"] is True and state["hand"] is not None
            before = state["hand"]
            # He comes back: the same hand at the same decision, his own cards, the mark gone for everyone.
            async with TableClient(live_room, table.id, session=cookies[1]) as back:
                found = await back.until(is_state)
                assert (
                    found["hand"]["id"] == before["id"] and found["hand"]["action_no"] == before["action_no"]
                )
                dealt = await asyncio.to_thread(lambda: Hand.objects.get(pk=before["id"]).hole_cards)
                assert seat_row(found, 2)["cards"] == dealt["1"]
                cleared = await a.until(
                    lambda m: m["type"] == "event" and m["event"] == "seat" and "disconnected" in m
                )
                assert cleared["disconnected"] is False
                state = await back.until(lambda m: is_state(m) and not seat_row(m, 2)["disconnected"])
                if state["to_act"] == 2:
                    assert state.get("legal"), "his turn is waiting for him"

    asyncio.run(scenario())


def test_a_disconnected_players_decision_runs_on_the_clock_and_the_time_bank_as_anyones(live_room):
    """Alice (the button, the small blind heads-up) calls; Bruno's tab is closed: marked at his seat, his clock
    runs out, his 3 s time bank is used, then the free check is taken for him."""
    table = table_create(seats=2, action_seconds=5, time_bank_seconds=3)
    alice, bruno = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bruno)]

    def row(state, number):
        return next(r for r in state["seats"] if r["seat"] == number)

    async def scenario():
        async with TableClient(live_room, table.id, session=cookies[0]) as a:
            b = await TableClient(live_room, table.id, session=cookies[1]).__aenter__()
            await a.until(is_state)
            await b.until(is_state)
            await a.send(type="join", seat=1, buy_in=200, post="now")
            await b.send(type="join", seat=2, buy_in=200, post="now")
            mine = await a.until(lambda m: is_state(m) and m.get("legal"))
            await b.__aexit__(None, None, None)
            await a.until(lambda m: is_state(m) and row(m, 2)["disconnected"])
            hand = mine["hand"]
            await a.send(type="act", action="call", hand_id=hand["id"], action_no=hand["action_no"])
            waiting = await a.until(lambda m: is_state(m) and m["to_act"] == 2)
            assert row(waiting, 2)["time_bank_ms"] == 3000 and row(waiting, 2)["disconnected"]
            banked = await a.until(
                lambda m: is_state(m) and m["to_act"] == 2 and row(m, 2)["time_bank_ms"] == 0, timeout=15
            )
            assert 0 < banked["remaining_ms"] <= 3000, "the time bank is his clock now"
            checked = await a.until(
                lambda m: m["type"] == "event" and m["event"] == "acted" and m["seat"] == 2, timeout=15
            )
            assert checked["action"] == "check"

    asyncio.run(scenario())
