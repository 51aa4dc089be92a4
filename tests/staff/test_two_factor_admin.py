"""Staff need two-factor sign-in before any admin page (issue 32): without an authenticator app they are sent
to set one up (a superuser made with `make superuser` included, the first time), with one they must enter its
code in the session; the admin's own login page leads to the same code step. Before: the password alone
opened every admin page."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.admin_client import STAFF_PASSWORD, totp_code, two_factor_device

pytestmark = pytest.mark.django_db

ADMIN_PAGES = (
    "/admin/",
    "/admin/staff/player/",
    "/admin/staff/auditentry/",
    "/admin/cashier/withdrawal/",
    "/admin/cashier/account/ledger-check/",
    "/admin/rake.csv",
    "/admin/tables/table/",
    "/admin/password_change/",
    "/admin/jsi18n/",
    "/admin/no-such-page/",
)


def superuser(name: str = "chief"):
    return get_user_model().objects.create_superuser(name, f"{name}@example.com", STAFF_PASSWORD)


def where(client: Client, url: str) -> str:
    answer = client.get(url, follow=True)
    assert answer.status_code == 200, (url, answer.status_code)
    return answer.request["PATH_INFO"]


def test_staff_without_an_app_are_sent_to_set_one_up_before_any_admin_page():
    chief = superuser()
    client = Client()
    assert client.post("/admin/login/", {"username": "chief", "password": STAFF_PASSWORD}).status_code == 302
    for url in (*ADMIN_PAGES, "/admin/login/"):
        assert where(client, url) == "/accounts/two-factor/", url
    page = client.get("/admin/", follow=True).content.decode()
    assert "Staff must turn on two-factor sign-in" in page
    health = client.get("/healthz").json()
    assert "workers" not in str(health), "nor the health check's details"

    device = TOTPDevice.objects.get(user=chief, confirmed=False)
    done = client.post(
        "/accounts/two-factor/", {"action": "enable", "code": totp_code(device), "next": "/admin/"}
    )
    assert 'href="/admin/"' in done.content.decode(), "the recovery codes, then on to the admin"
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/staff/player/").status_code == 200


def test_staff_with_an_app_give_the_code_at_the_admin_login():
    chief = superuser()
    device = two_factor_device(chief)
    client = Client()
    answer = client.post(
        "/admin/login/?next=/admin/staff/player/", {"username": "chief", "password": STAFF_PASSWORD}
    )
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/code/"
    assert "_auth_user_id" not in client.session
    assert where(client, "/admin/") == "/admin/login/", "the password alone opened nothing"
    assert client.post("/accounts/login/code/", {"code": "000000"}).status_code == 200
    assert where(client, "/admin/") == "/admin/login/"
    right = client.post("/accounts/login/code/", {"code": totp_code(device)})
    assert right.status_code == 302 and right["Location"] == "/admin/staff/player/"
    for url in ADMIN_PAGES[:-3]:
        assert client.get(url).status_code == 200, url


def test_a_session_logged_in_without_the_code_is_asked_for_it():
    chief = superuser()
    device = two_factor_device(chief)
    client = Client()
    client.force_login(chief)  # a session from before two-factor, say
    for url in ADMIN_PAGES:
        assert where(client, url) == "/accounts/login/code/", url
    answer = client.get("/admin/staff/player/", follow=True)
    assert answer.redirect_chain[-1][0] == "/accounts/login/code/?next=%2Fadmin%2Fstaff%2Fplayer%2F"
    right = client.post("/accounts/login/code/?next=/admin/staff/player/", {"code": totp_code(device)})
    assert right["Location"] == "/admin/staff/player/"
    assert client.get("/admin/").status_code == 200


def test_a_member_of_staff_cannot_turn_it_off():
    chief = superuser()
    client = Client()
    client.force_login(chief)
    device = two_factor_device(chief)
    client.post("/accounts/login/code/", {"code": totp_code(device)})
    refused = client.post("/accounts/two-factor/", {"action": "disable", "code": totp_code(device)})
    assert refused.status_code == 400 and "Staff must keep two-factor sign-in on" in refused.content.decode()
    assert TOTPDevice.objects.filter(user=chief, confirmed=True).exists()
    assert client.get("/admin/").status_code == 200


def test_the_admin_never_shows_nor_logs_an_app_secret(boss):
    from django_otp.plugins.otp_static.models import StaticDevice

    from staff.models import AuditEntry

    player = get_user_model().objects.create_user("pia", "pia@example.com", STAFF_PASSWORD)
    device = two_factor_device(player)
    recovery = StaticDevice.objects.create(user=player, name="recovery")
    recovery.token_set.create(token="abcdefgh")
    page = boss.get(f"/admin/otp_totp/totpdevice/{device.pk}/change/").content.decode()
    assert device.key not in page and "qrcode" not in page
    assert boss.get(f"/admin/otp_totp/totpdevice/{device.pk}/config/").status_code == 403
    assert (
        "abcdefgh" not in boss.get(f"/admin/otp_static/staticdevice/{recovery.pk}/change/").content.decode()
    )
    deleted = boss.post(f"/admin/otp_totp/totpdevice/{device.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not TOTPDevice.objects.filter(pk=device.pk).exists()
    entry = AuditEntry.objects.get(target_id=str(device.pk), action__contains="delete")
    assert device.key not in str(entry.before) and entry.before["user_id"] == player.pk
