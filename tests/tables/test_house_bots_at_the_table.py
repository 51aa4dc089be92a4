"""The house bots' play (tables.botplay) is what `services.bot_act` plays at a real table (issue 34): heads-up at
10 big blinds with aces, a bot moves all in, where the former loose policy limped or min-raised."""

import pytest

from tables import services
from tables.engine import fairness
from tables.engine.cards import FULL_DECK
from tables.models import Hand
from tests.factories import act, passive, player_create, sit, table_create, to_act_user

pytestmark = pytest.mark.django_db


def test_a_house_bot_with_aces_at_ten_big_blinds_moves_all_in(players, monkeypatch):
    """A person and a bot, 200 chips each at 10/20; the deck deals aces to both. The person checks or calls;
    the bot, first in or after the person's limp, moves all in (push-or-fold under 15 big blinds)."""
    aces = ["As", "Ad", "Ac", "Ah"]
    deck = aces + [card for card in FULL_DECK if card not in aces]
    monkeypatch.setattr(fairness, "shuffled_deck", lambda: list(deck))
    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2_000)
    person, bot = players[0], player_create(bot=True)
    seated = [person, bot]
    sit(table, person, 1, buy_in=200, post="now")
    sit(table, bot, 2, buy_in=200, post="now")
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    bot_moves = []
    while True:
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING or bot_moves:
            break
        user = to_act_user(table, seated)
        if user.is_bot:
            assert services.bot_act(hand_id=hand.id, action_no=hand.action_no)
            hand.refresh_from_db()
            bot_moves.append(hand.actions[-1]["action"])
        else:
            state = services.hand_engine(hand=hand, table=table)
            services.hand_engine_keep(hand.id, state)
            act(table, user, passive({item["action"] for item in state.legal_actions()}))
    assert bot_moves == ["all_in"]
