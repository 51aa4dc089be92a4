"""Side pots, waiting lists and seats coming free, in Chromium against the real room (daphne, a Celery worker,
PostgreSQL, Redis), as players see them (issues 16 and 18): a three-way all-in with different stacks ends with
a side pot named on the felt with its amount and winner; a new player on a phone waits on a full table's list
and is seated from it; a player who sits out past the table's limit finds the seat free, is told why, and has
the chips back in the wallet. Screenshots in var/test/artifacts/."""

import time

import pytest
from django.contrib.auth import get_user_model

from cashier.selectors import ledger_check, wallet_balances
from tables import services
from tables.models import Hand, Seat, Table
from tests.factories import act, legal_now, player_create, table_create, to_act_user
from tests.factories import sit_now as sit
from tests.live import DESKTOP, PHONE, needs_chromium, shot, sign_up, sit_down
from tests.tables.wsclient import session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def chips(amount: int) -> str:
    """An amount of play chips as the pages write it (English): 6000 -> "60.00"."""
    return f"{amount / 100:,.2f}"


def wait_until(condition, *, timeout: float = 20, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


POTS = """() => [...document.querySelectorAll('#pots.is-final .pot')].map((el) => ({
  cls: el.className, label: el.querySelector('.pot-label').textContent,
  amount: el.dataset.amount, rake: el.dataset.rake, net: el.dataset.net,
  shown: el.querySelector('.pot-net').textContent, visible: el.offsetParent !== null,
  inWindow: el.getBoundingClientRect().bottom <= innerHeight && el.getBoundingClientRect().top >= 0,
  winners: [...el.querySelectorAll('.pot-winner')].map((w) => w.textContent),
  grossAndRake: el.querySelector('.pot-rake').textContent,
}))"""


CONTROLS = """() => {
  const box = document.querySelector('#seat-controls').getBoundingClientRect();
  const parts = [...document.querySelectorAll('#seat-controls *')].filter((el) => el.offsetParent !== null)
    .map((el) => ({ id: el.id || el.className || el.tagName, right: el.getBoundingClientRect().right }));
  const height = (sel) => document.querySelector(sel).getBoundingClientRect().height;
  return { right: box.right, parts, sitIn: height('#sit-in'), topUp: height('#top-up'),
    pageHeight: document.documentElement.scrollHeight };
}"""


def test_a_three_way_all_in_shows_its_side_pot_with_amount_and_winner(live_room, browser):
    # 0.50/1.00; stacks of 100.00, 30.00 and 60.00: a main pot of 90.00, a side pot of 60.00 between the two
    # bigger stacks, and 40.00 of the biggest returned. Paused while everyone sits, so all three are dealt in.
    table = table_create(seats=3, small_blind=50, big_blind=100, action_seconds=600, paused=True)
    alice, bob, carol = (player_create() for _ in range(3))
    base = live_room.http_url
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies([{"name": "sessionid", "value": session_cookie_for(alice), "url": base}])
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/tables/{table.id}/")
    sit_down(page, 1, "100.00")
    page.wait_for_selector('.seat.is-me[data-seat="1"]')
    sit(table, bob, 2, 3_000)
    sit(table, carol, 3, 6_000)
    Table.objects.filter(pk=table.pk).update(paused=False)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None and len(hand.players) == 3

    # Everyone all in: Alice from her action bar, the others through the table's services.
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "the hand did not end"
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            break
        user = to_act_user(table, [alice, bob, carol])
        if user == alice:
            button = page.locator('#action-bar:not(.is-pending) [data-action="all_in"]')
            if button.is_visible():
                button.click()
            page.wait_for_timeout(100)
            continue
        legal = legal_now(table, hand)
        act(table, user, "all_in" if "all_in" in legal else "call")

    result = Hand.objects.get(pk=hand.pk).result
    assert [pot["amount"] for pot in result["pots"]] == [9_000, 6_000]
    names = {0: alice.username, 1: bob.username, 2: carol.username}
    page.wait_for_selector("#pots.is-final .pot.side")
    pots = page.evaluate(POTS)  # read at once: the table holds the showdown only until the next deal
    shot(page, "table-side-pot")
    assert [pot["label"] for pot in pots] == ["Main pot", "Side pot 1"]
    for drawn, pot in zip(pots, result["pots"], strict=True):
        assert drawn["visible"] and drawn["inWindow"], drawn
        assert [drawn["amount"], drawn["rake"], drawn["net"]] == [
            str(pot["amount"]),
            str(pot["rake"]),
            str(pot["net"]),
        ]
        assert drawn["shown"] == f"{chips(pot['net'])} chips"
        expected = sorted(
            f"{names[int(seat)]} won {chips(amount)}" for seat, amount in pot["winners"].items() if amount
        )
        assert expected and sorted(drawn["winners"]) == expected
    side = pots[1]
    # Bob, all in for 30.00, has no part in the side pot: only Alice or Carol can be named its winner.
    assert not any(bob.username in line for line in side["winners"])
    assert side["grossAndRake"] == f"gross 60.00 · rake {chips(result['pots'][1]['rake'])}"
    assert not errors, errors
    report = ledger_check()
    assert report.ok, report.violations


def test_a_new_player_on_a_phone_waits_on_a_full_table_and_is_seated_from_the_list(live_room, browser):
    bob, carol = player_create(), player_create()
    table = table_create(seats=2, small_blind=10, big_blind=20, action_seconds=600)
    sit(table, bob, 1, 1_000)
    sit(table, carol, 2, 1_000)
    for user in (bob, carol):
        services.seat_sit_out(table_id=table.id, user=user)  # a quiet, full table
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport=PHONE).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "gina_phone")
    gina = get_user_model().objects.get(username="gina_phone")
    welcome = wallet_balances(user=gina)["play"]

    # In the lobby, on the phone: the full table's row has the button that puts her on its list.
    page.goto(f"{base}/")
    wait = page.locator(f'tr[data-table-id="{table.id}"] button.wait-toggle')
    wait.wait_for()
    box = wait.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], "the Wait button off the screen"
    wait.click()
    page.wait_for_selector("#lobby-notice:not([hidden])")
    assert "1 of 1" in page.locator("#lobby-notice").inner_text()
    shot(page, "lobby-waiting-on-a-phone")

    # A seat comes free: she is offered it in the lobby, follows the offer to the table and takes it.
    services.seat_leave(table_id=table.id, user=carol)
    page.wait_for_selector("#lobby-offer-take")
    assert "Seat 2" in page.locator("#lobby-notice").inner_text()
    shot(page, "lobby-seat-offered-on-a-phone")
    page.click("#lobby-offer-take")
    page.wait_for_selector("#waiting-take")
    assert "Seat 2" in page.locator("#waiting-offer").inner_text()
    take = page.locator("#waiting-take").bounding_box()
    assert take and take["x"] >= 0 and take["x"] + take["width"] <= PHONE["width"], (
        "the button off the screen"
    )
    shot(page, "table-seat-offered-on-a-phone")
    page.click("#waiting-take")
    page.fill("#buy-in-amount", "10")  # 10.00 chips: 1,000 in the smallest unit
    page.click("#buy-in-confirm")
    page.wait_for_selector('.seat.is-me[data-seat="2"]')
    page.wait_for_selector("#seat-controls:not([hidden])")
    shot(page, "table-seated-from-the-list-on-a-phone")
    assert Seat.objects.get(table=table, number=2).user_id == gina.id
    table.refresh_from_db()
    assert table.waiting_count == 0
    assert wallet_balances(user=gina)["play"] == welcome - 1_000
    assert not errors, errors
    report = ledger_check()
    assert report.ok, report.violations


