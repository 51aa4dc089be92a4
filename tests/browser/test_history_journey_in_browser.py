"""Issue 15 tried as a new user would, in a real browser (Debian's headless Chromium) on a live room (daphne and
a Celery worker): a newcomer signs up, sits at a play-chip table against the house bots and sees the deck's
commitment before the first card; plays the hand out; follows the "verify" link of its Last hands entry to the
deck check, which says it is verified; opens My hands, replays the hand, downloads the day's hands as PokerStars
text (read back by pokerkit's independent reader) and the hand's JSON and the stand-alone verifier, which says
the deck is verified. And the replayer's Play and Pause: Play steps on by itself, Pause stops it."""

import random
import subprocess
import sys
import time

import pytest
from django.utils import timezone
from pokerkit.notation import PokerStarsParser

from tables.models import Hand
from tables.services import bots_seat
from tests.factories import table_create
from tests.live import (
    ARTIFACTS,
    BASE_DIR,
    Room,
    needs_chromium,
    play_out_in_browser,
    sign_up,
    sit_down,
)
from tests.tables.history_helpers import cents, person, play_out, seat_all

pytestmark = [
    pytest.mark.live,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    needs_chromium,
    # pokerkit keeps PokerStars' time-zone name as an extra field, and says so.
    pytest.mark.filterwarnings("ignore:The field 'time_zone_abbreviation':UserWarning"),
]

# What the table showed as the deck's commitment at the moment the player's first card appeared (a
# MutationObserver sees the page as it changes, before the test could look).
FIRST_CARD_WATCH = """
window.__atFirstCard = null;
new MutationObserver(() => {
  if (window.__atFirstCard) return;
  const card = document.querySelector(".seat.is-me .cards .card.face");
  if (!card) return;
  const lock = document.getElementById("deck-commitment");
  window.__atFirstCard = {
    card: card.dataset.card,
    commitment: lock ? lock.dataset.commitment || null : null,
    shown: !!lock && !lock.hidden && lock.offsetParent !== null,
  };
}).observe(document, { subtree: true, childList: true, attributes: true });
"""


