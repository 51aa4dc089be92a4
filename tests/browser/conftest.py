"""The browser fixture: Debian's headless Chromium through Playwright (what a player does on the pages, and
`needs_chromium`, are in tests/live.py)."""

import pytest

from tests.live import CHROMIUM


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
