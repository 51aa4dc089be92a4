"""A newcomer plays Omaha Hi-Lo against the house bots in a real browser (Debian's headless Chromium) on a
laptop's screen (1366x768): signs up, sits down at a Fixed-Limit Omaha Hi-Lo practice table where two bots
wait, sees four cards of their own on the screen and plays the hand out (as
tests/browser/test_omaha_in_browser.py does for Pot-Limit Omaha)."""

import pytest

from cashier.selectors import ledger_check
from tables.models import Game, Hand, Structure
from tables.services import bots_seat
from tests.factories import table_create
from tests.live import (
    ARTIFACTS,
    needs_chromium,
    play_out_in_browser,
    sign_up,
    sit_down,
)

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]

WIDTH, HEIGHT = 1366, 768


def test_a_newcomer_sits_at_omaha_hi_lo_sees_four_cards_and_plays_a_hand_against_the_house_bots(
    live_room, browser
):
    table = table_create(
        game=Game.OMAHA_HILO,
        structure=Structure.FIXED_LIMIT,
        small_blind=50,
        big_blind=100,
        action_seconds=30,
        seats=6,
    )
    assert bots_seat(table_id=table.id) == 2
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "nuovohilo")
    page.goto(f"{base}/tables/{table.id}/")
    page.wait_for_selector("#connection-status[data-state=open]")
    assert "Fixed-Limit Omaha Hi-Lo" in page.locator(".table-meta").inner_text(), "the game is named"
    # The seats are drawn from the first state, which follows the socket's opening: wait for them as a person does.
    page.locator(".seat.is-bot").nth(1).wait_for(timeout=10_000)
    assert page.locator(".seat.is-bot").count() == 2, "the house bots are there, labelled as bots"
    sit_down(page, 4, "100.00")

    mine = page.locator(".seat.is-me .cards .card.face")
    mine.nth(3).wait_for(timeout=30_000)
    assert mine.count() == 4, "four hole cards, face up, to their owner"
    hand = Hand.objects.get(table=table, status="running")
    me = next(seat for seat, player in hand.players.items() if not player["bot"])
    assert sorted(mine.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(hand.hole_cards[me])
    for box in (mine.nth(n).bounding_box() for n in range(4)):
        assert box and box["x"] >= 0 and box["y"] >= 0, box
        assert box["x"] + box["width"] <= WIDTH and box["y"] + box["height"] <= HEIGHT, (
            f"a card off the {WIDTH}x{HEIGHT} screen: {box}"
        )
    assert page.locator(".seat.is-bot .cards .card.face").count() == 0, "the bots' cards stay face down"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"omaha-hi-lo-four-cards-{WIDTH}x{HEIGHT}.png"))

    play_out_in_browser(page, hand.id)  # against the bots: check when free, else call
    page.screenshot(path=str(ARTIFACTS / f"omaha-hi-lo-hand-over-{WIDTH}x{HEIGHT}.png"))
    played = Hand.objects.get(pk=hand.pk)
    mine_acted = [
        a for a in played.actions if str(a.get("seat")) == me and a.get("action") in ("check", "call")
    ]
    # The house bots fold hands not worth playing now: a hand they all folded to the newcomer's blind is played
    # to its end too.
    decisions = ("fold", "check", "call", "bet", "raise", "all_in")
    others = [a for a in played.actions if a.get("action") in decisions and str(a.get("seat")) != me]
    folded_to_me = bool(others) and all(a["action"] == "fold" for a in others)
    assert played.status == "complete" and (mine_acted or folded_to_me), (
        "the newcomer played the hand to its end"
    )
    assert ledger_check().ok
    assert not errors, errors
