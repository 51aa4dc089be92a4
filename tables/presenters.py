"""The table's presentation: the engine's and the models' state as players read it, texts in their language
and what clients are sent (events, a finished hand's summary and openings, a refusal explained, a player as the
seat events name them). It takes no lock and writes nothing; the services (tables.services) and the views call
it. Seat numbers: the engine counts from 0, the protocol from 1 (`event_for_clients` turns the one into the
other).
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from cashier.amounts import format_amount
from tables.engine import fairness
from tables.engine.hand import Hand as EngineHand
from tables.engine.hand import IllegalAction
from tables.hand_names import shown_hand_names
from tables.models import Hand, RemoveReason, Table


def player_json(user) -> dict | None:
    """A player as a seat event names them (None: nobody)."""
    if user is None:
        return None
    return {"name": user.username, "bot": bool(user.is_bot)}


def refusal_text(refused: IllegalAction, *, state: EngineHand, table: Table) -> str:
    """The engine's refusal in the player's language, with amounts as money (the engine's own reason, in
    English with raw chip counts, is the fallback for the rare codes not listed here)."""
    limits = state.limits()

    def money(amount: int) -> str:
        if table.is_tournament:  # tournament chips are whole counts, not hundredths of money
            from django.utils.formats import number_format

            return _("%(amount)s chips") % {"amount": number_format(amount, force_grouping=True)}
        return format_amount(amount, table.currency)

    if refused.code == "not_your_turn":
        return _("It is not your turn.")
    if refused.code == "hand_over":
        return _("The hand is over.")
    if refused.code == "cannot_call":
        return _("There is nothing to call: check.")
    if refused.code == "cannot_bet":
        return _("There is a bet already: raise.")
    if refused.code == "cannot_raise":
        return _("You cannot raise now.")
    if limits is not None:
        if refused.code == "cannot_check":
            return _("You cannot check: %(amount)s to call.") % {"amount": money(limits.to_call)}
        if refused.code == "below_min":
            return _("The smallest amount allowed is %(amount)s.") % {"amount": money(limits.min_to)}
        if refused.code == "above_max":
            return _("The largest amount allowed is %(amount)s.") % {"amount": money(limits.max_to)}
        if refused.code == "bad_amount":
            return _("That amount is not allowed: from %(low)s to %(high)s, in steps of %(step)s.") % {
                "low": money(limits.min_to),
                "high": money(limits.max_to),
                "step": money(table.chip),
            }
    return refused.reason


_SEAT_KEYS = ("seat",)
_SEAT_LIST_KEYS = ("seats", "eligible", "high_winners", "low_winners")


def event_for_clients(event: dict) -> dict:
    """An engine event as the protocol says it: seats counted from 1, and no deck positions (the
    commitment is opened at the end of the hand, for the positions each viewer may see)."""
    out = {key: value for key, value in event.items() if key != "positions"}
    for key in _SEAT_KEYS:
        if isinstance(out.get(key), int):
            out[key] += 1
    for key in _SEAT_LIST_KEYS:
        if isinstance(out.get(key), list):
            out[key] = [seat + 1 for seat in out[key]]
    for key in ("winners", "stacks"):
        if isinstance(out.get(key), dict):
            out[key] = {str(int(seat) + 1): amount for seat, amount in out[key].items()}
    if isinstance(out.get("runs"), list):  # a pot of a hand run twice: each board's half, seats the same way
        out["runs"] = [event_for_clients(run) for run in out["runs"]]
    return out


def hand_summary(*, hand: Hand) -> dict:
    """What everyone may know of a finished hand: board, shown hands, pots with their rake, and the
    openings of the deck positions that became public, checkable against the commitment."""
    result = hand.result or {}
    secret = fairness.DeckSecret.from_json(hand.deck_secret)
    openings = fairness.open_positions(secret=secret, positions=result.get("public_positions", []))
    boards = result.get("boards") or [result.get("board", [])]
    return {
        "hand_id": hand.id,
        "number": hand.number,
        "board": result.get("board", []),
        "boards": boards,
        "shown": result.get("shown", {}),
        "hands": shown_hand_names(
            variant=hand.config["variant"], board=result.get("board", []), shown=result.get("shown", {})
        ),
        # Run twice: each shown hand's name on each board (the first is "hands" again).
        "hands_by_board": [
            shown_hand_names(variant=hand.config["variant"], board=board, shown=result.get("shown", {}))
            for board in boards
        ]
        if len(boards) > 1
        else None,
        "pots": [event_for_clients(pot) for pot in result.get("pots", [])],
        "rake": result.get("rake", 0),
        "deck_commitment": hand.commitment,
        "openings": [opening.to_json() for opening in openings],
    }


def hand_openings_for(*, hand: Hand, user) -> list[dict]:
    """The openings a given player may see of a finished hand: the public ones and their own hole cards."""
    if hand.status != Hand.Status.COMPLETE:
        return []
    result = hand.result or {}
    viewer = next(
        (int(seat) for seat, p in hand.players.items() if user is not None and p["user"] == user.id), None
    )
    secret = fairness.DeckSecret.from_json(hand.deck_secret)
    positions = set(result.get("public_positions", []))
    if viewer is not None:
        positions |= set(result.get("hole_positions", {}).get(str(viewer), []))
    return [opening.to_json() for opening in fairness.open_positions(secret=secret, positions=positions)]


def in_language(user, text_fn):
    """`text_fn()` translated into the player's own language (their profile's, else the room's)."""
    with translation.override(getattr(user, "preferred_language", "") or settings.LANGUAGE_CODE):
        return str(text_fn())


def removed_text(reason: str, table: Table) -> str:
    """What a player the room took off a seat of `table` is told, for `reason` (a RemoveReason)."""
    if reason == RemoveReason.SAT_OUT:
        return _(
            "You sat out too long at %(table)s: your seat is free again and your chips are back in your "
            "wallet."
        ) % {"table": table.name}
    if reason == RemoveReason.BUSTED:
        return _("You did not buy back at %(table)s in time: your seat is free again.") % {
            "table": table.name
        }
    if reason == RemoveReason.STAFF:
        return _("The staff removed you from %(table)s: your chips are back in your wallet.") % {
            "table": table.name
        }
    if reason == RemoveReason.CLOSED:
        return _("The staff closed %(table)s: your chips are back in your wallet.") % {"table": table.name}
    return _("You left %(table)s: your chips are back in your wallet.") % {"table": table.name}


def offer_expired_text(table: Table) -> str:
    """What a player on the waiting list is told when the seat offered to them at `table` went to the next."""
    return _("The seat offered to you at %(table)s went to the next player.") % {"table": table.name}
