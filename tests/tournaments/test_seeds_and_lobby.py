"""`make run`'s demo tournaments (seed_tournaments), the lobby's Tournaments tab and what the list says to a
logged-in player."""

import pytest
from django.core.management import call_command
from django.test import Client

from tests.factories import player_create
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def test_seed_tournaments_creates_the_demo_tournaments_once():
    call_command("seed_tournaments")
    names = sorted(Tournament.objects.values_list("name", flat=True))
    call_command("seed_tournaments")
    assert sorted(Tournament.objects.values_list("name", flat=True)) == names
    kinds = {(t.kind, t.seats_per_table, t.practice) for t in Tournament.objects.all()}
    assert {
        ("sng", 2, True),
        ("sng", 6, True),
        ("sng", 10, True),
        ("sng", 6, False),
        ("mtt", 6, True),
    } <= kinds
    mtt = Tournament.objects.get(kind="mtt")
    assert mtt.starts_at is not None and mtt.status == Tournament.Status.REGISTERING


def test_the_lobby_has_a_tournaments_tab_and_the_list_tells_a_player_where_they_stand():
    call_command("seed_tournaments")
    player = player_create()
    client = Client()
    client.force_login(player)
    page = client.get("/").content.decode()
    assert 'id="tab-tournaments"' in page and 'id="lobby-tournament-list"' in page
    mtt = Tournament.objects.get(kind="mtt")
    services.tournament_register(tournament_id=mtt.pk, user=player)
    rows = {row["id"]: row for row in client.get("/api/tournaments/").json()}
    assert rows[mtt.pk]["you"] == "registered" and rows[mtt.pk]["your_table"] is None
    assert all(row["you"] is None for pk, row in rows.items() if pk != mtt.pk)
    assert all("you" not in row for row in Client().get("/api/tournaments/").json()), (
        "visitors get no such field"
    )


def test_registering_for_a_practice_sit_and_go_takes_the_newcomer_to_their_table_and_reopens_it():
    call_command("seed_tournaments")
    player = player_create()
    client = Client()
    client.force_login(player)
    sng = Tournament.objects.get(name="Allenamento SNG 6 Turbo", status=Tournament.Status.REGISTERING)
    answer = client.post(f"/tournaments/{sng.pk}/register/")
    entry = sng.entries.get(user=player)
    assert answer.status_code == 302 and answer["Location"] == f"/tables/{entry.table_id}/"
    sng.refresh_from_db()
    assert sng.status == Tournament.Status.RUNNING and sng.entries.filter(user__is_bot=True).count() == 5
    assert Tournament.objects.filter(name=sng.name, status=Tournament.Status.REGISTERING).count() == 1, (
        "open again"
    )
