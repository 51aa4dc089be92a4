"""Two-factor sign-in for players (issue 32): turned on from My account with a code from the app, asked for
after the password (the session is not logged in until the code is right, at the tables' WebSockets neither),
wrong codes counted and then refused for a while, recovery codes that work once. Before: no such page, and
the password alone logged in."""

import re

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.admin_client import totp_code, two_factor_device
from tests.factories import player_create

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Secret-123"  # tests.factories.player_create's


def logged_in_as(client: Client) -> str | None:
    return (
        get_user_model()
        .objects.filter(pk=client.session.get("_auth_user_id"))
        .values_list("username", flat=True)
        .first()
    )


def password_step(client: Client, user):
    return client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})


def with_two_factor(user) -> list[str]:
    """Two-factor turned on as the player does it, on their page; the recovery codes it showed."""
    client = Client()
    client.force_login(user)
    client.get("/accounts/two-factor/")
    device = TOTPDevice.objects.get(user=user, confirmed=False)
    page = client.post("/accounts/two-factor/", {"action": "enable", "code": totp_code(device)})
    assert page.status_code == 200
    return re.findall(r"<li><code>([a-z2-7]{4}-[a-z2-7]{4})</code></li>", page.content.decode())


def test_turning_it_on_needs_the_code_the_app_shows():
    player = player_create()
    client = Client()
    client.force_login(player)
    page = client.get("/accounts/two-factor/").content.decode()
    assert "Two-factor sign-in is off" in page and "<svg" in page
    device = TOTPDevice.objects.get(user=player, confirmed=False)
    secret = re.search(r'<code id="two-factor-secret">([A-Z2-7 ]+)</code>', page).group(1)
    assert "otpauth://totp/Poker%20room%3A" in page and secret.replace(" ", "") in page

    wrong = client.post("/accounts/two-factor/", {"action": "enable", "code": "000000"})
    assert wrong.status_code == 400 and "That code is not right" in wrong.content.decode()
    assert not TOTPDevice.objects.filter(user=player, confirmed=True).exists()
    assert "Two-factor sign-in: off." in client.get("/accounts/profile/").content.decode()

    right = client.post("/accounts/two-factor/", {"action": "enable", "code": totp_code(device)})
    codes = re.findall(r"<li><code>([a-z2-7]{4}-[a-z2-7]{4})</code></li>", right.content.decode())
    assert right.status_code == 200 and len(set(codes)) == 10
    assert "Two-factor sign-in: on." in client.get("/accounts/profile/").content.decode()
    assert "recovery-codes" not in client.get("/accounts/two-factor/").content.decode(), "shown once"


@pytest.mark.django_db(transaction=True)  # Channels reads the session from another thread
def test_the_password_alone_does_not_log_in_and_a_wrong_code_neither():
    from channels.auth import get_user
    from django.contrib.sessions.backends.db import SessionStore

    player = player_create()
    with_two_factor(player)
    client = Client()
    answer = password_step(client, player)
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/code/"
    assert logged_in_as(client) is None
    assert client.get("/accounts/profile/").status_code == 302, "My account still asks to log in"
    at_tables = async_to_sync(get_user)({"session": SessionStore(client.session.session_key)})
    assert at_tables.is_anonymous, "the tables' WebSockets see nobody either"
    assert "authenticator app shows now" in client.get("/accounts/login/code/").content.decode()

    wrong = client.post("/accounts/login/code/", {"code": "123456"})
    assert wrong.status_code == 200 and "That code is not right" in wrong.content.decode()
    assert logged_in_as(client) is None
    right = client.post("/accounts/login/code/", {"code": totp_code(two_factor_device(player))})
    assert right.status_code == 302 and logged_in_as(client) == player.username
    assert async_to_sync(get_user)({"session": SessionStore(client.session.session_key)}).pk == player.pk


