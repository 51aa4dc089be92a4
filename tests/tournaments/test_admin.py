"""Staff make tournaments in the admin, as a member of staff would through the forms: a blind structure with
its levels, a payout table with its bands, then the tournament, which players see in the lobby's list. Once
a tournament has started, its blind structure, seats per table and late registration are refused with the
reason, and nothing changes."""

import pytest
from django.test import Client

from tests.admin_client import admin_form_submit, form_errors, staff_client
from tests.factories import eur_player, tournament_create
from tournaments import services
from tournaments.models import BlindStructure, PayoutTable, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client, _user = staff_client()
    return client


def inline_rows(prefix: str, rows: list[dict]) -> dict:
    """The POST fields of new inline rows (what "Add another" and typing in each row sends)."""
    data = {f"{prefix}-TOTAL_FORMS": str(len(rows)), f"{prefix}-INITIAL_FORMS": "0"}
    for index, row in enumerate(rows):
        data.update({f"{prefix}-{index}-{name}": str(value) for name, value in row.items()})
    return data


def test_staff_create_a_tournament_with_its_levels_and_payouts_and_players_see_it_in_the_lobby(staff):
    answer = admin_form_submit(
        staff,
        "/admin/tournaments/blindstructure/add/",
        {
            "name": "Sunday 4 minutes",
            "speed": "turbo",
            "starting_stack": "2000",
            **inline_rows(
                "levels",
                [
                    {"number": 1, "small_blind": 10, "big_blind": 20, "ante": 0, "seconds": 240},
                    {"number": 2, "small_blind": 20, "big_blind": 40, "ante": 40, "seconds": 240},
                ],
            ),
        },
    )
    assert answer.status_code == 302, form_errors(answer)
    structure = BlindStructure.objects.get(name="Sunday 4 minutes")
    assert [(lv.small_blind, lv.big_blind, lv.ante) for lv in structure.levels.order_by("number")] == [
        (10, 20, 0),
        (20, 40, 40),
    ]
    answer = admin_form_submit(
        staff,
        "/admin/tournaments/payouttable/add/",
        {
            "name": "Sunday payouts",
            **inline_rows(
                "bands",
                [
                    {"entrants_min": 2, "entrants_max": 5, "percentages": "100"},
                    {"entrants_min": 6, "entrants_max": 30, "percentages": "62.5,37.5"},
                ],
            ),
        },
    )
    assert answer.status_code == 302, form_errors(answer)
    payouts = PayoutTable.objects.get(name="Sunday payouts")
    answer = admin_form_submit(
        staff,
        "/admin/tournaments/tournament/add/",
        {
            "name": "Sunday Freezeout",
            "kind": "mtt",
            "currency": "eur",
            "buy_in": "5.00",
            "fee": "0.50",
            "starting_stack": "2000",
            "seats_per_table": "6",
            "blind_structure": structure.pk,
            "payout_table": payouts.pk,
            "min_entrants": "4",
            "max_entrants": "30",
            "starts_at_0": "2030-06-02",
            "starts_at_1": "20:00:00",
            "late_registration_levels": "1",
        },
    )
    assert answer.status_code == 302, form_errors(answer)
    tournament = Tournament.objects.get(name="Sunday Freezeout")
    listed = {row["name"]: row for row in Client().get("/api/tournaments/").json()}
    row = listed["Sunday Freezeout"]
    assert (row["kind"], row["currency"], row["buy_in"], row["fee"], row["status"]) == (
        "mtt",
        "eur",
        500,
        50,
        "registering",
    )
    assert (row["max_entrants"], row["starting_stack"], row["late_registration_levels"]) == (30, 2000, 1)
    assert row["starts_at"].startswith("2030-06-02")
    detail = Client().get(f"/api/tournaments/{tournament.pk}/").json()
    assert [(lv["small_blind"], lv["big_blind"], lv["ante"], lv["seconds"]) for lv in detail["levels"]] == [
        (10, 20, 0, 240),
        (20, 40, 40, 240),
    ]
    assert [p["place"] for p in detail["payouts"]] == [1], "4 entrants (the minimum): the winner takes all"


def test_a_started_tournament_s_structure_seats_and_late_registration_are_refused_with_the_reason(staff):
    tournament = tournament_create(kind="mtt", seats=6, late_registration_levels=2)
    for player in (eur_player(), eur_player()):
        services.tournament_register(tournament_id=tournament.pk, user=player)
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    # Before the start, with players registered, the structure may still change.
    other = BlindStructure.objects.exclude(pk=tournament.blind_structure_id).first()
    answer = admin_form_submit(staff, url, {"blind_structure": other.pk})
    assert answer.status_code == 302, form_errors(answer)
    services.tournament_start(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    before = (tournament.blind_structure_id, tournament.seats_per_table, tournament.late_registration_levels)
    for field, value in (
        ("blind_structure", BlindStructure.objects.exclude(pk=other.pk).first().pk),
        ("seats_per_table", 9),
        ("late_registration_levels", 5),
    ):
        answer = admin_form_submit(staff, url, {field: value})
        assert answer.status_code == 200
        assert form_errors(answer)[field] == ["The tournament has started: this can no longer change."]
        tournament.refresh_from_db()
        assert (
            tournament.blind_structure_id,
            tournament.seats_per_table,
            tournament.late_registration_levels,
        ) == before
    # Its name is not one of them.
    answer = admin_form_submit(staff, url, {"name": "Renamed while running"})
    assert answer.status_code == 302, form_errors(answer)
    tournament.refresh_from_db()
    assert tournament.name == "Renamed while running" and tournament.status == Tournament.Status.RUNNING
