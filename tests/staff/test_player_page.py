"""One page per player: money as money, seats, hands, limits, exclusions, identity, notes; no password or
permission widgets; deactivating cashes the player out of every seat through the cashier."""

import pytest
from django.http import HttpRequest
from django.test import Client

from cashier import services as cashier
from cashier.errors import CashierError
from cashier.selectors import wallet_balances
from staff.models import AuditEntry, StaffNote
from tables import services
from tables.models import Hand, Seat
from tests.factories import CARD_OK, hand_played, new_key, player_create, staff_with_perms, table_create
from tests.factories import sit_now as sit

pytestmark = pytest.mark.django_db


def player_url(player) -> str:
    return f"/admin/staff/player/{player.pk}/change/"


@pytest.fixture
def anna():
    player = player_create(verified=True)
    player.email, player.first_name = "anna@example.com", "Anna"
    player.save()
    cashier.deposit_create(user=player, amount=123_456, card_number=CARD_OK, idempotency_key=new_key())
    return player


def test_the_player_page_shows_money_seats_hands_limits_identity_and_notes(boss, anna):
    bruno = player_create()
    table = table_create(small_blind=50, big_blind=100)
    sit(table, anna, 1, 5_000)
    sit(table, bruno, 2, 5_000)
    hand = hand_played(table, [anna, bruno], fold=True)
    cashier.deposit_limit_set(user=anna, period="day", amount=20_000)
    cashier.withdrawal_request(user=anna, amount=3_000, card_number=CARD_OK, idempotency_key=new_key())
    boss.post(f"/admin/staff/player/{anna.pk}/note/", {"text": "Called about a limit."})

    page = boss.get(player_url(anna)).content.decode()

    assert "€\xa01,204.56" in page, "the EUR wallet after the withdrawal is held"
    assert "chips" in page and table.name in page and "€\xa01,234.56" in page, "the deposit"
    assert "€\xa030.00" in page and "Waiting for review" in page, "the withdrawal"
    assert f"/admin/tables/hand/{hand.pk}/change/" in page, "the hand played"
    assert "€\xa0200.00" in page, "the daily deposit limit"
    assert "Not self-excluded now." in page
    assert "Verified on" in page and boss.staff.username in page
    assert "Called about a limit." in page and StaffNote.objects.get().author == boss.staff
    assert 'name="password"' not in page and "user_permissions" not in page and "is_superuser" not in page
    assert AuditEntry.objects.filter(action="staff_note.add", player=anna).exists()


def test_players_are_found_by_name_or_email_everywhere(boss, anna):
    other = player_create()
    for url in (
        "/admin/staff/player/",
        "/admin/cashier/deposit/",
        "/admin/accounts/user/",
        "/admin/cashier/transfer/",
        "/admin/accounts/depositlimit/",
    ):
        found = boss.get(url, {"q": "anna@example.com"}).content.decode()
        assert other.username not in found, url
    listed = boss.get("/admin/staff/player/", {"q": "anna@example"}).content.decode()
    assert anna.username in listed and "€\xa01,234.56" in listed
    assert anna.username in boss.get("/admin/staff/player/", {"q": "Anna"}).content.decode()


def test_verifying_an_identity_from_the_player_page_records_who_and_when(boss):
    bea = player_create(verified=False)
    assert "Verify identity" in boss.get(player_url(bea)).content.decode()
    confirmation = boss.get(f"/admin/staff/player/{bea.pk}/verify-identity/").content.decode()
    assert "Confirm" in confirmation
    bea.refresh_from_db()
    assert bea.identity_verified_at is None, "nothing before the confirmation"
    boss.post(f"/admin/staff/player/{bea.pk}/verify-identity/", {"confirm": "1"})
    bea.refresh_from_db()
    assert bea.identity_verified_at is not None and bea.identity_verified_by == boss.staff
    assert f"by {boss.staff.username}" in boss.get(player_url(bea)).content.decode()


