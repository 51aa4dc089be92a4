"""Two people sign up in a real browser (Debian's headless Chromium), sit down and play: a hand to a fold and
a hand to a showdown, seeing only the buttons and amounts the rules allow."""

import re

import pytest

from tables.models import Hand
from tests.factories import hand_settled, table_create
from tests.live import ARTIFACTS, acting, needs_chromium, sign_up, sit_down, visible_actions

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def hand_listed(table, number: int) -> str:
    """The selector of the table's hand `number` in the Last hands panel (listed by its id, as My hands and the
    histories number it)."""
    hand_id = Hand.objects.filter(table=table, number=number).values_list("id", flat=True).first()
    return f'#hand-history li[data-hand="{hand_id}"]'


def test_two_players_play_a_hand_to_a_fold_and_one_to_a_showdown(live_room, browser):
    table = table_create(seats=6, small_blind=50, big_blind=100, action_seconds=30)
    base = live_room.http_url
    errors: list[str] = []
    pages = []
    for name in ("alice", "bruno"):
        page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_up(page, base, name)
        page.goto(f"{base}/tables/{table.id}/")
        pages.append(page)
    alice, bruno = pages
    sit_down(alice, 1, "100.00")
    sit_down(bruno, 2, "80.00")

    # Hand 1, heads-up: the button posts the small blind and acts first: fold, call 0.50 more, raise, all-in
    page = acting(pages)
    other = bruno if page is alice else alice
    assert visible_actions(page) >= {"fold", "call", "raise", "all_in"}
    assert "check" not in visible_actions(page)
    assert "0.50" in page.locator('#action-bar [data-action="call"]').inner_text()
    assert not other.locator('#action-bar [data-action="fold"]').is_visible(), (
        "only the player to act gets buttons"
    )
    page.locator('[data-preset="min"]').click()
    assert page.locator("#amount-input").input_value() in ("2.00", "2")
    page.locator('#action-bar [data-action="fold"]').click()
    for p in pages:
        p.wait_for_selector(hand_listed(table, 1), timeout=15_000)

    # Hand 2: call and check down to the showdown
    for _ in range(40):
        if (
            Hand.objects.filter(table=table, number=2).exists()
            and alice.locator(hand_listed(table, 2)).count()
        ):
            break
        try:
            page = acting(pages, timeout_ms=1_000)
        except AssertionError:
            continue
        actions = visible_actions(page)
        choice = "check" if "check" in actions else "call" if "call" in actions else None
        if choice:
            page.locator(f'#action-bar [data-action="{choice}"]').click()
        page.wait_for_timeout(300)
    alice.wait_for_selector(hand_listed(table, 2), timeout=15_000)
    hand_settled(Hand.objects.get(table=table, number=2).id)
    board = alice.locator("#board .card")
    assert board.count() == 5
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "table-showdown.png"))
    stacks = [
        re.sub(r"[^0-9.]", "", alice.locator(f'.seat[data-seat="{n}"] .stack').inner_text()) for n in (1, 2)
    ]
    rakes = [
        hand.result["rake"] for hand in Hand.objects.filter(table=table, status="complete").order_by("number")
    ]
    assert rakes[0] == 0 and rakes[1] == 200 // 18, "no flop, no drop; then 1 per whole 18 of the pot"
    assert sum(round(float(s) * 100) for s in stacks) + sum(rakes) == 18_000, "no chip created or lost"
    assert not errors, errors