def test_a_player_who_sits_out_too_long_loses_the_seat_and_gets_the_chips_back(live_room_with_beat, browser):
    table = table_create(seats=6, small_blind=10, big_blind=20, sit_out_limit_seconds=3)
    base = live_room_with_beat.http_url
    errors: list[str] = []
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "ugo_away")
    page.goto(f"{base}/accounts/profile/")
    welcome = page.locator('[data-balance="play"]').inner_text()
    assert "10,000.00" in welcome, welcome

    page.goto(f"{base}/tables/{table.id}/")
    sit_down(page, 3, "15.00")
    page.wait_for_selector('.seat.is-me[data-seat="3"]')
    page.click("#sit-out")
    # Sitting out, the player is told until when the seat is kept.
    page.wait_for_selector("#kept-until:not([hidden])")
    # What a sitting-out player has under the table fits its panel: Sit in on one line, nothing sticking out.
    layout = page.evaluate(CONTROLS)
    assert not [part for part in layout["parts"] if part["right"] > layout["right"] + 0.5], layout
    assert layout["sitIn"] <= layout["topUp"] + 0.5, "the Sit in button breaks over two lines"
    assert layout["pageHeight"] <= DESKTOP["height"], "the page scrolls"
    shot(page, "table-sitting-out-kept-until")

    # After the limit the sweep frees the seat: the player is told why, on the felt and in the log.
    page.wait_for_selector("#toast:not([hidden])", timeout=20_000)
    toast = page.locator("#toast").inner_text()
    assert "sat out too long" in toast and "chips are back in your wallet" in toast, toast
    page.wait_for_selector("#chat-log >> text=ugo_away sat out too long and left the table")
    page.wait_for_selector('.sit-here[data-seat="3"]')
    assert page.locator(".seat.is-me").count() == 0
    assert page.locator("#seat-controls").is_hidden()
    shot(page, "table-seat-freed-after-sitting-out")
    assert Seat.objects.get(table=table, number=3).user_id is None

    # The 15.00 bought in are back: the wallet shows what it held before she sat down.
    page.goto(f"{base}/accounts/profile/")
    assert page.locator('[data-balance="play"]').inner_text() == welcome
    user = get_user_model().objects.get(username="ugo_away")
    assert wallet_balances(user=user)["play"] == 1_000_000
    assert not errors, errors
    report = ledger_check()
    assert report.ok, report.violations
