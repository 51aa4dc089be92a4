"""One hand number everywhere (issue 36): the number players see at the table, in their history, the
replayer and the downloads ("Hand #324", the hand's id) is the one staff see and search for in the admin;
the table's own count of its hands ("#117") is shown only as that."""

import pytest

from tables import services
from tests.staff.test_hands_admin import listed, played  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


def test_staff_find_and_see_the_number_players_see(boss, played):  # noqa: F811
    hand, roma_hand = played["milano_hand"], played["roma_hand"]
    assert hand.number == 1 and hand.pk != hand.number, "the table's own count differs from the id"
    rows = lambda q: listed(boss, "/admin/tables/hand/", q=q)  # noqa: E731

    for term in (str(hand.pk), f"#{hand.pk}", f" #{hand.pk} "):
        assert f"/{hand.pk}/change/" in rows(term), term
    assert f"/{roma_hand.pk}/change/" not in rows(f"#{hand.pk}")
    assert f">#{hand.pk}<" in rows(f"#{hand.pk}"), "the list's first column"

    page = boss.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
    assert f"hand #{hand.pk}" in page and f"PokerStars Hand #{hand.pk}:" in page, "title and history agree"
    player_page = boss.get(f"/admin/staff/player/{played['carlo'].pk}/change/").content.decode()
    assert f">#{hand.pk}</a>" in player_page


def test_the_table_page_names_the_hand_in_play_by_the_players_number(boss, played):  # noqa: F811
    running = services.hand_deal(table_id=played["roma"].id)
    page = boss.get(f"/admin/tables/table/{played['roma'].pk}/change/").content.decode()
    assert f"Hand #{running.pk} in play." in page
    assert (
        f"Cancel hand #{running.pk}"
        in boss.get(f"/admin/tables/table/{played['roma'].pk}/cancel-hand/").content.decode()
    )
