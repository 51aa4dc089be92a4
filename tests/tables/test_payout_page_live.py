"""The payout page (SPEC 3) as a visitor reads it once hands have been played: the server-drawn chart of the
daily figures appears with a point for today per game played, and in a running room (daphne and a Celery
worker) hands played by people over their WebSockets at a play-chip table and a euro table become the figures
of `/payout/` and `/api/payout/` when the beat's refresh task runs: the ledger's figures, euros published and
play chips apart as practice. Hands worked out by hand (the rake of the demo schedule: one chip per whole 18
in the pots, after a flop)."""

import asyncio
import html
import json
import re
import time
import urllib.request

import pytest
from django.test import Client
from django.utils import formats, timezone, translation

from tables import services
from tables.models import Currency, Game, Hand, Seat, Structure
from tables.payout import chart as payout_chart
from tables.tasks import payout_days_refresh_task
from tests.factories import eur_fund, play_out, player_create, sit, table_create
from tests.tables.payout_helpers import ledger_figure
from tests.tables.wsclient import TableClient, hand_ended, hand_state, play_hand, session_cookie_for

NOTHING_TO_DRAW = "No play in the period: nothing to draw yet."
GAMES = ("holdem", "omaha", "omaha_hilo", "tournament")


# --- reading the page as a visitor does ---------------------------------------------------------------------


def sections_of(page: str) -> dict[str, str]:
    """Each currency's section of the payout page (`eur`, `play`), in the page's order."""
    return dict(
        re.findall(r'<section class="card payout-section" id="payout-(\w+)">(.*?)</section>', page, re.S)
    )


def figures_in(section: str) -> dict[str, str | None]:
    """The 30-day payout shown in a section for each game type (None: no hands in the period)."""
    figures = {}
    for game, row in re.findall(r'<tr data-game="(\w+)">(.*?)</tr>', section, re.S):
        found = re.search(r'payout-figure">([^<&]+)&nbsp;%', row)
        figures[game] = found.group(1) if found else None
    return figures


def chart_in(section: str) -> dict[str, list[tuple[float, str]]]:
    """The chart's series in a section: game -> its points as (x, the text shown on hovering), only when the
    section draws a chart (an inline <svg>) with a line for that game."""
    svg = re.search(r'<svg class="payout-chart".*?</svg>', section, re.S)
    if svg is None:
        return {}
    series = {}
    for game, body in re.findall(r'<g class="series series-(\w+)">(.*?)</g>', svg.group(0), re.S):
        series[game] = [
            (float(x), html.unescape(title))
            for x, title in re.findall(r'<circle cx="([\d.]+)"[^>]*><title>([^<]*)</title>', body)
        ]
    return series


def today_point(label: str, percent: str) -> tuple[float, str]:
    """Today's point as the chart draws it in English: at the right end of the axis (the last of the 30 days),
    titled with the game, the day and the figure."""
    with translation.override("en"):
        day = formats.date_format(timezone.localdate(), "DATE_FORMAT")
    return (float(payout_chart.WIDTH - payout_chart.RIGHT), f"{label}, {day}: {percent} %")


# --- the chart, once hands are played -----------------------------------------------------------------------


def test_the_payout_page_draws_todays_figures_on_its_chart_once_hands_are_played(db):
    """Before any hand, each section says there is nothing to draw. Then a euro Hold'em hand at 0.50/1.00
    checked down (pots 2.00, rake 0.11: 94.50 %) and a play-chip Fixed-Limit Omaha Hi-Lo hand at 10/20 checked
    down (pots 40, rake 2: 95.00 %): each section draws an SVG chart with one line, for the game played in its
    currency, and today's point at the right end titled with the figure the table shows."""
    visitor = Client(headers={"accept-language": "en"})
    before = sections_of(visitor.get("/payout/").content.decode())
    assert list(before) == ["eur", "play"]
    for section in before.values():
        assert NOTHING_TO_DRAW in section and chart_in(section) == {}

    eur = table_create(currency=Currency.EUR, small_blind=50, big_blind=100)
    hilo = table_create(game=Game.OMAHA_HILO, structure=Structure.FIXED_LIMIT, small_blind=10, big_blind=20)
    for table in (eur, hilo):
        people = [player_create(), player_create()]
        for number, user in enumerate(people, start=1):
            if table.currency == Currency.EUR:
                eur_fund(user, 10_000)
            sit(table, user, number, buy_in=table.max_buy_in)
        hand = play_out(table, people, services.hand_deal(table_id=table.id))
        assert hand.result["rake"] == {eur.id: 11, hilo.id: 2}[table.id]
    payout_days_refresh_task(0)  # what the beat sends every minute

    after = sections_of(visitor.get("/payout/").content.decode())
    assert (
        figures_in(after["eur"])["holdem"] == "94.50" and figures_in(after["play"])["omaha_hilo"] == "95.00"
    )
    for section in after.values():
        assert NOTHING_TO_DRAW not in section
    assert chart_in(after["eur"]) == {"holdem": [today_point("Texas Hold'em", "94.50")]}
    assert chart_in(after["play"]) == {"omaha_hilo": [today_point("Omaha Hi-Lo 8 or better", "95.00")]}


# --- a running room -----------------------------------------------------------------------------------------


def get(room, path: str) -> str:
    request = urllib.request.Request(f"{room.http_url}{path}", headers={"Accept-Language": "en"})
    with urllib.request.urlopen(request, timeout=15) as response:
        assert response.status == 200
        return response.read().decode()


