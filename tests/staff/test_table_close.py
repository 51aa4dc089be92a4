"""Closing a table (issue 36): untick Open, or **Close the table…** on its page. Empty, it closes at once;
with players, the hand in play finishes, then every seat is cashed out as a leave and each player is told
why; the table leaves the lobby and no seat is left taken at a closed table."""

import pytest
from django.urls import reverse

from cashier.models import SeatSession
from cashier.selectors import wallet_balances
from staff.models import AuditEntry
from tables import effects, services
from tables.models import Hand, Seat
from tables.selectors import table_list_open
from tests.admin_client import admin_form_submit
from tests.factories import player_create, table_create
from tests.factories import sit_now as sit
from tests.staff.test_table_controls import _play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def told(monkeypatch):
    """What each player is told on their own connections (the room's `tell_player`, still called)."""
    heard: dict[int, list[dict]] = {}
    tell = effects.tell_player

    def recorded(*, user_id: int, message: dict) -> None:
        heard.setdefault(user_id, []).append(message)
        tell(user_id=user_id, message=message)

    monkeypatch.setattr(effects, "tell_player", recorded)
    return heard


def _in_lobby(table) -> bool:
    return table.id in {row["id"] for row in table_list_open()}


def test_an_empty_table_closes_at_once_and_leaves_the_lobby(boss):
    table = table_create()
    assert _in_lobby(table)
    page = boss.get(reverse("admin:tables_table_change", args=[table.pk])).content.decode()
    assert 'id="control-close"' in page
    url = reverse("admin:tables_table_close", args=[table.pk])
    assert "The table leaves the lobby" in boss.get(url).content.decode()

    done = boss.post(url, {"confirm": "1", "text": "Closing for the night"}, follow=True).content.decode()

    assert "The table is closed." in done
    table.refresh_from_db()
    assert not table.is_open and not _in_lobby(table)
    entry = AuditEntry.objects.get(action="table.close")
    assert (entry.actor, entry.note, entry.after["is_open"]) == (boss.staff, "Closing for the night", False)


def test_unticking_open_with_players_finishes_the_hand_then_cashes_everyone_out(boss, told):
    players = [player_create() for _ in range(4)]
    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2000)
    for number, user in enumerate(players[:3], start=1):
        sit(table, user, number, 1000)
    hand = services.hand_deal(table_id=table.id)
    late = players[3]
    sit(table, late, 4, 500)  # sat down after the deal: not in the hand
    before = {p.id: wallet_balances(user=p)["play"] for p in players}

    response = admin_form_submit(
        boss, reverse("admin:tables_table_change", args=[table.pk]), {"is_open": False}
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    shown = boss.get(response.url).content.decode()
    assert f"Cashed out now: {late.username}." in shown
    assert "Cashed out when the hand in play ends: " + ", ".join(p.username for p in players[:3]) in shown
    assert wallet_balances(user=late)["play"] == before[late.id] + 500, "at once: the whole stack back"
    assert Seat.objects.get(table=table, number=4).user_id is None
    assert told[late.id][-1]["type"] == "removed" and told[late.id][-1]["reason"] == "closed"
    assert "The staff closed" in told[late.id][-1]["message"]
    assert not _in_lobby(table)
    assert all(Seat.objects.get(table=table, number=n).leave_after_hand for n in (1, 2, 3))

    last = _play_out(table, players)  # the hand in play finishes

    assert last.pk == hand.pk and Hand.objects.filter(table=table).count() == 1, "no new hand is dealt"
    assert services.hand_deal(table_id=table.id) is None
    assert not Seat.objects.filter(table=table, user__isnull=False).exists(), "nobody left playing"
    for user in players[:3]:
        session = SeatSession.objects.get(table=table, user=user)
        assert session.closed_at is not None
        assert wallet_balances(user=user)["play"] == before[user.id] + session.left_with
        assert told[user.id][-1]["reason"] == "closed"
    left_with = sum(s.left_with for s in SeatSession.objects.filter(table=table, user__in=players[:3]))
    assert left_with == 3000 - last.result.get("rake", 0), "every chip back but the rake"
    assert AuditEntry.objects.filter(action="admin.change", target_id=str(table.pk)).exists()


def test_closing_again_cashes_out_players_left_at_a_table_closed_before(boss, told):
    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2000)
    player = player_create()
    sit(table, player, 1, 400)
    type(table).objects.filter(pk=table.pk).update(is_open=False)  # closed by an older version of the room

    boss.post(reverse("admin:tables_table_close", args=[table.pk]), {"confirm": "1"})

    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    assert SeatSession.objects.get(table=table, user=player).left_with == 400
    assert told[player.id][-1]["reason"] == "closed"


