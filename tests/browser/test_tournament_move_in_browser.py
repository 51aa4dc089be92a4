"""A tournament player's table page follows them when the floor moves them, in a real browser (Debian's
headless Chromium) against daphne and a worker. The move is made certain, whatever the draw and the cards:
five players on tables of 3 and 2; the test folds at the table of 3 and has the table of 2 go all in until one
of them is out, so the floor must move the table of 3's next big blind to the player left alone. Screenshot
in var/test/artifacts/."""

import re
import time

import pytest
from playwright.sync_api import expect

from tables import services as table_services
from tables.models import Hand, Table
from tests.factories import player_create, tournament_create
from tests.live import ARTIFACTS, needs_chromium
from tests.tables.wsclient import session_cookie_for
from tournaments import services
from tournaments.models import Entry, TournamentTable

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]

# What the table page's toast shows, kept in the tab's sessionStorage: the page leaves for the new table a
# moment after telling the player they are moved. Injected by Playwright (not an inline script: the pages'
# Content-Security-Policy allows none).
TOASTS_KEPT = """
addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => {
    const toast = document.getElementById("toast");
    if (!toast || toast.hidden || !toast.textContent) return;
    const seen = JSON.parse(sessionStorage.getItem("toasts-seen") || "[]");
    if (seen[seen.length - 1] !== toast.textContent) {
      sessionStorage.setItem("toasts-seen", JSON.stringify([...seen, toast.textContent]));
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
});
"""


def decide_once(tournament, choose) -> None:
    """At each running hand of the tournament, the decision it waits for, taken through the services when
    `choose(table_id, user_id)` names the actions the test prefers for that player (None: not the test's to
    take). A decision that moved on meanwhile (the hand went on) is simply not taken."""
    for hand in Hand.objects.filter(
        table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING
    ):
        if hand.to_act is None:
            continue
        user_id = hand.players[str(hand.to_act)]["user"]
        preferred = choose(hand.table_id, user_id)
        if preferred is None:
            continue
        table = Table.objects.get(pk=hand.table_id)
        state = table_services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        table_services.hand_engine_keep(hand.id, state)
        action = next((choice for choice in preferred if choice in legal), None)
        if action is None:
            continue
        user = next(e.user for e in tournament.entries.select_related("user") if e.user_id == user_id)
        try:
            table_services.table_act(
                table_id=table.id,
                user=user,
                hand_id=hand.id,
                action_no=hand.action_no,
                action=action,
                amount=None,
            )
        except table_services.TableError:
            pass