def check_down(state) -> tuple[str, None]:
    legal = {item["action"] for item in state["legal"]}
    return ("check", None) if "check" in legal else ("call", None)


def bet_the_river_unanswered(state) -> tuple[str, int | None]:
    """Check and call to the river; there the first to act bets the least allowed and the other folds: the
    bet nobody called goes back to its owner."""
    legal = {item["action"]: item for item in state["legal"]}
    if state["hand"]["street"] == "river":
        if "bet" in legal:
            return "bet", legal["bet"]["min"]
        if "call" in legal:
            return "fold", None
    return check_down(state)


@pytest.mark.live
@pytest.mark.django_db(transaction=True)
def test_hands_played_in_a_running_room_become_the_ledgers_payout_figures_on_the_page_and_the_api(live_room):
    """Two people at a play-chip Fixed-Limit Omaha Hi-Lo table at 10/20 check a hand down: pots of 40, rake
    40 // 18 = 2, 95.00 %. Two people at a euro Hold'em table at 0.50/1.00 check to the river, where one bets
    1.00 and the other folds: the 1.00 goes back uncalled, the pots hold 2.00, rake 0.11, 94.50 % (counting
    the uncalled bet would make it 96.33 %). Both leave after the hand, the room's worker runs the beat's
    refresh task (sent through the broker, as the beat sends it every minute), and the page and the API
    served by daphne show the ledger's figures: euros first, as the published ones, play chips apart."""
    hilo = table_create(
        game=Game.OMAHA_HILO, structure=Structure.FIXED_LIMIT, small_blind=10, big_blind=20, action_seconds=30
    )
    eur = table_create(currency=Currency.EUR, small_blind=50, big_blind=100, action_seconds=30)
    seated = {hilo.id: [player_create(), player_create()], eur.id: [player_create(), player_create()]}
    for user in seated[eur.id]:
        eur_fund(user, 10_000)
    cookies = {table_id: [session_cookie_for(user) for user in people] for table_id, people in seated.items()}

    async def one_hand(table, decide) -> dict:
        async with (
            TableClient(live_room, table.id, session=cookies[table.id][0]) as a,
            TableClient(live_room, table.id, session=cookies[table.id][1]) as b,
        ):
            for seat, client in enumerate((a, b), start=1):
                await client.send(type="join", seat=seat, buy_in=table.max_buy_in, post="now")
            first = await a.until(hand_state, timeout=30)  # the room's dealer dealt
            await b.until(hand_state)
            for client in (a, b):  # one hand only: they leave when it ends
                await client.send(type="leave")
            ended = await play_hand({1: a, 2: b}, first, decide)
            await b.until(hand_ended)
            return ended

    async def both_tables():
        return await asyncio.gather(one_hand(hilo, check_down), one_hand(eur, bet_the_river_unanswered))

    ended_hilo, ended_eur = asyncio.run(both_tables())
    assert (ended_hilo["rake"], [pot["amount"] for pot in ended_hilo["pots"]]) == (2, [40])
    assert (ended_eur["rake"], [pot["amount"] for pot in ended_eur["pots"]]) == (11, [200])
    returned = Hand.objects.get(pk=ended_eur["hand_id"]).result["returned"]
    assert list(returned.values()) == [100], "the river bet went back uncalled"
    deadline = time.monotonic() + 20
    while (
        Seat.objects.filter(table__in=(hilo, eur), user__isnull=False).exists()
        or Hand.objects.filter(table__in=(hilo, eur), status=Hand.Status.RUNNING).exists()
    ):
        assert time.monotonic() < deadline, "the players left after their hand"
        time.sleep(0.2)

    # Nothing yet: the page reads the daily rows, it does not scan hands on every visit.
    api = json.loads(get(live_room, "/api/payout/"))["currencies"]
    assert all(entry["payout"] is None for lines in api.values() for entry in lines)

    assert payout_days_refresh_task.apply_async(args=(0,)).get(timeout=30) == 2, "a row per currency played"

    api = json.loads(get(live_room, "/api/payout/"))
    assert api["published"] == "eur" and list(api["currencies"]) == ["eur", "play"]
    lines = {(currency, e["game"]): e for currency, entries in api["currencies"].items() for e in entries}
    assert {key: (e["payout"], e["put_in"], e["paid_back"], e["count"]) for key, e in lines.items()} == {
        ("eur", "holdem"): ("94.50", 200, 189, 1),
        ("play", "omaha_hilo"): ("95.00", 40, 38, 1),
        **{
            (currency, game): (None, 0, 0, 0)
            for currency in ("eur", "play")
            for game in GAMES
            if (currency, game) not in {("eur", "holdem"), ("play", "omaha_hilo")}
        },
    }
    sections = sections_of(get(live_room, "/payout/"))
    assert list(sections) == ["eur", "play"], "the published euro figures first, practice after"
    for currency, section in sections.items():
        for game, shown in figures_in(section).items():
            expected = None if game == "tournament" else ledger_figure(currency=currency, game=game)
            assert shown == (None if expected is None else str(expected)), (currency, game)
            assert lines[(currency, game)]["payout"] == shown, "the API says what the page shows"
    assert chart_in(sections["eur"]) == {"holdem": [today_point("Texas Hold'em", "94.50")]}
    assert chart_in(sections["play"]) == {"omaha_hilo": [today_point("Omaha Hi-Lo 8 or better", "95.00")]}
