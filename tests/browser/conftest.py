"""Driving Debian's headless Chromium through Playwright: the browser, and what a player does on the pages
(sign up, sit down, find whose turn it is)."""

import shutil
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not shutil.which("chromium"),
    reason="Debian's chromium is not installed: run scripts/install-browser.sh",
)


@pytest.fixture
def browser(monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread; the test's own database work is
    # synchronous and happens between browser calls, which Django's async guard cannot tell apart.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", "a-Long-pass-123")
    page.fill("#id_password2", "a-Long-pass-123")
    page.fill("#id_date_of_birth", "1990-04-01")
    page.click("main button[type=submit]")
    page.wait_for_selector("text=Check your email")
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", "a-Long-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")


def sit_down(page, seat: int, amount: str) -> None:
    page.click(f'.sit-here[data-seat="{seat}"]')
    page.fill("#buy-in-amount", amount)
    page.click("#buy-in-confirm")


def acting(pages, timeout_ms: int = 15_000):
    """The page whose player is to act (its action bar shows a Fold button)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator('#action-bar [data-action="fold"]').is_visible():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError("nobody was given the action")


def visible_actions(page) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "#action-bar [data-action]",
            "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.action)",
        )
    )
