"""Staff edit tables and rake schedules in the admin: an edit that would stop a live table or trap players'
chips is refused with a reason, and every form checks what the engine and the ledger will need.

The rule (docs/staff.md): seats, currency, game, structure, blinds, the smallest chip and the rake schedule
cannot change while anyone sits at the table, and a rake schedule cannot change while a table that uses it
has anyone seated; the change is refused with the reason, and accepted once the table is empty."""

import pytest

from cashier.selectors import ledger_check, seat_buy_in_bounds, wallet_balances
from staff.models import AuditEntry
from tables import services
from tables.models import Hand, RakeSchedule, Seat, Table
from tables.selectors import seat_stacks
from tables.tasks import tables_sweep
from tests.admin_client import admin_form_submit, form_errors, staff_client
from tests.factories import player_create, table_create

pytestmark = pytest.mark.django_db


def table_url(table) -> str:
    return f"/admin/tables/table/{table.pk}/change/"


def schedule_url(schedule) -> str:
    return f"/admin/tables/rakeschedule/{schedule.pk}/change/"


def sit(table, user, seat, buy_in=200):
    return services.seat_take(table_id=table.id, user=user, seat_number=seat, buy_in=buy_in, post="now")


@pytest.fixture
def staff():
    client, _user = staff_client()
    return client


# --- the three bugs of issue 17 ------------------------------------------------------------------------------


def test_seats_cannot_be_reduced_under_seated_players_and_dealing_goes_on(staff):
    table = table_create(seats=9)
    alice, bruno = player_create(), player_create()
    sit(table, alice, 8)
    sit(table, bruno, 9)

    response = admin_form_submit(staff, table_url(table), {"seats": 6})

    assert response.status_code == 200, "the form comes back with the reason, not saved"
    assert "seats" in form_errors(response)
    assert "seated" in " ".join(form_errors(response)["seats"])
    table.refresh_from_db()
    assert table.seats == 9
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None and hand.players_dealt == 2, "the table still deals"


def test_one_broken_table_never_stops_the_sweep_dealing_at_the_others(monkeypatch):
    """A table left in a state that cannot deal (players beyond its seats, as the old admin allowed) raises
    in its own deal; the room-wide sweep logs it and deals at every other idle table."""
    broken = table_create(seats=9)
    healthy = table_create(seats=6)
    players = [player_create() for _ in range(4)]
    sit(broken, players[0], 8)
    sit(broken, players[1], 9)
    sit(healthy, players[2], 1)
    sit(healthy, players[3], 2)
    Table.objects.filter(pk=broken.pk).update(seats=6)  # what the old admin saved
    idle = services.tables_idle
    # The sweep meets the broken table first (the query itself promises no order).
    monkeypatch.setattr(
        services, "tables_idle", lambda: sorted(idle(), key=lambda table_id: table_id != broken.pk)
    )
    assert set(idle()) == {broken.pk, healthy.pk}
    with pytest.raises(ValueError):
        services.hand_deal(table_id=broken.pk)

    outcome = tables_sweep()

    assert Hand.objects.filter(table=healthy, status=Hand.Status.RUNNING).exists(), (
        "the other table was dealt"
    )
    assert outcome["failed"] == 1
    assert not Hand.objects.filter(table=broken).exists()


