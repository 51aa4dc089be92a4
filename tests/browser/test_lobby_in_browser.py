"""The lobby in Chromium against the real room: one order on every visit, columns that sort, a stakes filter
that tells FL200 from NL200, and a look at who sits at a table before opening it."""

import pytest

from tables import services
from tables.models import Currency, Game, Structure
from tests.factories import player_create, table_create
from tests.live import ARTIFACTS, needs_chromium

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def lobby_table(name: str, big_blind: int, structure=Structure.NO_LIMIT, currency=Currency.PLAY):
    table = table_create(small_blind=big_blind // 2, big_blind=big_blind, structure=structure)
    table.name, table.currency = name, currency
    table.save(update_fields=["name", "currency"])
    return table


OURS = ("Euro NL20", "Micro NL2", "Fixed FL200", "Busy NL200")


def names(page) -> list[str]:
    """This test's tables as the lobby shows them, in its order (other tests' tables may be open too)."""
    shown = [n.strip() for n in page.locator("tr[data-table-id]:visible td.name").all_inner_texts()]
    return [n for n in shown if n in OURS]


def test_the_lobby_sorts_filters_and_shows_who_sits(live_room, browser):
    busy = lobby_table("Busy NL200", 200)
    lobby_table("Fixed FL200", 200, Structure.FIXED_LIMIT)
    lobby_table("Micro NL2", 2)
    lobby_table("Euro NL20", 20, currency=Currency.EUR)
    alice, bot = player_create(), player_create(bot=True)
    services.seat_take(table_id=busy.id, user=alice, seat_number=1, buy_in=15_000, post="wait_bb")
    services.seat_take(table_id=busy.id, user=bot, seat_number=3, buy_in=20_000, post="wait_bb")

    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_room.http_url}/")
    page.wait_for_selector("#lobby-status[data-state=open]")
    # currency, big blind, structure (its code: fl, nl, pl), name
    server_order = ["Euro NL20", "Micro NL2", "Fixed FL200", "Busy NL200"]
    assert names(page) == server_order
    page.reload()
    page.wait_for_selector("#lobby-status[data-state=open]")
    assert names(page) == server_order, "the same order on every visit"

    page.click('th[data-sort="players"] button.sort')
    assert names(page)[-1] == "Busy NL200"
    assert page.get_attribute('th[data-sort="players"]', "aria-sort") == "ascending"
    page.click('th[data-sort="players"] button.sort')
    assert names(page)[0] == "Busy NL200"
    page.click('th[data-sort="name"] button.sort')
    assert names(page) == sorted(server_order)
    page.reload()
    page.wait_for_selector("#lobby-status[data-state=open]")
    assert names(page) == sorted(server_order), "the sort is remembered"

    options = page.locator('select[name="stakes"] option').all_inner_texts()
    assert [o for o in options if o in ("NL2", "NL20", "NL200", "FL200")] == ["NL2", "NL20", "NL200", "FL200"]
    assert len(options) == len(set(options)), "each stakes name once"
    page.select_option('select[name="stakes"]', "FL200")
    assert names(page) == ["Fixed FL200"]
    page.select_option('select[name="stakes"]', "NL200")
    assert names(page) == ["Busy NL200"]

    page.click(f'tr[data-table-id="{busy.id}"] button.seat-count')
    preview = page.locator("tr.lobby-preview")
    preview.locator("li").first.wait_for()
    assert preview.locator(".preview-name").all_inner_texts() == [alice.username, bot.username]
    assert preview.locator(".preview-stack").all_inner_texts() == ["150.00 chips", "200.00 chips"]
    assert preview.locator(".bot-tag").count() == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lobby-preview-1366x768.png"), full_page=True)
    assert page.url.rstrip("/") == live_room.http_url, "opening the preview does not open the table"
    assert not errors, errors


def test_the_game_filter_shows_exactly_the_omaha_or_the_omaha_hi_lo_tables(live_room, browser):
    """Hold'em, Pot-Limit Omaha and Omaha Hi-Lo (Pot- and Fixed-Limit) tables open: choosing Omaha shows the
    Omaha table alone, Omaha Hi-Lo the two Hi-Lo tables alone, and "All" every table again; the count says so."""
    made = {
        "Holdem NL": table_create(),
        "Omaha PL": table_create(game=Game.OMAHA, structure=Structure.POT_LIMIT),
        "HiLo PL": table_create(game=Game.OMAHA_HILO, structure=Structure.POT_LIMIT),
        "HiLo FL": table_create(game=Game.OMAHA_HILO, structure=Structure.FIXED_LIMIT),
    }
    for name, table in made.items():
        table.name = name
        table.save(update_fields=["name"])
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_room.http_url}/")
    page.wait_for_selector("#lobby-status[data-state=open]")

    def shown() -> list[str]:
        return sorted(
            n.strip() for n in page.locator("tr[data-table-id]:visible td.name a").all_inner_texts()
        )

    assert shown() == sorted(made)
    page.select_option('select[name="game"]', "omaha")
    assert shown() == ["Omaha PL"]
    assert page.locator("#lobby-count").inner_text() == "1 of 4 tables"
    assert page.locator("tr[data-table-id]:visible td.game").all_inner_texts() == ["Omaha"]
    page.select_option('select[name="game"]', "omaha_hilo")
    assert shown() == ["HiLo FL", "HiLo PL"]
    assert set(page.locator("tr[data-table-id]:visible td.game").all_inner_texts()) == {"Omaha Hi-Lo"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lobby-filter-omaha-hi-lo-1366x768.png"), full_page=True)
    page.reload()
    page.wait_for_selector("#lobby-status[data-state=open]")
    assert shown() == ["HiLo FL", "HiLo PL"], "the filter is remembered"
    page.select_option('select[name="game"]', "")
    assert shown() == sorted(made)
    assert not errors, errors
