"""A newcomer signs up in a real browser, finds a practice sit-and-go under the lobby's Tournaments tab, registers
(a house bot fills the other seat at once), plays it to the end at the table page, and is told their place and
prize. Screenshots go to var/test/artifacts."""

import re

import pytest

from tests.factories import fast_structure, tournament_create
from tests.live import ARTIFACTS, needs_chromium, sign_up, visible_actions
from tournaments.models import Entry, Tournament

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def test_a_newcomer_registers_for_a_practice_sit_and_go_and_plays_it_to_the_end(live_room, browser):
    tournament = tournament_create(
        name="Practice heads-up",
        seats=2,
        currency="play",
        buy_in=50_000,
        fee=0,
        practice=True,
        blind_structure=fast_structure(seconds=6),
        action_seconds=20,
    )
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "nuova")

    page.goto(f"{base}/#tournaments")
    row = page.locator(f'#lobby-tournament-list tr[data-tournament-id="{tournament.pk}"]')
    row.wait_for(timeout=10_000)
    assert "Practice heads-up" in row.inner_text() and "0/2" in row.inner_text()
    assert row.locator(".buyin").inner_text().strip() == "500.00 chips"  # no fee: the buy-in alone
    page.screenshot(path=str(ARTIFACTS / "tournament-lobby.png"))
    row.locator("button.register").click()

    # Registered: a house bot took the other seat, the sit-and-go started, and the page is the table's.
    page.wait_for_url(re.compile(r"/tables/\d+/$"), timeout=15_000)
    page.wait_for_selector("#tournament-bar:not([hidden])", timeout=15_000)
    bar = page.locator("#tournament-bar").inner_text()
    assert "Practice heads-up" in bar and "Level 1" in bar and "2 of 2 left" in bar
    assert page.locator(".seat .bot-badge").count() == 1, "the house bot is labelled"
    assert not page.locator("#leave").is_visible() and not page.locator("#sit-out").is_visible()
    page.screenshot(path=str(ARTIFACTS / "tournament-table.png"))

    # Play: all in whenever possible, else call or check, until the tournament tells the player where they finished.
    for _ in range(600):
        if page.locator("#tournament-result:not([hidden])").count():
            break
        actions = visible_actions(page) if page.locator("#action-bar:not([hidden])").count() else set()
        for choice in ("all_in", "call", "check"):
            if choice in actions:
                page.locator(f'#action-bar [data-action="{choice}"]').click()
                break
        page.wait_for_timeout(250)
    result = page.locator("#tournament-result")
    result.wait_for(state="visible", timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "tournament-finished.png"))

    entry = Entry.objects.get(tournament=tournament, user__username="nuova")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and entry.place in (1, 2)
    text = result.inner_text()
    assert f"place {entry.place}" in text
    if entry.place == 1:
        assert "1,000.00" in text, "the winner is told the prize: both buy-ins"
    assert not errors, errors

    page.goto(f"{base}/tournaments/{tournament.pk}/")
    assert "Finished" in page.locator(".tournament-summary").inner_text()
    page.screenshot(path=str(ARTIFACTS / "tournament-page.png"))
