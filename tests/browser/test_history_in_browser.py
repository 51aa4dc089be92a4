"""A hand played at a table, then looked at in a real browser (Debian's Chromium) as its players and a stranger
would: the deck check recomputes it with Web Crypto and says exactly what fails once the JSON is tampered with;
the replayer steps through it and never shows the folded or mucked cards of others; the share link neither."""

import json
import shutil
from pathlib import Path

import pytest

from tests.factories import table_create
from tests.live import (
    ARTIFACTS,
    CHROMIUM,  # the browser fixture comes with it (tests/browser/conftest.py)
)
from tests.tables.history_helpers import person, play, seat_all, stack_next_deck

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
def played(monkeypatch):
    """ada (button) and ben (small blind) call, cleo (big blind) folds; checked down; ben shows aces, ada mucks."""
    table = table_create(small_blind=50, big_blind=100)
    users = [person(name) for name in ("ada", "ben", "cleo")]
    seat_all(table, users, 10_000)
    stack_next_deck(monkeypatch, order=[1, 2, 0], holes={0: "7c2d", 1: "AhAc", 2: "9s8s"}, board="KdQh5c4s3d")
    from tables import services

    services.hand_deal(table_id=table.id)
    hand = play(
        table,
        (0, "call"),
        (1, "call"),
        (2, "fold"),
        *[m for _ in range(3) for m in ((1, "check"), (0, "check"))],
    )
    return hand, users


def log_in(page, base: str, user) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def test_the_deck_check_page_verifies_a_hand_and_says_what_fails_when_tampered(live_room, browser, played):  # noqa: F811
    hand, (ada, ben, cleo) = played
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_room.http_url, cleo)
    page.goto(f"{live_room.http_url}/hands/{hand.id}/verify/")
    page.wait_for_selector('#verify-result[data-state="verified"]', timeout=15_000)
    assert page.locator("#verify-lines li.ok").count() == 9  # the board, ben's aces and cleo's own two
    original = json.loads(page.input_value("#hand-json"))
    page.click("details summary")

    def check(data) -> str:
        page.fill("#hand-json", json.dumps(data))
        page.click("#verify-button")
        page.wait_for_selector('#verify-result[data-state="failed"]', timeout=10_000)
        return page.inner_text("#verify-lines")

    card = json.loads(json.dumps(original))
    opened = card["openings"][0]
    opened["card"] = "Ks" if opened["card"] != "Ks" else "Kh"
    assert f"position {opened['position']}: {opened['card']} FAILED" in check(card)
    salt = json.loads(json.dumps(original))
    salt["openings"][2]["salt"] = "0" * 64
    assert "not to the commitment" in check(salt)
    path = json.loads(json.dumps(original))
    path["openings"][4]["proof"] = path["openings"][4]["proof"][:-1]
    assert "too short" in check(path)
    page.fill("#hand-json", json.dumps(original))
    page.click("#verify-button")
    page.wait_for_selector('#verify-result[data-state="verified"]', timeout=10_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "deck-check.png"), full_page=True)
    assert not errors, errors


def test_the_replayer_steps_through_the_hand_and_shows_only_what_was_shown(live_room, browser, played):  # noqa: F811
    hand, (ada, ben, cleo) = played
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_room.http_url, cleo)
    page.goto(f"{live_room.http_url}/hands/")
    page.click(f'tr[data-hand-id="{hand.id}"] a.replay-link')
    page.wait_for_selector('#replay-step[data-index="0"]', timeout=15_000)
    page.click('[data-control="forward"]')
    assert "posts the small blind" in page.inner_text("#replay-description")
    page.click('[data-control="forward"]')
    page.click('[data-control="forward"]')  # the deal: cleo sees her own cards, face down for the others
    assert page.locator('.seat[data-seat="3"] .pcard[data-card]').count() == 2
    assert page.locator('.seat[data-seat="2"] .pcard.back').count() == 2
    page.click('[data-control="last"]')
    assert page.locator('.seat[data-seat="2"] .pcard[data-card="Ah"]').count() == 1, "ben's aces were shown"
    assert page.locator('.seat[data-seat="1"] .pcard[data-card]').count() == 0, "ada mucked: never shown"
    pot = hand.result["pots"][0]
    shown_pot = page.locator("#pots .pot")
    assert shown_pot.get_attribute("data-amount") == str(pot["amount"])
    assert shown_pot.get_attribute("data-rake") == str(pot["rake"])
    assert page.locator("#replay-winners li").count() == 1
    for index in range(20):  # every frame, back to the start: never ada's cards
        assert page.locator('.seat[data-seat="1"] .pcard[data-card]').count() == 0, index
        page.click('[data-control="back"]')
    page.screenshot(path=str(ARTIFACTS / "replayer.png"), full_page=True)

    share = page.input_value("#share-url")
    stranger = browser.new_page()
    stranger.goto(share)
    stranger.wait_for_selector("#replay-step", timeout=15_000)
    stranger.click('[data-control="last"]')
    assert stranger.locator('.seat[data-seat="3"] .pcard[data-card]').count() == 0, (
        "cleo folded: not in a share"
    )
    assert stranger.locator('.seat[data-seat="2"] .pcard[data-card="Ac"]').count() == 1
    assert not errors, errors


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["laptop", "phone"])
def test_the_replayer_fits_the_window_without_scrolling_sideways(live_room, browser, played, size):  # noqa: F811
    hand, (ada, ben, cleo) = played
    width, height = size
    page = browser.new_page(viewport={"width": width, "height": height})
    log_in(page, live_room.http_url, cleo)
    page.goto(f"{live_room.http_url}/hands/{hand.id}/")
    page.wait_for_selector('#replay-step[data-index="0"]', timeout=15_000)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    felt = page.locator("#felt").bounding_box()
    assert felt["x"] >= 0 and felt["x"] + felt["width"] <= width, felt
    controls = page.locator(".replay-controls").bounding_box()  # Play, Back, Forward without scrolling down
    assert controls["y"] + controls["height"] <= height, (controls, height)
    line = page.locator(".replay-description").bounding_box()
    plates = [seat.bounding_box() for seat in page.locator(".seat").all()]
    assert all(b["y"] + b["height"] <= line["y"] or b["y"] >= line["y"] + line["height"] for b in plates), (
        "a seat's plate covers the step's line"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"replayer-{width}x{height}.png"))
    share = page.input_value("#share-url")
    stranger = browser.new_page(viewport={"width": width, "height": height})
    stranger.goto(share)
    stranger.wait_for_selector("#replay-step", timeout=15_000)
    assert stranger.evaluate("document.documentElement.scrollWidth") <= width

    page.goto(f"{live_room.http_url}/hands/")  # a hand's result sits in its own cell, not over the rows
    cell = page.locator(f'tr[data-hand-id="{hand.id}"] td.num').last.bounding_box()
    result = page.locator(f'tr[data-hand-id="{hand.id}"] .result').bounding_box()
    inside = cell["x"] <= result["x"] and result["x"] + result["width"] <= cell["x"] + cell["width"]
    inside &= cell["y"] <= result["y"] and result["y"] + result["height"] <= cell["y"] + cell["height"]
    assert inside, (cell, result)
