"""Every staff action is in the audit log: who, what, when, before and after; browsable, filterable, and
read-only (the admin offers no change, PostgreSQL refuses one)."""

import pytest
from django.db import DatabaseError, connection, transaction

from cashier import services
from cashier.models import Deposit
from staff.models import AuditEntry
from tables.models import RakeSchedule
from tests.admin_client import admin_form_submit, form_errors
from tests.factories import new_key, player_create, table_create

pytestmark = pytest.mark.django_db


def listed(client, url) -> str:
    """The rows of an admin list page."""
    page = client.get(url).content.decode()
    start = page.find('id="result_list"')
    return page[start : page.find("</table>", start)] if start >= 0 else ""


def test_a_table_edited_in_the_admin_is_recorded_with_its_values_before_and_after(boss):
    table = table_create(seats=6)
    response = admin_form_submit(
        boss, f"/admin/tables/table/{table.pk}/change/", {"seats": 9, "max_buy_in": "3.00"}
    )
    assert response.status_code == 302

    entry = AuditEntry.objects.get(action="admin.change")
    assert entry.actor == boss.staff and entry.target_repr == table.name
    assert (entry.before["seats"], entry.after["seats"]) == (6, 9)
    assert (entry.before["max_buy_in"], entry.after["max_buy_in"]) == (200, 300)
    assert entry.changed_keys() == ["max_buy_in", "seats"]
    assert "Changed" in entry.note and "Seats" in entry.note
    page = boss.get(f"/admin/staff/auditentry/{entry.pk}/change/").content.decode()
    assert 'class="audit-diff"' in page and table.name in page


def test_additions_deletions_and_actions_are_recorded_once(boss):
    player = player_create(verified=False)
    boss.post("/admin/accounts/user/", {"action": "identity_verify", "_selected_action": [player.pk]})
    verified = AuditEntry.objects.filter(target_id=str(player.pk))
    assert [e.action for e in verified] == ["identity.verify"], "the service's record, not a second one"
    assert verified[0].after["identity_verified_by"] == boss.staff.pk and verified[0].player == player

    schedule = RakeSchedule.objects.create(name="Unused", method="percent", per_mille=50)
    boss.post(f"/admin/tables/rakeschedule/{schedule.pk}/delete/", {"post": "yes"})
    deleted = AuditEntry.objects.get(action="admin.delete")
    assert deleted.before["name"] == "Unused" and deleted.after is None

    # An admin action whose service records nothing itself: recorded by the site, per object changed.
    pending = services.deposit_create(
        user=player, amount=1_000, card_number="4000000000000119", idempotency_key=new_key()
    )
    assert pending.status == Deposit.Status.PENDING
    boss.post("/admin/cashier/deposit/", {"action": "retry_with_provider", "_selected_action": [pending.pk]})
    retried = AuditEntry.objects.get(action="admin.action")
    assert (retried.before["status"], retried.after["status"]) == ("pending", "succeeded")
    assert retried.player == player and "provider" in retried.note


def test_the_log_is_filterable_searchable_and_read_only(boss):
    player = player_create()
    table = table_create()
    admin_form_submit(boss, f"/admin/tables/table/{table.pk}/change/", {"name": "Renamed"})
    boss.post("/admin/accounts/user/", {"action": "identity_verify", "_selected_action": [player.pk]})

    by_action = listed(boss, "/admin/staff/auditentry/?action=identity.verify")
    assert player.username in by_action and "Renamed" not in by_action
    by_actor = listed(boss, f"/admin/staff/auditentry/?actor={boss.staff.pk}")
    assert player.username in by_actor and "Renamed" in by_actor
    by_player = listed(boss, f"/admin/staff/auditentry/?player={player.pk}")
    assert "Identity verified" in by_player and "Renamed" not in by_player
    assert "Renamed" in listed(boss, "/admin/staff/auditentry/?q=Renamed")
    assert boss.get("/admin/staff/auditentry/?player=abc").status_code in (200, 302), "never a 500"

    entry = AuditEntry.objects.first()
    assert boss.get("/admin/staff/auditentry/add/").status_code == 403
    assert boss.post(f"/admin/staff/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert boss.post(f"/admin/staff/auditentry/{entry.pk}/change/", {"note": "x"}).status_code == 403
    for statement in ("UPDATE staff_auditentry SET note = 'x'", "DELETE FROM staff_auditentry"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    assert AuditEntry.objects.count() == 2


def test_a_password_is_never_copied_into_the_log(boss):
    staff_member = player_create()
    staff_member.set_password("a-Long-pass-123")
    staff_member.save()
    response = admin_form_submit(boss, f"/admin/accounts/user/{staff_member.pk}/change/", {"is_staff": True})
    assert response.status_code == 302, form_errors(response)
    entry = AuditEntry.objects.get(action="admin.change")
    assert entry.after["is_staff"] is True
    assert "pbkdf2" not in str(entry.before) + str(entry.after)


def test_a_self_exclusion_staff_record_for_a_player_is_logged_once_as_such(boss):
    player = player_create()
    response = boss.post("/admin/accounts/selfexclusion/add/", {"user": player.pk, "period": "30d"})
    assert response.status_code == 302
    assert [e.action for e in AuditEntry.objects.all()] == ["self_exclusion.record"]
    entry = AuditEntry.objects.get()
    assert entry.player == player and entry.actor == boss.staff and entry.after["period"] == "30d"
