"""House bots at Omaha Hi-Lo 8 or better (SPEC 1.4), Pot-Limit and Fixed-Limit: as at the Pot-Limit Omaha
table (tests/tables/test_omaha_tables.py), many hands against a person, every bot bet and raise an amount
the engine offered it, in whole chips (Fixed-Limit: the fixed bet, nothing else), pots shared high and low,
nothing created or lost in the ledger."""

import random

import pytest

from cashier.selectors import ledger_check
from tables import bots, services
from tables.engine import fairness
from tables.models import Game, Hand, Structure
from tables.selectors import seat_stacks
from tests.factories import act, passive, player_create, sit, table_create, to_act_user

pytestmark = pytest.mark.django_db

HANDS = 14


@pytest.mark.parametrize("structure", [Structure.POT_LIMIT, Structure.FIXED_LIMIT])
def test_house_bots_play_omaha_hi_lo_hands_with_legal_amounts(players, monkeypatch, structure):
    """A person (checking and calling, buying back in when broke) and two house bots at Omaha Hi-Lo 5/10 with
    a 5 chip. Before each bot decision the engine's legal list is read; the bot's bet or raise must be within
    it and a whole number of chips; at Fixed-Limit every bet and raise is exactly the fixed bet over the bet
    faced (10 before the turn, 20 after). The decks and the bots' choices come from fixed seeds, so the same
    hands are played on every run."""
    # The bots' mixed choices from a fixed seed (bot_move reads `bots._play_rng` when it is called).
    monkeypatch.setattr(bots, "_play_rng", random.Random(7))
    decks, shuffle = random.Random(12), fairness.shuffled_deck
    monkeypatch.setattr(fairness, "shuffled_deck", lambda: shuffle(rng=decks))
    table = table_create(game=Game.OMAHA_HILO, structure=structure, small_blind=5, big_blind=10, chip=5)
    person = players[0]
    seated = [person, player_create(bot=True), player_create(bot=True)]
    for number, user in enumerate(seated, start=1):
        sit(table, user, number, buy_in=1_000, post="now")
    wagers: list[tuple[str, int, int, dict]] = []  # (street, the bet faced, the amount, the legal entry)
    low_paid = 0
    for _ in range(HANDS):
        if seat_stacks(table=table).get(1, 0) < table.big_blind:  # the person, calling everything down, lost
            services.seat_top_up(table_id=table.id, user=person, amount=1_000)  # and buys back in
            services.seat_sit_in(table_id=table.id, user=person, post="now")
        hand = services.hand_deal(table_id=table.id)
        assert hand is not None
        assert len(hand.hole_cards["0"]) == 4
        while True:
            hand.refresh_from_db()
            if hand.status != Hand.Status.RUNNING:
                break
            state = services.hand_engine(hand=hand, table=table)
            services.hand_engine_keep(hand.id, state)
            legal = {item["action"]: item for item in state.legal_actions()}
            facing = max(state.bets.values(), default=0)
            user = to_act_user(table, seated)
            if user.is_bot:
                assert services.bot_act(hand_id=hand.id, action_no=hand.action_no), "the bot acted"
                hand.refresh_from_db()
                last = hand.actions[-1]
                if last["action"] in ("bet", "raise"):
                    offered = legal[last["action"]]
                    wagers.append((state.street, facing, last["amount"], offered))
            else:
                act(table, user, passive(set(legal)))
        low_paid += sum(1 for pot in hand.result["pots"] if pot.get("low_amount"))
    assert len(wagers) >= 3, "the bots bet and raised, not only called"
    for street, facing, amount, offered in wagers:
        assert offered["min"] <= amount <= offered["max"], (street, amount, offered)
        assert amount % 5 == 0, f"{amount} is not a whole number of the table's 5 chip"
        if structure == Structure.FIXED_LIMIT:
            fixed = 10 if street in ("preflop", "flop") else 20
            assert amount - facing == fixed, f"Fixed-Limit on the {street}: {facing} raised to {amount}"
    assert low_paid >= 1, "some pot was shared with a qualifying low: the game played was Hi-Lo"
    assert all(amount % 5 == 0 for amount in seat_stacks(table=table).values())
    assert ledger_check().ok
