"""A player who may no longer play (a self-exclusion, or staff closing the account) is stopped everywhere at
once, by one service (`cashier.services.player_play_stop`), tournaments included (issue 32):

- a registration for a tournament not started is cancelled and refunded, and the sit-and-go fills and starts
  without them;
- at a running tournament their actions are refused, the clock checks or folds for them as soon as it is
  their turn (no decision time, no time bank), every later hand deals them in the same way, and when they
  are out they are paid what their place earns; the chips and the money add up;
- at a cash table, the hand running takes no more of their actions either (the seat is cashed out when it
  ends, as before);
- unticking Active on the admin's Users page does all of this, as the player page's "close account" does.
"""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from cashier import services as cashier
from cashier.models import SeatSession
from cashier.selectors import ledger_check, wallet_balances
from staff.models import AuditEntry
from tables import held
from tables import services as table_services
from tables.models import Hand, Seat
from tests.admin_client import admin_form_submit, staff_client
from tests.factories import act, eur_player, eur_table_create, sit, tournament_create
from tests.tournaments.play_helpers import check_chips, pool_balance
from tournaments import play, services
from tournaments.models import BlindLevel, BlindStructure, Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    monkeypatch.setattr(table_services, "DEAL_PAUSE_SECONDS", 0)


def _stop(user, how: str) -> None:
    if how == "self_excluded":
        cashier.player_self_exclude(user=user, period="30d")
    else:
        staff = get_user_model().objects.create_user(
            "floor", "floor@example.com", "staff-Pass-123", is_staff=True
        )
        cashier.player_deactivate(user=user, staff_user=staff, note="closed on request")


@pytest.mark.parametrize("how", ["self_excluded", "closed"])
def test_a_registration_is_cancelled_and_refunded_and_the_sit_and_go_starts_without_them(how):
    tournament = tournament_create(seats=3, buy_in=1_000, fee=100)
    leaver = eur_player(5_000)
    services.tournament_register(tournament_id=tournament.pk, user=leaver)
    assert wallet_balances(user=leaver)["eur"] == 3_900
    _stop(leaver, how)
    entry = Entry.objects.get(tournament=tournament, user=leaver)
    assert entry.status == Entry.Status.UNREGISTERED
    assert wallet_balances(user=leaver)["eur"] == 5_000, "buy-in and fee back"
    assert pool_balance(tournament) == 0
    others = [eur_player(5_000) for _ in range(3)]
    for player in others:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING, "full with the three others"
    play.tournament_floor(tournament_id=tournament.pk)
    seated = set(
        Seat.objects.filter(table__tournament_table__tournament=tournament).values_list("user", flat=True)
    )
    assert leaver.pk not in seated and {p.pk for p in others} <= seated
    assert ledger_check().ok


def _big_blinds_structure() -> BlindStructure:
    structure = BlindStructure.objects.create(
        name="Three big blinds a stack", speed="turbo", starting_stack=1_500
    )
    BlindLevel.objects.create(structure=structure, number=1, small_blind=250, big_blind=500, seconds=3_600)
    return structure


def _running_hand(tournament) -> Hand | None:
    return Hand.objects.filter(
        table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING
    ).first()


