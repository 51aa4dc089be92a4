"""Money at the tables: buy-in bounds, top-ups, cash-outs, the EUR session cap, the 30-minute rule, settling
hands, and staff's table form."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cashier import services
from cashier.errors import (
    BuyInOutOfBounds,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    NotSeated,
    SeatUnavailable,
    SessionCapExceeded,
    SettlementInvalid,
)
from cashier.models import Account, AccountKind, SeatSession, Transfer
from cashier.selectors import ledger_check, seat_buy_in_bounds, wallet_balances
from tables.models import Currency, Structure
from tests.factories import eur_fund, player_create
from tests.factories import eur_table_create as table_create

pytestmark = pytest.mark.django_db


def seat_balance(session) -> int:
    return Account.objects.get(pk=session.account_id).balance


def two_way(winner, loser, won: int, rake: int = 0) -> dict:
    """A heads-up hand's settlement: both put `won + rake` into the pot, `winner` took it net of the rake."""
    winner, loser = getattr(winner, "pk", winner), getattr(loser, "pk", loser)
    return {
        "deltas": {winner: won, loser: -(won + rake)},
        "put_in": {winner: won + rake, loser: won + rake},
        "rake": rake,
    }


def two_seated(table):
    """Two players with 100.00 in their wallets, each sat at `table` (seats 1 and 2) with 50.00."""
    a, b = player_create(), player_create()
    eur_fund(a, 10_000)
    eur_fund(b, 10_000)
    return (
        a,
        b,
        services.seat_buy_in(user=a, table=table, seat_number=1, amount=5_000),
        services.seat_buy_in(user=b, table=table, seat_number=2, amount=5_000),
    )


def test_buy_in_moves_wallet_to_a_new_seat_session(player, eur_table):
    eur_fund(player, 20_000)
    session = services.seat_buy_in(user=player, table=eur_table, seat_number=3, amount=5_000)
    assert session.seat_number == 3 and session.moved_in == 5_000
    assert seat_balance(session) == 5_000
    assert wallet_balances(user=player)["eur"] == 15_000
    assert session.account.kind == AccountKind.SEAT
    assert ledger_check().ok


@pytest.mark.parametrize(
    ("structure", "small_blind", "big_blind", "low", "high"),
    [
        (Structure.NO_LIMIT, 50, 100, 3_000, 10_000),
        (Structure.POT_LIMIT, 25, 50, 1_500, 5_000),
        (
            Structure.FIXED_LIMIT,
            100,
            200,
            6_000,
            20_000,
        ),  # 30-100 small bets, the small bet being the big blind
    ],
)
def test_buy_in_bounds_are_30_to_100_big_blinds(player, structure, small_blind, big_blind, low, high):
    table = table_create(structure=structure, small_blind=small_blind, big_blind=big_blind)
    eur_fund(player, 50_000)
    assert seat_buy_in_bounds(user=player, table=table) == (low, high)
    with pytest.raises(BuyInOutOfBounds, match="from"):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=low - 1)
    with pytest.raises(BuyInOutOfBounds):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=high + 1)
    assert wallet_balances(user=player)["eur"] == 50_000
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=high)
    assert wallet_balances(user=player)["eur"] == 50_000 - high


def test_a_table_may_set_its_own_bounds(player):
    table = table_create(min_buy_in=1_000, max_buy_in=2_000)
    eur_fund(player, 10_000)
    with pytest.raises(BuyInOutOfBounds):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=3_000)
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=1_000)


def test_eur_table_maximum_is_capped_at_1000(player):
    table = table_create(small_blind=1000, big_blind=2000)  # 100 big blinds would be 2,000.00
    eur_fund(player, 300_000)
    assert seat_buy_in_bounds(user=player, table=table)[1] == 100_000
    with pytest.raises(SessionCapExceeded, match="1,000.00"):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=100_001)
    services.seat_buy_in(user=player, table=table, seat_number=1, amount=100_000)


def test_buy_in_refusals_move_nothing(player, eur_table):
    eur_fund(player, 4_000)
    other = player_create()
    eur_fund(other, 10_000)
    services.seat_buy_in(user=other, table=eur_table, seat_number=2, amount=3_000)
    with pytest.raises(InsufficientFunds):
        services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=5_000)
    with pytest.raises(SeatUnavailable, match="taken"):
        services.seat_buy_in(user=player, table=eur_table, seat_number=2, amount=3_000)
    with pytest.raises(SeatUnavailable, match="no such seat"):
        services.seat_buy_in(user=player, table=eur_table, seat_number=7, amount=3_000)
    with pytest.raises(InvalidAmount):
        services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=-3_000)
    with pytest.raises(InvalidAmount):
        services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=3_000.0)
    services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=3_000)
    with pytest.raises(SeatUnavailable, match="already"):
        services.seat_buy_in(user=player, table=eur_table, seat_number=4, amount=1_000 + 3_000 - 1_000)
    assert wallet_balances(user=player)["eur"] == 1_000
    eur_table.is_open = False
    eur_table.save()
    with pytest.raises(SeatUnavailable, match="closed"):
        services.seat_buy_in(user=player_create(), table=eur_table, seat_number=5, amount=3_000)


