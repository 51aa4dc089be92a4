"""A hand as staff read it in the admin, written by the hand histories (tables.history): as anyone at the table
saw it, and every card it dealt only when a member of staff asks, which is written to the audit log.

Nobody, staff included, sees the hidden cards of a hand in play: a hand's history exists once it is over."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from tables.history.selectors import hand_pokerstars
from tables.history.story import FULL_VIEW
from tables.models import Hand


def hand_history_public(*, hand: Hand) -> str | None:
    """The finished hand as PokerStars text with the hands shown only (None while it is in play)."""
    if hand.status != Hand.Status.COMPLETE:
        return None
    return hand_pokerstars(hand=hand, viewer=None)


def hand_cards_reveal(*, hand: Hand, staff_user) -> tuple[str, list[str]]:
    """Every card of a finished hand for a member of staff (the history with every player's cards, and the
    whole deck in dealing order), written to the audit log: who, which hand, when. ValueError for a hand that
    is not over."""
    if hand.status != Hand.Status.COMPLETE:
        raise ValueError("the hidden cards of a hand are shown once it is over, to staff only")
    with transaction.atomic():
        staff_action_record(
            actor=staff_user,
            action="hand.cards_view",
            target=hand,
            note=_("Every card of hand %(number)d at %(table)s")
            % {"number": hand.pk, "table": hand.table.name},
        )
    return hand_pokerstars(hand=hand, viewer=FULL_VIEW), list(hand.config["deck"])
