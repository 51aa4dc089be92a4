"""Headers (issue 11): a Content-Security-Policy that allows no inline script (and no page keeps one), no
caching of the cashier's and the account's pages, and a /healthz that tells anyone up or down only and never
scans Redis keys."""

import re
import time

import pytest
import redis
from django.contrib.auth import get_user_model
from django.test import Client

from pokerroom.celery import WORKERS_KEY
from tests.admin_client import staff_log_in
from tests.factories import eur_table_create as table_create

pytestmark = pytest.mark.django_db

SCRIPT = re.compile(r"<script\b([^>]*)>", re.I)
HANDLER = re.compile(r"\son[a-z]+\s*=", re.I)


@pytest.fixture
def people(db):
    user = get_user_model()
    player = user.objects.create_user("paola", "paola@example.com", "a-Long-pass-123")
    staff = user.objects.create_superuser("boss", "boss@example.com", "a-Long-pass-123")
    return player, staff


def pages(table_id: int) -> list[str]:
    return [
        "/",
        f"/tables/{table_id}/",
        "/cashier/",
        "/accounts/profile/",
        "/accounts/limits/",
        "/hands/",
        "/fairness/",
        "/payout/",
        "/accounts/password/",
    ]


def test_every_page_has_a_policy_without_inline_scripts_and_keeps_none(people):
    player, staff = people
    table = table_create()
    visitor, logged_in, admin = Client(), Client(), Client()
    logged_in.force_login(player)
    staff_log_in(admin, staff)
    checked = 0
    for client, urls in (
        (visitor, ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]),
        (logged_in, pages(table.id)),
        (admin, ["/admin/", "/admin/cashier/withdrawal/", "/admin/tables/table/add/"]),
    ):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            policy = response["Content-Security-Policy"]
            script_src = re.search(r"script-src ([^;]*)", policy).group(1)
            assert script_src.strip() == "'self'", (url, policy)
            assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
            html = response.content.decode()
            for attributes in SCRIPT.findall(html):
                assert "src=" in attributes or 'type="application/json"' in attributes, (url, attributes)
            assert not HANDLER.search(html), (url, HANDLER.search(html).group(0))
            checked += 1
    assert checked >= 15


def test_cashier_and_account_pages_are_never_cached(people):
    player, _staff = people
    client = Client()
    client.force_login(player)
    for url in (
        "/cashier/",
        "/accounts/profile/",
        "/accounts/limits/",
        "/accounts/self-exclusion/",
        "/accounts/password/",
    ):
        assert client.get(url)["Cache-Control"] == "no-store", url
    assert "no-store" in Client().get("/accounts/login/")["Cache-Control"]
    assert "no-store" not in Client().get("/").get("Cache-Control", ""), "the lobby may be cached"


def _command_calls(client: redis.Redis, name: str) -> int:
    stats = client.info("commandstats").get(f"cmdstat_{name}", {})
    return int(stats.get("calls", 0))


def test_healthz_tells_anyone_up_or_down_only_and_staff_the_details(people, settings):
    _player, staff = people
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.zadd(WORKERS_KEY, {"worker-a@host-7": time.time()})
    try:
        before = {name: _command_calls(client, name) for name in ("keys", "scan")}
        anonymous = Client().get("/healthz")
        assert anonymous.status_code == 200 and anonymous.json() == {"ok": True}
        assert "worker-a" not in anonymous.content.decode()
        admin = Client()
        staff_log_in(admin, staff)
        detailed = admin.get("/healthz").json()
        assert "worker-a@host-7" in detailed["services"]["celery"]["workers"]
        settings.HEALTHZ_TOKEN = "t0ken"
        assert "services" in Client().get("/healthz", HTTP_X_HEALTH_TOKEN="t0ken").json()
        assert Client().get("/healthz", HTTP_X_HEALTH_TOKEN="guess").json() == {"ok": True}
        after = {name: _command_calls(client, name) for name in ("keys", "scan")}
        assert after == before, "no KEYS, no SCAN"
    finally:
        client.zrem(WORKERS_KEY, "worker-a@host-7")
        client.close()
    down = Client().get("/healthz")
    assert down.status_code == 503 and down.json() == {"ok": False}, "no worker: down, and no more said"


def test_an_unknown_page_is_the_rooms_own_404_without_url_patterns(db):
    response = Client().get("/no-such-page/")
    html = response.content.decode()
    assert response.status_code == 404 and "Page not found" in html
    assert "URLconf" not in html and "urlpatterns" not in html.lower()
    italian = Client(HTTP_ACCEPT_LANGUAGE="it").get("/no-such-page/").content.decode()
    assert "Pagina non trovata" in italian
    from django.utils import translation

    translation.activate("en")
