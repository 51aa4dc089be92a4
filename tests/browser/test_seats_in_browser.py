"""Seats come free, in a real browser (Debian's headless Chromium) against daphne and a worker: staff use the
table's controls (cancel the hand in play, pause with a notice), and a player waits on a full table's list
and is offered a seat. Screenshots in var/test/artifacts/."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from cashier.selectors import ledger_check
from staff.models import AuditEntry
from tables import services
from tables.models import Hand
from tests.admin_client import totp_code, two_factor_device
from tests.factories import player_create, table_create
from tests.factories import sit_now as sit
from tests.live import ARTIFACTS, needs_chromium
from tests.tables.wsclient import session_cookie_for

pytestmark = [
    pytest.mark.live,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    needs_chromium,
]


def test_staff_cancel_a_hand_and_pause_a_table_from_its_page(live_room, browser):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "staff-Pass-123")
    device = two_factor_device(boss)  # staff need two-factor sign-in before any admin page
    players = [player_create() for _ in range(3)]
    table = table_create(small_blind=10, big_blind=20, action_seconds=600)
    for number, user in enumerate(players, start=1):
        sit(table, user, number, 1_000)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    base = live_room.http_url
    errors: list[str] = []
    # One of the players watches the table while staff work.
    player = browser.new_context(viewport={"width": 1366, "height": 768})
    player.add_cookies([{"name": "sessionid", "value": session_cookie_for(players[0]), "url": base}])
    at_table = player.new_page()
    at_table.on("pageerror", lambda error: errors.append(str(error)))
    at_table.goto(f"{base}/tables/{table.id}/")
    at_table.wait_for_selector("#seat-controls:not([hidden])")
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "staff-Pass-123")
    page.click("input[type=submit]")
    page.fill("#id_code", totp_code(device))
    page.click("button[type=submit].primary")
    page.wait_for_selector("#dashboard")

    page.goto(f"{base}/admin/tables/table/{table.pk}/change/")
    page.wait_for_selector("#table-controls")
    assert f"#{hand.pk}" in page.locator("#table-controls").inner_text()
    assert players[0].username in page.locator("#table-controls-seats").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-table-controls.png"), full_page=True)

    page.click("#control-cancel-hand")
    page.fill("#id_note", "a misdeal")
    page.click("input[type=submit][value='Confirm']")
    page.wait_for_selector("text=every bet went back")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.CANCELLED
    assert AuditEntry.objects.filter(action="hand.cancel", note="a misdeal").exists()
    at_table.wait_for_selector(f"#chat-log >> text=Hand #{hand.id} was cancelled")
    assert "every bet returned" in at_table.locator("#hand-history").inner_text()

    page.click("#control-pause")
    page.fill("#id_text", "Back in five minutes")
    page.click("input[type=submit][value='Confirm']")
    page.wait_for_selector("#control-resume")
    assert "Back in five minutes" in page.locator("#table-controls").inner_text()
    page.screenshot(path=str(ARTIFACTS / "admin-table-controls-paused.png"), full_page=True)
    at_table.wait_for_selector("#chat-log >> text=Back in five minutes")
    at_table.screenshot(path=str(ARTIFACTS / "table-paused-by-staff.png"))
    table.refresh_from_db()
    assert table.paused
    assert not errors, errors
    report = ledger_check()
    assert report.ok, report.violations


def test_a_player_waits_on_a_full_table_and_is_offered_the_seat(live_room, browser):
    alice, bob, carol = (player_create() for _ in range(3))
    table = table_create(seats=2, small_blind=10, big_blind=20, action_seconds=600)
    sit(table, alice, 1, 1_000)
    sit(table, bob, 2, 1_000)
    for user in (alice, bob):
        services.seat_sit_out(table_id=table.id, user=user)  # a quiet table
    base = live_room.http_url
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies([{"name": "sessionid", "value": session_cookie_for(carol), "url": base}])
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{base}/tables/{table.id}/")
    page.click("#waiting-join")
    page.wait_for_selector("#waiting-position")
    assert "1 of 1" in page.locator("#waiting-position").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "table-waiting-list.png"))

    services.seat_leave(table_id=table.id, user=bob)
    page.wait_for_selector("#waiting-take")
    assert "Seat 2" in page.locator("#waiting-offer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "table-seat-offered.png"))
    page.click("#waiting-take")
    page.fill("#buy-in-amount", "10")  # 10.00 chips: 1,000 in the smallest unit
    page.click("#buy-in-confirm")
    page.wait_for_selector("#seat-controls:not([hidden])")
    table.refresh_from_db()
    assert table.waiting_count == 0

    # Full again: in the lobby, another player joins its list from the table's row.
    dave = player_create()
    other = browser.new_context(viewport={"width": 1366, "height": 768})
    other.add_cookies([{"name": "sessionid", "value": session_cookie_for(dave), "url": base}])
    lobby = other.new_page()
    lobby.on("pageerror", lambda error: errors.append(str(error)))
    lobby.goto(f"{base}/")
    row = lobby.locator(f'tr[data-table-id="{table.id}"]')
    row.locator("button.wait-toggle").click()
    lobby.wait_for_selector("#lobby-notice:not([hidden])")
    assert "1 of 1" in lobby.locator("#lobby-notice").inner_text()
    # a locator's wait, not wait_for_function: the pages' Content-Security-Policy refuses evaluating a string
    expect(lobby.locator(f'tr[data-table-id="{table.id}"] .waiting-count')).to_have_text("1")
    lobby.screenshot(path=str(ARTIFACTS / "lobby-waiting.png"))
    assert not errors, errors
