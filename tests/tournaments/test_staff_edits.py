"""Staff edits that cannot stop play (issue 35): a blind structure or payout table that tournaments registering
or running use cannot change (copy it, edit the copy); levels or bands that could not be played are refused
with the reason; an entry of a tournament not started is removed with its refund; nothing of this is a 500."""

import pytest
from django.utils import translation

from cashier.selectors import ledger_check, wallet_balances
from staff.models import AuditEntry
from tests.admin_client import admin_form_data, admin_form_submit, form_errors, staff_client
from tests.factories import defaults_ensure, eur_player, tournament_create
from tests.tournaments.play_helpers import pool_balance
from tournaments import play, services
from tournaments.models import BlindLevel, BlindStructure, Entry, PayoutTable, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client, _user = staff_client()
    return client


def _structure(name: str = "House 3 levels") -> BlindStructure:
    structure = BlindStructure.objects.create(name=name, speed="turbo", starting_stack=1_500)
    for number, (small, big) in enumerate([(10, 20), (20, 40), (30, 60)], start=1):
        BlindLevel.objects.create(
            structure=structure, number=number, small_blind=small, big_blind=big, seconds=300
        )
    return structure


def _inline_errors(response) -> list[str]:
    return form_errors(response).get("__inline__", [])


def test_levels_that_go_down_are_refused_with_the_reason_and_nothing_changes(staff):
    structure = _structure()
    url = f"/admin/tournaments/blindstructure/{structure.pk}/change/"
    answer = admin_form_submit(staff, url, {"levels-1-small_blind": "5", "levels-1-big_blind": "10"})
    assert answer.status_code == 200
    assert any("Level 2 has lower blinds than level 1" in e for e in _inline_errors(answer)), form_errors(
        answer
    )
    assert list(structure.levels.order_by("number").values_list("big_blind", flat=True)) == [20, 40, 60]


def test_a_structure_a_registering_tournament_uses_cannot_change_and_its_copy_can(staff):
    structure = _structure()
    tournament = tournament_create(seats=3, blind_structure=structure)
    url = f"/admin/tournaments/blindstructure/{structure.pk}/change/"
    answer = admin_form_submit(staff, url, {"levels-2-big_blind": "80", "levels-2-small_blind": "40"})
    assert answer.status_code == 200
    assert any(tournament.name in e and "Copy it" in e for e in _inline_errors(answer)), form_errors(answer)
    assert structure.levels.get(number=3).big_blind == 60
    # the delete button is not offered for a structure a tournament uses
    assert staff.get(f"/admin/tournaments/blindstructure/{structure.pk}/delete/").status_code == 403

    answer = staff.post(
        "/admin/tournaments/blindstructure/",
        {"action": "copy", "_selected_action": [structure.pk]},
    )
    assert answer.status_code == 302
    copy = BlindStructure.objects.get(name="House 3 levels (copy)")
    assert list(copy.levels.order_by("number").values_list("small_blind", "big_blind")) == [
        (10, 20),
        (20, 40),
        (30, 60),
    ]
    assert AuditEntry.objects.filter(action="blind_structure.copy", target_id=str(copy.pk)).exists()
    answer = admin_form_submit(
        staff,
        f"/admin/tournaments/blindstructure/{copy.pk}/change/",
        {"levels-2-big_blind": "80", "levels-2-small_blind": "40"},
    )
    assert answer.status_code == 302, form_errors(answer)
    assert copy.levels.get(number=3).big_blind == 80 and structure.levels.get(number=3).big_blind == 60


def test_a_payout_table_a_running_tournament_uses_cannot_change_and_it_plays_on(staff):
    tournament = tournament_create(seats=3, buy_in=500, fee=0)  # (the room's default tables, ensured)
    payout = PayoutTable.objects.get(name="Sit-and-go")
    for _ in range(3):
        services.tournament_register(tournament_id=tournament.pk, user=eur_player(5_000))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    url = f"/admin/tournaments/payouttable/{payout.pk}/change/"
    page = staff.get(url)
    data = admin_form_data(page)
    data["bands-0-entrants_max"] = "2"  # the band would no longer cover a field of three
    answer = staff.post(url, data)
    assert answer.status_code == 200
    assert any("cannot change while they play" in e for e in _inline_errors(answer)), form_errors(answer)
    play.tournament_floor(tournament_id=tournament.pk)  # the tournament still deals
    assert staff.get(f"/api/tournaments/{tournament.pk}/").status_code == 200


def test_bands_that_leave_a_gap_are_refused_on_a_table_no_tournament_uses(staff):
    defaults_ensure()  # a transactional test's flush removed the migration's rows
    staff.post(
        "/admin/tournaments/payouttable/",
        {"action": "copy", "_selected_action": [PayoutTable.objects.get(name="Sit-and-go").pk]},
    )
    copy = PayoutTable.objects.get(name="Sit-and-go (copy)")
    url = f"/admin/tournaments/payouttable/{copy.pk}/change/"
    data = admin_form_data(staff.get(url))
    first_max = int(data["bands-0-entrants_max"])
    data["bands-0-entrants_max"] = str(first_max - 1)
    answer = staff.post(url, data)
    assert answer.status_code == 200
    assert any("without a gap or an overlap" in e for e in _inline_errors(answer)), form_errors(answer)
    assert copy.bands.order_by("entrants_min").first().entrants_max == first_max


