"""Late registration in a multi-table with players already out (as PokerStars does it): a bust's place is by
order of elimination over the final field, provisional while late registration is open, with nothing paid;
late registration closes when its last level ends or when the field reaches the money, and then places and
prizes are settled. Every place is taken once and the pool ends at exactly zero."""

import random
from collections import Counter
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cashier.selectors import ledger_check
from tables import services as table_services
from tables.models import Seat
from tests.factories import fast_structure, player_create, tournament_create
from tests.tournaments.play_helpers import Record, check_chips, play_to_the_end, pool_balance
from tournaments import play, services
from tournaments.errors import RegistrationClosed
from tournaments.models import BlindLevel, Entry, Tournament
from tournaments.rules.payouts import Bust

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    monkeypatch.setattr(table_services, "DEAL_PAUSE_SECONDS", 0)


def late_multi_table(players: int):
    """A multi-table of `players` on 3-seat tables, late registration for its first two levels (10 minutes
    each, so it stays open while the test plays), then 3-second levels; payouts 2-5 winner takes all, 6-8
    65/35, 9-10 50/30/20, then 15 % paid."""
    structure = fast_structure(seconds=3)
    BlindLevel.objects.filter(structure=structure, number__lte=2).update(seconds=600)
    tournament = tournament_create(
        kind="mtt",
        seats=3,
        currency="play",
        buy_in=1_000,
        fee=0,
        max_entrants=20,
        min_entrants=2,
        late_registration_levels=2,
        blind_structure=structure,
    )
    for player in [player_create() for _ in range(players)]:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def out(tournament) -> list[Entry]:
    return list(tournament.entries.filter(status=Entry.Status.FINISHED).order_by("place", "pk"))


def assert_places_taken_once(tournament, entrants: int) -> None:
    """Places 1 to `entrants`, each once, but players out together on equal stacks share the best of their
    places (then the next place is the one after the group)."""
    counts = sorted(Counter(tournament.entries.values_list("place", flat=True)).items())
    expected = 1
    for place, count in counts:
        assert place == expected, f"places {counts}: {place} where {expected} was due"
        expected += count
    assert expected == entrants + 1, counts


def test_a_late_entry_after_a_bust_leaves_each_place_taken_once_and_the_pool_at_zero():
    tournament = late_multi_table(7)
    rng, record = random.Random(5), Record()  # one record: who posted the big blind is followed throughout
    play_to_the_end(tournament, rng=rng, record=record, until=lambda: bool(out(tournament)))
    first_out = out(tournament)
    assert first_out and all(e.prize is None for e in first_out), "while late registration is open, no prize"
    places_then = {e.pk: e.place for e in first_out}
    shared = 8 - len(first_out)  # players out in one hand with equal stacks share the best of their places
    assert all(shared <= place <= 7 for place in places_then.values()) and (
        max(places_then.values()) == 7 or set(places_then.values()) == {shared}
    ), f"the first out of seven take the last places, as the field stands: {places_then}"
    # The busted player is told their place is provisional: the API and the tournament page say so.
    busted = first_out[0]
    api = Client().get(f"/api/tournaments/{tournament.pk}/").json()
    (standing,) = [s for s in api["standings"] if s["name"] == busted.user.username]
    assert standing["provisional"] is True and standing["prize"] is None
    client = Client()
    client.force_login(busted.user)
    assert "provisional" in client.get(f"/tournaments/{tournament.pk}/").content.decode()

    late = [player_create() for _ in range(2)]
    for player in late:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    assert {e.pk: e.place for e in out(tournament)} == {pk: place + 2 for pk, place in places_then.items()}, (
        "each late entry comes in above the players already out"
    )
    play.tournament_floor(tournament_id=tournament.pk)
    check_chips(tournament, 9)
    # Another bust while late registration is still open, then the clock ends its last level.
    play_to_the_end(tournament, rng=rng, record=record, until=lambda: len(out(tournament)) > len(first_out))
    tournament.refresh_from_db()
    assert tournament.level <= 2 and all(e.prize is None for e in out(tournament))
    Tournament.objects.filter(pk=tournament.pk).update(
        level=2, level_started_at=timezone.now() - timedelta(seconds=601)
    )
    play_to_the_end(
        tournament, rng=rng, record=record, until=lambda: Tournament.objects.get(pk=tournament.pk).level > 2
    )
    settled = out(tournament)
    assert settled and all(e.prize == 0 for e in settled), "settled when late registration closed: unpaid"
    with pytest.raises(RegistrationClosed):
        services.tournament_register(tournament_id=tournament.pk, user=player_create())

    play_to_the_end(tournament, rng=rng, record=record)
    assert not record.problems, record.problems[:5]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_places_taken_once(tournament, 9)
    assert sum(tournament.entries.values_list("prize", flat=True)) == 9 * 1_000
    assert pool_balance(tournament) == 0 and ledger_check().ok


