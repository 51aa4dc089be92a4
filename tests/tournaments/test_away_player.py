"""A tournament player who stops acting (SPEC 1.3, issue 14: "Away players are dealt in, post blinds and are
folded when their time runs out; they cannot sit out"): through the table services and the clock's timeout,
against the real database. Every hand they are dealt in and post their blinds and the big-blind ante in
turn; each time the clock runs out (time bank first) they are checked when it is free and folded otherwise;
their seat is never sat out; the tournament's chips add up after every hand."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tables import held
from tables import services as table_services
from tables.models import Hand, Seat
from tests.factories import eur_player, tournament_create
from tests.tournaments.play_helpers import check_chips
from tournaments import play, services
from tournaments.models import BlindLevel, BlindStructure, Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    monkeypatch.setattr(table_services, "DEAL_PAUSE_SECONDS", 0)


def one_level_with_ante():
    structure = BlindStructure.objects.create(name="Ante from the start", speed="turbo", starting_stack=1_500)
    BlindLevel.objects.create(
        structure=structure, number=1, small_blind=25, big_blind=50, ante=50, seconds=3_600
    )
    return structure


def test_an_away_player_is_dealt_in_posts_and_is_checked_or_folded_by_the_clock_never_sat_out():
    tournament = tournament_create(seats=3, buy_in=500, fee=0, blind_structure=one_level_with_ante())
    players = [eur_player(5_000) for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    away = players[0]
    play.tournament_floor(tournament_id=tournament.pk)
    User = get_user_model()
    posted: set[str] = set()
    timed_out: list[tuple[str, str]] = []  # (what was free, what the clock did)
    hands_done = 0
    while hands_done < 9:
        hand = Hand.objects.filter(
            table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING
        ).first()
        assert hand is not None, "the floor deals the next hand"
        away_entry = Entry.objects.get(tournament=tournament, user=away)
        seat_no = str(away_entry.seat - 1)
        assert seat_no in hand.players, f"hand {hand.pk}: the away player is dealt in"
        posted |= {kind for seat, kind in hand.config["posts"] if str(seat) == seat_no}
        if seat_no in {str(seat) for seat in hand.config.get("antes", {})}:
            posted.add("ante")
        while hand.status == Hand.Status.RUNNING:
            state = table_services.hand_engine(hand=hand, table=hand.table)
            table_services.hand_engine_keep(hand.id, state)
            legal = {item["action"] for item in state.legal_actions()}
            to_act = state.to_act  # (the clock's decision changes `state` itself: the process's engine state)
            if str(to_act) == seat_no:  # nobody acts for them: the clock runs out, the time bank too
                action_no, before = hand.action_no, len(hand.actions)
                for _ in range(3):
                    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
                    held.drop(hand.table_id)  # the row changed behind the room's back: its view is read again
                    table_services.hand_timeout(hand_id=hand.pk, action_no=action_no)
                    hand.refresh_from_db()
                    if hand.action_no != action_no:
                        break
                assert hand.action_no > action_no, "the clock decided for the away player"
                decided = hand.actions[before]  # (a hand it ends may record more after it: a show, a muck)
                assert decided["seat"] == to_act, hand.actions[before:]
                timed_out.append(("check" if "check" in legal else "bet to call", decided["action"]))
                continue
            user = User.objects.get(pk=hand.players[str(to_act)]["user"])
            kind = "check" if "check" in legal else "call"  # the others play along
            table_services.table_act(
                table_id=hand.table_id,
                user=user,
                hand_id=hand.pk,
                action_no=hand.action_no,
                action=kind,
                amount=None,
            )
            hand.refresh_from_db()
        hands_done += 1
        check_chips(tournament, 3)
        seat = Seat.objects.get(table_id=away_entry.table_id, number=away_entry.seat)
        assert seat.user_id == away.pk and seat.status != Seat.Status.SITTING_OUT and not seat.sit_out_next
        play.tournament_floor(tournament_id=tournament.pk)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.RUNNING
    assert {"small_blind", "big_blind", "ante"} <= posted, posted
    assert ("check", "check") in timed_out and ("bet to call", "fold") in timed_out, timed_out
    assert all(did == ("check" if free == "check" else "fold") for free, did in timed_out), timed_out
    assert Entry.objects.get(tournament=tournament, user=away).chips > 0