def test_staff_remove_one_entry_before_the_start_with_its_refund_and_not_after(staff):
    tournament = tournament_create(seats=3, buy_in=1_000, fee=100)
    players = [eur_player(5_000) for _ in range(2)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    entry = Entry.objects.get(tournament=tournament, user=players[0])
    answer = staff.post(
        "/admin/tournaments/entry/", {"action": "remove_with_refund", "_selected_action": [entry.pk]}
    )
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert entry.status == Entry.Status.UNREGISTERED
    assert wallet_balances(user=players[0])["eur"] == 5_000
    assert pool_balance(tournament) == 1_000, "the other entry's buy-in stays"
    assert AuditEntry.objects.filter(action="tournament_entry.remove", target_id=str(entry.pk)).exists()

    for player in (players[0], eur_player(5_000)):
        services.tournament_register(tournament_id=tournament.pk, user=player)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    playing = Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING).first()
    with translation.override("en"):
        answer = staff.post(
            "/admin/tournaments/entry/",
            {"action": "remove_with_refund", "_selected_action": [playing.pk]},
            follow=True,
        )
    assert "The tournament has started" in answer.content.decode()
    playing.refresh_from_db()
    assert playing.status == Entry.Status.PLAYING
    assert pool_balance(tournament) == 3_000 and ledger_check().ok


def test_staff_cancel_a_running_tournament_the_pool_left_shared_by_chips_and_every_fee_refunded(staff):
    from django.contrib.auth import get_user_model

    from tables import services as table_services
    from tables.models import Hand, Seat, Table
    from tests.factories import act
    from tournaments.rules.payouts import chips_share

    tournament = tournament_create(seats=3, buy_in=1_000, fee=100)
    players = [eur_player(5_000) for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    play.tournament_floor(tournament_id=tournament.pk)
    User = get_user_model()
    hand = Hand.objects.get(table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING)
    while hand.status == Hand.Status.RUNNING:  # the first hand played to its end: the stacks differ after it
        legal = {a["action"] for a in table_services.hand_engine(hand=hand, table=hand.table).legal_actions()}
        act(
            hand.table,
            User.objects.get(pk=hand.players[str(hand.to_act)]["user"]),
            "call" if "call" in legal else "check",
        )
        hand.refresh_from_db()
    stacks = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "chips"))
    assert len(set(stacks.values())) > 1
    table_services.DEAL_PAUSE_SECONDS, pause = 0, table_services.DEAL_PAUSE_SECONDS
    try:
        play.tournament_floor(tournament_id=tournament.pk)
    finally:
        table_services.DEAL_PAUSE_SECONDS = pause
    second = Hand.objects.get(table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING)
    act(
        second.table, User.objects.get(pk=second.players[str(second.to_act)]["user"]), "call"
    )  # chips in the pot

    answer = staff.post(
        "/admin/tournaments/tournament/",
        {"action": "cancel_with_refunds", "_selected_action": [tournament.pk]},
    )
    assert answer.status_code == 302

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    second.refresh_from_db()
    assert second.status == Hand.Status.CANCELLED, "the hand in play is cancelled, its chips back"
    expected = chips_share(pool=3_000, chips=sorted(stacks.items()))
    for entry in Entry.objects.filter(tournament=tournament).select_related("user"):
        assert entry.status == Entry.Status.FINISHED and entry.prize == expected[entry.pk]
        assert wallet_balances(user=entry.user)["eur"] == 5_000 - 1_000 + expected[entry.pk], "fee refunded"
        assert entry.place == 1 + sum(1 for c in stacks.values() if c > stacks[entry.pk])
    assert pool_balance(tournament) == 0 and ledger_check().ok
    table = Table.objects.get(tournament_table__tournament=tournament)
    assert not table.is_open and not Seat.objects.filter(table=table, user__isnull=False).exists()
    assert AuditEntry.objects.filter(
        action="tournament.cancel_running", target_id=str(tournament.pk)
    ).exists()


def test_a_seat_the_tournament_frees_is_left_as_the_tables_own_services_leave_one():
    """The tournament's seat clearing had drifted from the table's: a player moved into a seat found its last
    occupant's options (straddle, run it twice, auto-muck off) and "disconnected" mark."""
    from tables.models import Seat

    tournament = tournament_create(seats=3, buy_in=500, fee=0)
    for _ in range(3):
        services.tournament_register(tournament_id=tournament.pk, user=eur_player(5_000))
    play.tournament_floor(tournament_id=tournament.pk)
    seat = Seat.objects.filter(table__tournament_table__tournament=tournament, user__isnull=False).first()
    Seat.objects.filter(pk=seat.pk).update(straddle=True, run_twice=True, auto_muck=False, disconnected=True)
    play.seat_clear(table_id=seat.table_id, number=seat.number)
    seat.refresh_from_db()
    assert seat.user_id is None and seat.status == Seat.Status.EMPTY
    assert (seat.straddle, seat.run_twice, seat.auto_muck, seat.disconnected) == (False, False, True, False)