def test_amounts_go_in_steps_of_the_tables_chip(player):
    table = table_create(chip=5, small_blind=5, big_blind=10)
    eur_fund(player, 1_000)
    with pytest.raises(InvalidAmount, match="steps"):
        services.seat_buy_in(user=player, table=table, seat_number=1, amount=501)


def test_house_bots_only_at_play_tables_that_allow_them(play_table, eur_table):
    bot = player_create(bot=True)
    with pytest.raises(SeatUnavailable):
        services.seat_buy_in(user=bot, table=eur_table, seat_number=1, amount=3_000)
    closed_to_bots = table_create(currency=Currency.PLAY)
    with pytest.raises(SeatUnavailable):
        services.seat_buy_in(user=bot, table=closed_to_bots, seat_number=1, amount=3_000)
    session = services.seat_buy_in(user=bot, table=play_table, seat_number=1, amount=3_000)
    assert Account.objects.get(user=bot, kind=AccountKind.BOT_PLAY).balance == 1_000_000 - 3_000
    assert session.currency == "play"


def test_a_top_up_never_goes_above_the_maximum(player, eur_table):
    eur_fund(player, 20_000)
    services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=6_000)
    with pytest.raises(BuyInOutOfBounds, match="at most"):
        services.seat_top_up(user=player, table=eur_table, amount=4_001)
    session = services.seat_top_up(user=player, table=eur_table, amount=4_000)
    assert seat_balance(session) == 10_000 and session.moved_in == 10_000
    assert wallet_balances(user=player)["eur"] == 10_000
    with pytest.raises(NotSeated):
        services.seat_top_up(user=player_create(), table=eur_table, amount=1_000)


def test_the_session_cap_counts_what_was_moved_in_and_losses_never_reduce_it(cap_table):
    alice, bob = player_create(), player_create()
    eur_fund(alice, 200_000)
    eur_fund(bob, 200_000)
    a = services.seat_buy_in(user=alice, table=cap_table, seat_number=1, amount=60_000)
    b = services.seat_buy_in(user=bob, table=cap_table, seat_number=2, amount=100_000)
    services.seat_top_up(user=alice, table=cap_table, amount=30_000)
    # alice loses 50,000 to bob: her stack is 40,000 but 90,000 was moved in this session
    services.hand_settle(table=cap_table, hand_ref="h1", **two_way(b, a, 50_000))
    assert seat_balance(a) == 40_000
    with pytest.raises(SessionCapExceeded, match="at most .*100.00"):
        services.seat_top_up(user=alice, table=cap_table, amount=10_100)
    assert wallet_balances(user=alice)["eur"] == 110_000
    session = services.seat_top_up(user=alice, table=cap_table, amount=10_000)
    assert session.moved_in == 100_000 and seat_balance(a) == 50_000
    with pytest.raises(SessionCapExceeded):
        services.seat_top_up(user=alice, table=cap_table, amount=100)
    # a new session (after leaving, more than 30 minutes later) starts a new cap
    services.seat_cash_out(user=alice, table=cap_table)
    SeatSession.objects.filter(pk=a.pk).update(closed_at=timezone.now() - timedelta(minutes=31))
    services.seat_buy_in(user=alice, table=cap_table, seat_number=1, amount=100_000)
    assert ledger_check().ok


