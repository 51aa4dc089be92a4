"""The admin's front page: players at tables, tables dealing, hands in the last hour, rake today and this month
by currency, withdrawals and flagged deposits waiting, with links; the rake per day and table as CSV."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from cashier import services as cashier
from staff.selectors import dashboard_figures
from tables import services
from tests.factories import (
    CARD_OK,
    eur_fund,
    hand_played,
    new_key,
    player_create,
    staff_with_perms,
    table_create,
)
from tests.factories import player_create as table_player_create
from tests.factories import sit_now as sit

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(settings):
    """Two hands to a showdown (one at a play table, one at a EUR table), a third being dealt, a house bot
    seated, a withdrawal waiting and a large deposit flagged."""
    settings.DEPOSIT_REVIEW_FROM = 100_000
    anna, bruno = player_create(verified=True), player_create(verified=True)
    for player in (anna, bruno):
        eur_fund(player, 20_000)
    play = table_create(small_blind=50, big_blind=100)
    eur = table_create(small_blind=50, big_blind=100)
    type(eur).objects.filter(pk=eur.pk).update(currency="eur", bots_allowed=False)
    eur.refresh_from_db()
    for table in (play, eur):
        sit(table, anna, 1, 5_000)
        sit(table, bruno, 2, 5_000)
    bot_table = table_create(small_blind=50, big_blind=100)
    sit(bot_table, table_player_create(bot=True), 1, 5_000)
    hands = [hand_played(play, [anna, bruno]), hand_played(eur, [anna, bruno])]
    services.hand_deal(table_id=play.id)
    cashier.withdrawal_request(user=anna, amount=1_000, card_number=CARD_OK, idempotency_key=new_key())
    eur_fund(bruno, 150_000)
    return {"play": play, "eur": eur, "hands": hands}


def test_the_front_page_shows_the_room_now_with_links(boss, room):
    rakes = [hand.result["rake"] for hand in room["hands"]]
    assert rakes == [11, 11], "a 2.00 pot at a 0.01 chip: 0.01 per whole 0.18"

    page = boss.get("/admin/").content.decode()

    figures = dashboard_figures()
    assert (figures.players_seated, figures.tables_dealing, figures.hands_last_hour) == (2, 2, 2), (
        "both tables dealt in the last 5 minutes, one of them dealing now"
    )
    assert figures.rake_today == {"play": 11, "eur": 11} == figures.rake_month
    assert (figures.withdrawals_pending, figures.deposits_flagged) == (1, 1)
    assert "0.11 chips" in page and "€\xa00.11" in page
    assert "/admin/cashier/withdrawal/?status__exact=pending" in page
    assert "/admin/staff/depositflag/?reviewed=no" in page
    assert "/admin/tables/hand/?status__exact=running" in page
    assert "/admin/rake.csv" in page
    tomorrow = dashboard_figures(now=timezone.now() + timedelta(days=1))
    assert tomorrow.rake_today == {} and tomorrow.hands_last_hour == 0


def test_the_rake_per_day_and_table_as_csv(boss, room):
    today = timezone.localdate()
    response = boss.get("/admin/rake.csv", {"since": str(today - timedelta(days=3)), "until": str(today)})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted((row["table"], row["currency"], row["rake"], row["rake_cents"]) for row in rows) == sorted(
        [(room["play"].name, "play", "0.11", "11"), (room["eur"].name, "eur", "0.11", "11")]
    )
    assert {row["day"] for row in rows} == {today.isoformat()}
    assert (
        boss.get("/admin/rake.csv", {"until": str(today - timedelta(days=1))}).content.decode().count("\n")
        == 1
    )


@pytest.mark.parametrize(
    "params",
    [
        {"since": "yesterday"},
        {"since": "2026-02-30"},
        {"since": "2026-05-02", "until": "2026-05-01"},
        {"since": "2020-01-01", "until": "2026-01-01"},
    ],
)
def test_a_bad_period_gets_a_clear_error(boss, params):
    response = boss.get("/admin/rake.csv", params)
    assert response.status_code == 400 and response.content


def test_only_staff_allowed_to_see_the_ledger_get_the_csv(client):
    viewer, _user = staff_with_perms("viewer", "tables.view_table")
    assert viewer.get("/admin/rake.csv").status_code == 403
    assert client.get("/admin/rake.csv").status_code == 302, "anonymous: to the login page"


def test_money_in_play_and_today_and_tables_dealing_in_the_last_minutes(boss, room):
    from cashier.models import SeatSession, Withdrawal
    from tests.factories import tournament_create
    from tournaments.services import tournament_register

    anna = room["hands"][0].players["0"]["user"]
    withdrawal = Withdrawal.objects.get(user_id=anna)
    cashier.withdrawal_approve(withdrawal=withdrawal, staff_user=boss.staff)
    tournament = tournament_create(kind="mtt", buy_in=1_000, fee=100)
    tournament_register(tournament_id=tournament.id, user=type(boss.staff).objects.get(pk=anna))

    figures = dashboard_figures()

    seats: dict[str, int] = {}
    for session in SeatSession.objects.filter(closed_at__isnull=True).select_related("account"):
        seats[session.account.currency] = seats.get(session.account.currency, 0) + session.account.balance
    assert figures.money_at_tables == seats and seats["eur"] == 10_000 - 11, "the EUR table's stacks"
    assert figures.prize_pools == {"eur": 1_000}
    assert figures.deposits_today == {"eur": 20_000 * 2 + 150_000}
    assert figures.withdrawals_today == {"eur": 1_000}
    assert figures.fees_today == {"eur": 100} == figures.fees_month
    page = boss.get("/admin/").content.decode()
    for figure in (
        "figure-at-tables",
        "figure-prize-pools",
        "figure-deposits-today",
        "figure-withdrawals-today",
    ):
        assert f'id="{figure}"' in page
    assert "€\xa01,900.00" in page and "deposited today" in page
    assert "tables dealing in the last 5 minutes" in page

    later = dashboard_figures(now=timezone.now() + timedelta(minutes=10))
    assert later.tables_dealing == 1, "only the table with a hand running still counts"