def test_a_newcomer_plays_a_hand_then_verifies_replays_and_downloads_it(live_room, browser, tmp_path):
    table = table_create(small_blind=50, big_blind=100, action_seconds=30)
    assert bots_seat(table_id=table.id) == 2
    base = live_room.http_url
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1366, "height": 768}, accept_downloads=True)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(FIRST_CARD_WATCH)
    name = "newcomer"
    sign_up(page, base, name)
    page.goto(f"{base}/tables/{table.id}/")
    page.wait_for_selector("#connection-status[data-state=open]")
    sit_down(page, 4, "100.00")

    # The commitment is on the table before the first card, and it is this hand's.
    page.locator(".seat.is-me .cards .card.face").nth(1).wait_for(timeout=30_000)
    hand = next(h for h in Hand.objects.filter(table=table).order_by("id") if len(h.players) == 3)  # theirs
    me = next(seat for seat, player in hand.players.items() if not player["bot"])
    at_first_card = page.evaluate("window.__atFirstCard")
    assert at_first_card["shown"], "no deck commitment on the table when the first card was dealt"
    assert at_first_card["commitment"] == hand.commitment, (at_first_card, hand.commitment)
    page.click("#deck-commitment")
    assert page.locator("#deck-commitment-popover").is_visible()
    assert page.inner_text("#deck-commitment-value") == hand.commitment

    play_out_in_browser(page, hand.id)  # against the bots: check when free, else call
    entry = page.locator(f'#hand-history li[data-hand="{hand.id}"]')
    hand = Hand.objects.get(pk=hand.pk)
    assert hand.status == Hand.Status.COMPLETE
    mine = sorted(hand.hole_cards[me])

    # Its Last hands entry's "verify" link: the deck check of that hand, verified in the browser.
    entry.locator("a.hh-verify").click()
    page.wait_for_url(f"{base}/hands/{hand.id}/verify/")
    page.wait_for_selector('#verify-result[data-state="verified"]', timeout=15_000)
    assert f"#{hand.id}" in page.inner_text("h1")
    checked = page.inner_text("#verify-lines")
    for card in mine:  # the player's own cards are among those proven
        assert f": {card} verified" in checked, checked
    assert page.locator("#verify-lines li:not(.ok)").count() == 0

    # The hand's JSON and the verifier, downloaded as a player would; the script says the deck checks.
    page.click("details summary")
    with page.expect_download() as download:
        page.click("details a[download]")
    hand_json = tmp_path / download.value.suggested_filename
    download.value.save_as(hand_json)
    with page.expect_download() as download:
        page.click('details a[href$="verify_hand.py"]')
    script = tmp_path / download.value.suggested_filename
    download.value.save_as(script)
    assert script.read_bytes() == (BASE_DIR / "static" / "verify_hand.py").read_bytes()
    run = subprocess.run(
        [sys.executable, str(script), str(hand_json)], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"commitment {hand.commitment}", lines
    assert lines[-1].startswith("VERIFIED: "), lines
    for card in mine:
        assert any(line.endswith(f": {card} verified") for line in lines), lines

    # My hands, from the site's navigation: the hand with the player's own cards; its replayer.
    page.click('nav a[href="/hands/"]')
    row = page.locator(f'tr[data-hand-id="{hand.id}"]')
    row.wait_for(timeout=10_000)
    assert (
        sorted(
            row.locator(".cards-cell")
            .first.locator("[data-card]")
            .evaluate_all("els => els.map(e => e.dataset.card)")
        )
        == mine
    )
    row.locator("a.replay-link").click()
    page.wait_for_selector('#replay-step[data-index="0"]', timeout=15_000)
    assert page.inner_text("#deck-commitment") == hand.commitment
    page.click('[data-control="last"]')
    assert (
        sorted(
            page.locator(".seat.is-me .pcard[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        )
        == mine
    )
    winners = {hand.players[str(seat)]["name"] for pot in hand.result["pots"] for seat in pot["winners"]}
    shown = page.inner_text("#replay-winners")
    assert winners and all(winner in shown for winner in winners), (winners, shown)

    # The day's hands as one PokerStars file, from My hands filtered to the hand's day.
    page.goto(f"{base}/hands/")
    day = timezone.localdate(hand.ended_at).isoformat()
    page.fill("#id_since", day)
    page.fill("#id_until", day)
    page.click("#hand-filters button[type=submit]")
    page.locator(f'tr[data-hand-id="{hand.id}"]').wait_for()
    with page.expect_download() as download:
        page.click("#download-pokerstars")
    download.value.save_as(tmp_path / "day.txt")
    text = (tmp_path / "day.txt").read_text(encoding="utf-8")
    assert f"PokerStars Hand #{hand.id}:  Hold'em No Limit (0.50/1) - " in text, text[:400]
    assert f"Dealt to {name} [{' '.join(hand.hole_cards[me])}]" in text, text[:1200]
    parsed = list(PokerStarsParser()(text, parse_value=cents, error_status=True))
    assert parsed, "pokerkit read no hand of the file"
    ours = [history for history in parsed if history.hand == hand.id]
    assert len(ours) == 1 and name in ours[0].players, [(h.hand, h.players) for h in parsed]

    # My hands on a phone, for the record.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, storage_state=context.storage_state())
    small = phone.new_page()
    small.on("pageerror", lambda error: errors.append(str(error)))
    small.goto(f"{base}/hands/")
    small.locator(f'tr[data-hand-id="{hand.id}"]').wait_for()
    assert small.evaluate("document.documentElement.scrollWidth") <= 390
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    small.screenshot(path=str(ARTIFACTS / "my-hands-390x844.png"), full_page=True)
    phone.close()
    context.close()
    assert not errors, errors


def test_the_replayer_s_play_steps_on_by_itself_and_pause_stops_it(room_env, browser):
    """A hand checked down by three players (posts, the deal, every action and street, the showdown: some twenty
    steps), played through the services; only daphne runs, to serve the replayer."""
    table = table_create(small_blind=50, big_blind=100)
    users = [person(name) for name in ("ada", "ben", "cleo")]
    seat_all(table, users, 10_000)
    from tables import services

    services.hand_deal(table_id=table.id)
    passive = lambda legal, rng: (  # noqa: E731 - check when free, else call
        ("check", None) if any(entry["action"] == "check" for entry in legal) else ("call", None)
    )
    hand = play_out(table, random.Random(15), passive)
    room = Room(room_env)
    errors: list[str] = []
    try:
        room.start_daphne()
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{room.http_url}/accounts/login/")
        page.fill("#id_username", users[0].username)
        page.fill("#id_password", "pw-Secret-123")
        page.click("main button[type=submit]")
        page.wait_for_url(f"{room.http_url}/")
        page.goto(f"{room.http_url}/hands/{hand.id}/")
        page.wait_for_selector('#replay-step[data-index="0"]', timeout=15_000)
        frames = int(page.get_attribute("#replay-slider", "max")) + 1
        assert frames >= 15, frames
        play, pause = page.locator('[data-control="play"]'), page.locator('[data-control="pause"]')
        index = lambda: int(page.get_attribute("#replay-step", "data-index"))  # noqa: E731

        def until(condition, timeout: float) -> None:  # the page's CSP allows no wait_for_function
            deadline = time.monotonic() + timeout
            while not condition():
                assert time.monotonic() < deadline, f"still at step {index()} after {timeout} s"
                page.wait_for_timeout(50)

        assert play.is_visible() and not pause.is_visible()

        play.click()  # on by itself, a step at a time
        assert pause.is_visible() and not play.is_visible()
        first = page.inner_text("#replay-description")
        until(lambda: index() >= 2, timeout=5)
        assert page.inner_text("#replay-description") != first

        pause.click()  # and it stays where it was paused
        assert play.is_visible() and not pause.is_visible()
        paused_at = index()
        page.wait_for_timeout(2_500)  # more than two steps' time
        assert index() == paused_at

        page.click('[data-control="last"]')  # from three steps before the end, it plays to the end and stops
        page.click('[data-control="back"]')
        page.click('[data-control="back"]')
        play.click()
        page.wait_for_selector(f'#replay-step[data-index="{frames - 1}"]', timeout=5_000)
        play.wait_for(timeout=3_000)
        assert not pause.is_visible()
        assert page.locator("#replay-winners li").count() >= 1
        page.wait_for_timeout(2_000)
        assert index() == frames - 1

        play.click()  # Play at the end starts the hand over
        until(lambda: index() < frames - 1, timeout=3)
        pause.click()
        assert index() < 3
    finally:
        room.stop()
    assert not errors, errors