def test_the_sweep_cashes_out_players_left_at_a_closed_table(told):
    from tables import closing

    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2000)
    players = [player_create() for _ in range(3)]
    for number, user in enumerate(players, start=1):
        sit(table, user, number, 500)
    hand = services.hand_deal(table_id=table.id)
    late = player_create()
    sit(table, late, 4, 300)
    type(table).objects.filter(pk=table.pk).update(
        is_open=False
    )  # closed with people seated: the case

    assert closing.closed_tables_release() == 4
    assert closing.closed_tables_release() == 0, "nothing more to do until the hand ends"

    assert (
        SeatSession.objects.get(table=table, user=late).left_with == 300
        and told[late.id][-1]["reason"] == "closed"
    )
    assert _play_out(table, players).pk == hand.pk
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    assert not AuditEntry.objects.filter(action="table.close").exists(), "the room's own doing"


def _a_hand_played(players, table):
    for number, user in enumerate(players, start=1):
        sit(table, user, number, 1000)
    services.hand_deal(table_id=table.id)
    return _play_out(table, players)


def test_deleting_a_table_with_history_is_refused_with_the_rooms_reason(boss):
    from tests.factories import staff_with_perms

    table = table_create(small_blind=10, big_blind=20, min_buy_in=200, max_buy_in=2000)
    _a_hand_played([player_create() for _ in range(3)], table)
    floor, _manager = staff_with_perms(
        "floor", "tables.view_table", "tables.change_table", "tables.delete_table"
    )
    url = reverse("admin:tables_table_delete", args=[table.pk])

    for client in (boss, floor):
        shown = client.get(url, follow=True).content.decode()
        assert "cannot be deleted: the room keeps what refers to it (" in shown
        assert "3 seat sessions" in shown and "1 hand)" in shown
        assert "Close it instead" in shown
        assert "protected related objects" not in shown and "permission to delete" not in shown
        assert client.post(url, {"post": "yes"}).status_code == 302
    listed = boss.post(
        reverse("admin:tables_table_changelist"),
        {"action": "delete_selected", "_selected_action": [table.pk], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "cannot be deleted" in listed
    assert type(table).objects.filter(pk=table.pk).exists()
    assert not AuditEntry.objects.filter(action="admin.delete").exists()


def test_a_table_without_history_and_other_protected_records(boss):
    from tables.models import RakeSchedule

    empty = table_create()
    schedule = RakeSchedule.objects.create(name="Five percent", method=RakeSchedule.Method.PERCENT)
    type(empty).objects.filter(pk=table_create().pk).update(rake_schedule=schedule)
    refused = boss.get(reverse("admin:tables_rakeschedule_delete", args=[schedule.pk]), follow=True)
    assert "Five percent cannot be deleted: the room keeps what refers to it (1 table)" in (
        refused.content.decode()
    )

    boss.post(reverse("admin:tables_table_delete", args=[empty.pk]), {"post": "yes"})

    assert not type(empty).objects.filter(pk=empty.pk).exists(), "nothing refers to it: deleted"
    assert AuditEntry.objects.filter(action="admin.delete").count() == 1
