"""The table page as players see it, in Chromium against the real room (daphne, the Celery worker, PostgreSQL,
Redis), at 1366x768 and at a phone's 390x844: it fits the window, the showdown is drawn at the seats and held
before the next deal, the buy-in box offers what the wallet affords and says what is wrong, a busted player is
offered a rebuy, and the room asks before a fold that could have been a check or a leave during a hand.
Screenshots go to var/test/artifacts/."""

import time

import pytest

from cashier.models import SeatSession
from cashier.selectors import wallet_balances
from tables.models import Hand, Seat
from tables.selectors import seat_stacks
from tests.factories import hand_settled, table_create
from tests.live import DESKTOP, PHONE, needs_chromium, shot, sign_up, sit_down, visible_actions

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def player_page(browser, base: str, name: str, viewport: dict, errors: list):
    page = browser.new_context(viewport=viewport).new_page()
    page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
    sign_up(page, base, name)
    return page


def wait_until(condition, *, timeout: float = 20, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


LAYOUT = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const all = (sel) => [...document.querySelectorAll(sel)].filter((el) => el.offsetParent !== null).map(box);
  const bar = document.querySelector('#action-bar');
  return {
    scrollY: window.scrollY, innerWidth: innerWidth, innerHeight: innerHeight,
    pageHeight: document.documentElement.scrollHeight, pageWidth: document.documentElement.scrollWidth,
    bar: bar && !bar.hidden ? box(bar) : null,
    controls: box(document.querySelector('#seat-controls')),
    plates: all('.seat .plate'), bets: all('.seat .bet:not(.none)'), board: all('#board .pcard'),
    names: [...document.querySelectorAll('.seat .player-name')].map((el) => ({
      text: el.textContent, cut: el.scrollWidth > el.clientWidth + 1 })),
  };
}"""


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


def assert_fits(page) -> None:
    """What a player at this window size must see without scrolling: the action bar and the seat controls in the
    window; at 1366x768 no page scroll at all; names whole; bets clear of the plates and the board."""
    layout = page.evaluate(LAYOUT)
    width, height = layout["innerWidth"], layout["innerHeight"]
    assert layout["scrollY"] == 0
    assert layout["bar"] is not None, "it is this player's turn"
    for part in ("bar", "controls"):
        box = layout[part]
        assert box["top"] >= 0 and box["bottom"] <= height and box["left"] >= 0 and box["right"] <= width, (
            part,
            box,
        )
    if width >= 1366:
        assert layout["pageHeight"] <= height and layout["pageWidth"] <= width, "the page scrolls"
    assert not [n for n in layout["names"] if n["cut"]], layout["names"]
    for bet in layout["bets"]:
        assert not any(overlaps(bet, plate) for plate in layout["plates"]), "a bet over a name plate"
        assert not any(overlaps(bet, card) for card in layout["board"]), "a bet over the board"


def to_act(pages):
    """The page whose player is to act and has not answered yet (its action bar is live), or None."""
    return next(
        (p for p in pages if p.locator('#action-bar:not(.is-pending) [data-action="fold"]').is_visible()),
        None,
    )


def act(page, preferences: tuple[str, ...]) -> None:
    actions = visible_actions(page)
    choice = next((a for a in preferences if a in actions), None)
    if choice:
        page.locator(f'#action-bar [data-action="{choice}"]').click(timeout=5_000)
    page.wait_for_timeout(150)


def test_the_table_fits_both_windows_and_the_showdown_is_drawn_at_the_seats(live_room, browser):
    table = table_create(seats=6, small_blind=50, big_blind=100, action_seconds=30)
    base = live_room.http_url
    errors: list[str] = []
    alice = player_page(browser, base, "alice_maria", DESKTOP, errors)
    bruno = player_page(browser, base, "bruno_ferri", PHONE, errors)
    pages = [alice, bruno]
    for page in pages:
        page.goto(f"{base}/tables/{table.id}/")
    sit_down(alice, 1, "100.00")
    sit_down(bruno, 4, "100.00")

    checked_fit, asked_fold = set(), False
    deadline = time.monotonic() + 60
    while not alice.locator("#pots.is-final .pot").count():
        if time.monotonic() > deadline:
            for page in pages:
                shot(page, "stuck-before-a-showdown")
        assert time.monotonic() < deadline, "no showdown reached"
        page = to_act(pages)
        if page is None:
            alice.wait_for_timeout(100)
            continue
        # One pot figure while the hand is played: "Pot 1.50", never a second "Main pot" beside it.
        assert page.locator("#total-pot").inner_text().startswith("Pot ")
        assert page.locator("#pots .pot").count() == 0
        assert "Main pot" not in page.locator(".pot-area").inner_text()
        if id(page) not in checked_fit:
            assert_fits(page)
            # The time bank is labelled under the table, and on the seat whose turn it is (wide windows).
            assert page.locator("#my-time-bank").inner_text().strip() == "Time bank 30s"
            if page is alice:
                assert page.locator(".seat.is-turn .time-bank").inner_text() == "Time bank 30s"
            shot(page, "table-turn")
            checked_fit.add(id(page))
        if not asked_fold and "check" in visible_actions(page):
            # Fold when a check is free: the room asks, and "Check" checks.
            page.locator('#action-bar [data-action="fold"]').click()
            page.wait_for_selector("#confirm-dialog[open]")
            assert "check" in page.locator("#confirm-title").inner_text().lower()
            shot(page, "table-fold-asks")
            running = Hand.objects.get(table=table, status="running")
            page.click("#confirm-no")
            wait_until(
                lambda r=running: len(Hand.objects.get(pk=r.pk).actions) > len(r.actions), what="the check"
            )
            assert Hand.objects.get(pk=running.pk).actions[-1]["action"] == "check"
            asked_fold = True
            continue
        act(page, ("check", "call"))
    assert checked_fit == {id(alice), id(bruno)} and asked_fold

    # The end of the hand, at the seats: cards shown with the hand's name, the winners and what each won, each
    # pot's gross, rake and net; held until the next deal.
    ended = time.monotonic()
    hand = hand_settled(Hand.objects.filter(table=table).order_by("-number").values_list("id", flat=True)[0])
    shown = hand.result["shown"]
    won: dict[str, int] = {}
    for pot in hand.result["pots"]:
        for seat, amount in pot["winners"].items():
            won[str(int(seat) + 1)] = won.get(str(int(seat) + 1), 0) + amount
    assert shown and won
    for page in pages:
        page.wait_for_selector("#pots.is-final .pot")
        for seat, cards in shown.items():
            faces = page.locator(f'.seat[data-seat="{seat}"] .cards .pcard[data-card]')
            assert sorted(faces.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(cards)
            assert page.locator(f'.seat[data-seat="{seat}"] .hand-name').inner_text().strip()
        for seat, amount in won.items():
            assert page.locator(f'.seat[data-seat="{seat}"].is-winner .won').get_attribute(
                "data-amount"
            ) == str(amount)
        pots = page.locator("#pots .pot")
        assert pots.count() == len(hand.result["pots"])
        for i, pot in enumerate(hand.result["pots"]):
            drawn = pots.nth(i)
            assert [drawn.get_attribute(k) for k in ("data-amount", "data-rake", "data-net")] == [
                str(pot["amount"]),
                str(pot["rake"]),
                str(pot["net"]),
            ]
        assert pots.nth(0).locator(".pot-label").text_content() == "Main pot"
        assert (
            page.evaluate("document.documentElement.scrollHeight") <= page.viewport_size["height"]
            or page is bruno
        )
        shot(page, "table-showdown-at-the-seats")
    wait_until(lambda: not alice.locator("#pots.is-final").count(), timeout=20, what="the next deal")
    assert time.monotonic() - ended >= 2.5, "the table was not held still before the next deal"

    # The last hands survive a reload: the hand just played is listed as before, pot, board and winners.
    listed = alice.locator(f'#hand-history li[data-hand="{hand.id}"]')
    before = listed.inner_text()
    assert alice.locator(".hh-winner").count() >= 1 and before.strip()
    alice.reload()
    listed.wait_for(timeout=10_000)
    assert listed.inner_text() == before
    alice.wait_for_selector("#seat-controls:not([hidden])")

    # Leaving during a hand asks first.
    wait_until(lambda: Hand.objects.filter(table=table, status="running").exists(), what="the next hand")
    alice.click("#leave")
    alice.wait_for_selector("#confirm-dialog[open]")
    shot(alice, "table-leave-asks")
    alice.click("#confirm-no")
    assert not Seat.objects.get(table=table, number=1).leave_after_hand
    alice.click("#leave")
    alice.click("#confirm-yes")
    wait_until(
        lambda: (
            Seat.objects.get(table=table, number=1).leave_after_hand
            or Seat.objects.get(table=table, number=1).user_id is None
        ),
        what="alice's leave",
    )
    assert not errors, errors


def test_the_buy_in_box_offers_what_the_wallet_affords_and_says_what_is_wrong(live_room, browser):
    # 6,000.00 to 20,000.00 chips; a new player's wallet holds 10,000.00
    table = table_create(seats=6, small_blind=10_000, big_blind=20_000)
    dear = table_create(seats=6, small_blind=25_000, big_blind=50_000)  # a minimum of 15,000.00
    base = live_room.http_url
    errors: list[str] = []
    for viewport, name in ((DESKTOP, "carla_desk"), (PHONE, "dario_phone")):
        page = player_page(browser, base, name, viewport, errors)
        page.goto(f"{base}/tables/{table.id}/")
        page.click('.sit-here[data-seat="2"]')
        page.wait_for_selector("#buy-in-dialog[open]")
        assert page.locator("#buy-in-amount").input_value() == "10,000.00", "what the wallet affords"
        assert "10,000.00 chips" in page.locator("#buy-in-wallet").inner_text()
        assert "6,000.00" in page.locator("#buy-in-range").inner_text()
        for typed, said in (
            ("50", "minimum buy-in is 6,000.00"),
            ("15000", "wallet holds only 10,000.00"),
            ("lots", "Type an amount"),
        ):
            page.fill("#buy-in-amount", typed)
            page.click("#buy-in-confirm")
            assert said in page.locator("#buy-in-error").inner_text()
        shot(page, "buy-in-refused")
        page.wait_for_timeout(500)
        assert Seat.objects.get(table=table, number=2).user_id is None, "a refused buy-in sent nothing"
        page.fill("#buy-in-amount", "8000")
        page.click("#buy-in-confirm")
        page.wait_for_selector(".seat.is-me")
        user = Seat.objects.get(table=table, number=2).user
        assert seat_stacks(table=table) == {2: 800_000}

        # Back within 30 minutes: the higher minimum is shown and held to.
        page.click("#leave")
        page.wait_for_selector('.sit-here[data-seat="2"]')
        page.click('.sit-here[data-seat="2"]')
        page.wait_for_selector("#buy-in-dialog[open]")
        assert "8,000.00" in page.locator("#buy-in-rejoin").inner_text()
        assert "8,000.00" in page.locator("#buy-in-range").inner_text()
        page.fill("#buy-in-amount", "7000")
        page.click("#buy-in-confirm")
        assert "minimum buy-in is 8,000.00" in page.locator("#buy-in-error").inner_text()
        shot(page, "buy-in-back-within-30-minutes")
        page.click("#buy-in-cancel")

        # A wallet short of the minimum is told so, with the way to the cashier.
        page.goto(f"{base}/tables/{dear.id}/")
        page.click('.sit-here[data-seat="1"]')
        page.wait_for_selector("#buy-in-dialog[open]")
        assert "less than the minimum buy-in of 15,000.00" in page.locator("#buy-in-error").inner_text()
        assert page.locator("#buy-in-confirm").is_disabled()
        assert page.locator("#buy-in-error a").get_attribute("href") == "/accounts/profile/"
        assert wallet_balances(user=user)["play"] == 1_000_000
    assert not errors, errors


def test_a_busted_player_is_offered_a_rebuy_and_plays_on(live_room, browser):
    table = table_create(seats=2, small_blind=50, big_blind=100, action_seconds=30)  # buy-in 30.00 to 100.00
    base = live_room.http_url
    errors: list[str] = []
    eva = player_page(browser, base, "eva_neri", DESKTOP, errors)
    franco = player_page(browser, base, "franco_blu", PHONE, errors)
    pages = [eva, franco]
    for page in pages:
        page.goto(f"{base}/tables/{table.id}/")
    sit_down(eva, 1, "30.00")
    sit_down(franco, 2, "30.00")

    # Both go all-in every hand until one of them is broke (a split pot deals again).
    deadline = time.monotonic() + 120
    busted = None
    while busted is None:
        assert time.monotonic() < deadline, "nobody went broke"
        busted = next((p for p in pages if p.locator("#rebuy").is_visible()), None)
        if busted is not None:
            break
        page = to_act(pages)
        if page is None:
            eva.wait_for_timeout(100)
            continue
        act(page, ("all_in", "call", "check"))

    number = 1 if busted is eva else 2
    assert busted.locator("#sit-in").is_hidden(), "no Sit in at 0.00"
    assert busted.locator(f'.seat[data-seat="{number}"] .status').text_content() == "Out of chips"
    shot(busted, "rebuy-offered")
    busted.click("#rebuy")
    busted.wait_for_selector("#top-up-dialog[open]")
    assert busted.locator("#top-up-title").text_content() == "You are out of chips"
    assert busted.locator("#top-up-wallet").is_visible()
    assert busted.locator("#top-up-amount").input_value() == "100.00", "up to the table maximum"
    busted.fill("#top-up-amount", "10")
    busted.click("#top-up-confirm")
    assert "Add at least 30.00" in busted.locator("#top-up-error").inner_text()
    shot(busted, "rebuy-box")
    busted.fill("#top-up-amount", "40")
    last = Hand.objects.filter(table=table).order_by("-number").first().number
    busted.click("#top-up-confirm")
    wait_until(
        lambda: Seat.objects.get(table=table, number=number).status != Seat.Status.SITTING_OUT,
        what="the rebuy to sit the player back in",
    )
    busted.wait_for_selector("#rebuy", state="hidden")
    session = SeatSession.objects.get(table=table, seat_number=number, closed_at__isnull=True)
    assert session.moved_in == 3_000 + 4_000, "the buy-in and the rebuy"
    wait_until(
        lambda: Hand.objects.filter(table=table, number__gt=last, players__has_key=str(number - 1)).exists(),
        what="a hand dealt to the player who bought back in",
    )
    assert not errors, errors
