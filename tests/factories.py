"""The tests' shared helpers, in one place: players and tables made as the room makes them, money put in as a
player puts it in (the sandbox provider's cards), seats taken and hands played through the table's services.

Plain functions, importable by any test; fixtures stay in the conftest.py files, which tests never import.
Other helper modules: tests/live.py (the room's processes), tests/admin_client.py (staff in the admin),
tests/tables/wsclient.py (a player's WebSocket), tests/engine/engine_helpers.py (stacked decks, DATA_DIR)."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cashier import services as cashier
from cashier.providers import SandboxProvider
from tables import services
from tables.management.commands.seed_demo import rake_schedules_seed
from tables.models import Currency, Hand, Seat, Structure, Table
from tables.selectors import seat_stacks
from tests.admin_client import staff_client
from tournaments.defaults import defaults_ensure, levels_create
from tournaments.models import BlindStructure, PayoutTable, Tournament

CARD_OK = SandboxProvider.CARD_OK
CARD_DECLINED = SandboxProvider.CARD_DECLINED
CARD_TIMEOUT = SandboxProvider.CARD_TIMEOUT

_names = itertools.count(1)


# --- players and money ---------------------------------------------------------------------------------------


def new_key() -> str:
    """An idempotency key, as a page makes one for each form it shows."""
    return uuid.uuid4().hex


def player_create(
    *, bot: bool = False, verified: bool = False, welcome: bool = True, email_verified: bool = True
):
    """A player (or a house bot) with a unique name; with `welcome`, a player gets the welcome play chips and a
    bot 1,000,000 play chips from the issuer. `verified`: their identity checked (withdrawals need it);
    `email_verified`: their email confirmed by the link (euro deposits need it; bots have none)."""
    user = get_user_model().objects.create_user(
        username=f"{'bot' if bot else 'p'}{next(_names)}-{uuid.uuid4().hex[:5]}",
        password="pw-Secret-123",
        is_bot=bot,
        identity_verified_at=timezone.now() if verified else None,
        email_verified_at=timezone.now() if email_verified and not bot else None,
    )
    if welcome and bot:
        cashier.bot_wallet_fund(bot=user, amount=1_000_000)
    elif welcome:
        cashier.play_chips_welcome(user=user)
    return user


def eur_fund(user, amount: int):
    """Deposit `amount` cents with the sandbox's good card, as the player would."""
    deposit = cashier.deposit_create(user=user, amount=amount, card_number=CARD_OK, idempotency_key=new_key())
    assert deposit.status == "succeeded", deposit.message
    return deposit


def staff_with_perms(username: str, *codenames: str):
    """A member of staff (not a superuser) with these permissions ("app.codename"), logged in."""
    client, user = staff_client(username=username, superuser=False)
    for name in codenames:
        app, codename = name.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
    return client, user


# --- tables ----------------------------------------------------------------------------------------------------


def table_create(
    *,
    seats: int = 6,
    small_blind: int = 1,
    big_blind: int = 2,
    structure=Structure.NO_LIMIT,
    currency=Currency.PLAY,
    **extra,
) -> Table:
    """A play-chip table (1/2 unless told) with the demo rake schedule and house bots allowed."""
    schedule, _nickel = rake_schedules_seed()
    return Table.objects.create(
        name=f"Test {next(_names)} {uuid.uuid4().hex[:5]}",
        currency=currency,
        small_blind=small_blind,
        big_blind=big_blind,
        structure=structure,
        seats=seats,
        rake_schedule=schedule,
        bots_allowed=True,
        **extra,
    )


def eur_table_create(
    *, currency=Currency.EUR, small_blind=50, big_blind=100, structure=Structure.NO_LIMIT, **extra
) -> Table:
    """A euro table (NL 0.50/1.00 unless told: buy-in 30.00 to 100.00), no rake schedule."""
    return Table.objects.create(
        name=f"T{next(_names)}-{uuid.uuid4().hex[:6]}",
        currency=currency,
        small_blind=small_blind,
        big_blind=big_blind,
        structure=structure,
        **extra,
    )


