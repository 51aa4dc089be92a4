"""The load bench's bot players against a live room: their requests must be what a person's client would send,
or the bench measures refusals it caused itself."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.db import connection, transaction

from bench.harness import Bot, Player, Stats
from tables.broadcast import table_send_state_on_commit
from tables.models import Seat, Table
from tests.factories import player_create, table_create
from tests.tables.wsclient import session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def test_a_bot_whose_join_waits_for_the_table_asks_only_once(live_room):
    """Under load a join can wait longer than the bot's 5 s before it re-joins, while states published before
    it (without the bot) reach it. Asking again earned an `already_seated` refusal from the room: the 1 to
    211 refusals of the measured 900-player runs."""
    table = table_create(seats=6)
    user = player_create()
    player = Player(user.pk, user.username, session_cookie_for(user), table.id, seat=1)
    locked, release = threading.Event(), threading.Event()

    def hold_the_table() -> None:
        """What a slow room does to a join: the table is busy; a change committed meanwhile (here a state,
        without the bot) goes out just before the join's own."""
        try:
            with transaction.atomic():
                Table.objects.select_for_update().get(pk=table.id)
                table_send_state_on_commit(table_id=table.id)
                locked.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    async def scenario() -> tuple[Stats, Bot]:
        stats = Stats(measuring=True)
        bot = Bot(
            url=f"{live_room.ws_url}/ws/tables/{table.id}/",
            origin=live_room.http_url,
            stats=stats,
            table_id=table.id,
            player=player,
        )
        bot.acting = False
        stop = asyncio.Event()
        running = asyncio.ensure_future(bot.run(stop))
        deadline = time.monotonic() + 30
        while bot.state is None:
            assert time.monotonic() < deadline, "the bot got the table's state"
            await asyncio.sleep(0.05)
        holder = asyncio.ensure_future(asyncio.to_thread(hold_the_table))
        assert await asyncio.to_thread(locked.wait, 30)
        bot.acting = True
        await bot.join()
        await asyncio.sleep(6.5)  # longer than the bot waits before it sits down again
        release.set()
        await holder
        deadline = time.monotonic() + 30
        while not bot.seen_seated:
            assert time.monotonic() < deadline, "the bot saw itself seated"
            await asyncio.sleep(0.05)
        await asyncio.sleep(2)  # a second join would have been answered by now
        stop.set()
        await asyncio.wait_for(running, timeout=30)
        return stats, bot

    stats, bot = asyncio.run(scenario())
    assert Seat.objects.get(table=table, number=1).user_id == user.pk
    assert stats.sent["join"] == 1, dict(stats.sent)
    assert not stats.errors, dict(stats.errors)
