"""The names the table page gives shown hands ("two pair, jacks and fives"), in English and in Italian, with the
strings the table page really carries: static/js/hands.js run in Chromium, the page's #i18n block from Django."""

import json
import mimetypes
import re
from pathlib import Path

import pytest
from django.test import Client

from tests.factories import table_create
from tests.live import needs_chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db, needs_chromium]

STATIC = Path(__file__).resolve().parents[2] / "static"
ORIGIN = "http://room.test"

CASES = [
    # hole cards, board, game, English, Italian
    ("Js 5d", "Jh 5c 2s 9d Kc", "holdem", "two pair, jacks and fives", "doppia coppia, jack e cinque"),
    ("Ah 2c", "3d 4s 5h Kc Kd", "holdem", "straight, five high", "scala al cinque"),
    ("7h 7c", "7d 2s 2h Kc Qd", "holdem", "full house, sevens full of deuces", "full di sette e due"),
    ("Ah Kh", "Qh Jh Th 2c 3d", "holdem", "royal flush", "scala reale"),
    ("Th 9h", "8h 7h 6h 2c 2d", "holdem", "straight flush, ten high", "scala colore al dieci"),
    ("Ah 9c", "Kd 7s 4h 3c 2d", "holdem", "high card, ace", "carta alta, asso"),
    ("Qs Qd", "Qh Qc 5s 8d 2c", "holdem", "four of a kind, queens", "poker di donne"),
    ("9h 9d", "9c 2s 5d Kc Qd", "holdem", "three of a kind, nines", "tris di nove"),
    ("6h 6d", "Ac 2s 5d Kc Qd", "holdem", "a pair of sixes", "coppia di sei"),
    ("Ah Kh", "Qh 9h 2h 2c 3d", "holdem", "flush, ace high", "colore all'asso"),
    # Omaha: exactly two hole cards and three of the board (four aces in the hand make only a pair)
    ("Ah Ad Ac As", "Kh Qd 2c 8c 5s", "omaha", "a pair of aces", "coppia di assi"),
    (
        "Ah Kh 2c 3d",
        "Qh Jh 4h 8c 5s",
        "omaha_hilo",
        "flush, ace high; 8-5-4-2-A low",
        "colore all'asso; basso 8-5-4-2-A",
    ),
    ("Ah Kh Qc Jd", "Qh Jh 9h 8c 5s", "omaha_hilo", "flush, ace high", "colore all'asso"),
]


def page_strings(table_id: int, language: str) -> dict:
    client = Client()
    client.cookies["django_language"] = language
    html = client.get(f"/tables/{table_id}/").content.decode()
    block = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S).group(1)
    return json.loads(block)


def serve_static(route) -> None:
    path = STATIC / route.request.url.removeprefix(f"{ORIGIN}/static/")
    if not path.is_file():
        route.fulfill(status=404, body="")
        return
    route.fulfill(
        status=200, body=path.read_bytes(), content_type=mimetypes.guess_type(path.name)[0] or "text/plain"
    )


NAME_ALL = """async ([cases, strings]) => {
  const { describeShown } = await import('/static/js/hands.js');
  const t = (key, params = {}) => {
    let s = strings[key] ?? key;
    for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
    return s;
  };
  return cases.map(([hole, board, game]) => describeShown(hole.split(' '), board.split(' '), game, t));
}"""


def test_shown_hands_are_named_in_english_and_in_italian(browser):
    table = table_create()
    page = browser.new_page()
    page.route(
        f"{ORIGIN}/**",
        lambda route: route.fulfill(
            status=200, body="<!doctype html><title>hands</title>", content_type="text/html"
        ),
    )
    page.route(f"{ORIGIN}/static/**", serve_static)
    page.goto(f"{ORIGIN}/")
    cases = [case[:3] for case in CASES]
    english = page.evaluate(NAME_ALL, [cases, page_strings(table.id, "en")])
    italian = page.evaluate(NAME_ALL, [cases, page_strings(table.id, "it")])
    assert english == [case[3] for case in CASES]
    assert italian == [case[4] for case in CASES]
