"""How many statements the busiest changes of a table cost: each is a round trip to PostgreSQL made while the
table is locked, and at a full room they are what the players wait for (docs/performance.md)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import services
from tables.models import Hand
from tests.factories import play_out_counting as _play_out
from tests.factories import three_handed

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_end_of_a_hand_settles_and_tells_it_in_eleven_statements(players):
    """The last action of a hand settles it (one ledger transfer), carries out the players' requests and
    publishes the table: a fixed handful of statements whatever the number of players (it was 26 for three)."""
    from cashier.selectors import ledger_check

    table, hand = three_handed(players)
    _play_out(table, hand, players)  # the table's first hand also opens its rake account
    Hand.objects.filter(pk=hand.pk).update(ended_at=hand.ended_at - timedelta(seconds=10))
    hand = services.hand_deal(table_id=table.id)
    statements = [query["sql"] for query in _play_out(table, hand, players)]
    assert len(statements) <= 11, "\n".join(statements)
    assert statements[0] == "BEGIN" and statements[-1] == "COMMIT"
    assert not any("SAVEPOINT" in sql for sql in statements)
    hand.refresh_from_db()
    assert hand.status == "complete" and ledger_check().ok


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