def bust(tournament, loser: Entry, winner: Entry) -> tuple:
    """`loser` loses every chip to `winner` at the table (as a hand would), and the bust is recorded."""
    Entry.objects.filter(pk=winner.pk).update(chips=winner.chips + loser.chips)
    Entry.objects.filter(pk=loser.pk).update(chips=0)
    stack = loser.chips
    winner.refresh_from_db()
    loser.refresh_from_db()
    return services.tournament_busts_record(
        tournament_id=tournament.pk, busts=[Bust(loser.pk, stack_at_start=stack, after_button=1)]
    )


def test_late_registration_closes_when_the_field_reaches_the_money_and_settles_the_places():
    """Seven entrants and 65/35: late registration is open till two players are left (the money)."""
    tournament = late_multi_table(7)
    entries = list(tournament.entries.order_by("pk"))
    leader = entries[0]
    finishes = bust(tournament, entries[6], leader)
    assert [(f.place, f.provisional) for f in finishes] == [(7, True)]
    services.tournament_register(tournament_id=tournament.pk, user=player_create())  # an eighth: 65/35 still
    assert Entry.objects.get(pk=entries[6].pk).place == 8
    for loser in entries[5:2:-1]:  # 7th, 6th and 5th of eight: provisional, nothing paid
        assert bust(tournament, loser, leader)[0].provisional
    assert set(tournament.entries.filter(status=Entry.Status.FINISHED).values_list("prize", flat=True)) == {
        None
    }
    assert pool_balance(tournament) == 8 * 1_000
    # The late entry (not yet seated) and three others are left; the next bust leaves three: still open.
    assert bust(tournament, entries[2], leader)[0].place == 4
    services.tournament_register(tournament_id=tournament.pk, user=player_create())  # a ninth: 50/30/20
    assert sorted(tournament.entries.filter(status=Entry.Status.FINISHED).values_list("place", flat=True)) == [
        5, 6, 7, 8, 9,
    ]  # fmt: skip
    # Nine entrants pay three places: one more bust (4th) leaves three, the field reaches the money and late
    # registration closes; that bust and every provisional place are settled on the final field of nine.
    (fourth,) = bust(tournament, entries[1], leader)
    assert (fourth.place, fourth.prize, fourth.provisional) == (4, 0, False)
    assert set(tournament.entries.filter(status=Entry.Status.FINISHED).values_list("prize", flat=True)) == {0}
    with pytest.raises(RegistrationClosed):
        services.tournament_register(tournament_id=tournament.pk, user=player_create())
    play.tournament_floor(tournament_id=tournament.pk)  # the two late entries are seated
    late = list(tournament.entries.filter(status=Entry.Status.PLAYING).exclude(pk=leader.pk))
    assert len(late) == 2 and all(
        Seat.objects.get(table_id=e.table_id, number=e.seat).user_id == e.user_id for e in late
    )
    third = bust(tournament, late[0], leader)
    assert [(f.place, f.prize) for f in third] == [(3, 1_800)]
    last = bust(tournament, late[1], leader)
    assert [(f.place, f.prize) for f in last] == [(2, 2_700), (1, 4_500)]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_places_taken_once(tournament, 9)
    assert pool_balance(tournament) == 0 and ledger_check().ok
