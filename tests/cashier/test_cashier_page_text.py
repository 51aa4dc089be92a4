"""The cashier and account pages as a player reads them: each error once, each label on its own field, amounts
signed one way, dates without "a.m.." and in Italian style, a deposit called a deposit."""

import re
from datetime import datetime, timedelta
from html.parser import HTMLParser
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from accounts.models import SelfExclusion
from cashier import services
from tests.factories import CARD_OK, eur_fund, new_key

pytestmark = pytest.mark.django_db


class Ids(HTMLParser):
    """Every id on a page, and the `for` of every label."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.label_for: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "label" and "for" in attrs:
            self.label_for.append(attrs["for"])


@pytest.fixture
def logged_in(client, verified_player):
    client.force_login(verified_player)
    return client


def test_a_refused_deposit_says_why_once(logged_in, verified_player):
    services.deposit_limit_set(user=verified_player, period="day", amount=500)
    response = logged_in.post(
        "/cashier/deposit/", {"amount": "10", "card_number": CARD_OK, "idempotency_key": new_key()}
    )
    assert response.status_code == 400
    assert response.content.decode().count("would pass your day deposit limit") == 1


def test_a_bad_amount_says_why_once(logged_in):
    response = logged_in.post(
        "/cashier/withdraw/", {"amount": "lots", "card_number": CARD_OK, "idempotency_key": new_key()}
    )
    assert response.status_code == 400
    assert response.content.decode().count("as a number") == 1


def test_every_id_is_unique_and_each_label_focuses_its_own_field(logged_in):
    page = Ids()
    page.feed(logged_in.get("/cashier/").content.decode())
    duplicates = {i for i in page.ids if page.ids.count(i) > 1}
    assert not duplicates, duplicates
    assert {"deposit_amount", "deposit_card_number", "withdrawal_amount", "withdrawal_card_number"} <= set(
        page.ids
    )
    assert {"deposit_amount", "withdrawal_amount"} <= set(page.label_for)
    assert set(page.label_for) <= set(page.ids), "a label pointing at no field"


def test_the_statement_signs_money_in_and_out_the_same_way(logged_in, verified_player):
    eur_fund(verified_player, 5_000)
    services.withdrawal_request(
        user=verified_player, amount=4_050, card_number=CARD_OK, idempotency_key=new_key()
    )
    page = logged_in.get("/cashier/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    statement = page.split("Statement")[1]
    assert "+€\xa050.00" in statement and "-€\xa040.50" in statement
    assert "€\xa0-" not in page
    logged_in.cookies["django_language"] = "it"
    statement = logged_in.get("/cashier/").content.decode().split("Estratto conto")[1]
    assert "+€\xa050,00" in statement and "-€\xa040,50" in statement


def test_dates_read_naturally_in_english_and_italian(logged_in, verified_player):
    until = datetime(2030, 12, 10, 16, 5, tzinfo=ZoneInfo("Europe/Rome"))
    SelfExclusion.objects.create(
        user=verified_player,
        period=SelfExclusion.Period.DAYS_30,
        starts_at=timezone.now() - timedelta(days=1),
        ends_at=until,
    )
    english = logged_in.get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "until Tuesday 10 December 2030, 16:05." in english
    assert not re.search(r"[ap]\.m\.", english)
    logged_in.cookies["django_language"] = "it"
    italian = logged_in.get("/accounts/profile/").content.decode()
    assert "martedì 10 dicembre 2030, 16:05" in italian
    assert "Martedì" not in italian and "Dicembre" not in italian


def test_italian_calls_a_deposit_a_deposit(logged_in, verified_player):
    eur_fund(verified_player, 2_000)
    logged_in.cookies["django_language"] = "it"
    page = logged_in.get("/cashier/").content.decode()
    assert "<h2>Versamento</h2>" in page and "<h2>Prelievo</h2>" in page
    statement = page.split("Estratto conto")[1]
    assert "Versamento" in statement and "Deposita" not in statement
    assert ">Deposita</button>" in page, "the button says what it does"
