"""Two players run a board twice, in Chromium against the real room (daphne, the Celery worker, PostgreSQL,
Redis): each ticks "Run it twice" under the table, both go all in before the flop, and both pages draw the two
boards and each run's winners in the pots, as the stored hand says. Screenshots go to var/test/artifacts/."""

import time

import pytest

from tables.models import Hand, Seat
from tests.factories import table_create
from tests.live import DESKTOP, PHONE, needs_chromium, shot, sign_up, sit_down, visible_actions

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def player_page(browser, base: str, name: str, viewport: dict, errors: list):
    page = browser.new_context(viewport=viewport).new_page()
    page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
    sign_up(page, base, name)
    return page


def wait_until(condition, *, timeout: float = 20, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def to_act(pages):
    """The page whose player is to act and has not answered yet (its action bar is live), or None."""
    return next(
        (p for p in pages if p.locator('#action-bar:not(.is-pending) [data-action="fold"]').is_visible()),
        None,
    )


def test_two_players_all_in_before_the_flop_see_the_board_run_twice(live_room, browser):
    table = table_create(seats=6, small_blind=50, big_blind=100, action_seconds=30)
    base = live_room.http_url
    errors: list[str] = []
    alice = player_page(browser, base, "alice_twice", DESKTOP, errors)
    bruno = player_page(browser, base, "bruno_twice", PHONE, errors)
    pages = [alice, bruno]
    for page, seat in ((alice, 1), (bruno, 4)):
        page.goto(f"{base}/tables/{table.id}/")
        sit_down(page, seat, "100.00")
        page.wait_for_selector("#seat-controls:not([hidden]) #run-twice")
        assert page.locator("label:has(#run-twice)").inner_text().strip() == "Run it twice"
        page.check("#run-twice")
    wait_until(
        lambda: Seat.objects.filter(table=table, run_twice=True).count() == 2, what="both options saved"
    )

    # A hand dealt before both had ticked it is folded; the first hand dealt with both on goes all in.
    deadline = time.monotonic() + 90

    def run_twice_done() -> bool:
        return any(
            len(h.result.get("boards", [])) == 2 for h in Hand.objects.filter(table=table, status="complete")
        )

    while not run_twice_done():
        assert time.monotonic() < deadline, "no board run twice"
        page = to_act(pages)
        if page is None:
            alice.wait_for_timeout(100)
            continue
        hand = Hand.objects.filter(table=table, status="running").first()
        if hand is None:
            continue
        both = len(hand.config.get("run_twice", [])) == 2
        actions = visible_actions(page)
        choice = next(a for a in (("all_in", "call") if both else ("fold", "check")) if a in actions)
        page.locator(f'#action-bar [data-action="{choice}"]').click(timeout=5_000)
        page.wait_for_timeout(200)

    hand = next(
        h for h in Hand.objects.filter(table=table, status="complete") if len(h.result["boards"]) == 2
    )
    first, second = hand.result["boards"]
    for page in pages:
        page.wait_for_selector("#board-2:not([hidden]) .pcard[data-card]")
        boards = [
            page.locator(f"{board} .pcard[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
            for board in ("#board", "#board-2")
        ]
        assert boards == [first, second]
        assert page.locator("#board .run-label").text_content().strip() == "Run 1"
        drawn = page.locator("#pots.is-final .run-winner").evaluate_all(
            "els => els.map(e => [Number(e.dataset.run), Number(e.dataset.seat)])"
        )
        expected = [
            [run["run"], int(seat) + 1]
            for pot in hand.result["pots"]
            for run in pot["runs"]
            for seat, amount in run["winners"].items()
            if amount
        ]
        assert sorted(drawn) == sorted(expected) and {r for r, _seat in drawn} == {1, 2}
        shot(page, "table-run-it-twice")

    # The replayer tells both runs: both boards at the end, each run's winners.
    alice.goto(f"{base}/hands/{hand.id}/")
    alice.wait_for_selector('#replay-step[data-index="0"]', timeout=15_000)
    alice.click('[data-control="last"]')
    alice.wait_for_selector("#board-2:not([hidden]) .pcard[data-card]")
    assert [
        alice.locator(f"{board} .pcard[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        for board in ("#board", "#board-2")
    ] == [first, second]
    runs = alice.locator("#replay-winners li[data-run]").evaluate_all(
        "els => els.map(e => Number(e.dataset.run))"
    )
    assert set(runs) == {1, 2}
    shot(alice, "replayer-run-it-twice")
    assert not errors, errors
