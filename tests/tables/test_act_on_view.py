"""A player's action is judged against what the process already holds of the table and, in the middle of a hand,
written with one statement (tables.held; services.table_act, _act_judge, _act_write). What players must never
notice: a view that another process has overtaken writes nothing, and the action is judged again on the table
as it is, under its lock; a refusal is never given on a view that is no longer the table."""

import copy

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tables import held, services
from tables.engine.config import HandConfig
from tables.engine.hand import replay
from tables.models import Hand, Table
from tests.factories import act, player_create, sit, table_create, three_handed, to_act_user

pytestmark = pytest.mark.django_db(transaction=True)  # the one-statement path runs in autocommit only


def test_after_the_first_action_of_a_hand_each_action_is_one_statement_and_the_log_and_messages_agree(
    players,
):
    table, hand = three_handed(players)
    queries = []
    while True:
        hand.refresh_from_db()
        if hand.status != "running":
            break
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        services.hand_engine_keep(hand.id, state)  # read only: back in the cache, as the room's readers do
        user, seq_before = to_act_user(table, players), Table.objects.get(pk=table.id).seq
        with CaptureQueriesContext(connection) as captured:
            act(table, user, "check" if "check" in legal else "call")
        queries.append(len(captured.captured_queries) - 1)  # less the read `act` makes itself
        assert Table.objects.get(pk=table.id).seq > seq_before, "every action is published under a new seq"
    assert hand.status == "complete"
    assert len(hand.actions) == len(queries)
    middle = queries[1:-1]  # the first reads the table; the last settles the hand
    assert middle and all(count == 1 for count in middle), queries
    # The stored log is the truth: replaying it gives the settled hand.
    replayed = replay(config=HandConfig.from_dict(hand.config), actions=hand.actions)
    assert replayed.is_over and dict(replayed.settlement.finishing_stacks)


def _view_now(table_id):
    view = held.take(table_id)
    assert view is not None, "the process holds the table after an action"
    held.keep(view)
    return copy.deepcopy(view)


def test_an_overtaken_view_writes_nothing_and_a_repeated_decision_is_refused_as_stale(players):
    table, hand = three_handed(players)
    first = to_act_user(table, players)
    act(table, first, "call")
    old = _view_now(table.id)
    # Another process takes the next decision (here: the locked path, inside a transaction).
    second = to_act_user(table, players)
    hand.refresh_from_db()
    decided_at = hand.action_no
    with transaction.atomic():
        services.table_act(
            table_id=table.id, user=second, hand_id=hand.id, action_no=decided_at, action="call", amount=None
        )
    seq = Table.objects.get(pk=table.id).seq
    held.keep(old)  # this process still holds the table as it was before that
    with pytest.raises(services.TableError) as refused:
        services.table_act(
            table_id=table.id, user=second, hand_id=hand.id, action_no=decided_at, action="call", amount=None
        )
    assert refused.value.code == "stale"
    hand.refresh_from_db()
    assert hand.action_no == decided_at + 1, "the decision was taken once"
    assert Table.objects.get(pk=table.id).seq == seq, "nothing was published"


def test_an_overtaken_view_still_lets_the_player_whose_turn_it_is_act(players):
    # On the old view it is not their turn: a refusal judged there is judged again on the table, and stands not.
    table, hand = three_handed(players)
    act(table, to_act_user(table, players), "call")
    old = _view_now(table.id)
    with transaction.atomic():
        act(table, to_act_user(table, players), "call")
    held.keep(old)
    hand.refresh_from_db()
    before = list(hand.actions)
    act(table, to_act_user(table, players), "check")  # the big blind closes the round
    hand.refresh_from_db()
    assert hand.actions[: len(before)] == before and len(hand.actions) == len(before) + 1
    state = services.hand_engine(hand=hand, table=table)
    assert state.street == "flop"


