"""A member of staff at work in a real browser (Debian's headless Chromium) against daphne: the dashboard, a
player's page and a table's page, saved as screenshots in var/test/artifacts/."""

import pytest
from django.contrib.auth import get_user_model

from cashier import services as cashier
from tests.admin_client import totp_code, two_factor_device
from tests.factories import CARD_OK, hand_played, new_key, player_create, table_create
from tests.factories import sit_now as sit
from tests.live import ARTIFACTS, needs_chromium

pytestmark = [
    pytest.mark.live,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    needs_chromium,
]


def test_staff_see_the_dashboard_a_player_and_a_table(live_room, browser, monkeypatch):
    from tables import services

    monkeypatch.setattr(services, "DEAL_PAUSE_SECONDS", 0)
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "staff-Pass-123")
    device = two_factor_device(boss)  # staff need two-factor sign-in before any admin page
    anna, bruno = player_create(verified=True), player_create()
    anna.email, anna.first_name, anna.last_name = "anna@example.com", "Anna", "Rossi"
    anna.save()
    cashier.deposit_create(user=anna, amount=25_000, card_number=CARD_OK, idempotency_key=new_key())
    cashier.withdrawal_request(user=anna, amount=5_000, card_number=CARD_OK, idempotency_key=new_key())
    table = table_create(small_blind=50, big_blind=100, action_seconds=600)
    sit(table, anna, 1, 5_000)
    sit(table, bruno, 2, 5_000)
    hand_played(table, [anna, bruno])
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "staff-Pass-123")
    page.click("input[type=submit]")
    page.fill("#id_code", totp_code(device))
    page.click("button[type=submit].primary")
    page.wait_for_selector("#dashboard")
    assert page.locator("#figure-players .value").inner_text() == "2"
    assert "1" == page.locator("#figure-withdrawals .value").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-dashboard.png"), full_page=True)

    page.goto(f"{base}/admin/staff/player/")
    page.fill("#searchbar", "anna@example.com")
    page.press("#searchbar", "Enter")
    page.click(f"text={anna.username}")
    page.wait_for_selector("#player-wallets")
    assert "€" in page.locator("#player-wallets").inner_text()
    assert table.name in page.locator("#player-seats").inner_text()
    page.screenshot(path=str(ARTIFACTS / "admin-player-page.png"), full_page=True)

    page.goto(f"{base}/admin/tables/table/{table.pk}/change/")
    page.wait_for_selector(".field-seated_now")
    assert anna.username in page.locator(".field-seated_now").inner_text()
    page.screenshot(path=str(ARTIFACTS / "admin-table.png"), full_page=True)

    page.select_option("#staff-language", "it")
    page.click(".staff-language button")
    page.wait_for_selector("text=Seduti ora")
    page.goto(f"{base}/admin/")
    page.wait_for_selector("text=La sala adesso")
    page.screenshot(path=str(ARTIFACTS / "admin-dashboard-it.png"), full_page=True)
    assert not errors, errors