def test_back_within_30_minutes_the_player_brings_at_least_the_stack_left_with(eur_table):
    alice, bob = player_create(), player_create()
    eur_fund(alice, 50_000)
    eur_fund(bob, 50_000)
    a = services.seat_buy_in(user=alice, table=eur_table, seat_number=1, amount=5_000)
    b = services.seat_buy_in(user=bob, table=eur_table, seat_number=2, amount=5_000)
    services.hand_settle(table=eur_table, hand_ref="h1", **two_way(a, b, 3_000, rake=50))
    left = services.seat_cash_out(user=alice, table=eur_table)
    assert left.left_with == 8_000 and left.closed_at is not None
    assert wallet_balances(user=alice)["eur"] == 53_000
    assert seat_buy_in_bounds(user=alice, table=eur_table) == (8_000, 10_000)
    with pytest.raises(BuyInOutOfBounds, match="less than 30 minutes ago with .*80.00"):
        services.seat_buy_in(user=alice, table=eur_table, seat_number=1, amount=5_000)
    assert wallet_balances(user=alice)["eur"] == 53_000
    # at another table the rule does not apply
    elsewhere = table_create()
    services.seat_buy_in(user=alice, table=elsewhere, seat_number=1, amount=3_000)
    # 31 minutes later it no longer applies here either
    SeatSession.objects.filter(pk=a.pk).update(closed_at=timezone.now() - timedelta(minutes=31))
    services.seat_buy_in(user=alice, table=eur_table, seat_number=1, amount=3_000)


def test_back_within_30_minutes_with_more_than_the_maximum_brings_the_maximum(eur_table):
    alice, bob = player_create(), player_create()
    eur_fund(alice, 50_000)
    eur_fund(bob, 50_000)
    a = services.seat_buy_in(user=alice, table=eur_table, seat_number=1, amount=10_000)
    b = services.seat_buy_in(user=bob, table=eur_table, seat_number=2, amount=10_000)
    services.hand_settle(table=eur_table, hand_ref="h1", **two_way(a, b, 9_900, rake=100))
    services.seat_cash_out(user=alice, table=eur_table)
    assert seat_buy_in_bounds(user=alice, table=eur_table) == (10_000, 10_000)
    services.seat_buy_in(user=alice, table=eur_table, seat_number=1, amount=10_000)


def test_cash_out_returns_the_whole_stack_and_ends_the_session(player, eur_table):
    eur_fund(player, 10_000)
    services.seat_buy_in(user=player, table=eur_table, seat_number=1, amount=4_000)
    session = services.seat_cash_out(user=player, table=eur_table)
    assert wallet_balances(user=player)["eur"] == 10_000
    assert seat_balance(session) == 0
    with pytest.raises(NotSeated):
        services.seat_cash_out(user=player, table=eur_table)


def test_hand_settle_is_one_balanced_transfer_and_idempotent(eur_table):
    players = [player_create() for _ in range(3)]
    sessions = []
    for n, p in enumerate(players, start=1):
        eur_fund(p, 10_000)
        sessions.append(services.seat_buy_in(user=p, table=eur_table, seat_number=n, amount=10_000))
    deltas = {sessions[0].pk: 1_950, sessions[1]: -1_000, sessions[2].pk: -1_000}
    put_in = {sessions[0]: 1_000, sessions[1].pk: 1_000, sessions[2].pk: 1_000}
    transfer = services.hand_settle(
        table=eur_table, hand_ref="hand-42", deltas=deltas, put_in=put_in, rake=50
    )
    assert transfer.kind == "hand" and transfer.hand_ref == "hand-42"
    assert sum(transfer.entries.values_list("amount", flat=True)) == 0
    transfer.refresh_from_db()
    assert (transfer.pot, transfer.pot_people) == (3_000, 3_000), "what was put into the pots, all by people"
    again = services.hand_settle(table=eur_table, hand_ref="hand-42", deltas=deltas, put_in=put_in, rake=50)
    assert again.pk == transfer.pk and again.replayed
    assert [seat_balance(s) for s in sessions] == [11_950, 9_000, 9_000]
    rake = Account.objects.get(kind=AccountKind.RAKE, ref=f"table:{eur_table.pk}")
    assert rake.balance == 50
    with pytest.raises(IdempotencyConflict):
        services.hand_settle(table=eur_table, hand_ref="hand-42", **two_way(sessions[0], sessions[1], 100))
    with pytest.raises(IdempotencyConflict):  # the same results, but another pot
        services.hand_settle(
            table=eur_table, hand_ref="hand-42", deltas=deltas, put_in={**put_in, sessions[0]: 1_100}, rake=50
        )
    assert ledger_check().ok


