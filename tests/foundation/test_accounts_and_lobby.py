"""A new visitor signs up and logs in through the real forms and finds the seeded tables in the lobby."""

import re

import pytest
from django.core.management import call_command
from django.test import Client

from tables.models import Table

pytestmark = pytest.mark.django_db


def csrf_token(client: Client, url: str) -> str:
    page = client.get(url)
    assert page.status_code == 200
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert match, "the form carries a CSRF token"
    return match.group(1)


def test_sign_up_log_out_and_log_in_through_the_forms():
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client, "/accounts/signup/")
    response = client.post(
        "/accounts/signup/",
        {
            "username": "giulia",
            "email": "giulia@example.com",
            "password1": "a-Long-pass-123",
            "password2": "a-Long-pass-123",
            "date_of_birth": "1990-04-01",
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 200 and "Check your email" in response.content.decode()
    assert "Log out (giulia)" not in client.get("/").content.decode(), (
        "logged in with the password, not before"
    )

    token = csrf_token(client, "/accounts/login/")
    response = client.post(
        "/accounts/login/",
        {"username": "giulia", "password": "a-Long-pass-123", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert "Log out (giulia)" in client.get("/").content.decode()


def test_sign_up_refuses_a_bad_form_and_creates_nobody():
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client, "/accounts/signup/")
    response = client.post(
        "/accounts/signup/",
        {
            "username": "marco",
            "email": "not-an-email",
            "password1": "short",
            "password2": "other",
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "errorlist" in body
    from accounts.models import User

    assert not User.objects.filter(username="marco").exists()


def test_a_post_without_csrf_token_is_refused():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403


def test_the_lobby_and_the_api_list_the_seeded_tables():
    call_command("seed_demo")
    tables = list(Table.objects.all())
    assert {t.currency for t in tables} == {"play", "eur"}
    assert {t.structure for t in tables} == {"nl", "pl", "fl"}
    assert len({t.big_blind for t in tables}) >= 4

    page = Client().get("/").content.decode()
    for table in tables:
        assert table.name in page

    api = Client().get("/api/tables/")
    assert api.status_code == 200 and api["Content-Type"] == "application/json"
    listed = {row["id"]: row for row in api.json()}
    assert set(listed) == {t.id for t in tables}
    for table in tables:
        row = listed[table.id]
        assert row["name"] == table.name
        assert (row["game"], row["structure"], row["currency"]) == (
            table.game,
            table.structure,
            table.currency,
        )
        assert (row["small_blind"], row["big_blind"], row["chip"]) == (
            table.small_blind,
            table.big_blind,
            table.chip,
        )
        assert row["min_buy_in"] == 30 * table.big_blind and row["max_buy_in"] == 100 * table.big_blind
        bots = min(2, table.seats - 1) if table.bots_allowed else 0
        assert row["seats"] == table.seats and row["players"] == bots and row["bots"] == bots
        assert all(isinstance(row[k], int) for k in ("small_blind", "big_blind", "min_buy_in", "max_buy_in"))


def test_seed_demo_twice_creates_nothing_new():
    call_command("seed_demo")
    count = Table.objects.count()
    call_command("seed_demo")
    assert Table.objects.count() == count


def test_the_lobby_speaks_italian():
    call_command("seed_demo")
    page = Client(headers={"accept-language": "it"}).get("/").content.decode()
    assert 'lang="it"' in page
    assert "Tavoli cash" in page