@pytest.mark.parametrize("how", ["self_excluded", "closed"])
def test_at_a_running_tournament_they_cannot_act_the_clock_decides_at_once_and_they_are_paid_their_place(how):
    tournament = tournament_create(seats=3, buy_in=1_000, fee=0, blind_structure=_big_blinds_structure())
    players = [eur_player(5_000) for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    play.tournament_floor(tournament_id=tournament.pk)
    leaver = players[0]
    User = get_user_model()
    stopped = refused = clock_decisions = later_hands = 0
    hands = 0
    while True:
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        hand = _running_hand(tournament)
        assert hands < 60, "the tournament ends"
        if hand is None:  # a hand the blinds put all in was settled at its deal: the floor records the bust
            hands += 1
            play.tournament_floor(tournament_id=tournament.pk)
            continue
        while hand.status == Hand.Status.RUNNING:
            to_act = hand.players[str(hand.to_act)]["user"]
            if to_act == leaver.pk and not stopped:
                _stop(leaver, how)  # during their own decision
                stopped = hand.number
                hand.refresh_from_db()
            if to_act == leaver.pk and stopped:
                assert hand.deadline <= timezone.now(), "their decision is due at once"
                with pytest.raises(table_services.TableError) as refusal:
                    act(hand.table, leaver, "call")
                assert refusal.value.code == "barred"
                refused += 1
                seat = Seat.objects.get(table=hand.table, user=leaver)
                Seat.objects.filter(pk=seat.pk).update(
                    time_bank_ms=20_000
                )  # a time bank is not used for them
                held.drop(hand.table_id)
                action_no = hand.action_no
                assert table_services.hand_timeout(hand_id=hand.pk, action_no=action_no)
                hand.refresh_from_db()
                assert hand.action_no > action_no and not hand.time_bank_used
                clock_decisions += 1
                continue
            legal = {
                item["action"]
                for item in table_services.hand_engine(hand=hand, table=hand.table).legal_actions()
            }
            kind = "all_in" if "all_in" in legal else ("call" if "call" in legal else "check")
            act(hand.table, User.objects.get(pk=to_act), kind)
            hand.refresh_from_db()
        hands += 1
        dealt = next((s for s, p in hand.players.items() if p["user"] == leaver.pk), None)
        if stopped and hand.number > stopped and dealt is not None:
            assert hand.players[dealt].get("barred"), "every later hand deals them in as an away player"
            later_hands += 1
        if tournament.entries.filter(status=Entry.Status.PLAYING).count() > 1:
            check_chips(tournament, 3)
        play.tournament_floor(tournament_id=tournament.pk)
    assert stopped and refused >= 1 and clock_decisions >= 1
    entry = Entry.objects.get(tournament=tournament, user=leaver)
    assert entry.status == Entry.Status.FINISHED and entry.place is not None
    paid = {e.user_id: e.prize or 0 for e in tournament.entries.all()}
    assert sum(paid.values()) == 3 * 1_000, "the whole pool is paid out"
    assert wallet_balances(user=leaver)["eur"] == 5_000 - 1_000 + paid[leaver.pk], "paid what the place earns"
    assert pool_balance(tournament) == 0 and ledger_check().ok


def test_at_a_cash_table_the_hand_running_takes_no_more_of_their_actions_and_the_seat_is_cashed_out_after():
    table = eur_table_create()
    alice, bob = eur_player(20_000), eur_player(20_000)
    sit(table, alice, 1, buy_in=5_000)
    sit(table, bob, 2, buy_in=5_000)
    hand = table_services.hand_deal(table_id=table.id)
    first = get_user_model().objects.get(pk=hand.players[str(hand.to_act)]["user"])
    other = bob if first == alice else alice
    cashier.player_self_exclude(user=first, period="30d")
    hand.refresh_from_db()
    assert hand.deadline <= timezone.now()
    with pytest.raises(table_services.TableError) as refusal:
        act(table, first, "call")
    assert refusal.value.code == "barred"
    assert table_services.hand_timeout(hand_id=hand.pk, action_no=hand.action_no)  # the clock folds them
    hand.refresh_from_db()
    assert hand.status != Hand.Status.RUNNING or hand.players[str(hand.to_act)]["user"] == other.pk
    table_services.hand_settle(table_id=table.id)
    assert not Seat.objects.filter(table=table, user=first).exists(), "cashed out when the hand ended"
    assert not SeatSession.objects.filter(user=first, closed_at__isnull=True).exists()
    assert ledger_check().ok


def test_unticking_active_on_the_users_page_closes_the_account_through_the_service():
    table = eur_table_create()
    player = eur_player(20_000)
    sit(table, player, 1, buy_in=5_000)
    tournament = tournament_create(seats=3, buy_in=1_000, fee=100)
    services.tournament_register(tournament_id=tournament.pk, user=player)
    client, staff = staff_client()
    response = admin_form_submit(client, f"/admin/accounts/user/{player.pk}/change/", {"is_active": False})
    assert response.status_code == 302, response.content[:500]
    player.refresh_from_db()
    assert not player.is_active
    assert not Seat.objects.filter(table=table, user=player).exists(), "no hand running: cashed out at once"
    assert Entry.objects.get(tournament=tournament, user=player).status == Entry.Status.UNREGISTERED
    assert wallet_balances(user=player)["eur"] == 20_000
    assert AuditEntry.objects.filter(action="player.deactivate", actor=staff).count() == 1
    # Ticking it again opens the account, recorded too.
    admin_form_submit(client, f"/admin/accounts/user/{player.pk}/change/", {"is_active": True})
    player.refresh_from_db()
    assert player.is_active
    assert AuditEntry.objects.filter(action="player.reactivate", actor=staff).count() == 1
    assert ledger_check().ok
