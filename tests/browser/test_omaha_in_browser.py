"""A newcomer plays Pot-Limit Omaha against the house bots in a real browser (Debian's headless Chromium): signs
up, sits down at a practice table where two bots wait, sees four cards of their own and plays the hand out."""

import pytest

from tables.models import Game, Hand, Structure
from tables.services import bots_seat
from tests.factories import table_create
from tests.live import ARTIFACTS, acting, needs_chromium, sign_up, sit_down, visible_actions

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def test_a_newcomer_sits_at_omaha_sees_four_cards_and_plays_a_hand_against_the_house_bots(live_room, browser):
    table = table_create(
        game=Game.OMAHA,
        structure=Structure.POT_LIMIT,
        small_blind=50,
        big_blind=100,
        action_seconds=30,
        seats=6,
    )
    assert bots_seat(table_id=table.id) == 2
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "nuova")
    page.goto(f"{base}/tables/{table.id}/")
    sit_down(page, 4, "100.00")

    mine = page.locator(".seat.is-me .cards .card.face")
    mine.nth(3).wait_for(timeout=30_000)
    assert mine.count() == 4, "four hole cards, face up, to their owner"
    hand = Hand.objects.get(table=table, status="running")
    me = next(seat for seat, player in hand.players.items() if not player["bot"])
    assert sorted(mine.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(hand.hole_cards[me])
    assert page.locator(".seat.is-bot .cards .card.face").count() == 0, "the bots' cards stay face down"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "omaha-four-cards.png"))

    # Play the hand out against the bots: check when free, else call.
    for _ in range(60):
        if page.locator(f'#hand-history li[data-hand="{hand.id}"]').count():
            break
        try:
            acting([page], timeout_ms=1_000)
        except AssertionError:
            continue
        actions = visible_actions(page)
        choice = "check" if "check" in actions else "call" if "call" in actions else None
        if choice:
            page.locator(f'#action-bar [data-action="{choice}"]').click()
        page.wait_for_timeout(300)
    page.wait_for_selector(f'#hand-history li[data-hand="{hand.id}"]', timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "omaha-hand-over.png"))
    played = Hand.objects.get(pk=hand.pk)
    assert played.status == "complete" and len(played.actions) >= 1
    assert not errors, errors
