"""How many statements the busiest changes of a table cost: each is a round trip to PostgreSQL made while the
table is locked, and at a full room they are what the players wait for (docs/performance.md)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import services
from tables.models import Hand
from tables.selectors import seat_stacks
from tests.factories import (
    act,
    legal_now,
    play_out,
    player_create,
    sit,
    states_sent,
    table_create,
    three_handed,
    to_act_user,
)
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


def _three_dealt_and_one_sitting_out(players):
    """Blinds 10/20: three players with 2,000 dealt a hand, the fourth (1,000) sitting out of it."""
    table = table_create(small_blind=10, big_blind=20)
    for number, player in enumerate(players[:3], start=1):
        sit(table, player, number, buy_in=2_000)
    sit(table, players[3], 4, buy_in=1_000)
    services.seat_sit_out(table_id=table.id, user=players[3])
    return table, services.hand_deal(table_id=table.id)


def test_a_busted_player_buys_back_and_sits_in_during_a_hand_on_the_tables_view(players, monkeypatch):
    """A player out of chips (sitting out) buys back and sits in while the others play a hand: the busiest seat
    change of a full room (a bust or two a hand). One top-up with its `sit_in`, 12 statements (a top-up of 13
    and a sit-in of 5, each under its own lock, before; then 14, the cashier reading the seat session and the
    wallet twice). Under the table's lock it works on the view of the table
    the last action left in this process (no read of seats, stacks or hand) and leaves it at its seq, so the
    next action is still one statement. The hand then ends with every stack the ledger's, the new chips
    counted."""
    from cashier.selectors import ledger_check

    states = states_sent(monkeypatch)
    table, hand = _three_dealt_and_one_sitting_out(players)
    assert hand is not None and "3" not in hand.players, "dealt without the player sitting out"
    act(table, to_act_user(table, players), "call")  # the table's view is now this process's
    with CaptureQueriesContext(connection) as captured:
        services.seat_top_up(table_id=table.id, user=players[3], amount=1_000, sit_in="now")
    statements = [query["sql"] for query in captured.captured_queries]
    assert len(statements) <= 12, "\n".join(statements)
    assert not any('FROM "tables_seat"' in sql or 'FROM "tables_hand"' in sql for sql in statements)
    told = {row["seat"]: row for row in states[-1]["seats"]}
    assert told[4]["stack"] == 2_000 and told[4]["status"] == "waiting_bb", "the seat as it is now, told"
    assert told[1]["bet"] + told[2]["bet"] + told[3]["bet"] == 50, (
        "the hand as it is, told: blinds and a call"
    )
    hand.refresh_from_db()
    legal, user = legal_now(table, hand), to_act_user(table, players)
    with CaptureQueriesContext(connection) as captured:
        act(table, user, "check" if "check" in legal else "call")
    statements = [query["sql"] for query in captured.captured_queries][1:]  # less the read `act` makes
    assert len(statements) == 1, "\n".join(statements)
    play_out(table, players, hand)
    hand.refresh_from_db()
    assert hand.status == "complete"
    told = {row["seat"]: row["stack"] for row in states[-1]["seats"] if row["player"]}
    assert told == seat_stacks(table=table), "the stacks told are the seat accounts' balances"
    assert told[4] == 2_000 and sum(told.values()) == 3 * 2_000 + 2_000 - hand.result["rake"]
    assert ledger_check().ok


def _passive_act_statements(table, players, hand) -> list[str]:
    """The next player's check or call, and the statements it took, less the read the test's `act` makes
    first (what the room's action costs: one statement while this process holds the table's view)."""
    hand.refresh_from_db()
    who, legal = to_act_user(table, players), legal_now(table, hand)
    with CaptureQueriesContext(connection) as captured:
        act(table, who, "check" if "check" in legal else "call")
    return [query["sql"] for query in captured.captured_queries][1:]


def test_a_seat_change_refused_during_a_hand_leaves_the_next_action_one_statement(players):
    """Refusals under the table's lock change nothing: a top-up during one's own hand, a top-up above the
    table's maximum (the cashier's refusal), a sit-in or a top-up by someone with no seat. The view of the
    table they took goes back, so the next action still reads nothing (it read the table again, 3
    statements, before)."""
    from cashier.errors import CashierError

    table, hand = _three_dealt_and_one_sitting_out(players)
    assert hand is not None
    stranger = player_create()
    refusals = [
        (lambda: services.seat_top_up(table_id=table.id, user=players[0], amount=100), "hand_in_progress"),
        (lambda: services.seat_top_up(table_id=table.id, user=players[3], amount=10**9), "buy_in_bounds"),
        (lambda: services.seat_sit_in(table_id=table.id, user=stranger, post="now"), "not_seated"),
        (lambda: services.seat_top_up(table_id=table.id, user=stranger, amount=100), "not_seated"),
    ]
    for refuse, code in refusals:
        _passive_act_statements(table, players, hand)  # the table's view is now this process's
        with pytest.raises((services.TableError, CashierError)) as refused:
            refuse()
        assert getattr(refused.value, "code", None) == code
        statements = _passive_act_statements(table, players, hand)
        assert len(statements) == 1, f"after {code}:\n" + "\n".join(statements)
        hand.refresh_from_db()
        assert hand.status == "running", "the hand lasts through the refusals"


def test_a_chat_line_or_a_change_of_options_during_a_hand_leaves_the_next_action_one_statement(
    players, monkeypatch
):
    """Players chat and tick their options (auto-muck, run it twice) while a hand runs. Neither changes the
    hand, the seats' play or the stacks: each finds the seat in the table's view this process holds and leaves
    that view the table's, so the next action is still one statement (each read the table again, 3
    statements, before). Refusals (a muted player, a straddle the table does not offer) likewise. What the
    watchers are told: the chat line, and the options in the player's own view of the table."""
    from cashier.selectors import ledger_check
    from tables.models import ChatMute
    from tables.state import for_viewer

    sent: list[dict] = []
    from tables import broadcast

    monkeypatch.setattr(
        broadcast, "group_send_batch", lambda group, messages, follow=None: sent.extend(messages)
    )
    table, hand = _three_dealt_and_one_sitting_out(players)
    assert hand is not None
    ChatMute.objects.create(user=players[2], reason="spam")
    changes = [
        (lambda: services.table_chat(table_id=table.id, user=players[3], text="gl all"), None),
        (lambda: services.table_chat(table_id=table.id, user=players[0], text="nh"), None),
        (
            lambda: services.seat_options(table_id=table.id, user=players[1], auto_muck=False, straddle=None),
            None,
        ),
        (lambda: services.table_chat(table_id=table.id, user=players[2], text="spam"), "muted"),
        (
            lambda: services.seat_options(table_id=table.id, user=players[1], auto_muck=None, straddle=True),
            "no_straddle",
        ),
    ]
    for change, refusal in changes:
        _passive_act_statements(table, players, hand)  # the table's view is now this process's
        if refusal is None:
            with CaptureQueriesContext(connection) as captured:
                change()
            assert len(captured.captured_queries) <= 8, "\n".join(q["sql"] for q in captured.captured_queries)
        else:
            with pytest.raises(services.TableError) as refused:
                change()
            assert refused.value.code == refusal
        hand.refresh_from_db()
        assert hand.status == "running", "the hand lasts through the changes"
        statements = _passive_act_statements(table, players, hand)
        assert len(statements) == 1, f"after {refusal or 'a change'}:\n" + "\n".join(statements)
    chats = [m["text"] for m in sent if m.get("event") == "chat"]
    assert chats == ["gl all", "nh"], "the lines sent, the muted player's not"
    seqs = [m["seq"] for m in sent]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "one numbering, in order"
    last_state = [m for m in sent if m["type"] == "state"][-1]
    assert for_viewer(last_state, seat_number=2, hole_cards=None)["options"]["auto_muck"] is False
    play_out(table, players, hand)
    hand.refresh_from_db()
    assert hand.status == "complete" and ledger_check().ok


