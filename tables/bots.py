"""House bots for the practice (play-money) tables: labelled as bots everywhere, so a lone new player can
play at once. They play a loose, simple game from the same `legal` list a person gets, through the same
service path, with a short think time (the task's countdown)."""

from __future__ import annotations

import random

from django.db import transaction

from tables import services
from tables.engine.hand import Action
from tables.models import Hand

_rng = random.Random()  # style of play only; cards are shuffled elsewhere, with SystemRandom


def bot_choose(*, legal: list[dict], pot: int, stack: int, rng: random.Random = _rng) -> tuple[str, int | None]:
    """Pick an action from `legal` ({action, min, max} "to" amounts): mostly check or call, sometimes bet
    half the pot, rarely fold to a big bet."""
    by_action = {item["action"]: item for item in legal}
    roll = rng.random()
    if "show" in by_action:
        return "show", None
    wager = by_action.get("bet") or by_action.get("raise")
    if "check" in by_action:
        if wager and roll < 0.25:
            target = max(wager["min"], min(wager["max"], wager["min"] + pot // 2))
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
            return False
        pot = sum(p.amount for p in state.pots()) + sum(state.bets.values())
        kind, amount = bot_choose(legal=state.legal_actions(), pot=pot, stack=state.stacks.get(seat, 0))
        services.hand_apply(table=table, hand=hand, state=state, action=Action(seat=seat, kind=kind, amount=amount))
        return True
