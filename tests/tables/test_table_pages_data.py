"""The small JSON the table and lobby pages read besides the protocol: the buy-in box's bounds and wallet, who
sits at a table for the lobby's preview, and the lobby's order."""

import pytest
from django.test import Client

from cashier import services as cashier
from tables import services
from tables.models import Currency, Structure
from tests.factories import player_create, table_create

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_buy_in_box_gets_the_bounds_and_the_wallet():
    player = player_create()  # 10,000.00 play chips
    table = table_create(small_blind=100, big_blind=200)  # 60.00 to 200.00
    answer = client_for(player).get(f"/api/tables/{table.id}/money/")
    assert answer.status_code == 200
    assert answer.json() == {
        "min": 6_000,
        "max": 20_000,
        "table_min": 6_000,
        "wallet": 1_000_000,
        "stack": None,
        "top_up_max": None,
    }


def test_a_seated_player_gets_the_room_a_top_up_has_left():
    player = player_create()
    table = table_create(small_blind=100, big_blind=200)
    services.seat_take(table_id=table.id, user=player, seat_number=3, buy_in=8_000, post="wait_bb")
    offer = client_for(player).get(f"/api/tables/{table.id}/money/").json()
    assert offer["stack"] == 8_000 and offer["wallet"] == 992_000
    assert offer["top_up_max"] == 12_000, "up to the table maximum"


def test_a_player_back_within_30_minutes_is_shown_the_higher_minimum():
    player = player_create()
    table = table_create(small_blind=100, big_blind=200)
    services.seat_take(table_id=table.id, user=player, seat_number=1, buy_in=15_000, post="wait_bb")
    services.seat_leave(table_id=table.id, user=player)
    offer = client_for(player).get(f"/api/tables/{table.id}/money/").json()
    assert (offer["min"], offer["table_min"], offer["max"]) == (15_000, 6_000, 20_000)


def test_a_wallet_too_small_for_the_top_up_room_bounds_it():
    player = player_create()
    table = table_create(small_blind=100, big_blind=200)
    services.seat_take(table_id=table.id, user=player, seat_number=1, buy_in=6_000, post="wait_bb")
    other = table_create(small_blind=5_000, big_blind=10_000)
    cashier.seat_buy_in(user=player, table=other, seat_number=1, amount=990_000)  # leaves 4,000 in the wallet
    offer = client_for(player).get(f"/api/tables/{table.id}/money/").json()
    assert offer["wallet"] == 4_000 and offer["top_up_max"] == 4_000


def test_the_buy_in_box_data_is_refused_to_visitors_and_for_unknown_tables():
    table = table_create()
    refused = Client().get(f"/api/tables/{table.id}/money/")
    assert refused.status_code == 403 and refused.json()["error"] == "login_required"
    missing = client_for(player_create()).get(f"/api/tables/{table.id + 1000}/money/")
    assert missing.status_code == 404 and missing.json()["error"] == "no_table"


def test_the_lobby_preview_lists_who_sits_with_their_stacks():
    alice, bot = player_create(), player_create(bot=True)
    table = table_create(small_blind=100, big_blind=200)
    services.seat_take(table_id=table.id, user=alice, seat_number=2, buy_in=9_000, post="wait_bb")
    services.seat_take(table_id=table.id, user=bot, seat_number=5, buy_in=20_000, post="wait_bb")
    answer = Client().get(f"/api/tables/{table.id}/players/")
    assert answer.status_code == 200
    assert [(p["seat"], p["name"], p["bot"], p["stack"]) for p in answer.json()] == [
        (2, alice.username, False, 9_000),
        (5, bot.username, True, 20_000),
    ]
    missing = Client().get(f"/api/tables/{table.id + 1000}/players/")
    assert missing.status_code == 404 and missing.json()["error"] == "no_table"


def test_the_lobby_lists_tables_in_one_order_whatever_order_they_were_made_in():
    made = []
    for name, big_blind, structure, currency in [
        ("b", 200, Structure.NO_LIMIT, Currency.PLAY),
        ("z", 2, Structure.NO_LIMIT, Currency.PLAY),
        ("a", 200, Structure.FIXED_LIMIT, Currency.PLAY),
        ("c", 20, Structure.NO_LIMIT, Currency.EUR),
        ("m", 50, Structure.POT_LIMIT, Currency.PLAY),
    ]:
        table = table_create(small_blind=big_blind // 2, big_blind=big_blind, structure=structure)
        table.name, table.currency = name, currency
        table.save(update_fields=["name", "currency"])
        made.append(table)
    expected = sorted(made, key=lambda t: (t.currency, t.big_blind, t.structure, t.name))
    ours = {t.id for t in made}  # other tests' tables may be open too
    for _ in range(3):
        listed = [row["id"] for row in Client().get("/api/tables/").json() if row["id"] in ours]
        assert listed == [t.id for t in expected]
