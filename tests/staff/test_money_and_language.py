"""Money as money in the admin: typed in units ("25.00"), stored in cents, shown with the unit; and the admin
in English and Italian with its own language switch."""

import pytest

from tables.models import Table
from tests.admin_client import admin_form_submit, form_errors
from tests.factories import table_create

pytestmark = pytest.mark.django_db


def test_amounts_are_typed_in_units_and_stored_in_cents(boss):
    table = table_create(small_blind=50, big_blind=100)
    form = boss.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
    assert 'name="small_blind" value="0.50"' in form and 'name="max_buy_in" value="100.00"' in form
    schedule = boss.get(f"/admin/tables/rakeschedule/{table.rake_schedule_id}/change/").content.decode()
    assert 'name="unit" value="0.18"' in schedule and 'value="1.00"' in schedule, "the caps too"

    response = admin_form_submit(boss, f"/admin/tables/table/{table.pk}/change/", {"max_buy_in": "60.00"})
    assert response.status_code == 302, form_errors(response)
    assert Table.objects.get(pk=table.pk).max_buy_in == 6_000

    boss.cookies["django_language"] = "it"
    form = boss.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
    assert 'name="max_buy_in" value="60,00"' in form
    response = admin_form_submit(boss, f"/admin/tables/table/{table.pk}/change/", {"max_buy_in": "70,50"})
    assert response.status_code == 302, form_errors(response)
    assert Table.objects.get(pk=table.pk).max_buy_in == 7_050


def test_lists_show_money_with_its_unit(boss):
    play = table_create(small_blind=50, big_blind=100)
    eur = table_create(small_blind=5, big_blind=10)
    Table.objects.filter(pk=eur.pk).update(currency="eur", bots_allowed=False)
    page = boss.get("/admin/tables/table/").content.decode()
    assert "0.50 chips / 1.00 chips" in page and "€\xa00.05 / €\xa00.10" in page
    assert "€\xa03.00 – €\xa010.00" in page, "the EUR table's buy-in"
    assert play.name in page


def test_the_admin_has_its_own_language_switch(boss):
    english = boss.get("/admin/").content.decode()
    assert 'id="staff-language"' in english and "The room now" in english
    response = boss.post("/i18n/setlang/", {"language": "it", "next": "/admin/"}, follow=True)
    italian = response.content.decode()
    assert response.redirect_chain[-1][0] == "/admin/"
    assert "La sala adesso" in italian and "prelievi da esaminare" in italian
    assert "Registro delle azioni dello staff" in boss.get("/admin/staff/auditentry/").content.decode()
