"""Sign-up and password reset under abuse (issue 32): each sign-up costs about half a second of hashing and an
email, and 24 sign-ups with a registered address sent its owner 24 "someone tried to sign up" mails. Now: at
most SIGNUP_PER_ADDRESS_PER_HOUR sign-ups and PASSWORD_RESET_PER_ADDRESS_PER_HOUR reset requests from one
address an hour, then a 429 page in the visitor's language with no account, no mail and no hashing; the
"someone tried" mail at most once a day to an address. Before: every request was served."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import get_hasher
from django.core import mail
from django.test import Client

from tests.accounts.test_signup_and_email import CountingHasher, born_years_ago, sign_up, without_tokens

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-pass-123"


def test_a_flood_of_sign_ups_from_one_address_gets_429_without_hashing_accounts_or_mail(settings):
    settings.SIGNUP_PER_ADDRESS_PER_HOUR = 3
    settings.PASSWORD_HASHERS = [f"{CountingHasher.__module__}.CountingHasher"]
    counting = type(get_hasher())
    flood = Client(REMOTE_ADDR="203.0.113.40")
    for n in range(3):
        assert sign_up(flood, f"flood{n}", f"flood{n}@example.com").status_code == 200
    sent, counting.hashed = len(mail.outbox), 0
    refused = sign_up(flood, "flood3", "flood3@example.com")
    assert refused.status_code == 429
    assert "Too many requests" in refused.content.decode() and "60 minutes" in refused.content.decode()
    assert not get_user_model().objects.filter(username="flood3").exists()
    assert len(mail.outbox) == sent and counting.hashed == 0, "no mail, no hashing"
    elsewhere = sign_up(Client(REMOTE_ADDR="198.51.100.41"), "calm", "calm@example.com")
    assert elsewhere.status_code == 200 and get_user_model().objects.filter(username="calm").exists()


def test_the_throttled_sign_up_answers_alike_for_a_registered_address(settings):
    settings.SIGNUP_PER_ADDRESS_PER_HOUR = 1
    sign_up(Client(REMOTE_ADDR="198.51.100.42"), "giulia", "giulia@example.com")
    one, other = Client(REMOTE_ADDR="203.0.113.43"), Client(REMOTE_ADDR="203.0.113.44")
    sign_up(one, "first1", "first1@example.com")
    sign_up(other, "first2", "first2@example.com")
    taken = sign_up(one, "intruder", "giulia@example.com")
    new = sign_up(other, "someone", "someone@example.com")
    assert taken.status_code == new.status_code == 429
    assert without_tokens(taken.content.decode()) == without_tokens(new.content.decode())


def test_the_someone_tried_to_sign_up_mail_goes_once_a_day_to_an_address():
    sign_up(Client(REMOTE_ADDR="198.51.100.45"), "giulia", "giulia@example.com")
    mail.outbox.clear()
    for n in range(6):
        address = f"203.0.113.{50 + n}"
        answer = sign_up(Client(REMOTE_ADDR=address), f"intruder{n}", "giulia@example.com")
        assert answer.status_code == 200 and "Check your email" in answer.content.decode()
    assert [message.to for message in mail.outbox] == [["giulia@example.com"]], "one mail, not six"
    assert "already has one" in mail.outbox[0].body


def test_a_flood_of_password_resets_from_one_address_gets_429_and_no_more_mail(settings):
    settings.PASSWORD_RESET_PER_ADDRESS_PER_HOUR = 2
    get_user_model().objects.create_user("paola", "paola@example.com", PASSWORD, date_of_birth="1990-01-01")
    flood = Client(REMOTE_ADDR="203.0.113.60")
    for _ in range(2):
        assert flood.post("/accounts/password/reset/", {"email": "paola@example.com"}).status_code == 302
    assert len(mail.outbox) == 2
    refused = flood.post("/accounts/password/reset/", {"email": "paola@example.com"})
    assert refused.status_code == 429 and "Too many requests" in refused.content.decode()
    assert len(mail.outbox) == 2
    assert flood.get("/accounts/password/reset/").status_code == 200, "the form itself is still shown"
    other = Client(REMOTE_ADDR="198.51.100.61")
    assert other.post("/accounts/password/reset/", {"email": "paola@example.com"}).status_code == 302


def test_the_throttled_page_speaks_italian(settings):
    settings.SIGNUP_PER_ADDRESS_PER_HOUR = 0
    client = Client(REMOTE_ADDR="203.0.113.70")
    client.cookies["django_language"] = "it"
    refused = client.post(
        "/accounts/signup/",
        {"username": "x", "email": "x@example.com", "date_of_birth": born_years_ago(30)},
    )
    assert refused.status_code == 429 and "Troppe richieste" in refused.content.decode()
