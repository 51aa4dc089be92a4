"""The pages under the Content-Security-Policy in Chromium (issue 11): no script is refused on any page, the
language menu works without its old inline handler, and the table's chat shows each line with its author's
name, to a seated player who may write and a logged-in spectator who may only read."""

import pytest

from tables import services
from tests.factories import player_create, table_create
from tests.live import needs_chromium

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def watched(context):
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on(
        "console",
        lambda message: (
            problems.append(f"console: {message.text}")
            if message.type == "error" or "Content Security Policy" in message.text
            else None
        ),
    )
    return page, problems


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-Secret-123")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")


def test_pages_run_under_the_policy_the_language_menu_and_the_chat_work(live_room, browser):
    base = live_room.http_url
    table = table_create()
    alice, bob = player_create(), player_create()
    services.seat_take(table_id=table.id, user=alice, seat_number=2, buy_in=200, post="wait_bb")

    visitor, problems = watched(browser.new_context())
    for path in (
        "/",
        "/accounts/signup/",
        "/accounts/login/",
        "/fairness/",
        "/payout/",
        f"/tables/{table.id}/",
    ):
        response = visitor.goto(f"{base}{path}")
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        visitor.wait_for_load_state("networkidle")
    visitor.goto(f"{base}/")
    visitor.select_option("select[name=language]", "it")
    visitor.wait_for_selector("html[lang=it]")
    assert "Lobby" in visitor.inner_text("header")

    seated, seated_problems = watched(browser.new_context())
    log_in(seated, base, alice.username)
    seated.goto(f"{base}/tables/{table.id}/")
    seated.wait_for_selector("#chat-input:not([disabled])")
    watcher, watcher_problems = watched(browser.new_context())
    log_in(watcher, base, bob.username)
    watcher.goto(f"{base}/tables/{table.id}/")
    watcher.wait_for_selector("#chat-input[disabled]")
    assert watcher.get_attribute("#chat-input", "placeholder") == "Take a seat to chat"

    seated.fill("#chat-input", "good luck all")
    seated.press("#chat-input", "Enter")
    line = watcher.locator(".chat-line.player", has_text="good luck all")
    line.wait_for()
    assert line.locator(".who").inner_text() == f"{alice.username}:", "the author's name, not '?:'"
    seated.locator(".chat-line.player", has_text="good luck all").wait_for()

    assert not [*problems, *seated_problems, *watcher_problems]
