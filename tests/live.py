"""The room's processes started as production starts them (daphne, a Celery worker) for the live tests, and a
player's browser on its pages (Debian's Chromium through Playwright): plain helpers, importable by any test;
the fixtures that use them are in tests/conftest.py and tests/browser/conftest.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import redis as redis_lib

from pokerroom.embedded import free_port, stop_child, wait_for_port

BASE_DIR = Path(__file__).resolve().parent.parent
ARTIFACTS = BASE_DIR / "var" / "test" / "artifacts"


def database_url_for(settings_dict: dict) -> str:
    user = quote(settings_dict.get("USER") or "")
    password = quote(settings_dict.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or ""
    host = quote(host, safe="") if host.startswith("/") else host
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgresql://{auth}{host}{port}/{settings_dict['NAME']}"


class LiveProcess:
    """One process of the room, started like production starts it, stopped at the end of the test."""

    def __init__(self, name: str, command: list[str], env: dict[str, str]) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log_path = ARTIFACTS / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = 15) -> None:
        stop_child(self.proc, timeout=timeout)
        self._log.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._log.close()


class Room:
    """A running room: daphne on a free port and a Celery worker, sharing PostgreSQL and Redis."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.processes: list[LiveProcess] = []
        self.port = 0

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start_daphne(self) -> LiveProcess:
        self.port = free_port()
        proc = LiveProcess(
            "daphne",
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "pokerroom.asgi:application",
            ],
            {**self.env, "PORT": str(self.port)},  # the room's own origin names its port (pokerroom.origins)
        )
        self.processes.append(proc)
        try:
            wait_for_port(self.port, timeout=30, proc=proc.proc, what="daphne")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{proc.log_tail()}") from exc
        return proc

    def start_worker(self, *, beat: bool = False) -> LiveProcess:
        hostname = f"test-{os.getpid()}-{time.monotonic_ns()}@localhost"
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "pokerroom",
            "worker",
            "-l",
            "info",
            "-P",
            "threads",
            "--concurrency",
            "4",
            "-n",
            hostname,
            "--without-mingle",
            "--without-gossip",
        ]
        if beat:
            command += ["-B", "-s", str(ARTIFACTS / f"beat-{time.monotonic_ns()}")]
        proc = LiveProcess("worker", command, self.env)
        self.processes.append(proc)
        client = redis_lib.Redis.from_url(self.env["REDIS_URL"])
        deadline = time.monotonic() + 40
        while not client.exists(f"room:worker:{hostname}"):
            if proc.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start\n{proc.log_tail()}")
            time.sleep(0.1)
        client.close()
        return proc

    def stop(self) -> None:
        for proc in reversed(self.processes):
            if proc.proc.poll() is None:
                proc.stop()
        self.processes.clear()


# --- a player's browser ------------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not shutil.which("chromium"),
    reason="Debian's chromium is not installed: run scripts/install-browser.sh",
)


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", "a-Long-pass-123")
    page.fill("#id_password2", "a-Long-pass-123")
    page.fill("#id_date_of_birth", "1990-04-01")
    page.click("main button[type=submit]")
    page.wait_for_selector("text=Check your email")  # not logged in before coming back with the password
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


DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def shot(page, name: str) -> None:
    """A screenshot into the test artefacts, named with the window's size."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=str(ARTIFACTS / f"{name}-{size['width']}x{size['height']}.png"))


def play_out_in_browser(page, hand_id: int) -> None:
    """Play the page's player through hand `hand_id` against whoever else sits (house bots): check when free,
    else call; returns once the hand is in the page's Last hands and settled."""
    entry = page.locator(f'#hand-history li[data-hand="{hand_id}"]')
    for _ in range(60):
        if entry.count():
            break
        try:
            acting([page], timeout_ms=1_000)
        except AssertionError:
            continue
        actions = visible_actions(page)
        choice = "check" if "check" in actions else "call" if "call" in actions else None
        if choice:
            page.locator(f'#action-bar [data-action="{choice}"]').click()
        page.wait_for_timeout(300)
    entry.wait_for(timeout=30_000)
    from tests.factories import hand_settled  # Django's models: loaded once the tests' settings are

    hand_settled(hand_id)


def visible_actions(page) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "#action-bar [data-action]",
            "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.action)",
        )
    )
