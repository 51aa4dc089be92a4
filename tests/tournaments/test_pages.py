"""What players and staff see: the JSON list and detail, the tournament page, registering by POST form with
CSRF, and the admin's validation of tournaments and payout tables as data."""

import re
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from cashier.selectors import wallet_balances
from tests.factories import eur_player, player_create, tournament_create
from tournaments import services
from tournaments.defaults import defaults_ensure
from tournaments.models import BlindStructure, PayoutBand, PayoutTable
from tournaments.rules.payouts import multi_table_default, sit_and_go_default
from tournaments.rules.structures import Speed, default_schedule

LIST_FIELDS = {"id", "name", "kind", "game", "structure", "currency", "buy_in", "fee", "status", "entrants",
               "max_entrants", "prize_pool", "level", "starts_at"}  # fmt: skip


def test_the_api_lists_tournaments_with_the_issue_s_fields(sit_and_go):
    services.tournament_register(tournament_id=sit_and_go.pk, user=eur_player())
    rows = Client().get("/api/tournaments/").json()
    (row,) = [r for r in rows if r["id"] == sit_and_go.pk]
    assert LIST_FIELDS <= set(row)
    assert (row["kind"], row["currency"], row["buy_in"], row["fee"], row["entrants"], row["prize_pool"]) == (
        "sng",
        "eur",
        1_000,
        100,
        1,
        1_000,
    )
    assert row["speed"] == "turbo" and row["status"] == "registering" and row["starts_at"] is None


def test_the_api_detail_has_standings_payouts_and_levels(sit_and_go):
    player = eur_player()
    services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    detail = Client().get(f"/api/tournaments/{sit_and_go.pk}/").json()
    assert [s["name"] for s in detail["standings"]] == [player.username]
    # One of six in: paid as if the six were there, on the pool as it stands.
    assert detail["payouts"] == [{"place": 1, "amount": 650}, {"place": 2, "amount": 350}]
    assert detail["levels"][0] == {"level": 1, "small_blind": 10, "big_blind": 20, "ante": 0, "seconds": 300}
    assert Client().get("/api/tournaments/999999/").status_code == 404


def post_form(client: Client, page_url: str, action_url: str):
    html = client.get(page_url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    return client.post(action_url, {"csrfmiddlewaretoken": token})


def test_registering_and_unregistering_are_post_forms_with_csrf(sit_and_go):
    player = eur_player(5_000)
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    page = reverse("tournaments:tournament", args=[sit_and_go.pk])
    register = reverse("tournaments:register", args=[sit_and_go.pk])
    assert client.post(register).status_code == 403  # no token
    assert client.get(register).status_code == 405
    answer = post_form(client, page, register)
    assert answer.status_code == 302 and wallet_balances(user=player)["eur"] == 3_900
    html = client.get(page).content.decode()
    assert "You are registered" in html and player.username in html
    post_form(client, page, reverse("tournaments:unregister", args=[sit_and_go.pk]))
    assert wallet_balances(user=player)["eur"] == 5_000


def test_a_refusal_is_shown_on_the_page_and_changes_nothing(sit_and_go):
    broke = player_create()
    client = Client(enforce_csrf_checks=True)
    client.force_login(broke)
    page = reverse("tournaments:tournament", args=[sit_and_go.pk])
    answer = post_form(client, page, reverse("tournaments:register", args=[sit_and_go.pk]))
    assert answer.status_code == 302
    assert "this tournament costs" in client.get(page).content.decode()
    assert not sit_and_go.entries.exists()


def test_anonymous_players_are_sent_to_log_in(sit_and_go):
    answer = Client().post(reverse("tournaments:register", args=[sit_and_go.pk]))
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    assert Client().post(reverse("tournaments:register", args=[999_999])).status_code == 302
    assert (
        "Log in to register"
        in Client().get(reverse("tournaments:tournament", args=[sit_and_go.pk])).content.decode()
    )


# --- data staff edit -------------------------------------------------------------------------------------


def test_the_defaults_are_data_equal_to_the_rules(db):
    # The migration wrote these rows; a transactional test earlier on this worker flushed them, and
    # defaults_ensure writes them again the same way (tournaments.defaults.defaults_create in both).
    defaults_ensure()
    for speed, name in ((Speed.REGULAR, "Regular (10 minutes)"), (Speed.HYPER, "Hyper-turbo (3 minutes)")):
        assert BlindStructure.objects.get(name=name).schedule() == default_schedule(speed)
    assert PayoutTable.objects.get(name="Sit-and-go").schedule() == sit_and_go_default()
    assert PayoutTable.objects.get(name="Multi-table (15 % paid)").schedule() == multi_table_default()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"max_entrants": 9}, "max_entrants"),  # a sit-and-go of 6 seats for 9
        ({"kind": "mtt", "starts_at": None, "max_entrants": 60}, "starts_at"),
        ({"practice": True}, "practice"),  # practice in euros
        ({"kind": "mtt", "max_entrants": 5_000}, "payout_table"),  # beyond the payout table
        ({"late_registration_levels": 3}, "late_registration_levels"),  # a sit-and-go starts when full
    ],
)
def test_staff_cannot_save_a_tournament_that_cannot_run(sit_and_go, changes, field):
    from django.utils import timezone

    for name, value in changes.items():
        setattr(sit_and_go, name, value)
    if sit_and_go.kind == "mtt":
        sit_and_go.payout_table = PayoutTable.objects.get(name="Multi-table (15 % paid)")
        if "starts_at" not in changes:
            sit_and_go.starts_at = timezone.now()
    with pytest.raises(ValidationError) as raised:
        sit_and_go.full_clean()
    assert field in raised.value.message_dict


