"""A bomb pot in the hand histories: every player's post is told as the ante it is (not as a dead small
blind), in the replayer's frames and in the PokerStars text, and the story still adds up."""

import random

import pytest

from tables import services
from tables.history.selectors import hand_pokerstars, hand_replay
from tables.history.story import story_check, story_from_hand
from tests.factories import table_create
from tests.tables.history_helpers import person, play_out, seat_all

pytestmark = pytest.mark.django_db


def checks_down(legal, rng):
    actions = {entry["action"] for entry in legal}
    return ("check", None) if "check" in actions else ("call", None)


def test_a_bomb_pot_is_told_as_everyones_ante():
    table = table_create(small_blind=50, big_blind=100, bomb_pot_every=1, bomb_pot_ante_bb=2)
    users = seat_all(table, [person(name) for name in ("ada", "ben", "cleo")], 10_000)
    services.hand_deal(table_id=table.id)
    hand = play_out(table, random.Random(1), checks_down)
    assert hand.config["bomb_pot"] == 200

    posts = [
        frame["step"]
        for frame in hand_replay(hand=hand, viewer=0)["frames"]
        if frame["step"]["kind"] == "post"
    ]
    assert [(step["verb"], step["amount"]) for step in posts] == [("ante", 200)] * 3

    text = hand_pokerstars(hand=hand, viewer=0)
    assert "dead" not in text and "small blind" not in text
    for user in users:
        assert (
            f"{user.username}: posts the ante 2.00" in text or f"{user.username}: posts the ante 2" in text
        ), text
    assert story_check(story_from_hand(hand=hand)) == []
