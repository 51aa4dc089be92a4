"""A newcomer plays Pot-Limit Omaha against the house bots in a real browser (Debian's headless Chromium): signs
up, sits down at a practice table where two bots wait, sees four cards of their own and plays the hand out; and
at an Omaha Hi-Lo showdown the felt shows each pot's high and low halves with their winners."""

import pytest

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tables import services
from tables.models import Game, Hand, Structure
from tables.services import bots_seat
from tests.engine.engine_helpers import stacked_deck
from tests.factories import sit, table_create
from tests.live import (
    ARTIFACTS,
    Room,
    needs_chromium,
    play_out_in_browser,
    sign_up,
    sit_down,
)
from tests.tables.history_helpers import act, person

pytestmark = [pytest.mark.live, pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_chromium]


def test_a_newcomer_sits_at_omaha_sees_four_cards_and_plays_a_hand_against_the_house_bots(live_room, browser):
    table = table_create(
        game=Game.OMAHA,
        structure=Structure.POT_LIMIT,
        small_blind=50,
        big_blind=100,
        action_seconds=30,
        seats=6,
    )
    assert bots_seat(table_id=table.id) == 2
    base = live_room.http_url
    errors: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page, base, "nuova")
    page.goto(f"{base}/tables/{table.id}/")
    sit_down(page, 4, "100.00")

    mine = page.locator(".seat.is-me .cards .card.face")
    mine.nth(3).wait_for(timeout=30_000)
    assert mine.count() == 4, "four hole cards, face up, to their owner"
    hand = Hand.objects.get(table=table, status="running")
    me = next(seat for seat, player in hand.players.items() if not player["bot"])
    assert sorted(mine.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(hand.hole_cards[me])
    assert page.locator(".seat.is-bot .cards .card.face").count() == 0, "the bots' cards stay face down"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "omaha-four-cards.png"))

    play_out_in_browser(page, hand.id)  # against the bots: check when free, else call
    page.screenshot(path=str(ARTIFACTS / "omaha-hand-over.png"))
    played = Hand.objects.get(pk=hand.pk)
    assert played.status == "complete" and len(played.actions) >= 1
    assert not errors, errors


def test_a_hi_lo_showdown_shows_each_pot_s_high_and_low_halves_with_their_winners(
    room_env, browser, monkeypatch
):
    """PL Omaha Hi-Lo 50/100 heads-up, a stacked deck (as tests/tables/test_omaha_live.py): Alice holds Ah 4c Kc Qd,
    Bruno As 4d Qh Jh, the board 2c 3d 7h Kd Ks. Alice raises to 300, Bruno calls, both check down: a pot of 600,
    rake 33, net 567; the high half 284 to Alice (three kings), the low half 283 shared (both 7-4-3-2-A). Two
    people watching (a desktop and a phone) read those halves and winners on the felt, as the ledger booked them.
    Only daphne runs: nobody deals the next hand, so the end stays on the felt."""
    table = table_create(
        game=Game.OMAHA_HILO, structure=Structure.POT_LIMIT, small_blind=50, big_blind=100, action_seconds=600
    )
    alice, bruno = person("alice"), person("bruno")
    sit(table, alice, 1, buy_in=10_000)
    sit(table, bruno, 2, buy_in=10_000)
    deck = stacked_deck(order=[1, 0], holes={0: "Ah4cKcQd", 1: "As4dQhJh"}, board="2c3d7hKdKs", hole_count=4)
    monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: list(deck))
    hand = services.hand_deal(table_id=table.id)
    room = Room(room_env)
    errors: list[str] = []
    try:
        room.start_daphne()
        pages = []
        for viewport in ({"width": 1366, "height": 768}, {"width": 390, "height": 844}):
            page = browser.new_context(viewport=viewport).new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{room.http_url}/tables/{table.id}/")
            page.wait_for_selector("#connection-status[data-state=open]")
            page.wait_for_selector('.seat[data-seat="1"] .cards .card.back')
            pages.append(page)
        act(table, 0, "raise", 300)
        while Hand.objects.get(pk=hand.pk).status == Hand.Status.RUNNING:
            state = services.hand_engine(hand=Hand.objects.get(pk=hand.pk), table=table)
            legal = {entry["action"] for entry in state.legal_actions()}
            act(table, state.to_act, "call" if "call" in legal else "check")

        transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
        legs = {
            (
                e.account.kind,
                e.account.seat_session.seat_number if e.account.kind == "seat" else None,
            ): e.amount
            for e in transfer.entries.select_related("account__seat_session")
        }
        assert legs == {("seat", 1): 125, ("seat", 2): -158, ("rake", None): 33}
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for page in pages:
            pot = page.locator("#pots.is-final .pot")
            pot.first.wait_for(timeout=15_000)
            assert pot.count() == 1
            assert (pot.get_attribute("data-amount"), pot.get_attribute("data-rake")) == ("600", "33")
            assert int(pot.get_attribute("data-rake")) == legs[("rake", None)], "the rake the ledger took"
            high, low = pot.locator(".pot-half.high"), pot.locator(".pot-half.low")
            assert high.inner_text() == f"High: 2.84 to {alice.username}"
            shared = low.inner_text()
            assert shared.startswith("Low: 2.83 to "), shared
            assert sorted(shared.removeprefix("Low: 2.83 to ").split(", ")) == [
                alice.username,
                bruno.username,
            ]
            halves = int(high.get_attribute("data-amount")) + int(low.get_attribute("data-amount"))
            assert halves == int(pot.get_attribute("data-net")) == 600 - legs[("rake", None)]
            won = {
                seat: int(page.locator(f'.seat[data-seat="{seat}"] .won').get_attribute("data-amount"))
                for seat in (1, 2)
            }
            # What each won less the 300 each put in is what the ledger moved for them.
            assert {seat: amount - 300 for seat, amount in won.items()} == {
                1: legs[("seat", 1)],
                2: legs[("seat", 2)],
            }
            size = page.viewport_size
            page.screenshot(path=str(ARTIFACTS / f"table-hi-lo-halves-{size['width']}x{size['height']}.png"))
    finally:
        room.stop()
    assert ledger_check().ok
    assert not errors, errors