@pytest.mark.parametrize(
    "bad",
    [
        {"deltas": "unbalanced", "rake": 0},
        {"deltas": "too_much", "rake": 0},
        {"deltas": "ok", "rake": -10},
        {"deltas": "float", "rake": 0},
        {"deltas": "ok", "rake": 0, "hand_ref": ""},
        {"deltas": "ok", "rake": 0, "put_in": "a_seat_missing"},
        {"deltas": "ok", "rake": 0, "put_in": "negative"},
        {"deltas": "ok", "rake": 0, "put_in": "less_than_lost"},
    ],
)
def test_bad_settlements_move_nothing(eur_table, bad):
    a, b, sa, sb = two_seated(eur_table)
    deltas = {
        "unbalanced": {sa.pk: 100, sb.pk: -90},
        "too_much": {sa.pk: 6_000, sb.pk: -6_000},
        "ok": {sa.pk: 100, sb.pk: -100},
        "float": {sa.pk: 100.0, sb.pk: -100.0},
    }[bad["deltas"]]
    put_in = {
        "enough": {sa.pk: 6_000, sb.pk: 6_000},
        "a_seat_missing": {sa.pk: 100},
        "negative": {sa.pk: -100, sb.pk: 100},
        "less_than_lost": {sa.pk: 100, sb.pk: 50},
    }[bad.get("put_in", "enough")]
    with pytest.raises((SettlementInvalid, InvalidAmount)):
        services.hand_settle(
            table=eur_table, hand_ref=bad.get("hand_ref", "h"), deltas=deltas, put_in=put_in, rake=bad["rake"]
        )
    assert (seat_balance(sa), seat_balance(sb)) == (5_000, 5_000)
    assert not Transfer.objects.filter(kind="hand").exists()


def test_settlement_refuses_a_seat_of_another_table(eur_table):
    other_table = table_create()
    a, b = player_create(), player_create()
    eur_fund(a, 10_000)
    eur_fund(b, 10_000)
    sa = services.seat_buy_in(user=a, table=eur_table, seat_number=1, amount=5_000)
    sb = services.seat_buy_in(user=b, table=other_table, seat_number=1, amount=5_000)
    with pytest.raises(SettlementInvalid, match="not open at this table"):
        services.hand_settle(table=eur_table, hand_ref="x", **two_way(sa, sb, 100))


def test_staff_cannot_create_a_eur_table_whose_minimum_is_over_1000(admin_client):
    from tables.models import Table

    form = {
        "name": "Too rich",
        "game": "holdem",
        "structure": "nl",
        "currency": "eur",
        "chip": "0.01",
        "small_blind": "10.00",
        "big_blind": "20.00",
        "min_buy_in": "1000.01",
        "max_buy_in": "2000.00",
        "seats": 6,
        "action_seconds": 20,
        "time_bank_seconds": 30,
        "is_open": "on",
        "seat_set-TOTAL_FORMS": 0,
        "seat_set-INITIAL_FORMS": 0,
        "seat_set-MIN_NUM_FORMS": 0,
        "seat_set-MAX_NUM_FORMS": 1000,
    }
    response = admin_client.post("/admin/tables/table/add/", form)
    assert response.status_code == 200
    assert "cannot exceed EUR 1,000" in response.content.decode()
    assert not Table.objects.filter(name="Too rich").exists()
    form["min_buy_in"] = "1000.00"  # amounts are typed in units (docs/staff.md)
    response = admin_client.post("/admin/tables/table/add/", form)
    assert response.status_code == 302
    assert Table.objects.get(name="Too rich").effective_max_buy_in == 100_000


def test_a_hand_settled_again_after_its_seats_closed_gets_the_first_answer(eur_table):
    a, b, sa, sb = two_seated(eur_table)
    first = services.hand_settle(table=eur_table, hand_ref="h9", **two_way(sa, sb, 5_000))
    services.seat_cash_out(user=a, table=eur_table)
    services.seat_cash_out(user=b, table=eur_table)
    again = services.hand_settle(table=eur_table, hand_ref="h9", **two_way(sa, sb, 5_000))
    assert again.pk == first.pk and again.replayed
    assert wallet_balances(user=a)["eur"] == 15_000 and wallet_balances(user=b)["eur"] == 5_000
    with pytest.raises(IdempotencyConflict):
        services.hand_settle(table=eur_table, hand_ref="h9", **two_way(sa, sb, 100))
    assert ledger_check().ok


def test_the_rake_lands_in_the_tables_rake_account_whatever_the_process_remembers(eur_table):
    a, b, sa, sb = two_seated(eur_table)
    services._rake_account_ids[eur_table.pk] = sa.account_id  # wrong: a seat's account
    services.hand_settle(table=eur_table, hand_ref="h1", **two_way(sa, sb, 100, rake=50))
    services._rake_account_ids[eur_table.pk] = 10**9  # gone
    services.hand_settle(table=eur_table, hand_ref="h2", **two_way(sa, sb, 100, rake=50))
    rake = Account.objects.get(kind=AccountKind.RAKE, ref=f"table:{eur_table.pk}")
    assert rake.balance == 100
    assert (seat_balance(sa), seat_balance(sb)) == (5_200, 4_700)
    assert ledger_check().ok
