"""What a player expects of an account (issue 11): sign-up answers alike whether or not an email is already
registered, a date of birth (under 18 refused), euro deposits only with a confirmed email (the link by email),
a forgotten password reset by email end to end, and the profile's language at every login."""

import re
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, get_hasher
from django.core import mail
from django.test import Client

from cashier.providers import SandboxProvider
from cashier.selectors import wallet_balances

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_after():
    """A request in Italian leaves Italian active in this thread: the tests after this one expect English."""
    from django.utils import translation

    yield
    translation.activate("en")


PASSWORD = "a-Long-pass-123"


def born_years_ago(years: int, days: int = 0) -> str:
    from datetime import timedelta

    from django.utils import timezone

    today = timezone.localdate()
    try:
        birthday = today.replace(year=today.year - years)
    except ValueError:  # 29 February
        birthday = today.replace(year=today.year - years, day=28)
    return (birthday + timedelta(days=days)).isoformat()


def sign_up(client: Client, username: str, email: str, birth: str | None = None):
    return client.post(
        "/accounts/signup/",
        {
            "username": username,
            "email": email,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "date_of_birth": birth or born_years_ago(30),
        },
    )


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0)


def without_tokens(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def test_sign_up_answers_the_same_whether_or_not_the_email_is_registered():
    first = sign_up(Client(), "giulia", "giulia@example.com")
    assert first.status_code == 200 and "Check your email" in first.content.decode()
    giulia = get_user_model().objects.get(username="giulia")
    assert giulia.email_verified_at is None and giulia.date_of_birth is not None
    assert wallet_balances(user=giulia)["play"] > 0, "the welcome play chips"
    assert len(mail.outbox) == 1 and "confirm" in mail.outbox[0].body

    new = sign_up(Client(), "someone", "someone@example.com")
    taken = sign_up(Client(), "intruder", "Giulia@Example.com".lower())
    assert new.status_code == taken.status_code == 200
    same = without_tokens(taken.content.decode())
    assert same == without_tokens(new.content.decode()).replace("someone@example.com", "giulia@example.com")
    assert "already" not in same.lower()
    assert not get_user_model().objects.filter(username="intruder").exists()
    assert get_user_model().objects.filter(email__iexact="giulia@example.com").count() == 1
    told = mail.outbox[-1]
    assert told.to == ["giulia@example.com"] and "already has one" in told.body, "the owner is told, by email"


class CountingHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 hasher, really hashing, counting the passwords it hashes."""

    algorithm = "pbkdf2_sha256_counted"
    hashed = 0

    def encode(self, password, salt, iterations=None):
        type(self).hashed += 1
        return super().encode(password, salt, iterations)


def test_sign_up_takes_as_long_for_a_registered_email_it_hashes_the_password_either_way(settings):
    """Hashing a password is what takes time at sign-up (hundreds of milliseconds with the real work factor):
    an address already registered must cost it too, or the answer's delay says the address has an account."""
    settings.PASSWORD_HASHERS = [f"{CountingHasher.__module__}.CountingHasher"]
    counting = type(get_hasher())  # the class Django loaded from the setting (this module under its name)
    assert counting.algorithm == CountingHasher.algorithm
    sign_up(Client(), "giulia", "giulia@example.com")
    counting.hashed = 0
    new = sign_up(Client(), "someone", "someone@example.com")
    hashed_new, counting.hashed = counting.hashed, 0
    taken = sign_up(Client(), "intruder", "giulia@example.com")
    assert hashed_new == counting.hashed == 1, (hashed_new, counting.hashed)
    assert without_tokens(taken.content.decode()) == without_tokens(new.content.decode()).replace(
        "someone@example.com", "giulia@example.com"
    )
    assert not get_user_model().objects.filter(username="intruder").exists()


def test_sign_up_needs_a_date_of_birth_and_refuses_under_eighteen():
    response = sign_up(Client(), "young", "young@example.com", birth=born_years_ago(18, days=1))
    assert response.status_code == 200 and "18 or older" in response.content.decode()
    assert not get_user_model().objects.filter(username="young").exists()
    missing = Client().post(
        "/accounts/signup/",
        {"username": "nobirth", "email": "n@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert "This field is required" in missing.content.decode()
    assert not get_user_model().objects.filter(username="nobirth").exists()
    for bad in ("2999-01-01", "1850-01-01", "٢٠٠٠-٠١-٠١", "yesterday"):
        Client().post(
            "/accounts/signup/",
            {
                "username": "odd",
                "email": "odd@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
                "date_of_birth": bad,
            },
        )
        assert not get_user_model().objects.filter(username="odd").exists(), bad
    sign_up(Client(), "adult", "adult@example.com", birth=born_years_ago(18))
    assert get_user_model().objects.get(username="adult").date_of_birth == date.fromisoformat(
        born_years_ago(18)
    )


def test_euro_deposits_need_the_email_confirmed_by_the_link():
    sign_up(Client(), "hugo", "hugo@example.com")
    link = link_in(mail.outbox[-1])
    client = Client()
    assert client.post("/accounts/login/", {"username": "hugo", "password": PASSWORD}).status_code == 302
    form = {"amount": "20.00", "card_number": SandboxProvider.CARD_OK, "idempotency_key": "k-hugo-1"}
    refused = client.post("/cashier/deposit/", form)
    assert refused.status_code == 400 and "Confirm your email first" in refused.content.decode()
    hugo = get_user_model().objects.get(username="hugo")
    assert wallet_balances(user=hugo)["eur"] == 0
    assert Client().get("/accounts/email/verify/not-a-token/").status_code == 400
    confirmed = client.get(link, follow=True)
    assert "Your email is confirmed" in confirmed.content.decode()
    hugo.refresh_from_db()
    assert hugo.email_verified
    done = client.post("/cashier/deposit/", {**form, "idempotency_key": "k-hugo-2"}, follow=True)
    assert "deposited to your wallet" in done.content.decode()
    assert wallet_balances(user=hugo)["eur"] == 2_000


def test_a_link_for_an_address_the_account_no_longer_has_does_not_confirm():
    sign_up(Client(), "ivo", "ivo@example.com")
    link = link_in(mail.outbox[-1])
    ivo = get_user_model().objects.get(username="ivo")
    ivo.email = "ivo.new@example.com"
    ivo.save()
    assert Client().get(link).status_code == 400
    ivo.refresh_from_db()
    assert not ivo.email_verified


def test_a_forgotten_password_is_reset_by_email_end_to_end():
    get_user_model().objects.create_user("luca", "luca@example.com", PASSWORD)
    client = Client()
    page = client.get("/accounts/login/").content.decode()
    assert "/accounts/password/reset/" in page, "the login page offers it"
    response = client.post("/accounts/password/reset/", {"email": "luca@example.com"}, follow=True)
    assert "Check your email" in response.content.decode()
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.com"}, follow=True)
    assert without_tokens(unknown.content.decode()) == without_tokens(response.content.decode())
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["luca@example.com"]
    link = link_in(mail.outbox[0])
    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(
        set_url, {"new_password1": "another-Pass-456", "new_password2": "another-Pass-456"}, follow=True
    )
    assert "Your new password is set" in done.content.decode()
    assert Client().post("/accounts/login/", {"username": "luca", "password": PASSWORD}).status_code == 200
    fresh = Client()
    assert (
        fresh.post("/accounts/login/", {"username": "luca", "password": "another-Pass-456"}).status_code
        == 302
    )
    assert fresh.get("/accounts/profile/").status_code == 200
    assert "already been used" in Client().get(link, follow=True).content.decode(), "the link works once"


def test_the_language_chosen_in_the_profile_applies_at_login():
    marco = get_user_model().objects.create_user("marco", "marco@example.com", PASSWORD)
    client = Client()
    client.force_login(marco)
    client.post("/accounts/language/", {"language": "it"})
    marco.refresh_from_db()
    assert marco.preferred_language == "it"
    assert client.post("/accounts/language/", {"language": "xx"}).status_code == 302
    marco.refresh_from_db()
    assert marco.preferred_language == "it", "a language not offered is refused"

    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="en")  # another browser, in English
    assert "Log in" in elsewhere.get("/accounts/login/").content.decode()
    response = elsewhere.post("/accounts/login/", {"username": "marco", "password": PASSWORD})
    assert response.status_code == 302 and response.cookies["django_language"].value == "it"
    assert "Il mio account" in elsewhere.get("/accounts/profile/").content.decode()