def table_admin_form(**changes) -> dict:
    """The admin's "add table" form, filled in as staff would (amounts in units), with `changes`."""
    form = {
        "name": "New table",
        "game": "holdem",
        "structure": "nl",
        "currency": "play",
        "chip": "0.01",  # amounts are typed in units (docs/staff.md)
        "small_blind": "0.50",
        "big_blind": "1.00",
        "seats": 6,
        "action_seconds": 20,
        "time_bank_seconds": 30,
        "is_open": "on",
        "seat_set-TOTAL_FORMS": 0,
        "seat_set-INITIAL_FORMS": 0,
        "seat_set-MIN_NUM_FORMS": 0,
        "seat_set-MAX_NUM_FORMS": 1000,
    }
    form.update(changes)
    return form


# --- seats and hands, through the table's services ---------------------------------------------------------------


def sit(table, user, seat, buy_in=200, post="wait_bb"):
    return services.seat_take(table_id=table.id, user=user, seat_number=seat, buy_in=buy_in, post=post)


def sit_now(table, user, seat, buy_in):
    """Sit down and post at once (dealt into the next hand)."""
    return sit(table, user, seat, buy_in=buy_in, post="now")


def act(table, user, action, amount=None, *, settle_later=False):
    hand = Hand.objects.get(table=table, status="running")
    return services.table_act(
        table_id=table.id,
        user=user,
        hand_id=hand.id,
        action_no=hand.action_no,
        action=action,
        amount=amount,
        settle_later=settle_later,
    )


def hand_settled(hand_id: int, *, timeout: float = 10.0) -> Hand:
    """Hand `hand_id` once settled. A hand whose end a player was told over a socket is settled a moment after
    (tables.services.hand_settle, once the player has the answer): its ledger transfer and its place in the
    histories come then."""
    deadline = time.monotonic() + timeout
    while True:
        hand = Hand.objects.get(pk=hand_id)
        if hand.status in (Hand.Status.COMPLETE, Hand.Status.CANCELLED):
            return hand
        assert time.monotonic() < deadline, f"hand {hand_id} still {hand.status} after {timeout} s"
        time.sleep(0.05)


def to_act_user(table, players):
    hand = Hand.objects.get(table=table, status="running")
    seat = Seat.objects.get(table=table, number=hand.to_act + 1)
    return next(p for p in players if p.id == seat.user_id)


def heads_up(players, **table_options):
    """A table with the first two players in seats 1 and 2 and the first hand dealt."""
    table = table_create(**table_options)
    sit(table, players[0], 1)
    sit(table, players[1], 2)
    return table, services.hand_deal(table_id=table.id)


def three_handed(players):
    """A table with the first three players in seats 1 to 3 and the first hand dealt."""
    table = table_create()
    for number, player in enumerate(players[:3], start=1):
        sit(table, player, number)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    return table, hand


def passive(legal: set[str]) -> str:
    return "check" if "check" in legal else ("call" if "call" in legal else "show")


def legal_now(table, hand) -> set[str]:
    """The actions the player to act may take in `hand` (read only: the engine's state goes back to the cache)."""
    state = services.hand_engine(hand=hand, table=table)
    legal = {item["action"] for item in state.legal_actions()}
    services.hand_engine_keep(hand.id, state)
    return legal


def play_out(table, players, hand, *, choose: Callable = lambda user, legal: passive(legal)) -> Hand:
    """Play `hand` to its end, each player to act taking `choose(user, legal actions)`; a choice of None leaves
    the decision to the clock (its timeout checks or folds)."""
    while True:
        hand.refresh_from_db()
        if hand.status != "running":
            return hand
        legal = legal_now(table, hand)
        user = to_act_user(table, players)
        kind = choose(user, legal)
        if kind is None:
            assert services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)
        else:
            act(table, user, kind)


