"""Bomb pots as a table option (SPEC 1.1): every N hands an ante of X big blinds from every player dealt in,
no blinds, the hand starting on the flop; shown in the lobby's data and the table's state; raked like any
hand that sees a flop; staff set it in the admin, where a half-set option is refused."""

import pytest
from django.test import Client

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tables import services
from tables.models import Table
from tables.state import table_snapshot
from tests.factories import play_out, sit, table_create
from tests.factories import table_admin_form as _admin_form

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("every", "ante_bb", "error"),
    [
        ("5", "", "Set both how often a bomb pot is dealt and its ante, or neither."),
        ("", "2", "Set both how often a bomb pot is dealt and its ante, or neither."),
        ("5", "11", "Ensure this value is less than or equal to 10."),
        ("0", "2", "Ensure this value is greater than or equal to 1."),
        ("5", "2", None),
    ],
)
def test_staff_set_bomb_pots_in_the_admin_and_a_half_set_option_is_refused(
    admin_client, every, ante_bb, error
):
    response = admin_client.post(
        "/admin/tables/table/add/", _admin_form(bomb_pot_every=every, bomb_pot_ante_bb=ante_bb)
    )
    if error is None:
        assert response.status_code == 302
        table = Table.objects.get(name="New table")
        assert (table.bomb_pot_every, table.bomb_pot_ante_bb) == (5, 2)
    else:
        assert response.status_code == 200 and error in response.content.decode()
        assert not Table.objects.filter(name="New table").exists()


def test_every_second_hand_is_a_bomb_pot_that_starts_on_the_flop_and_is_raked(players):
    """At 10/20 every 2 hands, 2 big blinds: hand 2 has no blinds, each of three players posts 40, the board
    has its flop before anyone acts; checked down, the pots of 120 pay 120 // 18 = 6 chips of rake."""
    table = table_create(small_blind=10, big_blind=20, bomb_pot_every=2, bomb_pot_ante_bb=2)
    for number, user in enumerate(players[:3], start=1):
        sit(table, user, number, buy_in=2_000, post="now")
    lobby = {row["id"]: row for row in Client().get("/api/tables/").json()}
    assert lobby[table.id]["bomb_pot"] == {"every": 2, "ante_bb": 2, "ante": 40, "next_in": 2}

    first = services.hand_deal(table_id=table.id)
    assert first.config["bomb_pot"] == 0 and first.config["posts"], "hand 1: blinds as usual"
    table.refresh_from_db()
    assert table_snapshot(table=table, hand=None, state=None)["table"]["bomb_pot"]["next_in"] == 1
    play_out(table, players, first)

    bomb = services.hand_deal(table_id=table.id)
    assert bomb.config["bomb_pot"] == 40 and bomb.config["posts"] == []
    state = services.hand_engine(hand=bomb, table=table)
    table.refresh_from_db()
    snapshot = table_snapshot(table=table, hand=bomb, state=state)
    assert snapshot["hand"]["bomb_pot"] == 40 and snapshot["hand"]["street"] == "flop"
    assert len(snapshot["board"]) == 3, "the hand starts on the flop"
    assert [pot["amount"] for pot in snapshot["pots"]] == [120]
    assert all(row["bet"] == 0 for row in snapshot["seats"] if row["has_cards"])
    assert snapshot["table"]["bomb_pot"]["next_in"] == 2
    services.hand_engine_keep(bomb.id, state)
    bomb = play_out(table, players, bomb)
    assert bomb.result["rake"] == 6 and [pot["amount"] for pot in bomb.result["pots"]] == [120]
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{bomb.id}")
    assert (transfer.pot, transfer.pot_people) == (120, 120)
    assert transfer.entries.get(account__kind="rake").amount == 6

    third = services.hand_deal(table_id=table.id)
    assert third.config["bomb_pot"] == 0 and third.config["posts"], "then blinds again"
    assert ledger_check().ok


def test_no_straddle_in_a_bomb_pot(players):
    table = table_create(
        small_blind=10, big_blind=20, bomb_pot_every=1, bomb_pot_ante_bb=1, allow_straddle=True
    )
    for number, user in enumerate(players[:4], start=1):
        sit(table, user, number, buy_in=2_000, post="now")
        services.seat_options(table_id=table.id, user=user, auto_muck=None, straddle=True)
    hand = services.hand_deal(table_id=table.id)
    assert hand.config["posts"] == [] and hand.config["bomb_pot"] == 20
