"""Omaha and Omaha Hi-Lo at the tables (SPEC 1.4): the room deals them (and only the structures SPEC 1 lists),
four hole cards reach their owner alone, house bots play them with legal amounts, and a Hi-Lo showdown tells
each pot's halves, their winners and the shown hands."""

import random

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tables import bots, presenters, services
from tables.models import Currency, Game, Structure, Table
from tables.selectors import seat_stacks
from tables.state import for_viewer, table_snapshot
from tests.engine.engine_helpers import stacked_deck
from tests.factories import (
    act,
    eur_fund,
    passive,
    play_out,
    player_create,
    sit,
    table_admin_form,
    table_create,
    to_act_user,
)

pytestmark = pytest.mark.django_db


def test_the_room_seeds_omaha_and_omaha_hi_lo_tables_with_house_bots_and_in_euros():
    call_command("seed_demo")
    dealt = {(t["game"], t["structure"], t["currency"]): t for t in Client().get("/api/tables/").json()}
    for game, structure in (("omaha", "pl"), ("omaha_hilo", "pl"), ("omaha_hilo", "fl")):
        assert (game, structure, "eur") in dealt, (game, structure)
        assert (game, structure, "play") in dealt, (game, structure)
        assert dealt[(game, structure, "play")]["bots"] == 2, "house bots wait at the practice tables"
    bomb = [t["bomb_pot"] for t in Client().get("/api/tables/").json() if t["bomb_pot"]]
    assert bomb == [{"every": 5, "ante_bb": 2, "ante": 200, "next_in": 5}], "a practice table deals bomb pots"


@pytest.mark.parametrize(
    ("game", "structure", "dealt"),
    [
        ("omaha", "nl", False),
        ("omaha", "fl", False),
        ("omaha_hilo", "nl", False),
        ("omaha", "pl", True),
        ("omaha_hilo", "pl", True),
        ("omaha_hilo", "fl", True),
        ("holdem", "fl", True),
    ],
)
def test_staff_cannot_create_a_game_and_structure_the_room_does_not_deal(
    admin_client, game, structure, dealt
):
    response = admin_client.post("/admin/tables/table/add/", table_admin_form(game=game, structure=structure))
    created = Table.objects.filter(name="New table").exists()
    assert created == dealt
    if not dealt:
        assert response.status_code == 200
        reason = {
            "omaha": "Omaha is played Pot-Limit only.",
            "omaha_hilo": "Omaha Hi-Lo 8 or better is played Pot-Limit, Fixed-Limit only.",
        }[game]
        assert reason in response.content.decode(), "refused with the reason"


def test_the_database_refuses_an_omaha_table_the_room_does_not_deal_whoever_writes_it():
    with pytest.raises(IntegrityError, match="table_game_structure_dealt"), transaction.atomic():
        table_create(game=Game.OMAHA, structure=Structure.NO_LIMIT)


def test_the_dealt_hand_shows_four_cards_to_their_owner_alone(players):
    table = table_create(game=Game.OMAHA, structure=Structure.POT_LIMIT)
    alice, bruno = players[:2]
    sit(table, alice, 1)
    sit(table, bruno, 2)
    hand = services.hand_deal(table_id=table.id)
    assert len(hand.hole_cards["0"]) == 4 and len(hand.hole_cards["1"]) == 4
    snapshot = table_snapshot(table=table, hand=hand, state=services.hand_engine(hand=hand, table=table))
    mine = for_viewer(snapshot, seat_number=1, hole_cards=hand.hole_cards["0"])
    assert mine["seats"][0]["cards"] == hand.hole_cards["0"] and mine["seats"][1]["cards"] is None
    assert mine["table"]["game"] == "omaha"
    watcher = repr(for_viewer(snapshot, seat_number=None, hole_cards=None))
    assert not any(f"'{card}'" in watcher for card in hand.hole_cards["0"] + hand.hole_cards["1"])