def play_out_counting(table, hand, players, *, settle_later=False) -> list:
    """Check or call to the end of the hand; returns the statements of the action that ended it (its
    settlement left to the caller, as a web process leaves it, with `settle_later`)."""
    while True:
        hand.refresh_from_db()
        legal = legal_now(table, hand)
        user = to_act_user(table, players)
        with CaptureQueriesContext(connection) as captured:
            act(table, user, "check" if "check" in legal else "call", settle_later=settle_later)
        hand.refresh_from_db()
        if hand.status != "running":
            return captured.captured_queries[1:]  # less the read `act` makes itself


def states_sent(monkeypatch) -> list[dict]:
    """The `state` messages the tables send to their watchers from now on (after commit), in order, caught
    where they leave the process (tables.broadcast.group_send_batch) instead of going out."""
    from tables import broadcast

    states: list[dict] = []
    monkeypatch.setattr(
        broadcast,
        "group_send_batch",
        lambda group, messages, follow=None: states.extend(m for m in messages if m["type"] == "state"),
    )
    return states


def hand_played(table, players, *, fold: bool = False) -> Hand:
    """Deal one hand at `table` and play it to its end: the player to act folds (`fold`), else everyone checks
    or calls down to the showdown."""
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None
    return play_out(
        table,
        players,
        hand,
        choose=lambda user, legal: "fold" if fold and "fold" in legal else passive(legal),
    )


def all_in_until_one_busts(table, alice, bob) -> int | None:
    """Alice and Bob, alone at the table, go all in every hand until one loses everything: that seat's number
    (None if forty hands were not enough; a split pot deals again)."""
    for _ in range(40):
        hand = services.hand_deal(table_id=table.id)
        assert hand is not None
        play_out(
            table,
            [alice, bob],
            hand,
            choose=lambda user, legal: "all_in" if "all_in" in legal else passive(legal),
        )
        broke = [number for number, stack in seat_stacks(table=table).items() if stack == 0]
        if broke:
            return broke[0]
    return None


# --- tournaments ------------------------------------------------------------------------------------------------


def tournament_create(*, kind="sng", seats=6, currency="eur", buy_in=1_000, fee=100, **extra) -> Tournament:
    """A tournament on the default turbo structure: a sit-and-go of `seats`, or a multi-table one."""
    defaults_ensure()  # a transactional test's flush removed the migration's rows
    defaults = {
        "name": f"Tournament {next(_names)}",
        "kind": kind,
        "currency": currency,
        "buy_in": buy_in,
        "fee": fee,
        "starting_stack": 1_500,
        "seats_per_table": seats,
        "blind_structure": BlindStructure.objects.get(name="Turbo (5 minutes)"),
        "payout_table": PayoutTable.objects.get(
            name="Sit-and-go" if kind == "sng" else "Multi-table (15 % paid)"
        ),
        "max_entrants": seats if kind == "sng" else 60,
        "min_entrants": seats if kind == "sng" else 2,
    }
    if kind == "mtt":
        defaults["starts_at"] = timezone.now() + timedelta(hours=1)
    defaults.update(extra)
    tournament = Tournament(**defaults)
    tournament.full_clean()
    tournament.save()
    return tournament


def eur_player(amount: int = 10_000):
    player = player_create()
    eur_fund(player, amount)
    return player


def fast_structure(seconds: int = 3):
    """The default ladder with levels of `seconds` (the blinds rise while the test plays)."""
    from tournaments.models import BlindLevel
    from tournaments.rules.structures import Speed, default_schedule

    structure = BlindStructure.objects.create(
        name=f"Fast {seconds}s {BlindStructure.objects.count()}",
        speed=Speed.HYPER.value,
        starting_stack=1_500,
    )
    levels_create(
        blind_level=BlindLevel,
        structure=structure,
        schedule=default_schedule(Speed.HYPER, level_seconds=seconds),
    )
    return structure
