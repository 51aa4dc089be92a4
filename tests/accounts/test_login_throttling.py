"""Login throttling (issue 11, issue 32), with django-axes against PostgreSQL: repeated wrong passwords lock out
the account from the address they came from, and an address that fails on many accounts for every account,
for a while; the admin's login too; the page says what happened, in English and Italian; the account's owner
is told by email. Before issue 11: 40 wrong passwords, then the right one, logged in. Before issue 32: 5 wrong
passwords from any address locked the player out everywhere for 15 minutes, and nobody told them."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_after():
    """A request in Italian leaves Italian active in this thread: the tests after this one expect English."""
    from django.utils import translation

    yield
    translation.activate("en")


PASSWORD = "a-Long-pass-123"


def person(name: str, **extra):
    return get_user_model().objects.create_user(
        username=name, password=PASSWORD, email=f"{name}@example.com", **extra
    )


def log_in(client: Client, username: str, password: str, url: str = "/accounts/login/", **headers):
    return client.post(url, {"username": username, "password": password}, **headers)


def logged_in_as(client: Client) -> str | None:
    return (
        get_user_model()
        .objects.filter(pk=client.session.get("_auth_user_id"))
        .values_list("username", flat=True)
        .first()
    )


def test_forty_wrong_passwords_then_the_right_one_is_refused():
    person("alice")
    client = Client()
    for _ in range(40):
        log_in(client, "alice", "guess")
    response = log_in(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert logged_in_as(client) is None
    page = response.content.decode()
    assert "Too many failed logins" in page and "15 minutes" in page and "Reset it by email" in page


def test_a_stranger_cannot_lock_a_player_out_the_account_is_locked_from_the_strangers_address_only():
    person("bruno")
    person("carla")
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        log_in(attacker, "bruno", "guess")
    assert log_in(attacker, "bruno", PASSWORD).status_code == 429, "locked from the attacker's address"
    assert logged_in_as(attacker) is None
    elsewhere = Client(REMOTE_ADDR="198.51.100.20")
    assert log_in(elsewhere, "bruno", PASSWORD).status_code == 302 and logged_in_as(elsewhere) == "bruno", (
        "the player, from their own address, logs in"
    )
    carla = Client(REMOTE_ADDR="203.0.113.7")
    assert log_in(carla, "carla", PASSWORD).status_code == 302 and logged_in_as(carla) == "carla", (
        "a few failures on one account do not lock the address for others (a shared address, an office)"
    )


def test_an_address_guessing_many_accounts_is_locked_out_for_every_account(settings):
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT == 20
    person("dario")
    client = Client(REMOTE_ADDR="203.0.113.8")
    for n in range(19):
        log_in(client, f"nobody{n}", "guess")
    assert log_in(client, "dario", PASSWORD).status_code == 302, "19 failures: not yet"
    client.logout()
    log_in(client, "nobody19", "guess")
    assert log_in(client, "dario", PASSWORD).status_code == 429
    assert logged_in_as(client) is None
    other = Client(REMOTE_ADDR="198.51.100.8")
    assert log_in(other, "dario", PASSWORD).status_code == 302, "the account is not locked elsewhere"


def test_the_owner_is_told_by_email_once_a_lockout_window_in_their_language():
    person("enzo")
    client = Client(REMOTE_ADDR="203.0.113.32")
    for _ in range(4):
        log_in(client, "enzo", "guess")
    for n in range(20):
        log_in(client, f"nobody{n}", "guess")
    assert log_in(client, "enzo", PASSWORD).status_code == 429, "the address is locked"
    assert mail.outbox == [], "enzo's account had 4 failures only (and then his right password): no email"

    person("bruna", preferred_language="it")
    for address in ("203.0.113.30", "203.0.113.31"):
        attacker = Client(REMOTE_ADDR=address)
        for _ in range(8):
            log_in(attacker, "bruna", "guess")
    assert len(mail.outbox) == 1, [m.subject for m in mail.outbox]
    told = mail.outbox[0]
    assert told.to == ["bruna@example.com"] and "password sbagliate" in told.subject
    assert (
        "password sbagliata 5 volte" in told.body and "15 minuti" in told.body and "203.0.113.30" in told.body
    )


def test_a_few_mistakes_then_the_right_password_logs_in_and_starts_the_count_again():
    person("elena")
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(4):
        assert log_in(client, "elena", "guess").status_code == 200
    assert log_in(client, "elena", PASSWORD).status_code == 302 and logged_in_as(client) == "elena"
    client.logout()
    for _ in range(4):
        log_in(client, "elena", "guess")
    assert log_in(client, "elena", PASSWORD).status_code == 302, "a success reset the account's count"


def test_the_admin_login_is_throttled_too():
    person("boss", is_staff=True, is_superuser=True)
    client = Client(REMOTE_ADDR="203.0.113.10")
    for _ in range(40):
        log_in(client, "boss", "guess", url="/admin/login/")
    response = log_in(client, "boss", PASSWORD, url="/admin/login/")
    assert response.status_code == 429 and logged_in_as(client) is None
    assert client.get("/admin/").status_code == 302, "still the login page"


def test_the_lockout_page_speaks_italian():
    person("franca")
    client = Client(REMOTE_ADDR="203.0.113.11")
    client.cookies["django_language"] = "it"
    for _ in range(6):
        response = log_in(client, "franca", "guess")
    assert response.status_code == 429
    page = response.content.decode()
    assert "Troppi accessi falliti" in page and "15 minuti" in page


def test_behind_a_proxy_the_address_is_the_one_our_proxy_saw_and_cannot_be_forged(settings, rf):
    from pokerroom.addresses import client_ip

    request = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.50")
    assert client_ip(request) == "10.0.0.1", "no proxy configured: the header is not believed"
    settings.PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.50", "the entry our proxy appended, not what the client sent"
    assert client_ip(rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="junk")) == "10.0.0.1"


def test_a_hostile_username_is_refused_like_a_wrong_password():
    person("gina")
    client = Client(REMOTE_ADDR="203.0.113.12")
    for username in ("x" * 10_000, "gina\x00", "\x00" * 200):
        response = log_in(client, username, "guess")
        assert response.status_code == 200 and logged_in_as(client) is None, username[:10]