def test_money_terms_freeze_once_someone_registered(sit_and_go):
    services.tournament_register(tournament_id=sit_and_go.pk, user=eur_player())
    sit_and_go.buy_in = 5
    with pytest.raises(ValidationError) as raised:
        sit_and_go.full_clean()
    assert "buy_in" in raised.value.message_dict
    sit_and_go.buy_in, sit_and_go.name = 1_000, "Renamed"
    sit_and_go.full_clean()


@pytest.mark.parametrize("percentages", [[60, 50], [40, 60], [100.0005], [50, 30, 20, 0]])
def test_a_payout_band_that_cannot_pay_is_refused(db, percentages):
    band = PayoutBand(
        payout_table=PayoutTable.objects.create(name="T"),
        entrants_min=6,
        entrants_max=8,
        percentages=[Decimal(str(p)) for p in percentages],
    )
    with pytest.raises(ValidationError):
        band.full_clean()


def test_the_admin_pages_open(admin_client, sit_and_go):
    services.tournament_register(tournament_id=sit_and_go.pk, user=eur_player())
    for url in (
        "/admin/tournaments/tournament/",
        f"/admin/tournaments/tournament/{sit_and_go.pk}/change/",
        "/admin/tournaments/payouttable/",
        "/admin/tournaments/blindstructure/",
    ):
        assert admin_client.get(url).status_code == 200, url
    answer = admin_client.post(
        "/admin/tournaments/tournament/",
        {"action": "cancel_with_refunds", "_selected_action": [sit_and_go.pk]},
    )
    assert answer.status_code == 302
    sit_and_go.refresh_from_db()
    assert sit_and_go.status == "cancelled"


def test_a_tournament_page_reads_in_italian_for_an_italian_player(db):
    tournament = tournament_create(currency="play", buy_in=1_000, fee=0, practice=True, seats=2)
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="it").get(reverse("tournaments:tournament", args=[tournament.pk]))
    page = anonymous.content.decode()
    for italian in (
        "Montepremi",
        "Stack iniziale",
        "Premi",
        "Classifica",
        "Struttura dei bui",
        "Ante del grande buio",
        "Accedi per iscriverti.",
        "Allenamento: i bot della sala occupano i posti liberi",
    ):
        assert italian in page, italian
    for english in ("Prize pool", "Starting stack", "Standings", "Blind structure", "Log in to register"):
        assert english not in page, english
    italian_player = Client(HTTP_ACCEPT_LANGUAGE="it")
    italian_player.force_login(player_create())
    registered = italian_player.post(reverse("tournaments:register", args=[tournament.pk]), follow=True)
    text = registered.content.decode()
    assert "Sei iscritto." in text or "Vai al tuo tavolo" in text, "the registration told in Italian"
