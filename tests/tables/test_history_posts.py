"""Every post PokerStars writes, line by line in its words, in hands played through the services: a big-blind
ante (the table's ante option, what tournament tables post), a straddle, a player back from missed blinds
posting the small and big blinds together, and a bomb pot's antes. Each text adds up to the ledger (the round
trip of the evening test, which counts every post) and its story to the settlement."""

import random

import pytest

from tables import services
from tables.history.selectors import hand_pokerstars
from tables.history.story import story_check, story_from_hand
from tables.models import Hand, Seat
from tests.factories import table_create
from tests.tables.history_helpers import check_round_trip, person, play_out, seat_all

pytestmark = pytest.mark.django_db


def passive(legal, _rng):
    """Checks when it can, else calls: everyone sees every street."""
    actions = {entry["action"] for entry in legal}
    return ("check" if "check" in actions else "call" if "call" in actions else "muck"), None


def folds(legal, _rng):
    actions = {entry["action"] for entry in legal}
    return ("fold" if "fold" in actions else "check" if "check" in actions else "muck"), None


def post_lines(text: str) -> list[str]:
    """The lines between the seats and ``*** HOLE CARDS ***``: the posts."""
    lines = text.splitlines()
    seats = max(i for i, line in enumerate(lines) if line.startswith("Seat ") and "in chips" in line)
    return lines[seats + 1 : lines.index("*** HOLE CARDS ***")]


def names_of(users) -> list[str]:
    return [user.username for user in users]


def check_everything_adds_up(hand: Hand) -> None:
    assert story_check(story_from_hand(hand=hand)) == []
    for seat in hand.players:
        check_round_trip(hand_pokerstars(hand=hand, viewer=int(seat)), hand)


def test_a_big_blind_ante_is_the_big_blinds_ante_posted_first():
    table = table_create(small_blind=5, big_blind=10, ante=10)
    users = seat_all(table, [person(name) for name in ("ada", "ben", "cleo")], 1_000)
    a, b, c = names_of(users)
    services.hand_deal(table_id=table.id)  # the button is seat 1: seat 2 the small blind, seat 3 the big
    hand = play_out(table, random.Random(1), passive)
    assert hand.config["antes"] == {"2": 10}
    text = hand_pokerstars(hand=hand, viewer=0)
    assert post_lines(text) == [
        f"{c}: posts the ante 0.10",
        f"{b}: posts small blind 0.05",
        f"{c}: posts big blind 0.10",
    ]
    assert "Total pot 0.40 | Rake" in text, "three big blinds and the ante"
    check_everything_adds_up(hand)


def test_a_straddle_is_posted_after_the_blinds():
    table = table_create(allow_straddle=True)
    users = seat_all(table, [person(name) for name in ("ada", "ben", "cleo", "dino")], 200)
    names = names_of(users)
    services.hand_deal(table_id=table.id)
    play_out(table, random.Random(1), folds)
    for user in users:
        services.seat_options(table_id=table.id, user=user, auto_muck=None, straddle=True)
    services.hand_deal(table_id=table.id)  # the button on seat 2: seat 3 small blind, 4 big, 1 straddles
    hand = play_out(table, random.Random(1), passive)
    assert [kind for _seat, kind in hand.config["posts"]] == ["small_blind", "big_blind", "straddle"]
    text = hand_pokerstars(hand=hand, viewer=0)
    assert post_lines(text) == [
        f"{names[2]}: posts small blind 0.01",
        f"{names[3]}: posts big blind 0.02",
        f"{names[0]}: posts straddle 0.04",
    ]
    assert "Total pot 0.16 | Rake" in text, "everyone called the straddle"
    check_everything_adds_up(hand)


def test_a_player_back_from_missed_blinds_posts_small_and_big_blinds_together():
    table = table_create()
    users = seat_all(table, [person(name) for name in ("ada", "ben", "cleo", "dino")], 200)
    names = names_of(users)
    services.hand_deal(table_id=table.id)
    play_out(table, random.Random(1), folds)
    services.seat_sit_out(table_id=table.id, user=users[3])  # seat 4 misses the next big blind
    services.hand_deal(table_id=table.id)
    play_out(table, random.Random(1), folds)
    assert Seat.objects.get(table=table, number=4).missed_big
    services.seat_sit_in(table_id=table.id, user=users[3], post="now")
    services.hand_deal(table_id=table.id)
    hand = play_out(table, random.Random(1), passive)
    posts = hand.config["posts"]
    assert [kind for seat, kind in posts if seat == 3] == ["entry_big_blind", "dead_small_blind"], posts
    small, big = (
        next(seat for seat, kind in posts if kind == wanted) for wanted in ("small_blind", "big_blind")
    )
    text = hand_pokerstars(hand=hand, viewer=3)
    assert post_lines(text) == [
        f"{names[small]}: posts small blind 0.01",
        f"{names[big]}: posts big blind 0.02",
        f"{names[3]}: posts small & big blinds 0.03",
    ]
    check_everything_adds_up(hand)


def test_a_bomb_pot_is_every_players_ante_and_no_blind():
    table = table_create(small_blind=50, big_blind=100, bomb_pot_every=1, bomb_pot_ante_bb=2)
    users = seat_all(table, [person(name) for name in ("ada", "ben", "cleo")], 10_000)
    services.hand_deal(table_id=table.id)
    hand = play_out(table, random.Random(1), passive)
    text = hand_pokerstars(hand=hand, viewer=0)
    # In dealing order, the small blind's seat first (the button posts last).
    assert post_lines(text) == [f"{name}: posts the ante 2" for name in names_of(users[1:] + users[:1])]
    assert "*** HOLE CARDS ***\nDealt to" in text and "Total pot 6 | Rake" in text
    check_everything_adds_up(hand)
