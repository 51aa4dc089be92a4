"""How many statements the busiest changes of a table cost: each is a round trip to PostgreSQL made while the
table is locked, and at a full room they are what the players wait for (docs/performance.md)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import services
from tables.models import Hand
from tables.selectors import seat_stacks
from tests.factories import play_out, sit, states_sent, table_create, three_handed
from tests.factories import play_out_counting as _play_out

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_action_that_ends_a_hand_is_one_statement_and_its_settlement_eight_after(players):
    """The last action of a hand tells how it ended in one statement, as any other action (what the player
    waits for); its settlement after (one ledger transfer, the players' requests carried out, the table told
    again) is a fixed handful of statements in a transaction of its own, whatever the number of players. It
    was 26 for three, then 11, then 8, all on the player's path."""
    from cashier.selectors import ledger_check

    table, hand = three_handed(players)
    _play_out(table, hand, players)  # the table's first hand also opens its rake account
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at - timedelta(seconds=10))
    hand = services.hand_deal(table_id=table.id)
    statements = [query["sql"] for query in _play_out(table, hand, players, settle_later=True)]
    assert len(statements) == 1, "\n".join(statements)
    hand.refresh_from_db()
    assert hand.status == "settling" and hand.result["pots"], "told ended, with its result, not settled"
    with CaptureQueriesContext(connection) as captured:
        assert services.hand_settle(table_id=table.id)
    statements = [query["sql"] for query in captured.captured_queries]
    assert len(statements) <= 8, "\n".join(statements)
    assert statements[0] == "BEGIN" and statements[-1] == "COMMIT"
    assert not any("SAVEPOINT" in sql for sql in statements)
    hand.refresh_from_db()
    assert hand.status == "complete" and ledger_check().ok
    assert not services.hand_settle(table_id=table.id), "settled once"


def test_the_stacks_told_at_a_hands_end_are_the_ledgers_to_the_chip(players, monkeypatch):
    """The end of a hand does not read the seats and stacks again: it tells the stacks as they were before it
    plus what the settlement moved. Told to the watchers, they are the ledger's after it, rake taken, with a
    player not in the hand who sat down and topped up while it ran."""
    states = states_sent(monkeypatch)
    table = table_create(small_blind=10, big_blind=20)
    for number, player in enumerate(players[:3], start=1):
        sit(table, player, number, buy_in=2_000)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    sit(table, players[3], 4, buy_in=1_000)
    services.seat_top_up(table_id=table.id, user=players[3], amount=500)
    play_out(table, players, hand)  # called and checked to the showdown: a flop, so a rake
    hand.refresh_from_db()
    assert hand.status == "complete" and hand.result["rake"] > 0
    told = {row["seat"]: row["stack"] for row in states[-1]["seats"] if row["player"]}
    assert told == seat_stacks(table=table), "the stacks told are the seat accounts' balances"
    assert told[4] == 1_500 and sum(told.values()) == 3 * 2_000 + 1_500 - hand.result["rake"]


def test_dealing_to_the_same_players_again_takes_ten_statements(players):
    table, hand = three_handed(players)
    _play_out(table, hand, players)
    hand.refresh_from_db()
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at - timedelta(seconds=10))
    with CaptureQueriesContext(connection) as captured:
        dealt = services.hand_deal(table_id=table.id)
    statements = [query["sql"] for query in captured.captured_queries]
    assert dealt is not None and dealt.number == 2
    assert len(statements) <= 10, "\n".join(statements)
    dealt.refresh_from_db()
    assert dealt.to_act is not None and dealt.deadline is not None, (
        "stored with whose turn it is and its clock"
    )


def test_a_busted_player_buys_back_and_sits_in_during_a_hand_in_sixteen_and_eight_statements(players):
    """A player out of chips (sitting out) buys back and sits in while the others play a hand: the busiest
    seat changes of a full room (a bust or two a hand). The top-up reads the running hand once (it was read
    twice) and the player's self-exclusion in one statement (it was two): 18 statements, now 16."""
    table = table_create(small_blind=10, big_blind=20)
    for number, player in enumerate(players[:3], start=1):
        sit(table, player, number, buy_in=2_000)
    sit(table, players[3], 4, buy_in=1_000)
    services.seat_sit_out(table_id=table.id, user=players[3])
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None and "3" not in hand.players, "dealt without the player sitting out"
    with CaptureQueriesContext(connection) as captured:
        services.seat_top_up(table_id=table.id, user=players[3], amount=1_000)
    statements = [query["sql"] for query in captured.captured_queries]
    assert len(statements) <= 16, "\n".join(statements)
    assert sum('FROM "tables_hand"' in sql for sql in statements) == 1, "the running hand read once"
    with CaptureQueriesContext(connection) as captured:
        services.seat_sit_in(table_id=table.id, user=players[3], post="now")
    statements = [query["sql"] for query in captured.captured_queries]
    assert len(statements) <= 8, "\n".join(statements)
    assert seat_stacks(table=table)[4] == 2_000
    assert Hand.objects.get(pk=hand.pk).status == "running"
