"""What a table announces before anyone sits down, in Chromium against the real room (daphne, the Celery worker,
PostgreSQL, Redis): its bomb pots (in the lobby, at the table before the hand, and on the felt during one), and a
pause staff ordered, read by a player who opens the table or the lobby after it began. In English and Italian.
Screenshots in var/test/artifacts/."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tables import services
from tables.models import Hand
from tests.factories import act, player_create, sit_now, table_create
from tests.live import DESKTOP, PHONE, needs_chromium, shot
from tests.tables.wsclient import session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def italian(browser, base: str, viewport: dict):
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "django_language", "value": "it", "url": base}])
    return context


def test_bomb_pots_are_announced_in_the_lobby_before_the_hand_and_on_the_felt(live_room, browser):
    """Every second hand a bomb pot of 2 big blinds at 10/20: the lobby's row says so, the table counts down to
    it ("in 2 hands", then "next hand"), and the second hand, dealt on the flop, is labelled on the felt."""
    table = table_create(
        small_blind=10, big_blind=20, bomb_pot_every=2, bomb_pot_ante_bb=2, action_seconds=600
    )
    plain = table_create(small_blind=10, big_blind=20)
    base = live_room.http_url
    errors: list[str] = []
    lobby = browser.new_context(viewport=DESKTOP).new_page()
    lobby.on("pageerror", lambda error: errors.append(str(error)))
    lobby.goto(f"{base}/")
    lobby.wait_for_selector("#lobby-status[data-state=open]")
    row = lobby.locator(f'tr[data-table-id="{table.id}"]')
    expect(row.locator(".bomb-pot-tag")).to_have_text("Bomb pot every 2 hands, ante 2 BB")
    assert lobby.locator(f'tr[data-table-id="{plain.id}"] .bomb-pot-tag').count() == 0
    shot(lobby, "lobby-bomb-pot")

    pages = []
    for viewport in (DESKTOP, PHONE):
        page = browser.new_context(viewport=viewport).new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/tables/{table.id}/")
        pages.append(page)
    for page in pages:
        expect(page.locator("#bomb-pot-next")).to_have_text("Bomb pot in 2 hands")
    assert pages[0].locator("#bomb-pot").is_hidden(), "no hand, no bomb pot on the felt"

    alice, bruno = player_create(), player_create()
    sit_now(table, alice, 1, 2_000)
    sit_now(table, bruno, 2, 2_000)
    for page in pages:
        expect(page.locator("#hand-number")).to_be_visible(timeout=20_000)
        expect(page.locator("#bomb-pot-next")).to_have_text("Bomb pot next hand")
    first = Hand.objects.get(table=table, status="running")
    assert first.config.get("bomb_pot", 0) == 0
    assert pages[0].locator("#bomb-pot").is_hidden(), "the first hand is not one"
    shot(pages[0], "table-bomb-pot-next")
    state = services.hand_engine(hand=first, table=table)
    act(table, alice if state.to_act == 0 else bruno, "fold")

    for page in pages:
        expect(page.locator("#bomb-pot")).to_have_text("Bomb pot · ante 0.40", timeout=20_000)
    bomb = Hand.objects.get(table=table, status="running")
    assert bomb.number == first.number + 1 and bomb.config["bomb_pot"] == 40
    expect(pages[0].locator("#street")).to_have_text("Flop")
    for page in pages:
        assert page.locator("#board .pcard[data-card]").count() == 3, "a bomb pot starts on the flop"
        assert page.locator("#total-pot").get_attribute("data-amount") == "80"
        expect(page.locator("#bomb-pot-next")).to_have_text("Bomb pot in 2 hands")
        shot(page, "table-bomb-pot-hand")

    # The same in Italian.
    page = italian(browser, base, DESKTOP).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/tables/{table.id}/")
    expect(page.locator("#bomb-pot")).to_have_text("Bomb pot · ante 0,40")
    expect(page.locator("#bomb-pot-next")).to_have_text("Bomb pot tra 2 mani")
    page.goto(f"{base}/")
    expect(page.locator(f'tr[data-table-id="{table.id}"] .bomb-pot-tag')).to_have_text(
        "Bomb pot ogni 2 mani, ante 2 BB"
    )
    assert not errors, errors


def test_a_player_who_opens_a_paused_table_later_reads_the_staff_s_notice(live_room, browser):
    """Staff pause a table with a notice while nobody watches it; a player who opens the lobby afterwards sees it
    marked, one who opens the table (or reloads it) reads the notice; when staff resume, it goes away live."""
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "staff-Pass-123")
    alice, bruno = player_create(), player_create()
    table = table_create(small_blind=10, big_blind=20, action_seconds=600)
    other = table_create(small_blind=10, big_blind=20)
    sit_now(table, alice, 1, 2_000)
    services.table_pause(table_id=table.id, staff_user=staff, notice="Back in five minutes")
    base = live_room.http_url
    errors: list[str] = []

    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies([{"name": "sessionid", "value": session_cookie_for(alice), "url": base}])
    lobby = context.new_page()
    lobby.on("pageerror", lambda error: errors.append(str(error)))
    lobby.goto(f"{base}/")
    tag = lobby.locator(f'tr[data-table-id="{table.id}"] .paused-tag')
    expect(tag).to_have_text("Paused")
    assert tag.get_attribute("title") == "Back in five minutes"
    assert lobby.locator(f'tr[data-table-id="{other.id}"] .paused-tag').count() == 0
    lobby.wait_for_selector("#lobby-status[data-state=open]")
    expect(tag).to_have_text("Paused")  # kept by the live list too
    shot(lobby, "lobby-paused-table")

    pages = []
    for viewport in (DESKTOP, PHONE):
        page = (
            context.new_page() if viewport is DESKTOP else browser.new_context(viewport=viewport).new_page()
        )
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/tables/{table.id}/")
        pages.append(page)
    for page in pages:
        notice = page.locator("#table-paused")
        expect(notice).to_have_text(
            "The table is paused: no new hand until it resumes. Staff: Back in five minutes"
        )
        shot(page, "table-paused-on-load")
    pages[0].reload()
    expect(pages[0].locator("#table-paused")).to_contain_text("Back in five minutes")

    it = italian(browser, base, DESKTOP).new_page()
    it.on("pageerror", lambda error: errors.append(str(error)))
    it.goto(f"{base}/tables/{table.id}/")
    expect(it.locator("#table-paused")).to_contain_text("Il tavolo è in pausa")
    it.goto(f"{base}/")
    expect(it.locator(f'tr[data-table-id="{table.id}"] .paused-tag')).to_have_text("In pausa")

    services.table_resume(table_id=table.id, staff_user=staff)
    for page in pages:
        expect(page.locator("#table-paused")).to_be_hidden()
    expect(lobby.locator(f'tr[data-table-id="{table.id}"] .paused-tag')).to_have_count(0)
    sit_now(table, bruno, 2, 2_000)
    expect(pages[0].locator("#hand-number")).to_be_visible(timeout=20_000)  # dealing again
    assert not errors, errors