def test_a_raise_the_engine_refuses_is_answered_with_its_reason_and_changes_nothing(players):
    table, hand = three_handed(players)
    act(table, to_act_user(table, players), "call")
    hand.refresh_from_db()
    seq, log = Table.objects.get(pk=table.id).seq, list(hand.actions)
    with pytest.raises(services.TableError) as refused:
        act(table, to_act_user(table, players), "raise", 3)  # below the minimum raise
    assert refused.value.code == "below_min"
    hand.refresh_from_db()
    assert hand.actions == log and Table.objects.get(pk=table.id).seq == seq
    act(table, to_act_user(table, players), "call")
    hand.refresh_from_db()
    assert len(hand.actions) == len(log) + 1
    assert Hand.objects.filter(table=table, status="running").count() == 1


def test_a_refusal_on_the_table_as_it_is_costs_one_read_and_no_lock(players):
    table, hand = three_handed(players)
    act(table, to_act_user(table, players), "call")
    hand.refresh_from_db()
    waiting = next(p for p in players if p != to_act_user(table, players) and p.id in _users_in(hand))
    seq = Table.objects.get(pk=table.id).seq
    with CaptureQueriesContext(connection) as captured, pytest.raises(services.TableError) as refused:
        services.table_act(
            table_id=table.id,
            user=waiting,
            hand_id=hand.id,
            action_no=hand.action_no,
            action="fold",
            amount=None,
        )
    assert refused.value.code == "not_your_turn"
    sql = [query["sql"] for query in captured.captured_queries]
    assert len(sql) == 1 and "FOR UPDATE" not in sql[0], sql
    assert Table.objects.get(pk=table.id).seq == seq, "nothing was published"


def _users_in(hand) -> set[int]:
    return {player["user"] for player in hand.players.values()}


def test_a_house_bots_move_is_written_as_a_players_action_and_the_next_action_is_one_statement(
    players, monkeypatch
):
    """A bot's move (the workers' `bot_act`) is judged and written by the same path as a player's action: in the
    middle of a hand the one statement, with `follow` for the other processes; so the view stays whole and the
    person acting next is one statement too (before, a bot's move took new seqs the locked way and every view
    of the table, this process's included, had to be read again)."""
    monkeypatch.setattr(
        services,
        "bot_move",
        lambda *, state, **_: (
            ("check", None)
            if any(item["action"] == "check" for item in state.legal_actions())
            else ("call", None)
        ),
    )
    table = table_create()
    person, bot_a, bot_b = players[0], player_create(bot=True), player_create(bot=True)
    seated = [person, bot_a, bot_b]
    for number, user in enumerate(seated, start=1):
        sit(table, user, number, post="now")
    hand = services.hand_deal(table_id=table.id)
    after_bot: list[int] = []  # statements of the person's action right after a bot's move
    bot_writes: list[bool] = []
    last_was_bot = False
    while True:
        hand.refresh_from_db()
        if hand.status != "running":
            break
        user = to_act_user(table, seated)
        if user.is_bot:
            with CaptureQueriesContext(connection) as captured:
                assert services.bot_act(hand_id=hand.id, action_no=hand.action_no)
            sql = [query["sql"] for query in captured.captured_queries]
            if Hand.objects.get(pk=hand.pk).status == "running":
                bot_writes.append(
                    any("WITH locked AS" in q for q in sql) and not any("seq = seq +" in q for q in sql)
                )
            last_was_bot = True
            continue
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        services.hand_engine_keep(hand.id, state)
        with CaptureQueriesContext(connection) as captured:
            act(table, user, "check" if "check" in legal else "call")
        if last_was_bot and Hand.objects.get(pk=hand.pk).status == "running":
            after_bot.append(len(captured.captured_queries) - 1)  # less the read `act` makes itself
        last_was_bot = False
    assert bot_writes and all(bot_writes), bot_writes
    assert after_bot and all(count == 1 for count in after_bot), after_bot