def test_five_wrong_codes_then_even_the_right_one_waits():
    player = player_create()
    with_two_factor(player)
    client = Client()
    password_step(client, player)
    for _ in range(4):
        assert client.post("/accounts/login/code/", {"code": "111111"}).status_code == 200
    fifth = client.post("/accounts/login/code/", {"code": "111111"})
    assert fifth.status_code == 429 and "Too many wrong codes: wait 15 minutes" in fifth.content.decode()
    locked = client.post("/accounts/login/code/", {"code": totp_code(two_factor_device(player))})
    assert locked.status_code == 429 and logged_in_as(client) is None


def test_a_few_wrong_codes_then_the_right_one_logs_in():
    player = player_create()
    with_two_factor(player)
    client = Client()
    password_step(client, player)
    for typed in ("12345", "abcdef", "9" * 41, "１２３４５６"):
        assert client.post("/accounts/login/code/", {"code": typed}).status_code == 200
    assert (
        client.post("/accounts/login/code/", {"code": totp_code(two_factor_device(player))}).status_code
        == 302
    )
    assert logged_in_as(client) == player.username


def test_a_recovery_code_logs_in_once():
    player = player_create()
    codes = with_two_factor(player)
    first = Client()
    password_step(first, player)
    answer = first.post("/accounts/login/code/", {"code": codes[0].upper().replace("-", " ")}, follow=True)
    assert logged_in_as(first) == player.username
    assert "You used a recovery code: 9 left" in answer.content.decode()
    again = Client()
    password_step(again, player)
    refused = again.post("/accounts/login/code/", {"code": codes[0]})
    assert "That code is not right" in refused.content.decode() and logged_in_as(again) is None
    assert again.post("/accounts/login/code/", {"code": codes[1]}).status_code == 302


def test_turning_it_off_needs_a_code_then_the_password_is_enough():
    player = player_create()
    codes = with_two_factor(player)
    client = Client()
    client.force_login(player)
    wrong = client.post("/accounts/two-factor/", {"action": "disable", "code": "000000"})
    assert wrong.status_code == 400 and TOTPDevice.objects.filter(user=player).exists()
    assert client.post("/accounts/two-factor/", {"action": "disable", "code": codes[3]}).status_code == 302
    assert not TOTPDevice.objects.filter(user=player).exists()
    fresh = Client()
    assert password_step(fresh, player)["Location"] == "/", "logged in at once, to the lobby"
    assert logged_in_as(fresh) == player.username


def test_new_recovery_codes_replace_the_old_ones():
    player = player_create()
    old = with_two_factor(player)
    client = Client()
    client.force_login(player)
    page = client.post(
        "/accounts/two-factor/", {"action": "regenerate", "code": totp_code(two_factor_device(player))}
    )
    new = re.findall(r"<li><code>([a-z2-7]{4}-[a-z2-7]{4})</code></li>", page.content.decode())
    assert len(new) == 10 and not set(new) & set(old)
    other = Client()
    password_step(other, player)
    assert other.post("/accounts/login/code/", {"code": old[0]}).status_code == 200
    assert other.post("/accounts/login/code/", {"code": new[0]}).status_code == 302


def test_the_code_step_speaks_italian():
    player = player_create()
    with_two_factor(player)
    client = Client()
    client.cookies["django_language"] = "it"
    password_step(client, player)
    page = client.get("/accounts/login/code/").content.decode()
    assert "Accesso in due passaggi" in page
    wrong = client.post("/accounts/login/code/", {"code": "000000"}).content.decode()
    assert "Il codice non è giusto" in wrong


def test_the_code_step_does_not_wait_for_ever_after_the_password():
    from accounts.two_factor_views import PENDING_KEY, PENDING_SECONDS

    player = player_create()
    with_two_factor(player)
    client = Client()
    password_step(client, player)
    session = client.session
    session[PENDING_KEY] = {**session[PENDING_KEY], "at": session[PENDING_KEY]["at"] - PENDING_SECONDS - 1}
    session.save()
    late = client.post("/accounts/login/code/", {"code": totp_code(two_factor_device(player))}, follow=True)
    assert late.request["PATH_INFO"] == "/accounts/login/" and "the time to enter the code is over" in (
        late.content.decode()
    )
    assert logged_in_as(client) is None