def test_a_per_unit_rake_schedule_needs_a_unit_of_at_least_one(staff):
    response = staff.post(
        "/admin/tables/rakeschedule/add/",
        {
            "name": "Broken",
            "method": "per_unit",
            "unit": "0",
            "per_mille": "55",
            "no_flop_no_drop": "on",
            "caps-TOTAL_FORMS": "0",
            "caps-INITIAL_FORMS": "0",
            "caps-MIN_NUM_FORMS": "0",
            "caps-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 200
    assert "unit" in form_errors(response)
    assert not RakeSchedule.objects.filter(name="Broken").exists()

    table = table_create()  # the room's 1-per-18 schedule, nobody seated: staff may edit it, not break it
    response = admin_form_submit(staff, schedule_url(table.rake_schedule), {"unit": "0"})
    assert "unit" in form_errors(response)
    table.rake_schedule.refresh_from_db()
    assert table.rake_schedule.unit == 18
    alice, bruno = player_create(), player_create()
    sit(table, alice, 1)
    sit(table, bruno, 2)
    assert services.hand_deal(table_id=table.id) is not None


def test_the_currency_cannot_switch_under_seated_players_whose_chips_can_then_leave(staff):
    table = table_create()
    alice, bruno = player_create(), player_create()
    before = wallet_balances(user=alice)["play"]
    sit(table, alice, 1)
    sit(table, bruno, 2)

    response = admin_form_submit(staff, table_url(table), {"currency": "eur", "bots_allowed": False})

    assert "currency" in form_errors(response)
    table.refresh_from_db()
    assert table.currency == "play"
    services.seat_leave(table_id=table.id, user=alice)
    assert wallet_balances(user=alice)["play"] == before, "the chips went back to the wallet"
    assert ledger_check().ok


# --- every setting a live table cannot take, refused while seated, accepted once empty ---------------------------

LIVE_FIXED_CHANGES = [
    ("seats", 9, 9),
    ("currency", "eur", "eur"),
    ("game", "omaha", "omaha"),
    ("structure", "fl", "fl"),
    ("small_blind", "0.01", 1),
    ("big_blind", "0.06", 6),
    ("chip", "0.02", 2),
]


@pytest.mark.parametrize(("field", "typed", "value"), LIVE_FIXED_CHANGES)
def test_a_setting_a_live_table_cannot_take_is_refused_while_anyone_sits_there(staff, field, typed, value):
    table = table_create(seats=6, small_blind=2, big_blind=4, min_buy_in=120, max_buy_in=400)
    # Omaha is Pot-Limit (SPEC 1); house bots sit only at play tables: set up while the table is empty
    Table.objects.filter(pk=table.pk).update(bots_allowed=False, structure="pl" if field == "game" else "nl")
    alice = player_create()
    sit(table, alice, 3, buy_in=200)

    refused = admin_form_submit(staff, table_url(table), {field: typed})
    assert field in form_errors(refused), form_errors(refused)
    assert alice.username in " ".join(form_errors(refused)[field]), "the reason says who is seated"
    table.refresh_from_db()
    assert str(getattr(table, field)) != str(value)

    services.seat_leave(table_id=table.id, user=alice)
    accepted = admin_form_submit(staff, table_url(table), {field: typed})
    assert accepted.status_code == 302, form_errors(accepted)
    table.refresh_from_db()
    assert str(getattr(table, field)) == str(value)


def test_the_rake_schedule_of_a_table_cannot_be_swapped_while_anyone_sits_there(staff):
    table = table_create()
    other = RakeSchedule.objects.create(name="Room 0.05 copy", method="percent", per_mille=55)
    alice = player_create()
    sit(table, alice, 1)
    refused = admin_form_submit(staff, table_url(table), {"rake_schedule": other.pk})
    assert "rake_schedule" in form_errors(refused)
    services.seat_leave(table_id=table.id, user=alice)
    assert admin_form_submit(staff, table_url(table), {"rake_schedule": other.pk}).status_code == 302
    table.refresh_from_db()
    assert table.rake_schedule == other


def test_settings_a_live_table_can_take_are_saved_while_players_sit(staff):
    table = table_create()
    sit(table, player_create(), 1)
    response = admin_form_submit(
        staff,
        table_url(table),
        {
            "name": "Roma renamed",
            "action_seconds": 25,
            "time_bank_seconds": 40,
            "max_buy_in": "3.00",
        },
    )
    assert response.status_code == 302, form_errors(response)
    table.refresh_from_db()
    assert (table.name, table.action_seconds, table.time_bank_seconds, table.max_buy_in) == (
        "Roma renamed",
        25,
        40,
        300,
    )


def test_a_rake_schedule_in_use_at_a_table_with_players_cannot_change(staff):
    table = table_create()
    schedule = table.rake_schedule
    sit(table, player_create(), 1)
    for change in (
        {"unit": "0.20"},
        {"method": "percent"},
        {"per_mille": 50},
        {"no_flop_no_drop": False},
        {"caps-0-cap": "1.50"},
    ):
        response = admin_form_submit(staff, schedule_url(schedule), change)
        assert response.status_code == 200, change
        assert table.name in str(response.content.decode()), "the reason names the table"
    schedule.refresh_from_db()
    assert schedule.unit == 18 and schedule.method == "per_unit" and schedule.no_flop_no_drop
    assert sorted(schedule.caps.values_list("cap", flat=True))[0] == 100
    assert admin_form_submit(staff, schedule_url(schedule), {"name": "Room cent, renamed"}).status_code == 302

    # What the refusal offers: copy the schedule, change the copy; the table takes it once it is empty.
    staff.post("/admin/tables/rakeschedule/", {"action": "copy", "_selected_action": [schedule.pk]})
    copy = RakeSchedule.objects.get(name="Room cent, renamed (copy)")
    assert AuditEntry.objects.get(action="rake_schedule.copy").target_id == str(copy.pk)
    assert sorted(copy.caps.values_list("players_min", "big_blind_min", "cap")) == sorted(
        schedule.caps.values_list("players_min", "big_blind_min", "cap")
    )
    assert admin_form_submit(staff, schedule_url(copy), {"unit": "0.20"}).status_code == 302
    copy.refresh_from_db()
    assert copy.unit == 20


# --- a table that is empty may change its seats; what the last hands left behind does not block it ---------------


def test_fewer_seats_on_an_empty_table_remove_the_chairs_and_the_next_hand_deals(staff):
    table = table_create(seats=9)
    alice, bruno = player_create(), player_create()
    sit(table, alice, 8)
    sit(table, bruno, 9)
    hand = services.hand_deal(table_id=table.id)
    services.table_act(
        table_id=table.id,
        user=alice if hand.to_act == 7 else bruno,
        hand_id=hand.id,
        action_no=0,
        action="fold",
        amount=None,
    )
    services.seat_leave(table_id=table.id, user=alice)
    services.seat_leave(table_id=table.id, user=bruno)

    response = admin_form_submit(staff, table_url(table), {"seats": 6})

    assert response.status_code == 302, form_errors(response)
    assert list(Seat.objects.filter(table=table).values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]
    sit(table, alice, 1)
    sit(table, bruno, 6)
    assert services.hand_deal(table_id=table.id) is not None, "the last hand's button at seat 8 is forgotten"


def test_a_table_the_old_admin_broke_can_be_repaired_while_its_players_sit(staff):
    table = table_create(seats=9)
    alice, bruno = player_create(), player_create()
    sit(table, alice, 8)
    sit(table, bruno, 9)
    Table.objects.filter(pk=table.pk).update(seats=6)  # saved before this fix

    still_broken = admin_form_submit(staff, table_url(table), {"seats": 7})
    assert "seats" in form_errors(still_broken), "a repair must seat everyone"
    repaired = admin_form_submit(staff, table_url(table), {"seats": 9})

    assert repaired.status_code == 302, form_errors(repaired)
    assert services.hand_deal(table_id=table.id) is not None


def test_a_player_back_within_30_minutes_after_a_currency_switch_is_not_held_to_the_old_stack(staff):
    table = table_create(small_blind=1, big_blind=2)
    alice = player_create()
    sit(table, alice, 1, buy_in=200)
    services.seat_leave(table_id=table.id, user=alice)
    assert (
        admin_form_submit(staff, table_url(table), {"currency": "eur", "bots_allowed": False}).status_code
        == 302
    )
    table.refresh_from_db()
    assert seat_buy_in_bounds(user=alice, table=table) == (60, 200), "200 play chips are not 2.00 EUR owed"


# --- every field: what the engine and the ledger need ------------------------------------------------------------

INVALID_TABLE_SETTINGS = [
    ({"seats": 1}, "seats"),
    ({"seats": 11}, "seats"),
    ({"chip": "0"}, "chip"),
    ({"small_blind": "0"}, "small_blind"),
    ({"big_blind": "0"}, "big_blind"),
    ({"small_blind": "abc"}, "small_blind"),
    ({"big_blind": "0.001"}, "big_blind"),
    ({"min_buy_in": "-5"}, "min_buy_in"),
    ({"small_blind": "0.03", "big_blind": "0.02"}, "small_blind"),
    ({"chip": "0.05", "small_blind": "0.05", "big_blind": "0.12"}, "big_blind"),
    ({"chip": "0.05", "small_blind": "0.03", "big_blind": "0.10"}, "small_blind"),
    ({"min_buy_in": "0.01"}, "min_buy_in"),
    (
        {
            "chip": "0.05",
            "small_blind": "0.05",
            "big_blind": "0.10",
            "min_buy_in": "3.02",
            "max_buy_in": "10.00",
        },
        "min_buy_in",
    ),
    (
        {
            "chip": "0.05",
            "small_blind": "0.05",
            "big_blind": "0.10",
            "min_buy_in": "3.00",
            "max_buy_in": "10.01",
        },
        "max_buy_in",
    ),
    ({"min_buy_in": "2.00", "max_buy_in": "1.00"}, "max_buy_in"),
    (
        {
            "currency": "eur",
            "small_blind": "20.00",
            "big_blind": "40.00",
            "min_buy_in": "1200.00",
            "max_buy_in": "4000.00",
        },
        "min_buy_in",
    ),
    ({"game": "omaha", "structure": "nl"}, "structure"),
    ({"game": "omaha", "structure": "fl"}, "structure"),
    ({"game": "omaha_hilo", "structure": "nl"}, "structure"),
    ({"structure": "fl", "allow_straddle": True}, "allow_straddle"),
    ({"currency": "eur", "bots_allowed": True}, "bots_allowed"),
    ({"action_seconds": 0}, "action_seconds"),
    ({"action_seconds": 601}, "action_seconds"),
    ({"time_bank_seconds": 3601}, "time_bank_seconds"),
    ({"sit_out_limit_seconds": 0}, "sit_out_limit_seconds"),
    ({"bust_limit_seconds": 0}, "bust_limit_seconds"),
    ({"bust_limit_seconds": 86401}, "bust_limit_seconds"),
    ({"name": ""}, "name"),
]


@pytest.mark.parametrize(("changes", "field"), INVALID_TABLE_SETTINGS)
def test_every_table_setting_is_checked_for_what_the_engine_and_ledger_need(staff, changes, field):
    table = table_create(small_blind=1, big_blind=2)
    response = admin_form_submit(staff, table_url(table), {"bots_allowed": False, **changes})
    assert field in form_errors(response), form_errors(response)
    before = Table.objects.get(pk=table.pk)
    assert all(
        getattr(before, f) == getattr(table, f)
        for f in ("seats", "chip", "small_blind", "big_blind", "min_buy_in", "max_buy_in", "currency", "game")
    )


def test_a_new_table_with_good_settings_is_created_with_its_chairs_and_deals(staff):
    schedule = table_create().rake_schedule
    response = staff.post(
        "/admin/tables/table/add/",
        {
            "name": "Omaha Roma",
            "game": "omaha",
            "structure": "pl",
            "currency": "play",
            "chip": "0.01",
            "small_blind": "0.05",
            "big_blind": "0.10",
            "min_buy_in": "",
            "max_buy_in": "",
            "seats": "6",
            "rake_schedule": schedule.pk,
            "action_seconds": "20",
            "time_bank_seconds": "30",
            "sit_out_limit_seconds": "600",
            "bust_limit_seconds": "120",
            "is_open": "on",
        },
    )
    assert response.status_code == 302, form_errors(response)
    table = Table.objects.get(name="Omaha Roma")
    assert (table.min_buy_in, table.max_buy_in) == (300, 1000), "30 to 100 big blinds by default"
    assert table.seat_set.count() == 6
    sit(table, player_create(), 1, buy_in=500)
    sit(table, player_create(), 2, buy_in=500)
    hand = services.hand_deal(table_id=table.id)
    assert len(hand.hole_cards["0"]) == 4


INVALID_SCHEDULES = [
    ({"method": "per_unit", "unit": "0"}, "unit"),
    ({"method": "percent", "per_mille": 1001}, "per_mille"),
    ({"name": ""}, "name"),
    ({"caps-0-players_min": 1}, "inline:players_min"),
    ({"caps-0-cap": "-1"}, "inline:cap"),
    ({"caps-0-cap": "1.234"}, "inline:cap"),
]


@pytest.mark.parametrize(("changes", "field"), INVALID_SCHEDULES)
def test_every_rake_schedule_field_is_checked(staff, changes, field):
    schedule = table_create().rake_schedule
    response = admin_form_submit(staff, schedule_url(schedule), changes)
    assert field in form_errors(response), form_errors(response)
    schedule.refresh_from_db()
    assert (schedule.method, schedule.unit, schedule.per_mille) == ("per_unit", 18, 55)


def test_a_practice_table_staff_create_with_house_bots_has_them_seated_at_once(
    staff, django_capture_on_commit_callbacks
):
    """No restart, no seed command: the bots sit down when the admin's save commits, marked as bots, leaving
    seats for people; a euro table never gets one."""
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            "/admin/tables/table/add/",
            {
                "name": "Allenamento Nuovo",
                "game": "holdem",
                "structure": "nl",
                "currency": "play",
                "chip": "0.01",
                "small_blind": "0.50",
                "big_blind": "1.00",
                "seats": "6",
                "action_seconds": "20",
                "time_bank_seconds": "30",
                "bots_allowed": "on",
                "is_open": "on",
            },
        )
    assert response.status_code == 302, form_errors(response)
    table = Table.objects.get(name="Allenamento Nuovo")
    seated = list(table.seat_set.filter(user__isnull=False).select_related("user"))
    assert len(seated) == 2 and all(seat.user.is_bot for seat in seated)
    assert seat_stacks(table=table) == {seat.number: table.max_buy_in for seat in seated}
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            "/admin/tables/table/add/",
            {
                "name": "Euro Nuovo",
                "game": "holdem",
                "structure": "nl",
                "currency": "eur",
                "chip": "0.01",
                "small_blind": "0.50",
                "big_blind": "1.00",
                "seats": "6",
                "action_seconds": "20",
                "time_bank_seconds": "30",
                "is_open": "on",
            },
        )
    assert response.status_code == 302, form_errors(response)
    assert not Table.objects.get(name="Euro Nuovo").seat_set.filter(user__isnull=False).exists()