def test_deactivating_a_player_between_hands_cashes_them_out_at_once(boss, anna):
    table = table_create(small_blind=50, big_blind=100)
    play_before = wallet_balances(user=anna)["play"]
    sit(table, anna, 3, 6_000)
    anna.set_password("a-Long-pass-123")
    anna.save()

    as_connected = type(anna).objects.get(pk=anna.pk)  # what an open table connection holds
    confirmation = boss.get(f"/admin/staff/player/{anna.pk}/deactivate/").content.decode()
    assert "every seat is cashed out" in confirmation
    boss.post(f"/admin/staff/player/{anna.pk}/deactivate/", {"confirm": "1", "note": "Asked by phone"})

    anna.refresh_from_db()
    assert not anna.is_active
    assert wallet_balances(user=anna)["play"] == play_before
    assert Seat.objects.get(table=table, number=3).user is None
    request = HttpRequest()
    request.META["REMOTE_ADDR"] = "127.0.0.1"
    assert not Client().login(request=request, username=anna.username, password="a-Long-pass-123")
    with pytest.raises(CashierError, match="closed"):
        services.seat_take(table_id=table.id, user=as_connected, seat_number=1, buy_in=6_000, post="now")
    with pytest.raises(CashierError, match="closed"):
        cashier.deposit_create(
            user=as_connected, amount=1_000, card_number=CARD_OK, idempotency_key=new_key()
        )
    entry = AuditEntry.objects.get(action="player.deactivate")
    assert entry.note == "Asked by phone" and entry.player == anna

    boss.post(f"/admin/staff/player/{anna.pk}/reactivate/", {"confirm": "1"})
    anna.refresh_from_db()
    assert anna.is_active


def test_deactivating_a_player_in_a_hand_cashes_them_out_when_the_hand_ends(boss, anna):
    bruno = player_create()
    table = table_create(small_blind=50, big_blind=100)
    sit(table, anna, 1, 6_000)
    sit(table, bruno, 2, 6_000)
    hand = services.hand_deal(table_id=table.id)
    assert "0" in hand.players and "1" in hand.players

    boss.post(f"/admin/staff/player/{anna.pk}/deactivate/", {"confirm": "1"})

    assert Seat.objects.get(table=table, number=1).user == anna, "the hand in play goes on"
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    if seat.user == anna:  # her decision: refused to her, and due at once for the clock, which folds for her
        with pytest.raises(services.TableError, match="may not play"):
            services.table_act(
                table_id=table.id, user=anna, hand_id=hand.id, action_no=0, action="call", amount=None
            )
        assert services.hand_timeout(hand_id=hand.id, action_no=0)
    else:
        services.table_act(
            table_id=table.id, user=bruno, hand_id=hand.id, action_no=0, action="fold", amount=None
        )
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.COMPLETE
    assert Seat.objects.get(table=table, number=1).user is None, "cashed out when the hand ended"
    assert services.hand_deal(table_id=table.id) is None, "and not dealt in again"


def test_the_player_page_needs_the_permission_and_deactivating_the_change_permission(anna):
    nobody, _user = staff_with_perms("nobody")
    assert nobody.get(player_url(anna)).status_code == 403
    viewer, _user = staff_with_perms("viewer", "staff.view_player")
    page = viewer.get(player_url(anna)).content.decode()
    assert anna.username in page and "€\xa01,234.56" in page
    assert "Deactivate and cash out" not in page and "Add the note" not in page
    assert viewer.post(f"/admin/staff/player/{anna.pk}/deactivate/", {"confirm": "1"}).status_code == 403
    anna.refresh_from_db()
    assert anna.is_active


def test_the_player_page_lists_tournament_entries_with_what_was_paid_and_won(boss, anna):
    from tests.factories import tournament_create
    from tournaments import services as tournaments

    tournament = tournament_create(seats=3, buy_in=1_000, fee=100)
    tournaments.tournament_register(tournament_id=tournament.pk, user=anna)
    gone = tournament_create(seats=3, buy_in=500, fee=50)
    tournaments.tournament_register(tournament_id=gone.pk, user=anna)
    tournaments.tournament_unregister(tournament_id=gone.pk, user=anna)

    page = boss.get(player_url(anna)).content.decode()

    section = page[page.index('id="player-tournaments"') :]
    section = section[: section.index("</section>")]
    assert tournament.name in section and f"/admin/tournaments/tournament/{tournament.pk}/change/" in section
    assert "€\xa010.00 + €\xa01.00" in section and "Registered" in section
    assert gone.name in section and "Unregistered, refunded" in section