def test_a_tournament_player_moved_for_balance_is_followed_to_the_new_table(live_room, browser):
    tournament = tournament_create(
        kind="mtt",
        seats=3,
        currency="play",
        buy_in=1_000,
        fee=0,
        max_entrants=5,
        min_entrants=2,
        action_seconds=60,  # nobody is folded by the clock while the test decides
    )
    players = [player_create() for _ in range(5)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.tournament_start(tournament_id=tournament.pk)
    links = {link.table_id: link for link in TournamentTable.objects.filter(tournament=tournament)}
    seated = {table_id: [] for table_id in links}
    for entry in Entry.objects.filter(tournament=tournament).select_related("user"):
        seated[entry.table_id].append(entry.user)
    three, two = sorted(links, key=lambda table_id: -len(seated[table_id]))
    assert (len(seated[three]), len(seated[two])) == (3, 2), "the draw seats five at tables of 3 and 2"
    at_three = {user.pk: user for user in seated[three]}

    # Each player of the table of 3 watches their table in their own browser, before anything moves.
    base = live_room.http_url
    errors: list[str] = []
    pages = {}
    for user in seated[three]:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        context.add_cookies([{"name": "sessionid", "value": session_cookie_for(user), "url": base}])
        context.add_init_script(script=TOASTS_KEPT)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/tables/{three}/")
        expect(page.locator(".seat.is-me .player-name")).to_have_text(user.username, timeout=15_000)
        pages[user.pk] = page

    # The test decides for everyone: folds at the table of 3, all in at the table of 2 until one is out;
    # then the floor moves the table of 3's next big blind to the player left alone, who from then on decides
    # from the page (the test calls or checks for the other player there).
    def choose(table_id, user_id):
        if table_id == three:
            return ("check", "fold", "muck")
        if user_id in at_three:
            return None
        arrived = Entry.objects.filter(tournament=tournament, table_id=two, user_id__in=at_three).exists()
        return ("call", "check", "muck") if arrived else ("all_in", "call", "check", "muck")

    moved_user = None
    deadline = time.monotonic() + 45
    while moved_user is None:
        assert time.monotonic() < deadline, "nobody was moved to the table left with one player"
        decide_once(tournament, choose)
        moved = Entry.objects.filter(tournament=tournament, user_id__in=at_three, table_id=two)
        moved_user = at_three[moved.get().user_id] if moved.exists() else None
        time.sleep(0.1)
    assert Entry.objects.filter(tournament=tournament, status=Entry.Status.FINISHED).count() == 1
    stayed = [page for user_id, page in pages.items() if user_id != moved_user.pk]
    page = pages[moved_user.pk]

    # The moved player's page went to the new table and shows them seated there with their chips.
    page.wait_for_url(f"{base}/tables/{two}/", timeout=10_000)
    me = page.locator(".seat.is-me")
    expect(me.locator(".player-name")).to_have_text(moved_user.username, timeout=10_000)
    entry = Entry.objects.get(tournament=tournament, user=moved_user)
    assert (entry.table_id, entry.status) == (two, Entry.Status.PLAYING)
    stack = int(me.locator(".stack").get_attribute("data-amount"))
    bet = int(me.locator(".bet").get_attribute("data-amount"))
    assert stack + bet == entry.chips, "the player's stack at the new table is their tournament chips"
    expect(page.locator("#t-left")).to_have_text("4 of 5 left")
    # The new table's last hands: the all in that left the player alone there, its pot in whole chips.
    last = Hand.objects.filter(table_id=two, status=Hand.Status.COMPLETE).latest("ended_at")
    expect(page.locator(f'#hand-history li[data-hand="{last.pk}"] .hh-pot')).to_have_text(
        f"{last.pot_total:,} chips"
    )
    toasts = page.evaluate("() => JSON.parse(sessionStorage.getItem('toasts-seen') || '[]')")
    assert "The tournament moves you to another table…" in toasts, toasts
    page.screenshot(path=str(ARTIFACTS / "tournament-moved-to-new-table.png"))

    # The other two stay at their table, told who moved where.
    number = links[two].number
    for other in stayed:
        expect(other.locator("#chat-log")).to_contain_text(f"{moved_user.username} moves to table {number}")
    stayed[0].wait_for_timeout(1_500)  # longer than the moved page waited before leaving
    for other in stayed:
        assert re.fullmatch(rf"{re.escape(base)}/tables/{three}/", other.url), other.url
        expect(other.locator(".seat.is-me")).to_have_count(1)

    # At the new table the moved player acts from the page.
    acting = page.locator('#action-bar [data-action="fold"]')
    deadline = time.monotonic() + 20
    while not acting.is_visible():
        assert time.monotonic() < deadline, "the moved player was never given the action at the new table"
        decide_once(tournament, choose)
        page.wait_for_timeout(100)
    hand = Hand.objects.get(table_id=two, status=Hand.Status.RUNNING)
    seat = next(int(s) for s, p in hand.players.items() if p["user"] == moved_user.pk)
    choice = "check" if page.locator('#action-bar [data-action="check"]').is_visible() else "call"
    page.locator(f'#action-bar [data-action="{choice}"]').click()
    deadline = time.monotonic() + 10
    while not any(
        a.get("seat") == seat and a["action"] == choice for a in Hand.objects.get(pk=hand.pk).actions
    ):
        assert time.monotonic() < deadline, f"the moved player's {choice} did not reach the hand"
        time.sleep(0.1)
    assert not errors, errors
