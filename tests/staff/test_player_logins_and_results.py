"""The player page (issue 36): each login with its address and time (the client's address, believing
X-Forwarded-For only behind PROXY_COUNT proxies) and the cash results by game, from the ledger."""

import pytest
from django.test import Client

from cashier.models import SeatSession
from staff.models import Login
from tables import services
from tests.factories import hand_played, player_create, table_create
from tests.factories import sit_now as sit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_after():
    from django.utils import translation

    yield
    translation.activate("en")


def test_each_login_is_on_the_player_page_with_its_address_and_time(boss, settings):
    anna = player_create()
    settings.PROXY_COUNT = 1
    browser = Client(HTTP_USER_AGENT="Firefox/133.0 (test)")
    response = browser.post(
        "/accounts/login/",
        {"username": anna.username, "password": "pw-Secret-123"},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="198.51.100.7, 203.0.113.50",
    )
    assert response.status_code == 302, "logged in"
    settings.PROXY_COUNT = 0
    Client().post(
        "/accounts/login/",
        {"username": anna.username, "password": "pw-Secret-123"},
        REMOTE_ADDR="192.0.2.9",
        HTTP_X_FORWARDED_FOR="198.51.100.7",
    )
    Client().post(
        "/accounts/login/", {"username": anna.username, "password": "wrong"}, REMOTE_ADDR="192.0.2.99"
    )

    assert list(Login.objects.filter(user=anna).values_list("address", flat=True)) == [
        "192.0.2.9",  # no proxy: the header is not believed
        "203.0.113.50",  # the entry our proxy appended, not what the client sent
    ], "a wrong password is no login"
    page = boss.get(f"/admin/staff/player/{anna.pk}/change/").content.decode()
    assert 'id="player-logins"' in page and "203.0.113.50" in page and "Firefox/133.0" in page
    assert "192.0.2.99" not in page


def test_the_player_page_shows_cash_results_by_game(boss):
    anna, bruno = player_create(), player_create()
    table = table_create(small_blind=50, big_blind=100)
    sit(table, anna, 1, 5_000)
    sit(table, bruno, 2, 5_000)
    hand_played(table, [anna, bruno])
    for user in (anna, bruno):
        services.seat_leave(table_id=table.id, user=user)
    session = SeatSession.objects.get(user=anna, table=table)
    net = session.left_with - session.moved_in
    assert net != 0

    page = boss.get(f"/admin/staff/player/{anna.pk}/change/").content.decode()

    section = page[page.find('id="player-results"') :][:1500]
    assert "Texas Hold&#x27;em No-Limit" in section or "Texas Hold'em No-Limit" in section
    sign = "+" if net > 0 else "-"
    assert f"{sign}{abs(net) // 100}.{abs(net) % 100:02d} chips" in section, section
