"""A tournament's page on a phone: the blind structure runs to 12,800,000/25,600,000, which made the whole page
scroll sideways at 390 px (found trying make run as a newcomer); its tables now scroll inside their boxes."""

import pytest

from tests.factories import tournament_create
from tests.live import ARTIFACTS, PHONE, needs_chromium

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def test_the_tournament_page_does_not_scroll_sideways_on_a_phone(live_room, browser):
    tournament = tournament_create(name="Turbo on a phone", currency="play")
    assert tournament.blind_structure.levels.count() > 40, (
        "the long default ladder, whose last blinds are wide"
    )
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{live_room.http_url}/tournaments/{tournament.pk}/")
    page.wait_for_selector("text=Blind structure")
    page.screenshot(path=str(ARTIFACTS / "tournament-page-phone.png"), full_page=True)
    width, shown = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width <= shown, f"the page is {width} px wide in a {shown} px window"
    last_row = page.locator("section:has(h2:text('Blind structure')) tbody tr").last
    assert "12800000/25600000" in last_row.inner_text(), "every level is still listed"
