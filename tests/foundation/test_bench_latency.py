"""The load bench's latency figures: every confirmed act, and apart the acts that ended their hand (the end of
a hand settles it and carries out the seats' requests, the heavy change the tail is made of)."""

from __future__ import annotations

import asyncio
import time

from bench.harness import Bot, Player, Stats, latency_summary


def _bot(stats: Stats) -> Bot:
    player = Player(1, "load-1", "sessionid=x", 7, seat=2)
    return Bot(
        url="ws://127.0.0.1:1/ws/tables/7/",
        origin="http://127.0.0.1:1",
        stats=stats,
        table_id=7,
        player=player,
    )


def test_an_act_whose_change_ended_the_hand_is_counted_apart_too():
    stats = Stats(measuring=True)
    bot = _bot(stats)

    async def scenario() -> None:
        bot.pending = (10, 3, time.monotonic())
        await bot.handle(
            {"type": "batch", "messages": [{"type": "event", "seq": 5, "event": "acted", "seat": 2}]}
        )
        bot.pending = (10, 5, time.monotonic())
        await bot.handle(
            {
                "type": "batch",
                "messages": [
                    {"type": "event", "seq": 6, "event": "acted", "seat": 2},
                    {"type": "event", "seq": 7, "event": "pot_awarded", "seat": 2, "amount": 40},
                    {"type": "event", "seq": 8, "event": "hand_ended"},
                ],
            }
        )
        bot.pending = (11, 0, time.monotonic())
        await bot.handle({"type": "event", "seq": 9, "event": "acted", "seat": 2})

    asyncio.run(scenario())
    summary = latency_summary(stats)
    assert summary["n"] == 3 and summary["hand_end"]["n"] == 1
    assert stats.latencies_hand_end == [stats.latencies[1]]


def test_each_hands_first_act_after_its_deal_is_counted_apart_too():
    """The first act of a hand comes after a deal made by another process (the worker): its figure is told
    apart from the acts that follow it in the same hand."""
    stats = Stats(measuring=True)
    bot = _bot(stats)
    seats = [{"seat": 2, "player": {"name": "load-1"}, "stack": 1_000, "status": "active"}]

    async def scenario() -> None:
        for hand_id in (12, 13):
            await bot.handle(
                {
                    "type": "state",
                    "seq": hand_id * 10,
                    "seats": seats,
                    "hand": {"id": hand_id, "action_no": 2},
                }
            )
            for action_no, seq in ((2, 1), (3, 2)):
                bot.pending = (hand_id, action_no, time.monotonic())
                await bot.handle({"type": "event", "seq": hand_id * 10 + seq, "event": "acted", "seat": 2})

    asyncio.run(scenario())
    summary = latency_summary(stats)
    assert summary["n"] == 4 and summary["first_act"]["n"] == 2
    assert stats.latencies_first_act == [stats.latencies[0], stats.latencies[2]]