class _Roll(random.Random):
    """A random source that always rolls `value` (the bots' style of play, pinned)."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def random(self) -> float:
        return self.value


def test_a_house_bots_bet_is_a_whole_number_of_the_tables_chip():
    legal = [
        {"action": "fold", "min": 0, "max": 0},
        {"action": "check", "min": 0, "max": 0},
        {"action": "bet", "min": 10, "max": 100},
    ]
    assert bots.bot_choose(legal=legal, pot=35, stack=500, rng=_Roll(0.1), chip=5) == ("bet", 25)
    assert bots.bot_choose(legal=legal, pot=1_000, stack=500, rng=_Roll(0.1), chip=5) == ("bet", 100), (
        "pot limit"
    )


def test_house_bots_play_pot_limit_omaha_hands_with_legal_amounts(players, monkeypatch):
    """A person and two house bots at PLO 5/10 with a 5 chip: many hands, every bot decision legal (a refusal
    would raise), nothing created or lost."""
    # The bots' mixed choices from a fixed seed (bot_move reads `bots._play_rng` when it is called).
    # And the decks: the same hands on every run (the person, calling everything down, may go broke and then
    # buys back in: two bots alone are never dealt a hand).
    monkeypatch.setattr(bots, "_play_rng", random.Random(7))
    decks, shuffle = random.Random(12), services.fairness.shuffled_deck
    monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: shuffle(rng=decks))
    table = table_create(game=Game.OMAHA, structure=Structure.POT_LIMIT, small_blind=5, big_blind=10, chip=5)
    person = players[0]
    seated = [person, player_create(bot=True), player_create(bot=True)]
    for number, user in enumerate(seated, start=1):
        sit(table, user, number, buy_in=1_000, post="now")
    bets = 0
    for _ in range(12):
        if seat_stacks(table=table).get(1, 0) < table.big_blind:
            services.seat_top_up(table_id=table.id, user=person, amount=1_000)
            services.seat_sit_in(table_id=table.id, user=person, post="now")
        hand = services.hand_deal(table_id=table.id)
        assert hand is not None
        while True:
            hand.refresh_from_db()
            if hand.status != "running":
                break
            user = to_act_user(table, seated)
            if user.is_bot:
                assert services.bot_act(hand_id=hand.id, action_no=hand.action_no)
                hand.refresh_from_db()
                bets += hand.actions[-1]["action"] in ("bet", "raise")
            else:
                state = services.hand_engine(hand=hand, table=table)
                services.hand_engine_keep(hand.id, state)
                act(table, user, passive({item["action"] for item in state.legal_actions()}))
    assert bets >= 3, "the bots bet and raised, not only called"
    assert all(amount % 5 == 0 for amount in seat_stacks(table=table).values())
    assert ledger_check().ok


def test_a_hi_lo_pot_without_a_qualifying_low_goes_whole_to_the_high(players, monkeypatch):
    """Omaha Hi-Lo FL 100/200, heads-up, both call and check down on a board with no low (K K 9 T J): the high
    (three kings: exactly two hole cards, so the aces cannot fill it up) scoops the net pot; the halves say so
    (low 0, nobody)."""
    table = table_create(
        game=Game.OMAHA_HILO, structure=Structure.FIXED_LIMIT, small_blind=100, big_blind=200
    )
    deck = stacked_deck(order=[1, 0], holes={0: "AhAcKc2d", 1: "QhQs3c4d"}, board="KdKs9hTcJd", hole_count=4)
    monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: list(deck))
    alice, bruno = players[:2]
    sit(table, alice, 1, buy_in=10_000)
    sit(table, bruno, 2, buy_in=10_000)
    hand = services.hand_deal(table_id=table.id)
    hand = play_out(table, players, hand)
    summary = presenters.hand_summary(hand=hand)
    pot = summary["pots"][0]
    assert (pot["amount"], pot["rake"], pot["net"]) == (400, 22, 378)  # 400 // 18 = 22
    assert pot["high_winners"] == [1] and pot["low_winners"] == []
    assert (pot["high_amount"], pot["low_amount"]) == (378, 0) and pot["winners"] == {"1": 378}
    assert summary["hands"]["1"] == {
        "high": {"category": "trips", "cards": ["Ks", "Kd", "Kc", "Ah", "Jd"]},
        "low": None,
    }
    assert summary["hands"]["2"]["high"]["category"] == "two_pair"
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    assert (transfer.pot, transfer.pot_people) == (400, 400)
    assert ledger_check().ok


def test_a_eur_omaha_table_deals_and_settles_in_euros(players):
    table = table_create(
        game=Game.OMAHA, structure=Structure.POT_LIMIT, small_blind=25, big_blind=50, currency=Currency.EUR
    )
    people = [player_create(), player_create()]
    for number, user in enumerate(people, start=1):
        eur_fund(user, 10_000)
        sit(table, user, number, buy_in=5_000)
    hand = services.hand_deal(table_id=table.id)
    assert len(hand.hole_cards["0"]) == 4
    act(table, to_act_user(table, people), "fold")
    assert Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}").currency == "eur"
    assert ledger_check().ok
