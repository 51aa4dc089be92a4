"""The kept chat, staff's mute and the disconnected mark, through the services against PostgreSQL (the live
tests do the same over WebSockets)."""

import pytest

from tables import services
from tables.models import ChatLine, ChatMute, Seat
from tables.selectors import chat_recent
from tables.state import table_snapshot
from tests.factories import sit, table_create

pytestmark = pytest.mark.django_db


def test_the_last_20_lines_are_kept_oldest_first_and_a_muted_player_is_refused(players):
    table, other = table_create(), table_create()
    alice, bruno, carla = players[:3]
    sit(table, alice, 1)
    sit(table, bruno, 2)
    sit(other, alice, 1)
    with pytest.raises(services.TableError) as refused:
        services.table_chat(table_id=table.id, user=carla, text="I only watch")
    assert refused.value.code == "not_seated", "spectators read"
    for number in range(25):
        services.table_chat(table_id=table.id, user=alice if number % 2 else bruno, text=f"line {number}")
    services.table_chat(table_id=other.id, user=alice, text="elsewhere")
    lines = chat_recent(table_id=table.id)
    assert [line["text"] for line in lines] == [f"line {n}" for n in range(5, 25)]
    assert lines[0]["player"] == {"name": alice.username, "bot": False} and lines[0]["seat"] == 1, "line 5"
    assert lines[-1]["player"]["name"] == bruno.username and lines[-1]["seat"] == 2, "line 24"
    ChatMute.objects.create(user=bruno, reason="spam")
    with pytest.raises(services.TableError) as refused:
        services.table_chat(table_id=table.id, user=bruno, text="spam again")
    assert refused.value.code == "muted" and "muted" in refused.value.message
    assert not ChatLine.objects.filter(text="spam again").exists()
    ChatMute.objects.filter(user=bruno).delete()
    services.table_chat(table_id=table.id, user=bruno, text="sorry")
    assert chat_recent(table_id=table.id)[-1]["text"] == "sorry"


def test_a_seat_is_marked_disconnected_and_back_and_the_mark_goes_with_the_seat(players):
    table = table_create()
    alice, bruno, carla = players[:3]
    sit(table, alice, 1)
    sit(table, bruno, 2)

    def marks():
        return {
            row["seat"]: row["disconnected"]
            for row in table_snapshot(table=table, hand=None, state=None)["seats"]
        }

    assert marks()[2] is False
    assert services.seat_connection(table_id=table.id, user=bruno, connected=False)
    assert not services.seat_connection(table_id=table.id, user=bruno, connected=False), "already marked"
    assert not services.seat_connection(table_id=table.id, user=carla, connected=False), "no seat, no mark"
    assert marks() == {1: False, 2: True, 3: False, 4: False, 5: False, 6: False}
    assert services.seat_connection(table_id=table.id, user=bruno, connected=True)
    assert marks()[2] is False
    services.seat_connection(table_id=table.id, user=bruno, connected=False)
    services.seat_leave(table_id=table.id, user=bruno)
    assert Seat.objects.get(table=table, number=2).disconnected is False, "an empty seat carries no mark"


def test_staff_read_the_chat_and_mute_a_player_in_the_admin_and_it_is_audited(players):
    from staff.models import AuditEntry
    from tests.admin_client import staff_client

    table = table_create()
    alice = players[0]
    sit(table, alice, 1)
    services.table_chat(table_id=table.id, user=alice, text="cheap chips here")
    client, staff = staff_client(username="chat-boss")
    page = client.get("/admin/tables/chatline/", {"q": "cheap"})
    assert page.status_code == 200 and "cheap chips here" in page.content.decode()
    response = client.post("/admin/tables/chatmute/add/", {"user": alice.pk, "reason": "selling chips"})
    assert response.status_code == 302
    mute = ChatMute.objects.get(user=alice)
    assert (mute.reason, mute.muted_by) == ("selling chips", staff)
    assert AuditEntry.objects.filter(action="admin.add", actor=staff).exists()
    with pytest.raises(services.TableError):
        services.table_chat(table_id=table.id, user=alice, text="still selling")
    response = client.post(f"/admin/tables/chatmute/{mute.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not ChatMute.objects.filter(user=alice).exists()
    services.table_chat(table_id=table.id, user=alice, text="back")
