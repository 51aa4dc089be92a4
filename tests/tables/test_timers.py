"""The action clock, decided by the services a timer task calls (the live test runs it on a real worker)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tables import held, services
from tables.models import Hand, Seat
from tests.factories import (
    act,
    heads_up,
    legal_now,
    passive,
    sit,
    states_sent,
    table_admin_form,
    table_create,
    to_act_user,
)

pytestmark = pytest.mark.django_db


def expire(hand: Hand) -> None:
    """The decision's time runs out: its deadline moved into the past in the row, which the room itself never
    changes without moving the table's seq; so this process's view of the table is dropped (read again)."""
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    held.drop(Hand.objects.get(pk=hand.pk).table_id)


def running(table) -> Hand:
    return Hand.objects.get(table=table, status="running")


def test_time_bank_first_then_fold_and_a_timer_for_an_old_decision_does_nothing(players):
    table, hand = heads_up(players, time_bank_seconds=10)
    assert not services.hand_timeout(hand_id=hand.id, action_no=0), "the deadline has not passed yet"
    expire(hand)
    assert services.hand_timeout(hand_id=hand.id, action_no=0)
    hand = running(table)
    assert hand.time_bank_used and hand.action_no == 0, "the time bank extends the clock first"
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    assert seat.time_bank_ms == 0
    remaining = (hand.deadline - timezone.now()).total_seconds()
    assert 8 < remaining <= 10
    expire(hand)
    assert services.hand_timeout(hand_id=hand.id, action_no=0)
    hand.refresh_from_db()
    assert hand.status == "complete", "heads-up, facing the big blind: folded"
    assert not services.hand_timeout(hand_id=hand.id, action_no=0), "a late or repeated timer does nothing"


def test_a_free_check_is_taken_for_a_player_out_of_time(players):
    table = table_create(time_bank_seconds=0)
    for seat, user in enumerate(players[:3], start=1):
        sit(table, user, seat, post="now")
    hand = services.hand_deal(table_id=table.id)
    # everyone calls to the big blind, who may check
    for _ in range(2):
        hand = running(table)
        user = Seat.objects.get(table=table, number=hand.to_act + 1).user
        services.table_act(
            table_id=table.id,
            user=user,
            hand_id=hand.id,
            action_no=hand.action_no,
            action="call",
            amount=None,
        )
    hand = running(table)
    bb_seat = hand.to_act
    expire(hand)
    services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)
    hand = running(table)
    assert hand.actions[-1] == {"seat": bb_seat, "action": "check"}
    assert hand.status == "running"


def test_two_timeouts_in_a_row_sit_the_player_out_after_the_hand(players):
    table = table_create(time_bank_seconds=0)
    alice, bob = players[:2]
    sit(table, alice, 1)
    sit(table, bob, 2)
    sleeper = None
    for _ in range(2):
        hand = services.hand_deal(table_id=table.id)
        seat = Seat.objects.get(table=table, number=hand.to_act + 1)
        if sleeper is None:
            sleeper = seat.user
        elif seat.user != sleeper:
            # heads-up the other player starts the next hand: let them call, the sleeper then times out
            services.table_act(
                table_id=table.id, user=seat.user, hand_id=hand.id, action_no=0, action="call", amount=None
            )
            hand = running(table)
        expire(hand)
        services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)
        hand = Hand.objects.get(pk=hand.pk)
        while hand.status == "running":
            user = Seat.objects.get(table=table, number=hand.to_act + 1).user
            state = services.hand_engine(hand=hand, table=table)
            legal = {item["action"] for item in state.legal_actions()}
            if user == sleeper:
                expire(hand)
                services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)
            else:
                action = "check" if "check" in legal else "call"
                services.table_act(
                    table_id=table.id,
                    user=user,
                    hand_id=hand.id,
                    action_no=hand.action_no,
                    action=action,
                    amount=None,
                )
            hand = Hand.objects.get(pk=hand.pk)
    seat = Seat.objects.get(table=table, user=sleeper)
    assert seat.status == Seat.Status.SITTING_OUT
    assert services.hand_deal(table_id=table.id) is None, "one player left ready: no hand"


def test_what_is_left_of_the_time_bank_stays_in_it(players):
    table, hand = heads_up(players, time_bank_seconds=10)
    expire(hand)
    services.hand_timeout(hand_id=hand.id, action_no=0)  # the clock ran out: the time bank starts
    hand = running(table)
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    assert hand.time_bank_used and seat.time_bank_ms == 0
    services.table_act(
        table_id=table.id, user=seat.user, hand_id=hand.id, action_no=0, action="call", amount=None
    )
    seat.refresh_from_db()
    assert 8_000 < seat.time_bank_ms <= 10_000, "acting in the time bank keeps what was not used"
    assert seat.timeouts_in_row == 0


# --- what the room runs a moment later: kept in Redis for the workers' clock, not as Celery ETA tasks -----


@pytest.fixture
def due_set():
    from tables import clock
    from tables.clock import redis_client

    redis_client().delete(clock.due_key())
    yield clock
    redis_client().delete(clock.due_key())


def test_a_deal_and_a_bot_move_wait_for_their_time_and_each_is_sent_once(due_set):
    import time
    from concurrent.futures import ThreadPoolExecutor

    clock = due_set
    now = time.time()
    clock.later("deal", (7,), delay=3.0)
    clock.later("bot", (11, 4), delay=1.0)
    clock.later("bot", (11, 4), delay=1.5)  # not `once`: its own entry, as its own task was
    assert clock.due_claim(now=now) == [], "nothing is due yet"
    assert clock.due_claim(now=now + 1.2) == [("bot", [11, 4])]
    assert clock.due_claim(now=now + 1.2) == [], "taken once"
    # Two workers' clocks claim at once: each entry goes to exactly one of them.
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: clock.due_claim(now=now + 5), range(2))
    assert sorted(first + second) == [("bot", [11, 4]), ("deal", [7])]


def test_a_tables_deal_asked_for_many_times_is_one_task_at_the_earliest_time_asked(due_set):
    """A full room asks for a table's deal at the end of every hand and at every seat change while no hand runs
    (a busted player topping up, sitting in): one task a table, not one per asking."""
    import time

    clock = due_set
    now = time.time()
    clock.later("deal", (7,), delay=3.0, once=True)  # the hand ended
    clock.later("deal", (7,), delay=0.5, once=True)  # a seat change
    clock.later("deal", (7,), delay=2.0, once=True)  # another: later than the one asked, so no change
    clock.later("deal", (8,), delay=0.5, once=True)  # another table's is its own
    assert clock.due_claim(now=now + 0.2) == []
    assert sorted(clock.due_claim(now=now + 0.6)) == [("deal", [7]), ("deal", [8])]
    assert clock.due_claim(now=now + 10) == [], "asked for four times, sent twice: once a table"
    clock.later("deal", (7,), delay=1.0, once=True)
    assert clock.due_claim(now=now + 10) == [("deal", [7])], "asked for again once sent: due again"


def test_a_deal_that_comes_during_the_pause_after_a_hand_asks_again_for_the_pauses_end(
    players, due_set, django_capture_on_commit_callbacks, monkeypatch
):
    """Players see how a hand ended for DEAL_PAUSE_SECONDS before the next deal. A seat change in that pause
    asks for a deal sooner: that deal deals nothing and puts the table's deal at the pause's end, so the table
    never waits for the sweep. A seat change during a hand asks for no deal (the hand's end does)."""
    import time

    clock = due_set
    pause = 3.0
    monkeypatch.setattr(services, "DEAL_PAUSE_SECONDS", pause)  # as players have it (tests skip it)
    table, hand = heads_up(players)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_sit_out(table_id=table.id, user=players[0])
    assert clock.due_claim(now=time.time() + 60) == [], "a hand runs: its end asks for the deal"
    with django_capture_on_commit_callbacks(execute=True):
        act(table, to_act_user(table, players), "fold")
    ended = time.time()
    assert clock.due_claim(now=ended + pause - 0.5) == [], "not before the pause's end"
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_sit_in(table_id=table.id, user=players[0], post="now")
    assert clock.due_claim(now=ended + 1) == [("deal", [table.id])], "the seat change's, sooner"
    with django_capture_on_commit_callbacks(execute=True):
        assert services.hand_deal(table_id=table.id) is None, "the pause is not over: nothing dealt"
    assert clock.due_claim(now=ended + pause - 0.5) == []
    assert clock.due_claim(now=ended + pause + 0.5) == [("deal", [table.id])], "the deal at the pause's end"
    monkeypatch.setattr(services, "DEAL_PAUSE_SECONDS", 0)  # the pause over: that deal deals
    assert services.hand_deal(table_id=table.id) is not None


def test_a_used_time_bank_comes_back_a_few_seconds_every_so_many_hands_up_to_its_maximum(
    players, admin_client
):
    """Time bank 10 s at sit-down, refilled 4 s every 2 hands dealt, at most 16 s: used up in hand 1, it is
    4 s after hand 2, 8 s after hand 4, then 12, then 16, and stays 16. Shown in the table's state with the
    table's settings, which staff change in the admin."""
    from tables.state import table_snapshot

    table, hand = heads_up(
        players,
        time_bank_seconds=10,
        time_bank_max_seconds=16,
        time_bank_refill_seconds=4,
        time_bank_refill_hands=2,
    )
    expire(hand)
    services.hand_timeout(hand_id=hand.id, action_no=0)  # the time bank is used ...
    hand = running(table)
    user = Seat.objects.get(table=table, number=hand.to_act + 1).user
    services.table_act(table_id=table.id, user=user, hand_id=hand.id, action_no=0, action="fold", amount=None)
    seat = Seat.objects.get(table=table, user=user)
    assert 0 < seat.time_bank_ms < 10_000, "... partly: what is left of it stays in it"
    Seat.objects.filter(pk=seat.pk).update(time_bank_ms=0)  # all of it, to count the refills from nothing
    seen = []
    for _ in range(10):
        hand = services.hand_deal(table_id=table.id)
        seen.append(Seat.objects.get(pk=seat.pk).time_bank_ms)
        hand = running(table)
        folder = Seat.objects.get(table=table, number=hand.to_act + 1).user
        services.table_act(
            table_id=table.id, user=folder, hand_id=hand.id, action_no=0, action="fold", amount=None
        )
    assert seen == [4_000, 4_000, 8_000, 8_000, 12_000, 12_000, 16_000, 16_000, 16_000, 16_000], (
        "hands 2 to 11"
    )
    other = Seat.objects.exclude(pk=seat.pk).get(table=table, user__isnull=False)
    assert other.time_bank_ms == 16_000, "never above the maximum"
    row = next(
        r for r in table_snapshot(table=table, hand=None, state=None)["seats"] if r["seat"] == seat.number
    )
    assert row["time_bank_ms"] == 16_000
    assert table_snapshot(table=table, hand=None, state=None)["table"]["time_bank"] == {
        "start_seconds": 10,
        "max_seconds": 16,
        "refill_seconds": 4,
        "refill_every_hands": 2,
    }


def test_staff_set_the_time_bank_refill_in_the_admin_and_a_maximum_below_the_start_is_refused(admin_client):
    from tables.models import Table

    response = admin_client.post(
        "/admin/tables/table/add/",
        table_admin_form(
            time_bank_seconds=30,
            time_bank_max_seconds=20,
            time_bank_refill_seconds=5,
            time_bank_refill_hands=10,
        ),
    )
    assert response.status_code == 200
    assert "The maximum cannot be below what the time bank starts with." in response.content.decode()
    assert not Table.objects.filter(name="New table").exists()
    response = admin_client.post(
        "/admin/tables/table/add/",
        table_admin_form(
            time_bank_seconds=30,
            time_bank_max_seconds=90,
            time_bank_refill_seconds=10,
            time_bank_refill_hands=5,
        ),
    )
    assert response.status_code == 302
    table = Table.objects.get(name="New table")
    assert (table.time_bank_max_seconds, table.time_bank_refill_seconds, table.time_bank_refill_hands) == (
        90,
        10,
        5,
    )
    response = admin_client.post("/admin/tables/table/add/", table_admin_form(name="Defaults"))
    assert response.status_code == 302, "left out, the refill takes the room's defaults"
    table = Table.objects.get(name="Defaults")
    assert (table.time_bank_max_seconds, table.time_bank_refill_seconds, table.time_bank_refill_hands) == (
        60,
        5,
        10,
    )


@pytest.mark.django_db(transaction=True)
def test_the_second_timeout_in_a_row_is_told_at_once_as_sitting_out_next(players, monkeypatch):
    """The seat's timeouts in a row are written with the timeout's own action, before the state that tells it:
    the table sees at once that the player sits out from the next hand (they were saved after it was sent)."""
    states = states_sent(monkeypatch)
    table = table_create(time_bank_seconds=0)
    for seat, user in enumerate(players[:3], start=1):
        sit(table, user, seat, post="now")
    hand = services.hand_deal(table_id=table.id)
    sleeper = hand.to_act + 1

    def others_play_until_the_sleeper_acts_or_the_end(hand: Hand) -> Hand:
        while hand.status == "running" and hand.to_act + 1 != sleeper:
            act(table, to_act_user(table, players), passive(legal_now(table, hand)))
            hand = Hand.objects.get(pk=hand.pk)
        return hand

    expire(hand)
    assert services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)  # the first: a fold
    hand = others_play_until_the_sleeper_acts_or_the_end(Hand.objects.get(pk=hand.pk))
    assert hand.status == "complete"
    Hand.objects.filter(pk=hand.pk).update(ended_at=timezone.now() - timedelta(seconds=30))
    hand = others_play_until_the_sleeper_acts_or_the_end(services.hand_deal(table_id=table.id))
    states.clear()
    expire(hand)
    assert services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)  # the second in a row
    row = next(row for row in states[-1]["seats"] if row["seat"] == sleeper)
    assert row["sitting_out_next"] is True, "the state sent with the timeout shows the seat sitting out next"
    assert Seat.objects.get(table=table, number=sleeper).timeouts_in_row == 2
