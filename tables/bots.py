"""House bots for the practice (play-money) tables and practice tournaments: labelled as bots everywhere, so a
lone new player can play at once. They choose their moves with `tables.botplay` (ranges by position and stack,
push-or-fold when short, equity against the range the betting implies after the flop; a style per bot from its
user id) through the same service path as a person (`services.bot_act`, `services.bots_seat`), after a think
time like a person's (`bot_think_seconds`, kept by the workers' clock). This module is their play and their
wallets; it imports no table service."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model

from cashier import services as cashier
from cashier.selectors import wallet_balances
from tables.botplay import decide, observe, style_for, think_seconds
from tables.engine import Hand as EngineHand
from tables.models import Seat, Table

_rng = (
    random.Random()
)  # the simple policy's (bot_choose) style only; cards are shuffled elsewhere (SystemRandom)
_play_rng = random.Random()  # the house bots' mixed choices and think times; a test seeds it by replacing it


def bot_move(*, state: EngineHand, seat: int, user_id: int) -> tuple[str, int | None]:
    """The house bot in `seat` chooses its move from what its seat sees of the hand (its own cards, never
    another's), in its own style."""
    return decide(observe(state, seat), style_for(user_id), _play_rng)


def bot_think_seconds(*, state: EngineHand, table: Table) -> float:
    """How long the house bot to act waits before its move: about 1 to 4 s at a cash table, shorter at a
    practice tournament's."""
    return think_seconds(state, tournament=table.kind == Table.Kind.TOURNAMENT, rng=_play_rng)


def bot_choose(
    *, legal: list[dict], pot: int, stack: int, rng: random.Random = _rng, chip: int = 1
) -> tuple[str, int | None]:
    """A simple loose player (no longer the house bots': tests and the load benches' WebSocket players use it).
    Picks an action from `legal` ({action, min, max} "to" amounts): mostly check or call, sometimes bet
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


def bot_users() -> list:
    """The room's house bots (made the first time)."""
    User = get_user_model()
    bots = []
    for name in BOT_NAMES:
        user, created = User.objects.get_or_create(username=name, defaults={"is_bot": True})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        bots.append(user)
    return bots


def bots_top_up(*, table, seats: list, stacks: dict[int, int]) -> bool:
    """Between hands: a bot below half the maximum buys back up to it. `seats` (with their users) and `stacks`
    (seat number -> chips) are the table's as they are now; the stacks are updated here. Returns whether any
    bot topped up. Caller holds the table lock."""
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
        cashier.seat_top_up(user=seat.user, table=table, amount=amount)
        stacks[seat.number] = stack + amount
        topped_up = True
        if seat.status == Seat.Status.SITTING_OUT:
            seat.status = Seat.Status.ACTIVE
            seat.sat_out_at = None
            seat.save(update_fields=["status", "sat_out_at"])
    return topped_up
