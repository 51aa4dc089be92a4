"""A day of staff work in Chromium against daphne (issue 36): a withdrawal held by a flagged deposit, a balance
adjustment proposed by one member of staff and approved by another, a table closed with people seated; then
every staff page this round touched, at 1366x768 and at 390 px wide, in English and Italian, saved in
var/test/artifacts/ (staff-<page>-<width>-<language>.png). The ledger is checked at the end."""

import pytest
from django.contrib.auth import get_user_model

from cashier import services as cashier
from cashier.models import Adjustment, SeatSession, Withdrawal
from cashier.selectors import ledger_check, wallet_balances
from staff.models import DepositFlag
from tables.models import Seat
from tests.admin_client import totp_code, two_factor_device
from tests.factories import CARD_OK, new_key, player_create, table_create
from tests.factories import sit_now as sit
from tests.live import ARTIFACTS, needs_chromium

pytestmark = [
    pytest.mark.live,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    needs_chromium,
]

PASSWORD = "staff-Pass-123"


def _staff_page(browser, base, username, *, width=1366, height=768, language="en"):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    device = two_factor_device(get_user_model().objects.get(username=username))  # staff have their app set up
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.fill("#id_code", totp_code(device))
    page.click("button[type=submit].primary")
    page.wait_for_selector("#dashboard")
    return page


def test_a_day_of_staff_work_and_every_page_at_two_widths_in_two_languages(live_room, browser, settings):
    settings.ADJUSTMENT_SECOND_APPROVAL_FROM = 10_000
    users = get_user_model().objects
    users.create_superuser("boss", "boss@example.com", PASSWORD)
    users.create_superuser("carla", "carla@example.com", PASSWORD)
    anna, bruno = player_create(verified=True), player_create()
    deposit = cashier.deposit_create(
        user=anna, amount=150_000, card_number=CARD_OK, idempotency_key=new_key()
    )
    assert DepositFlag.objects.filter(deposit=deposit).exists(), "EUR 1,500: flagged for review"
    withdrawal = cashier.withdrawal_request(
        user=anna, amount=120_000, card_number=CARD_OK, idempotency_key=new_key()
    )
    table = table_create(small_blind=50, big_blind=100, action_seconds=600)
    sit(table, anna, 1, 5_000)
    sit(table, bruno, 2, 5_000)
    base = live_room.http_url
    boss = _staff_page(browser, base, "boss")

    # The held withdrawal: the reviewer sees why, and the approval is refused with it.
    boss.goto(f"{base}/admin/cashier/withdrawal/{withdrawal.pk}/change/")
    assert f"deposit #{deposit.pk}" in boss.locator("#withdrawal-holds").inner_text()
    boss.click("text=Approve…")
    boss.click("input[type=submit][value=Confirm]")
    assert "flagged for review" in boss.locator(".messagelist").inner_text()
    assert Withdrawal.objects.get(pk=withdrawal.pk).first_approved_by_id is None

    # An adjustment of EUR 150.00: proposed by the boss, approved by Carla.
    boss.goto(f"{base}/admin/staff/player/{anna.pk}/change/")
    boss.click("#player-adjustments a")
    assert boss.input_value("#id_player") == anna.username
    boss.select_option("#id_currency", "eur")
    boss.fill("#id_amount", "150.00")
    boss.select_option("#id_reason_code", "goodwill")
    boss.fill("#id_note", "Disconnection during hand, ticket 412")
    boss.click("input[type=submit][value=Confirm]")
    assert "another member of staff must approve it" in boss.locator(".messagelist").inner_text()
    adjustment = Adjustment.objects.get(user=anna)
    carla = _staff_page(browser, base, "carla")
    carla.goto(f"{base}/admin/cashier/adjustment/{adjustment.pk}/change/")
    carla.click("#adjustment-decision >> text=Approve…")
    carla.click("input[type=submit][value=Confirm]")
    assert "Adjustment booked" in carla.locator(".messagelist").inner_text()
    assert wallet_balances(user=anna)["eur"] == 150_000 - 120_000 + 15_000

    # The table closed with two people seated: both cashed out, told, and the table out of the lobby.
    boss.goto(f"{base}/admin/tables/table/{table.pk}/change/")
    boss.click("#control-close")
    boss.fill("#id_text", "Closing for the night")
    boss.click("input[type=submit][value=Confirm]")
    told = boss.locator(".messagelist").inner_text()
    assert "The table is closed." in told and anna.username in told and bruno.username in told
    assert not Seat.objects.filter(table=table, user__isnull=False, leave_after_hand=False).exists()

    pages = {
        "dashboard": "/admin/",
        "withdrawal": f"/admin/cashier/withdrawal/{withdrawal.pk}/change/",
        "adjustments": "/admin/cashier/adjustment/",
        "adjustment-propose": "/admin/cashier/adjustment/propose/",
        "player": f"/admin/staff/player/{anna.pk}/change/",
        "table": f"/admin/tables/table/{table.pk}/change/",
        "table-close": f"/admin/tables/table/{table.pk}/close/",
        "hands": "/admin/tables/hand/",
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    overflow: dict[str, int] = {}
    for width, height in ((1366, 768), (390, 844)):
        for language in ("en", "it"):
            page = (
                boss
                if (width, language) == (1366, "en")
                else _staff_page(browser, base, "boss", width=width, height=height, language=language)
            )
            for name, path in pages.items():
                response = page.goto(f"{base}{path}")
                assert response.status == 200, (name, width, language, response.status)
                if language == "it":
                    assert page.locator("html").get_attribute("lang") == "it", (name, width)
                overflow[f"{name}-{width}-{language}"] = page.evaluate(
                    "document.documentElement.scrollWidth - window.innerWidth"
                )
                page.screenshot(path=str(ARTIFACTS / f"staff-{name}-{width}-{language}.png"), full_page=True)
            assert not page.errors, page.errors
    (ARTIFACTS / "staff-overflow.txt").write_text(
        "".join(f"{key}: {value}\n" for key, value in sorted(overflow.items()))
    )
    assert not {key: value for key, value in overflow.items() if value > 0}, "no page scrolls sideways"
    report = ledger_check()
    assert report.ok, report.violations
    assert SeatSession.objects.filter(table=table, closed_at__isnull=True).count() <= 2
