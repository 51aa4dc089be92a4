"""Money as money in the admin: typed in units ("25.00"), stored in cents, shown with the unit; and the admin
in English and Italian with its own language switch."""

import pytest

from tables.models import Table
from tests.admin_client import admin_form_submit, form_errors
from tests.factories import table_create, tournament_create

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


def test_a_tournament_s_buy_in_and_fee_are_money_and_its_chips_plain_counts(boss):
    """The buy-in and the fee are typed and shown as money in the tournament's currency (EUR here), in English
    and in Italian ("0,25" is 25 cents); a bad amount is refused with the reason and changes nothing; the
    starting stack and the entries' chips are plain counts of tournament chips."""
    tournament = tournament_create(buy_in=1_000, fee=100)  # EUR 10.00 + 1.00
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    form = boss.get(url).content.decode()
    assert 'name="buy_in" value="10.00"' in form and 'name="fee" value="1.00"' in form
    assert 'name="starting_stack" value="1500"' in form, "chips are not money"
    response = admin_form_submit(boss, url, {"buy_in": "12.50", "fee": "2"})
    assert response.status_code == 302, form_errors(response)
    tournament.refresh_from_db()
    assert (tournament.buy_in, tournament.fee) == (1_250, 200)
    listing = boss.get("/admin/tournaments/tournament/").content.decode()
    assert "€\xa012.50" in listing and "€\xa02.00" in listing and "1,500 chips" in listing

    for bad, reason in (("0.255", "at most two decimals"), ("ten euros", "as a number"), ("-1", "negative")):
        response = admin_form_submit(boss, url, {"fee": bad})
        assert response.status_code == 200
        assert any(reason in message for message in form_errors(response)["fee"]), form_errors(response)
    tournament.refresh_from_db()
    assert (tournament.buy_in, tournament.fee) == (1_250, 200), "a refused form changes nothing"

    boss.cookies["django_language"] = "it"
    form = boss.get(url).content.decode()
    assert 'name="buy_in" value="12,50"' in form and 'name="fee" value="2,00"' in form
    response = admin_form_submit(boss, url, {"fee": "0,25"})
    assert response.status_code == 302, form_errors(response)
    tournament.refresh_from_db()
    assert tournament.fee == 25, "0,25 on an Italian page is 25 cents"
    listing = boss.get("/admin/tournaments/tournament/").content.decode()
    assert "€\xa00,25" in listing and "1.500 chip" in listing
    response = admin_form_submit(boss, url, {"buy_in": "12,505"})
    assert "al massimo due decimali" in " ".join(form_errors(response)["buy_in"]).lower()
    tournament.refresh_from_db()
    assert tournament.buy_in == 1_250
    structures = boss.get("/admin/tournaments/blindstructure/").content.decode()
    assert "1.500 chip" in structures
