"""A hand as staff read it in the admin: its story from the stored configuration and action log (the engine
replays it), its money as the ledger booked it (the stored result), and every card it dealt only when a member
of staff asks for them, which is recorded in the audit log (`hand_cards_reveal`).

Hidden cards are shown for finished hands only: nobody, staff included, sees the cards of a hand in play."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.audit import staff_action_record
from cashier.templatetags.money import format_amount
from tables.engine.config import HandConfig
from tables.engine.hand import replay
from tables.models import Hand

POST_LABELS = {
    "small_blind": gettext_lazy("posts the small blind"),
    "big_blind": gettext_lazy("posts the big blind"),
    "entry_big_blind": gettext_lazy("posts a big blind to come in"),
    "straddle": gettext_lazy("posts a straddle"),
    "dead": gettext_lazy("posts a dead small blind"),
}
STREET_LABELS = {"flop": gettext_lazy("Flop"), "turn": gettext_lazy("Turn"), "river": gettext_lazy("River")}


@dataclass(frozen=True)
class HandLine:
    text: str
    hidden: bool = False
    """Shows a card that nobody but its owner saw at the table."""


def _name(hand: Hand, seat: int) -> str:
    player = hand.players.get(str(seat), {})
    return _("Seat %(seat)d (%(name)s)") % {"seat": seat + 1, "name": player.get("name", "?")}


def _cards(cards) -> str:
    return " ".join(cards) if cards else "-"


def _action_text(hand: Hand, data, money) -> str:
    texts = {
        "fold": _("%(who)s folds"),
        "check": _("%(who)s checks"),
        "call": _("%(who)s calls, to %(amount)s"),
        "bet": _("%(who)s bets %(amount)s"),
        "raise": _("%(who)s raises to %(amount)s"),
        "all_in": _("%(who)s is all in, to %(amount)s"),
    }
    text = texts.get(data["action"], "%(who)s " + str(data["action"]))
    return text % {"who": _name(hand, data["seat"]), "amount": money(data.get("amount") or 0)}


def _event_line(hand: Hand, event, money, reveal: bool) -> HandLine | None:
    kind, data = event.kind, event.data
    if event.to is not None:  # a player's own hole cards
        if not reveal or kind != "dealt":
            return None
        return HandLine(
            _("%(who)s is dealt %(cards)s")
            % {"who": _name(hand, data["seat"]), "cards": _cards(data["cards"])},
            hidden=True,
        )
    if kind == "posted":
        label = POST_LABELS.get(data["kind"], data["kind"])
        return HandLine(f"{_name(hand, data['seat'])} {label} {money(data['amount'])}")
    if kind == "acted":
        return HandLine(_action_text(hand, data, money))
    if kind == "street":
        return HandLine(
            _("%(street)s: %(cards)s (board %(board)s)")
            % {
                "street": STREET_LABELS.get(data["street"], data["street"]),
                "cards": _cards(data["cards"]),
                "board": _cards(data["board"]),
            }
        )
    if kind == "showdown":
        return HandLine(
            _("%(who)s shows %(cards)s") % {"who": _name(hand, data["seat"]), "cards": _cards(data["cards"])}
        )
    if kind == "mucked":
        if reveal:
            cards = hand.hole_cards.get(str(data["seat"]), [])
            return HandLine(
                _("%(who)s mucks %(cards)s") % {"who": _name(hand, data["seat"]), "cards": _cards(cards)},
                hidden=True,
            )
        return HandLine(_("%(who)s mucks") % {"who": _name(hand, data["seat"])})
    if kind == "uncalled_returned":
        return HandLine(
            _("%(amount)s not called, returned to %(who)s")
            % {"amount": money(data["amount"]), "who": _name(hand, data["seat"])}
        )
    return None


def _result_lines(hand: Hand, money) -> list[HandLine]:
    result = hand.result or {}
    lines = []
    for number, pot in enumerate(result.get("pots", []), start=1):
        winners = ", ".join(
            f"{_name(hand, int(seat))} {money(won)}" for seat, won in pot["winners"].items() if won
        )
        lines.append(
            HandLine(
                _("Pot %(number)d: %(amount)s, rake %(rake)s, %(net)s to %(winners)s")
                % {
                    "number": number,
                    "amount": money(pot["amount"]),
                    "rake": money(pot["rake"]),
                    "net": money(pot["net"]),
                    "winners": winners or "-",
                }
            )
        )
    if result:
        lines.append(HandLine(_("Rake of the hand: %(rake)s") % {"rake": money(result.get("rake", 0))}))
    return lines


def hand_lines(*, hand: Hand, reveal: bool = False) -> list[HandLine]:
    """The hand in order: posts, actions, streets, hands shown, and the pots as booked. With `reveal`, every
    player's hole cards and the mucked hands too (finished hands only: see `hand_cards_reveal`)."""
    money = lambda amount: format_amount(amount, hand.table.currency)  # noqa: E731 - short, local
    reveal = reveal and hand.status != Hand.Status.RUNNING
    state = replay(config=HandConfig.from_dict(hand.config), actions=hand.actions)
    lines = [HandLine(_("Button: seat %(seat)d") % {"seat": hand.config["button"] + 1})]
    lines += [
        HandLine(_("%(who)s starts with %(stack)s") % {"who": _name(hand, int(seat)), "stack": money(stack)})
        for seat, stack in sorted(hand.config["stacks"].items(), key=lambda item: int(item[0]))
    ]
    for event in state.events:
        line = _event_line(hand, event, money, reveal)
        if line is not None:
            lines.append(line)
    if hand.status == Hand.Status.RUNNING:
        return lines
    return lines + _result_lines(hand, money)


def hand_deck_order(*, hand: Hand) -> list[str]:
    """The whole shuffled deck, in dealing order (hidden: burnt and undealt cards included)."""
    return list(hand.config["deck"])


def hand_cards_reveal(*, hand: Hand, staff_user) -> list[HandLine]:
    """Every card of a finished hand for a member of staff, recorded in the audit log (who, which hand, when).
    Refused (ValueError) for a hand still in play."""
    if hand.status == Hand.Status.RUNNING:
        raise ValueError("the cards of a hand in play are shown to nobody")
    with transaction.atomic():
        staff_action_record(
            actor=staff_user,
            action="hand.cards_view",
            target=hand,
            note=_("Every card of hand %(number)d at %(table)s")
            % {"number": hand.number, "table": hand.table.name},
        )
    return hand_lines(hand=hand, reveal=True)
