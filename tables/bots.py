"""House bots for the practice (play-money) tables: labelled as bots everywhere, so a lone new player can
play at once. They play a loose, simple game from the same `legal` list a person gets, through the same
service path, with a short think time (services.BOT_THINK_SECONDS, kept by the workers' clock)."""

from __future__ import annotations

import random

from django.db import transaction

from tables import services
from tables.engine.hand import Action
from tables.models import Hand

_rng = random.Random()  # style of play only; cards are shuffled elsewhere, with SystemRandom


def bot_choose(
    *, legal: list[dict], pot: int, stack: int, rng: random.Random = _rng, chip: int = 1
) -> tuple[str, int | None]:
    """Pick an action from `legal` ({action, min, max} "to" amounts): mostly check or call, sometimes bet
    half the pot (in whole `chip`s, within the legal amounts: the Pot-Limit maximum caps it), rarely fold to a
    big bet."""
    by_action = {item["action"]: item for item in legal}
    roll = rng.random()
    if "show" in by_action:
        return "show", None
    wager = by_action.get("bet") or by_action.get("raise")
    if "check" in by_action:
        if wager and roll < 0.25:
            target = max(wager["min"], min(wager["max"], wager["min"] + pot // 2 // chip * chip))
            return wager["action"], target
        return "check", None
    call = by_action.get("call")
    to_call = call["min"] if call else 0
    if call and to_call > max(pot, 1) and roll < 0.45:
        return "fold", None
    if wager and roll > 0.9:
        return wager["action"], wager["min"]
    if call:
        return "call", None
    if "all_in" in by_action and roll < 0.5:
        return "all_in", None
    return "fold", None


def bot_act(*, hand_id: int, action_no: int) -> bool:
    """The bot whose turn it is acts, if the hand still waits for that decision. Locks the table."""
    with transaction.atomic():
        hand = Hand.objects.filter(pk=hand_id).only("table_id").first()
        if hand is None:
            return False
        table = services.table_lock(table_id=hand.table_id)
        hand = Hand.objects.get(pk=hand_id)
        if hand.status != Hand.Status.RUNNING or hand.action_no != action_no:
            return False
        state = services.hand_engine(hand=hand, table=table)
        seat = state.to_act
        if seat is None or not hand.players.get(str(seat), {}).get("bot"):
            services.hand_engine_keep(hand.id, state)
            return False
        pot = sum(p.amount for p in state.pots()) + sum(state.bets.values())
        kind, amount = bot_choose(
            legal=state.legal_actions(), pot=pot, stack=state.stacks.get(seat, 0), chip=table.chip
        )
        services.hand_apply(
            table=table, hand=hand, state=state, action=Action(seat=seat, kind=kind, amount=amount)
        )
        return True


BOT_NAMES = tuple(
    f"Bot {name}"
    for name in (
        "Ada",
        "Bruno",
        "Carla",
        "Dario",
        "Elsa",
        "Fabio",
        "Gina",
        "Ugo",
        "Livia",
        "Marco",
        "Nina",
        "Otto",
        "Paola",
        "Quinto",
        "Rita",
        "Sara",
        "Teo",
        "Vera",
        "Walter",
        "Zeno",
    )
)
BOTS_PER_TABLE = 2


def _bot_users() -> list:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    bots = []
    for name in BOT_NAMES:
        user, created = User.objects.get_or_create(username=name, defaults={"is_bot": True})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        bots.append(user)
    return bots


def bots_seat(*, table_id: int, count: int = BOTS_PER_TABLE) -> int:
    """Seat house bots at a practice table that allows them, up to `count`, each buying in for the table's
    maximum from its own play wallet (funded from the issuer when short). Returns how many sat down."""
    from cashier import services as cashier
    from cashier.selectors import wallet_balances
    from tables.models import Seat, Table

    table = Table.objects.get(pk=table_id)
    if not table.bots_allowed or table.currency != "play":
        return 0
    seated = Seat.objects.filter(table=table, user__is_bot=True).count()
    free = Seat.objects.filter(table=table, user__isnull=True).count()
    want = min(count - seated, free - 1)  # always leave room for a person
    busy = set(Seat.objects.filter(user__is_bot=True).values_list("user_id", flat=True))
    added = 0
    for bot in _bot_users():
        if added >= want:
            break
        if bot.id in busy:
            continue
        if wallet_balances(user=bot).get("play", 0) < table.max_buy_in:
            cashier.bot_wallet_fund(bot=bot, amount=10 * table.max_buy_in)
        services.seat_take(
            table_id=table.id, user=bot, seat_number=None, buy_in=table.max_buy_in, post="wait_bb"
        )
        added += 1
    return added


def bots_top_up(*, table, seats: list, stacks: dict[int, int]) -> bool:
    """Between hands: a bot below half the maximum buys back up to it. `seats` (with their users) and `stacks`
    (seat number -> chips) are the table's as they are now; the stacks are updated here. Returns whether any
    bot topped up. Caller holds the table lock."""
    from cashier import services as cashier
    from cashier.selectors import wallet_balances
    from tables.models import Seat

    topped_up = False
    for seat in seats:
        if seat.user_id is None or not seat.user.is_bot:
            continue
        stack = stacks.get(seat.number, 0)
        if stack >= table.max_buy_in // 2:
            continue
        amount = (table.max_buy_in - stack) // table.chip * table.chip
        if wallet_balances(user=seat.user).get("play", 0) < amount:
            cashier.bot_wallet_fund(bot=seat.user, amount=10 * table.max_buy_in)
        cashier.seat_top_up(user=seat.user, table=table, amount=amount, hand_in_progress=False)
        stacks[seat.number] = stack + amount
        topped_up = True
        if seat.status == Seat.Status.SITTING_OUT:
            seat.status = Seat.Status.ACTIVE
            seat.sat_out_at = None
            seat.save(update_fields=["status", "sat_out_at"])
    return topped_up
