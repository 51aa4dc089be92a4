"""A sit-and-go played to the end over real WebSockets, dealt and clocked by a real Celery worker with beat:
each player is a program on its own connection acting when `legal` comes; after every hand the chips add up,
and at the end the places, the prizes to the cent, the pool at zero and a clean ledger."""

import asyncio
import random

import pytest

from cashier.selectors import ledger_check, wallet_balances
from tables.models import Hand
from tests.factories import eur_player, fast_structure, tournament_create
from tests.tables.wsclient import TableClient, session_cookie_for
from tests.tournaments.play_helpers import pool_balance
from tournaments import play, services
from tournaments.models import Entry, Tournament, TournamentTable

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def aggressive(legal: list[dict], rng: random.Random) -> str:
    actions = {item["action"] for item in legal}
    if "all_in" in actions and rng.random() < 0.35:
        return "all_in"
    for action in ("check", "call", "fold", "muck"):
        if action in actions:
            return action
    return next(iter(actions))


@pytest.mark.parametrize(
    ("seats", "buy_in", "prizes"),
    [(6, 1_000, [3_900, 2_100]), (2, 1_000, [2_000]), (10, 1_000, [5_000, 3_000, 2_000])],
)
def test_a_sit_and_go_is_played_to_its_winner_over_websockets(live_room_with_beat, seats, buy_in, prizes):
    room = live_room_with_beat
    tournament = tournament_create(
        seats=seats, buy_in=buy_in, fee=100, blind_structure=fast_structure(seconds=5), action_seconds=10
    )
    players = [eur_player(10_000) for _ in range(seats)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    table_id = TournamentTable.objects.get(tournament=tournament).table_id
    cookies = [session_cookie_for(p) for p in players]
    chips_checked = []

    async def player_program(index: int) -> list[dict]:
        rng = random.Random(index)
        name = players[index].username
        async with TableClient(room, table_id, session=cookies[index]) as client:
            while True:
                message = await client.recv(timeout=90)
                if message["type"] == "event" and message["event"] == "places":
                    if any(p["player"] == name for p in message["places"]):
                        return client.frames
                if message["type"] == "state" and message.get("legal"):
                    hand = message["hand"]
                    if hand is None:  # the uncontested winner of the last hand may show: they muck
                        continue
                    await client.send(
                        type="act",
                        action=aggressive(message["legal"], rng),
                        hand_id=hand["id"],
                        action_no=hand["action_no"],
                    )

    async def spectator() -> list[dict]:
        async with TableClient(room, table_id) as client:
            while True:
                message = await client.recv(timeout=90)
                if message["type"] == "event" and message["event"] == "hand_ended":
                    total = await asyncio.to_thread(lambda: play.chips_in_play(tournament=tournament))
                    chips_checked.append(total)
                if message["type"] == "event" and message["event"] == "places" and message["finished"]:
                    return client.frames

    async def scenario():
        return await asyncio.gather(spectator(), *(player_program(i) for i in range(seats)))

    frames = asyncio.run(scenario())
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    hands = Hand.objects.filter(table_id=table_id).count()
    assert hands >= 1 and len(chips_checked) >= 1
    # Every hand's end: the chips of players still in add up to entrants x stack (the winner's last too).
    full = seats * tournament.starting_stack
    assert all(total == full for total in chips_checked[:-1]) and chips_checked[-1] in (full, 0), (
        chips_checked
    )
    entries = list(tournament.entries.order_by("place", "-prize"))
    assert entries[0].place == 1 and sum(e.prize for e in entries) == seats * buy_in
    assert pool_balance(tournament) == 0 and ledger_check().ok
    for entry in entries:
        assert wallet_balances(user=entry.user)["eur"] == 10_000 - buy_in - 100 + entry.prize
    if len({e.place for e in entries}) == seats:  # no shared places: the SPEC's split to the cent
        assert [e.prize for e in entries[: len(prizes)]] == prizes
    states = [f for f in frames[0] if f["type"] == "state" and f.get("tournament")]
    assert (
        states
        and states[0]["tournament"]["id"] == tournament.pk
        and states[0]["table"]["kind"] == "tournament"
    )
    finished = [f for f in frames[0] if f["type"] == "event" and f["event"] == "places"]
    told = {p["player"]: (p["place"], p["prize"]) for event in finished for p in event["places"]}
    assert told == {e.user.username: (e.place, e.prize) for e in entries}, (
        "everyone was told their place and prize"
    )
    assert not Entry.objects.filter(tournament=tournament, table__isnull=False).exists()


def test_a_worker_killed_mid_tournament_is_replaced_and_the_levels_keep_their_times(live_room_with_beat):
    """The only worker (with beat) is killed (SIGKILL) during a sit-and-go; a new one starts; the tournament
    plays on to its winner, and every hand was dealt at the blinds of the level in force when it was dealt,
    counted from the stored start of level 1."""
    from datetime import timedelta

    room = live_room_with_beat
    tournament = tournament_create(
        seats=3, buy_in=1_000, fee=100, blind_structure=fast_structure(seconds=4), action_seconds=10
    )
    players = [eur_player(10_000) for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    table_id = TournamentTable.objects.get(tournament=tournament).table_id
    cookies = [session_cookie_for(p) for p in players]
    worker = next(p for p in room.processes if p.name == "worker")

    def kill_worker_and_its_beat() -> None:
        """SIGKILL to the worker's whole process group: the worker and the beat it runs as a child (`-B`), as
        when its machine dies; nothing of it is left behind."""
        import os
        import signal

        os.killpg(worker.pid, signal.SIGKILL)
        worker.proc.wait(timeout=10)

    async def player_program(index: int) -> None:
        rng = random.Random(100 + index)
        name = players[index].username
        async with TableClient(room, table_id, session=cookies[index]) as client:
            while True:
                message = await client.recv(timeout=120)
                if message["type"] == "event" and message["event"] == "places":
                    if any(p["player"] == name for p in message["places"]):
                        return
                if message["type"] == "state" and message.get("legal") and message["hand"] is not None:
                    hand = message["hand"]
                    # Cautious until the worker has been replaced: a few hands are played meanwhile.
                    action = (
                        aggressive(message["legal"], rng)
                        if hands_seen[0] >= 4
                        else ("check" if any(i["action"] == "check" for i in message["legal"]) else "call")
                    )
                    await client.send(
                        type="act", action=action, hand_id=hand["id"], action_no=hand["action_no"]
                    )

    hands_seen = [0]

    async def spectator() -> None:
        async with TableClient(room, table_id) as client:
            while True:
                message = await client.recv(timeout=120)
                if message["type"] == "event" and message["event"] == "hand_ended":
                    hands_seen[0] += 1
                    if hands_seen[0] == 2:  # kill the worker in the pause before the next deal
                        await asyncio.to_thread(kill_worker_and_its_beat)
                        await asyncio.sleep(1.0)
                        await asyncio.to_thread(room.start_worker, beat=True)
                if message["type"] == "event" and message["event"] == "places" and message["finished"]:
                    return

    async def scenario():
        await asyncio.gather(spectator(), *(player_program(i) for i in range(3)))

    asyncio.run(scenario())
    tournament.refresh_from_db()
    assert (
        tournament.status == Tournament.Status.FINISHED
        and pool_balance(tournament) == 0
        and ledger_check().ok
    )
    assert hands_seen[0] > 2, "hands were played after the worker was replaced"
    schedule = tournament.blind_structure.schedule()
    for hand in Hand.objects.filter(table_id=table_id).order_by("number"):
        elapsed = (hand.started_at - tournament.started_at).total_seconds()
        allowed = {
            schedule.clock_at(elapsed_seconds=max(0, int(elapsed - lag))).level.big_blind for lag in (0, 1, 2)
        }
        assert hand.config["big_blind"] in allowed, (hand.number, elapsed, hand.config["big_blind"], allowed)
    assert (
        tournament.started_at + timedelta(seconds=4 * (tournament.level - 1)) == tournament.level_started_at
    )


def test_a_multi_table_starts_at_its_time_and_players_follow_their_moves_to_the_winner(live_room_with_beat):
    """Nine players on three 3-seat tables: the beat sweep starts it at its time; each player's program follows
    the `moved` events naming them to their new table's WebSocket, until the tournament tells them their place."""
    from datetime import timedelta

    from django.utils import timezone

    room = live_room_with_beat
    tournament = tournament_create(
        kind="mtt",
        seats=3,
        buy_in=1_000,
        fee=100,
        max_entrants=9,
        min_entrants=2,
        blind_structure=fast_structure(seconds=5),
        action_seconds=10,
        starts_at=timezone.now() + timedelta(hours=1),
    )
    players = [eur_player(10_000) for _ in range(9)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    cookies = [session_cookie_for(p) for p in players]
    moves_followed = []

    async def table_of(index: int) -> int:
        for _ in range(100):
            entry = await asyncio.to_thread(
                lambda: Entry.objects.get(tournament=tournament, user=players[index])
            )
            if entry.table_id:
                return entry.table_id
            await asyncio.sleep(0.2)
        raise AssertionError("never seated")

    async def player_program(index: int) -> None:
        rng = random.Random(200 + index)
        name = players[index].username
        table_id = await table_of(index)
        while True:
            async with TableClient(room, table_id, session=cookies[index]) as client:
                while True:
                    message = await client.recv(timeout=120)
                    if message["type"] == "event" and message["event"] == "places":
                        if any(p["player"] == name for p in message["places"]):
                            return
                    if (
                        message["type"] == "event"
                        and message["event"] == "moved"
                        and message["player"] == name
                    ):
                        moves_followed.append((name, table_id, message["table"]))
                        table_id = message["table"]
                        break
                    if message["type"] == "state" and message.get("legal") and message["hand"] is not None:
                        hand = message["hand"]
                        await client.send(
                            type="act",
                            action=aggressive(message["legal"], rng),
                            hand_id=hand["id"],
                            action_no=hand["action_no"],
                        )

    async def scenario():
        await asyncio.gather(*(player_program(i) for i in range(9)))

    asyncio.run(scenario())
    tournament.refresh_from_db()
    assert (
        tournament.status == Tournament.Status.FINISHED
        and pool_balance(tournament) == 0
        and ledger_check().ok
    )
    assert sum(tournament.entries.values_list("prize", flat=True)) == 9 * 1_000
    assert moves_followed, "players were moved (a table broken or balanced) and followed their move"
    user_of = {p.username: p.pk for p in players}
    moved_on = {(name, old) for name, old, _new in moves_followed}
    for name, _old, new in moves_followed:  # at the new table they were dealt in (or moved on before a hand)
        dealt = any(
            p["user"] == user_of[name]
            for hand in Hand.objects.filter(table_id=new)
            for p in hand.players.values()
        )
        assert dealt or (name, new) in moved_on, (name, new)
