"""Days out of range (issue 32): `until=9999-12-31` and the like on My hands, its API, both downloads and the
staff's CSVs were a 500 (OverflowError working out the day after); now the same clear refusal as a badly
written day, and nothing else changes. Before: 500 on each."""

import pytest
from django.test import Client

from tests.tables.history_helpers import person

pytestmark = pytest.mark.django_db

OUT_OF_RANGE = ("until=9999-12-31", "since=9999-12-31", "since=0001-01-01", "until=0001-01-01")


@pytest.fixture
def ada() -> Client:
    client = Client()
    client.force_login(person("ada"))
    return client


@pytest.mark.parametrize("query", OUT_OF_RANGE)
def test_my_hands_and_its_api_refuse_a_day_out_of_range_with_a_clear_400(ada, query):
    page = ada.get(f"/hands/?{query}")
    assert page.status_code == 400
    assert "Choose a day from" in page.content.decode() and "errorlist" in page.content.decode()
    api = ada.get(f"/api/hands/mine/?{query}")
    assert api.status_code == 400 and api.json()["error"] == "bad_filter"
    assert set(api.json()["fields"]) == {query.split("=")[0]}
    assert ada.get("/api/hands/mine/?since=1900-01-01&until=2999-12-31").json()["count"] == 0, "the bounds"
    assert ada.get("/hands/download/?format=phh&until=2999-12-31").status_code == 200


@pytest.mark.parametrize("fmt", ["pokerstars", "phh"])
@pytest.mark.parametrize("query", OUT_OF_RANGE)
def test_both_downloads_refuse_a_day_out_of_range(ada, fmt, query):
    assert ada.get(f"/hands/download/?format={fmt}&{query}").status_code == 400


def test_the_staff_csvs_refuse_a_day_out_of_range(admin_client):
    rake = admin_client.get("/admin/rake.csv?until=9999-12-31")
    assert rake.status_code == 400 and "Choose a day from" in rake.content.decode()
    payout = admin_client.get("/admin/tables/payoutday/csv/?to=9999-12-31", follow=True)
    assert payout.status_code == 200 and "Choose a day from" in payout.content.decode()


def test_the_italian_page_says_it_in_italian(ada):
    ada.cookies["django_language"] = "it"
    page = ada.get("/hands/?until=9999-12-31")
    assert page.status_code == 400 and "Scegli un giorno" in page.content.decode()


@pytest.mark.parametrize(
    "url",
    [
        "/admin/cashier/transfer/?created_at__year=9999&created_at__month=12&created_at__day=31",
        "/admin/cashier/transfer/?created_at__year=9999",
        "/admin/tables/hand/?started_at__year=9999&started_at__month=12",
        "/admin/staff/auditentry/?at__year=0001&at__month=1&at__day=1",
        "/admin/tables/payoutday/?day__year=9999",
    ],
)
def test_a_staff_lists_date_drill_down_out_of_range_is_the_admins_bad_filter_answer(admin_client, url):
    """The lists' date drill-down (`date_hierarchy`) answered 500 (OverflowError, or ValueError for year 9999
    alone); now the admin's own answer to a bad filter: back to the list with `?e=1`."""
    response = admin_client.get(url)
    assert response.status_code == 302 and response["Location"].endswith("?e=1")
    assert admin_client.get("/admin/cashier/transfer/?created_at__year=2026").status_code == 200
