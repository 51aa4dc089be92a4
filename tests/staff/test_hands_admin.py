"""Hands in the admin, read-only: found by player, table and date; the full history for staff; every card
only on a deliberate request, each written to the audit log, and never for a hand in play."""

import re

import pytest
from django.utils import timezone

from staff.models import AuditEntry
from tables import services
from tables.models import Hand
from tests.factories import hand_played, player_create, table_create
from tests.factories import sit_now as sit

pytestmark = pytest.mark.django_db


def listed(client, url, **params) -> str:
    page = client.get(url, params).content.decode()
    start = page.find('id="result_list"')
    return page[start : page.find("</table>", start)] if start >= 0 else ""


@pytest.fixture
def played():
    anna, bruno, carlo = player_create(), player_create(), player_create()
    anna.email = "anna@example.com"
    anna.save()
    roma, milano = table_create(small_blind=50, big_blind=100), table_create(small_blind=50, big_blind=100)
    sit(roma, anna, 1, 5_000)
    sit(roma, bruno, 2, 5_000)
    sit(milano, bruno, 1, 5_000)
    sit(milano, carlo, 2, 5_000)
    return {
        "anna": anna,
        "bruno": bruno,
        "carlo": carlo,
        "roma": roma,
        "milano": milano,
        "roma_hand": hand_played(roma, [anna, bruno]),
        "milano_hand": hand_played(milano, [bruno, carlo], fold=True),
    }


def test_hands_are_found_by_player_table_and_date(boss, played):
    roma_hand, milano_hand = played["roma_hand"], played["milano_hand"]
    rows = lambda **params: listed(boss, "/admin/tables/hand/", **params)  # noqa: E731
    by_name = rows(q=played["anna"].username)
    assert f"/{roma_hand.pk}/change/" in by_name and f"/{milano_hand.pk}/change/" not in by_name
    assert f"/{roma_hand.pk}/change/" in rows(q="anna@example.com")
    by_bruno = rows(q=played["bruno"].username)
    assert f"/{roma_hand.pk}/change/" in by_bruno and f"/{milano_hand.pk}/change/" in by_bruno
    by_table = rows(table__id__exact=played["milano"].pk)
    assert f"/{milano_hand.pk}/change/" in by_table and f"/{roma_hand.pk}/change/" not in by_table
    today = timezone.localdate()
    assert f"/{roma_hand.pk}/change/" in rows(
        started_at__day=today.day, started_at__month=today.month, started_at__year=today.year
    )
    assert f"/{roma_hand.pk}/change/" not in rows(started_at__year=today.year - 1)
    assert "€\xa0" not in by_name and "chips" in by_name, "play-chip pots shown as chips"


def test_the_history_is_public_until_staff_ask_for_every_card_which_is_recorded(boss, played):
    hand = played["milano_hand"]  # won by a fold before the flop: no card was ever shown
    holes = [card for cards in hand.hole_cards.values() for card in cards]
    page = boss.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    history = page[page.find('id="hand-history"') : page.find("</section>", page.find('id="hand-history"'))]
    assert "folds" in history and "posts big blind" in history and "Dealt to" not in history
    text = history[
        history.find("PokerStars Hand") :
    ]  # the history itself, not its heading ("As the table saw it")
    shown = set(re.findall(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])", text))
    assert not shown & set(holes), "no hidden card on the page"
    assert boss.get(f"/admin/tables/hand/{hand.pk}/cards/").status_code == 302, "a GET shows nothing"
    assert not AuditEntry.objects.filter(action="hand.cards_view").exists()

    cards = boss.post(f"/admin/tables/hand/{hand.pk}/cards/").content.decode()

    assert cards.count("Dealt to") == 2 and all(card in cards for card in holes)
    assert all(card in cards for card in hand.config["deck"]), "the whole deck, burnt and undealt cards too"
    entry = AuditEntry.objects.get(action="hand.cards_view")
    assert entry.actor == boss.staff and entry.target_id == str(hand.pk)


def test_nobody_sees_the_cards_of_a_hand_in_play(boss, played):
    running = services.hand_deal(table_id=played["roma"].id)
    assert running.status == Hand.Status.RUNNING
    page = boss.get(f"/admin/tables/hand/{running.pk}/change/").content.decode()
    assert "shown once it is over" in page and "Show every card" not in page
    response = boss.post(f"/admin/tables/hand/{running.pk}/cards/")
    assert response.status_code == 302
    assert not AuditEntry.objects.filter(action="hand.cards_view").exists()


def test_hands_cannot_be_changed_or_deleted_in_the_admin(boss, played):
    hand = played["roma_hand"]
    assert boss.post(f"/admin/tables/hand/{hand.pk}/delete/", {"post": "yes"}).status_code == 403
    assert boss.get("/admin/tables/hand/add/").status_code == 403
    assert Hand.objects.filter(pk=hand.pk).exists()


def test_the_hands_pages_speak_italian_to_italian_staff(boss, played):
    hand = played["roma_hand"]
    boss.cookies["django_language"] = "it"
    listing = boss.get("/admin/tables/hand/").content.decode()
    start = listing.find('id="result_list"')
    head = listing[start : listing.find("</thead>", start)]
    assert "Tavolo" in head and ">Table<" not in head, "the table column's header"
    assert "Per tavolo" in listing and "Per table" not in listing, "the table filter's title"
    page = boss.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    assert f"{played['roma'].name}, mano n. {hand.pk}" in page and " hand " not in page
    assert "Tavolo:" in page and "Table:" not in page


def test_the_admin_names_its_icon_so_browsers_ask_for_no_missing_favicon(boss):
    for url in ("/admin/", "/admin/tables/hand/", "/admin/login/"):
        page = boss.get(url, follow=True).content.decode()
        assert 'rel="icon"' in page, url
