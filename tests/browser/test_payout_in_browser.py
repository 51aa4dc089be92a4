"""The payout page on a phone: its tables fit the screen in both languages (the long headers and amounts
pushed the page sideways, to 443 px on a 390 px phone)."""

import shutil
from pathlib import Path

import pytest
from django.utils import timezone

from tables import services
from tables.models import Currency
from tables.payout.services import payout_days_compute
from tests.factories import eur_fund, play_out, player_create, sit, table_create
from tests.live import CHROMIUM  # the browser fixture comes with it (tests/browser/conftest.py)

pytestmark = [
    pytest.mark.live,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and not shutil.which("chromium"),
        reason="Debian's chromium is not installed: run scripts/install-browser.sh",
    ),
]


@pytest.fixture
def figures():
    """A euro hand and a play-chip hand played today, their payout figures computed."""
    for currency in (Currency.EUR, Currency.PLAY):
        table = table_create(currency=currency, small_blind=50, big_blind=100)
        people = [player_create(), player_create()]
        for number, user in enumerate(people, start=1):
            eur_fund(user, 10_000)
            sit(table, user, number, buy_in=5_000)
        play_out(table, people, services.hand_deal(table_id=table.id))
    payout_days_compute(first=timezone.localdate(), last=timezone.localdate())


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_payout_page_fits_a_phone(live_room, browser, figures, language):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_room.http_url}])
    page = context.new_page()
    page.goto(f"{live_room.http_url}/payout/")
    assert page.locator("td.payout-figure").count() == 2, "a figure for euros and one for play chips"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for table in page.locator("table.payout-table").all():
        box = table.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