def test_a_player_whose_window_closes_and_opens_during_a_hand_leaves_the_next_action_one_statement(
    players, monkeypatch
):
    """A player's last window at the table closes during a hand, then opens again: the seat is marked away and
    back for everyone to see, and neither mark costs the next action a read of the table (each made it read
    the table again, 3 statements, before). A mark that changes nothing (already away, or a window of theirs
    opened meanwhile) publishes nothing and leaves the view as it was too."""
    from tables import broadcast

    sent: list[dict] = []
    monkeypatch.setattr(
        broadcast, "group_send_batch", lambda group, messages, follow=None: sent.extend(messages)
    )
    table, hand = _three_dealt_and_one_sitting_out(players)
    assert hand is not None
    marks = [
        (players[1], False, None, True),
        (players[1], False, None, False),  # already away
        (players[0], False, lambda: False, False),  # a window of theirs opened meanwhile
        (players[1], True, None, True),
    ]
    for player, connected, still_gone, changed in marks:
        _passive_act_statements(table, players, hand)  # the table's view is now this process's
        before = len(sent)
        marked = services.seat_connection(
            table_id=table.id, user=player, connected=connected, still_gone=still_gone
        )
        assert marked is changed
        told = [m for m in sent[before:] if m.get("event") == "seat"]
        assert told == ([{**told[0], "seat": 2, "disconnected": not connected}] if changed else [])
        hand.refresh_from_db()
        assert hand.status == "running", "the hand lasts through the marks"
        statements = _passive_act_statements(table, players, hand)
        assert len(statements) == 1, f"after marking {player}, connected={connected}:\n" + "\n".join(
            statements
        )
    seats = [m for m in sent if m["type"] == "state"][-1]["seats"]
    assert not any(seat.get("disconnected") for seat in seats if seat), "back at the table, as everyone sees"
