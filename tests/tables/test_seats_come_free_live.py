"""Seats come free on a real room (issue 18): daphne, and a Celery worker running beat's sweep, with the
limits short. A player who disconnects in the middle of a hand, one who busts and does nothing, and one who
sits out: each seat comes free, each stack is back in the wallet, the lobby counts the table again, the
ledger is clean and a newcomer sits down."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from cashier.models import SeatSession
from cashier.selectors import ledger_check, wallet_balances
from tables import services
from tables.models import Seat
from tests.factories import player_create, table_create
from tests.live import Room
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


async def _play(client: TableClient, seat: int, choose, stop: asyncio.Event) -> None:
    """Answer every decision of `seat` with `choose(legal actions)` until `stop` is set."""
    answered = None
    while not stop.is_set():
        try:
            message = await client.recv(timeout=0.5)
        except TimeoutError:
            continue
        if message["type"] != "state" or not message.get("legal") or message.get("to_act") != seat:
            continue
        hand = message["hand"]
        if hand is None or (hand["id"], hand["action_no"]) == answered:
            continue
        legal = {item["action"] for item in message["legal"]}
        action = choose(legal)
        if action is None:
            continue
        answered = (hand["id"], hand["action_no"])
        await client.send(type="act", action=action, hand_id=hand["id"], action_no=hand["action_no"])


def _all_in(legal: set[str]) -> str | None:
    for action in ("all_in", "call", "check"):
        if action in legal:
            return action
    return None


def _call(legal: set[str]) -> str | None:
    for action in ("call", "check"):
        if action in legal:
            return action
    return None


def test_gone_busted_and_sitting_out_players_free_their_seats(live_room_with_beat):
    room = live_room_with_beat
    table = table_create(
        seats=6,
        small_blind=1,
        big_blind=2,
        min_buy_in=20,
        max_buy_in=20000,
        action_seconds=2,
        time_bank_seconds=0,
        sit_out_limit_seconds=4,
        bust_limit_seconds=2,
    )
    alice, bob, carol, dave, newcomer = (player_create() for _ in range(5))
    welcome = wallet_balances(user=carol)["play"]
    cookies = {user.id: session_cookie_for(user) for user in (alice, bob, carol, dave, newcomer)}

    async def scenario() -> dict:
        told: dict[str, dict] = {}
        async with TableClient(room, table.id, session=cookies[carol.id]) as c:
            await c.until(lambda m: m["type"] == "state")
            await c.send(type="join", seat=3, buy_in=200)
            await c.until(lambda m: m["type"] == "state" and m["seats"][2]["player"] is not None)
            await c.send(type="sit_out")  # Carol sits out at once and never comes back
            await c.until(lambda m: m["type"] == "state" and m["seats"][2]["status"] == "sitting_out")
            async with (
                TableClient(room, table.id, session=cookies[bob.id]) as b,
                TableClient(room, table.id, session=cookies[dave.id]) as d,
            ):
                await b.send(type="join", seat=2, buy_in=20)
                await d.send(type="join", seat=4, buy_in=20000)  # Bob would have to double up ten times
                alice_client = TableClient(room, table.id, session=cookies[alice.id])
                async with alice_client as a:
                    await a.send(type="join", seat=1, buy_in=200)
                    # Alice's connection drops in the middle of the first hand she is dealt into.
                    await a.until(
                        lambda m: (
                            m["type"] == "state"
                            and m["hand"] is not None
                            and m["seats"][0]["status"] in ("active", "folded", "all_in")
                        ),
                        timeout=30,
                    )
                stop = asyncio.Event()
                players = [
                    asyncio.ensure_future(_play(b, 2, _all_in, stop)),
                    asyncio.ensure_future(_play(d, 4, _call, stop)),
                ]

                def removed(client: TableClient) -> dict | None:
                    return next((f for f in client.frames if f["type"] == "removed"), None)

                try:
                    for _ in range(240):  # up to two minutes
                        await asyncio.sleep(0.5)
                        seats = await asyncio.to_thread(_people_seated, table.id)
                        if seats == {dave.id}:
                            break
                    else:
                        raise AssertionError(f"seats still held: {seats}")
                    await asyncio.sleep(1)
                finally:
                    stop.set()
                    await asyncio.gather(*players)
                await c.drain(0.5)
                told["carol"] = removed(c)
                told["bob"] = removed(b)
                told["dave_saw"] = [f for f in d.frames if f["type"] == "event" and f.get("removed")]
        async with TableClient(room, table.id, session=cookies[newcomer.id]) as n:
            await n.until(lambda m: m["type"] == "state")
            await n.send(type="join", seat=1, buy_in=200)
            await n.until(
                lambda m: (
                    m["type"] == "state"
                    and m["seats"][0]["player"] is not None
                    and m["seats"][0]["player"]["name"] == newcomer.username
                )
            )
        return told

    try:
        told = asyncio.run(scenario())
    except (TimeoutError, AssertionError) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(60)}" for p in room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure

    # Each was told why, on their own connection, and everyone at the table read it in the log.
    assert told["carol"]["reason"] == "sat_out" and told["carol"]["table"] == table.id
    assert told["bob"]["reason"] == "busted"
    reasons = {f["name"]: f["removed"] for f in told["dave_saw"]}
    assert reasons == {carol.username: "sat_out", bob.username: "busted", alice.username: "sat_out"}

    # The stacks are back in the wallets through ordinary cash-outs.
    for user in (alice, bob, carol):
        session = SeatSession.objects.get(table=table, user=user)
        assert session.closed_at is not None
        assert wallet_balances(user=user)["play"] == welcome - session.moved_in + session.left_with
    assert SeatSession.objects.get(table=table, user=bob).left_with == 0, "Bob busted"
    assert wallet_balances(user=carol)["play"] == welcome, "Carol never played: every chip is back"

    # The lobby (from daphne) counts the people seated now: Dave and the newcomer.
    with urllib.request.urlopen(f"{room.http_url}/api/tables/", timeout=10) as response:
        listed = next(t for t in json.load(response) if t["id"] == table.id)
    assert listed["players"] == 2
    report = ledger_check()
    assert report.ok, report.violations


def _people_seated(table_id: int) -> set[int]:
    """The people (not house bots) seated at the table now."""
    from django.db import connection

    try:
        return set(
            Seat.objects.filter(table_id=table_id, user__isnull=False, user__is_bot=False).values_list(
                "user_id", flat=True
            )
        )
    finally:
        connection.close()


def _lobby_row(room: Room, table_id: int) -> dict:
    with urllib.request.urlopen(f"{room.http_url}/api/tables/", timeout=10) as response:
        return next(t for t in json.load(response) if t["id"] == table_id)


def _seat_rows(table_id: int) -> list:
    from django.db import connection

    try:
        return list(
            Seat.objects.filter(table_id=table_id).values_list("number", "user_id", "status", "sat_out_at")
        )
    finally:
        connection.close()


def _seated_and_sat_out(table_id: int, users) -> None:
    """`users` sit down at the table and sit out at once (between hands: at once)."""
    from django.db import connection

    try:
        for user in users:
            services.seat_take(table_id=table_id, user=user, seat_number=None, buy_in=200, post="wait_bb")
            services.seat_sit_out(table_id=table_id, user=user)
    finally:
        connection.close()


def test_a_full_table_of_two_bots_and_four_absent_people_seats_a_newcomer_after_the_limits(room_env):
    """The complaint of issue 18, as it was seen: a 6-seat practice table with two house bots and four people
    who sat out (one of them then closing the browser) answers `table_full` to a newcomer and the lobby counts
    six players. Nobody is ready, so no hand is dealt and the bots never make room: only the limits free the
    seats. Once they have, the lobby counts the two bots alone at once, and the newcomer sits down."""
    table = table_create(
        seats=6, action_seconds=2, time_bank_seconds=0, sit_out_limit_seconds=10, bust_limit_seconds=2
    )
    assert services.bots_seat(table_id=table.id, count=2) == 2
    gone = [player_create() for _ in range(4)]
    welcome = wallet_balances(user=gone[0])["play"]
    newcomer = player_create()
    cookies = {user.id: session_cookie_for(user) for user in (gone[3], newcomer)}
    room = Room(room_env)

    def own(m: dict, user) -> dict | None:
        return next((r for r in m["seats"] if r["player"] and r["player"]["name"] == user.username), None)

    async def scenario() -> dict:
        seen: dict = {}
        async with TableClient(room, table.id, session=cookies[gone[3].id]) as last:
            await last.until(lambda m: m["type"] == "state")
            await last.send(type="join", buy_in=200, post="wait_bb")
            await last.until(lambda m: m["type"] == "state" and own(m, gone[3]) is not None)
            await last.send(type="sit_out")
            await last.until(
                lambda m: (
                    m["type"] == "state"
                    and m["hand"] is None
                    and own(m, gone[3]) is not None
                    and own(m, gone[3])["status"] == "sitting_out"
                ),
                timeout=60,
            )
        await asyncio.to_thread(_seated_and_sat_out, table.id, gone[:3])
        # ...and closes the browser. The table is full.
        async with TableClient(room, table.id, session=cookies[newcomer.id]) as n:
            await n.until(lambda m: m["type"] == "state")
            await n.send(type="join", buy_in=200, post="wait_bb")
            refused = await n.until(lambda m: m["type"] == "error")
            seen["refused"] = refused["code"]
            seen["lobby_full"] = (await asyncio.to_thread(_lobby_row, room, table.id))["players"]
            for _ in range(120):  # up to a minute
                if await asyncio.to_thread(_people_seated, table.id) == set():
                    break
                await asyncio.sleep(0.25)
            else:
                rows = await asyncio.to_thread(_seat_rows, table.id)
                raise AssertionError(f"the four seats are still held: {rows}")
            seen["lobby_freed"] = (await asyncio.to_thread(_lobby_row, room, table.id))["players"]
            await n.send(type="join", buy_in=200, post="wait_bb")
            await n.until(
                lambda m: (
                    m["type"] == "state"
                    and any(r["player"] and r["player"]["name"] == newcomer.username for r in m["seats"])
                )
            )
            seen["lobby_after"] = (await asyncio.to_thread(_lobby_row, room, table.id))["players"]
        return seen

    try:
        room.start_worker(beat=True)
        room.start_daphne()
        seen = asyncio.run(scenario())
    except (TimeoutError, AssertionError) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(60)}" for p in room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure
    finally:
        room.stop()
    assert seen["refused"] == "table_full"
    assert seen["lobby_full"] == 6
    assert seen["lobby_freed"] == 2, "the lobby counts the two bots alone as soon as the seats are free"
    assert seen["lobby_after"] == 3
    for user in gone:
        assert wallet_balances(user=user)["play"] == welcome, "never dealt a hand: every chip is back"
        assert SeatSession.objects.get(table=table, user=user).closed_at is not None
    assert Seat.objects.filter(table=table, user__is_bot=True).count() == 2
    report = ledger_check()
    assert report.ok, report.violations


def _bots_seated(table_id: int) -> int:
    from django.db import connection

    try:
        return Seat.objects.filter(table_id=table_id, user__is_bot=True).count()
    finally:
        connection.close()


def test_house_bots_make_room_for_people_who_wait_and_come_back_when_they_leave(live_room_with_beat):
    """A full 3-seat practice table (two house bots and Alice), on a real worker with beat: Bob joins the
    waiting list in the middle of a hand; a bot leaves after that hand and Bob is offered its seat and sits
    down; the table is then full of people and a bot, so the other bot leaves after its hand too. When Alice and
    Bob leave, the sweep brings both bots back, and the lobby counts them."""
    room = live_room_with_beat
    table = table_create(seats=3, action_seconds=10, time_bank_seconds=0)
    assert services.bots_seat(table_id=table.id, count=2) == 2
    alice, bob = player_create(), player_create()
    cookies = {user.id: session_cookie_for(user) for user in (alice, bob)}

    def seat_of(m: dict, user) -> int | None:
        return next(
            (r["seat"] for r in m["seats"] if r["player"] and r["player"]["name"] == user.username), None
        )

    async def scenario() -> dict:
        seen: dict = {}
        async with (
            TableClient(room, table.id, session=cookies[alice.id]) as a,
            TableClient(room, table.id, session=cookies[bob.id]) as b,
        ):
            await a.until(lambda m: m["type"] == "state")
            await b.until(lambda m: m["type"] == "state")
            await a.send(type="join", buy_in=200, post="now")
            joined = await a.until(lambda m: m["type"] == "state" and seat_of(m, alice) is not None)
            alice_seat = seat_of(joined, alice)
            assert all(r["player"] for r in joined["seats"]), "the table is full"
            # Bob joins the list while Alice holds the action of a hand in play.
            turn = await a.until(
                lambda m: m["type"] == "state" and m.get("legal") and m.get("to_act") == alice_seat,
                timeout=60,
            )
            seen["hand"] = turn["hand"]["id"]
            await b.send(type="waiting_join")
            listed = await b.until(lambda m: m["type"] == "waiting")
            seen["position"] = listed["position"]
            seen["bots_while_the_hand_runs"] = await asyncio.to_thread(_bots_seated, table.id)
            stop = asyncio.Event()
            players = [asyncio.ensure_future(_play(a, alice_seat, _call, stop))]
            try:
                offer = await b.until(lambda m: m["type"] == "seat_offer", timeout=60)
                await b.send(type="join", seat=offer["seat"], buy_in=200, post="wait_bb")
                await b.until(lambda m: m["type"] == "state" and seat_of(m, bob) == offer["seat"])
                players.append(asyncio.ensure_future(_play(b, offer["seat"], _call, stop)))
                for _ in range(240):  # the other bot leaves after its hand: up to two minutes
                    if await asyncio.to_thread(_bots_seated, table.id) == 0:
                        break
                    await asyncio.sleep(0.5)
                else:
                    raise AssertionError("the second bot never made room")
                await a.send(type="leave")
                await b.send(type="leave")
                for _ in range(240):
                    if await asyncio.to_thread(_people_seated, table.id) == set():
                        break
                    await asyncio.sleep(0.5)
                else:
                    raise AssertionError("Alice and Bob never left")
            finally:
                stop.set()
                await asyncio.gather(*players)
            for _ in range(60):  # the sweep (every 2 s) brings them back
                if await asyncio.to_thread(_bots_seated, table.id) == 2:
                    break
                await asyncio.sleep(0.5)
            seen["bots_back"] = await asyncio.to_thread(_bots_seated, table.id)
            seen["made_room"] = [
                (i, f.get("name")) for i, f in enumerate(a.frames) if f.get("removed") == "make_room"
            ]
            seen["ended"] = next(
                i
                for i, f in enumerate(a.frames)
                if f.get("event") == "hand_ended" and f.get("hand_id") == seen["hand"]
            )
        seen["lobby"] = await asyncio.to_thread(_lobby_row, room, table.id)
        return seen

    try:
        seen = asyncio.run(scenario())
    except (TimeoutError, AssertionError, StopIteration) as failure:
        logs = "\n".join(f"--- {p.name}\n{p.log_tail(60)}" for p in room.processes)
        raise AssertionError(f"{failure!r}\n{logs}") from failure
    assert seen["position"] == 1
    assert seen["bots_while_the_hand_runs"] == 2, "no bot leaves in the middle of its hand"
    assert len(seen["made_room"]) == 2, seen["made_room"]
    assert seen["made_room"][0][0] > seen["ended"], "the first bot left after the hand Bob joined the list in"
    assert seen["bots_back"] == 2, "both bots came back once the people had gone"
    assert seen["lobby"]["bots"] == 2 and seen["lobby"]["players"] == 2
    table.refresh_from_db()
    assert table.bots_made_room == 0
    report = ledger_check()
    assert report.ok, report.violations
