"""Helpers of the hand-history tests: tables with players sitting, hands dealt from stacked decks and played
through the services, as at a real table."""

from __future__ import annotations

import itertools
import random
import re
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.utils import timezone

from cashier import services as cashier
from cashier.models import AccountKind, Entry, Transfer, TransferKind
from tables import services
from tables.engine import fairness
from tables.models import Hand, Seat, Table
from tests.engine.engine_helpers import stacked_deck
from tests.factories import eur_fund

_numbers = itertools.count(1)


def person(name: str, *, eur: int = 0):
    """A player called ``name`` (made unique), with the welcome play chips and ``eur`` cents deposited."""
    user = get_user_model().objects.create_user(
        username=f"{name}{next(_numbers)}", password="pw-Secret-123", email_verified_at=timezone.now()
    )
    cashier.play_chips_welcome(user=user)
    if eur:
        eur_fund(user, eur)
    return user


def seat_all(table: Table, users: Iterable, buy_ins: Mapping[int, int] | int) -> list:
    """Sit each user in seats 1, 2, ... with its buy-in (one for all, or by seat number)."""
    users = list(users)
    for number, user in enumerate(users, start=1):
        amount = buy_ins if isinstance(buy_ins, int) else buy_ins[number]
        services.seat_take(table_id=table.id, user=user, seat_number=number, buy_in=amount, post="now")
    return users


def stack_next_deck(
    monkeypatch, *, order: list[int], holes: Mapping[int, str], board: str, hole_count: int = 2
):
    """The next hand dealt anywhere uses this deck (engine seats, dealing order), then shuffles go back to
    random."""
    deck = list(stacked_deck(order=order, holes=holes, board=board, hole_count=hole_count))
    real = fairness.shuffled_deck

    def once(**kwargs):
        monkeypatch.setattr(fairness, "shuffled_deck", real)
        return deck

    monkeypatch.setattr(fairness, "shuffled_deck", once)


def running(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table, status=Hand.Status.RUNNING).first()


def user_at(table: Table, engine_seat: int):
    return Seat.objects.select_related("user").get(table=table, number=engine_seat + 1).user


def act(table: Table, engine_seat: int, action: str, amount: int | None = None) -> None:
    hand = running(table)
    assert hand is not None, "no hand is running"
    services.table_act(
        table_id=table.id,
        user=user_at(table, engine_seat),
        hand_id=hand.id,
        action_no=hand.action_no,
        action=action,
        amount=amount,
    )


def play(table: Table, *moves: tuple) -> Hand:
    """Play (engine seat, action[, amount]) moves in the running hand; returns it, read again."""
    hand = running(table)
    for move in moves:
        act(table, *move)
    return Hand.objects.select_related("table").get(pk=hand.pk)


def finished(hand: Hand) -> Hand:
    return Hand.objects.select_related("table").get(pk=hand.pk)


def ended_at(hand: Hand, when: datetime) -> Hand:
    """The hand as if it had been played at ``when`` (started a minute before, ended then)."""
    Hand.objects.filter(pk=hand.pk).update(started_at=when - timedelta(minutes=1), ended_at=when)
    return finished(hand)


def copies_of(hand: Hand, ends: Iterable[datetime]) -> list[Hand]:
    """More finished hands at the hand's table, the same play each (the next numbers), ended at ``ends``: a
    long history without dealing each hand."""
    made = []
    for when in ends:
        last = Hand.objects.filter(table_id=hand.table_id).order_by("-number").first()
        copy = Hand.objects.get(pk=hand.pk)
        copy.pk, copy.number = None, last.number + 1
        copy.save(force_insert=True)
        made.append(ended_at(copy, when))
    return made


Chooser = Callable[[list[dict], random.Random], tuple[str, int | None]]


def scripted_choice(legal: list[dict], rng: random.Random) -> tuple[str, int | None]:
    """A player of an evening: mostly calls and checks, bets and raises often enough for side pots,
    goes all-in now and then, folds to bets sometimes (so there are uncalled bets and walks)."""
    by_action = {entry["action"]: entry for entry in legal}
    roll = rng.random()
    if "show" in by_action:
        return ("show" if roll < 0.5 else "muck"), None
    wager = by_action.get("raise") or by_action.get("bet")
    if "all_in" in by_action and roll < 0.06:
        return "all_in", None
    if wager and roll < 0.30:
        span = wager["max"] - wager["min"]
        return wager["action"], wager["min"] + (rng.randrange(span + 1) if span and roll < 0.12 else 0)
    if "call" in by_action and roll < 0.50:
        return "fold", None
    if "check" in by_action:
        return "check", None
    return ("call", None) if "call" in by_action else ("fold", None)


def play_out(table: Table, rng: random.Random, choose: Chooser = scripted_choice) -> Hand:
    """Play the running hand to its end, whoever is to act choosing from the legal actions."""
    hand = running(table)
    while True:
        current = Hand.objects.get(pk=hand.pk)
        if current.status != Hand.Status.RUNNING:
            return finished(current)
        state = services.hand_engine(hand=current, table=table)
        seat = state.to_act
        legal = state.legal_actions()
        services.hand_engine_keep(current.id, state)
        action, amount = choose(legal, rng)
        act(table, seat, action, amount)


def unique_name(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:5]}"


def ledger_of(hand: Hand) -> tuple[dict[str, int], int]:
    """What the ledger booked for the hand: each player's change (by name; no entry is no change) and the rake."""
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    deltas, rake = {player["name"]: 0 for player in hand.players.values()}, 0
    for entry in Entry.objects.filter(transfer=transfer).select_related("account__seat_session__user"):
        if entry.account.kind == AccountKind.RAKE:
            rake += entry.amount
        else:
            deltas[entry.account.seat_session.user.username] = entry.amount
    return deltas, rake


AMOUNT = r"€?([\d.]+)"
STAKES = re.compile(
    r"^PokerStars Hand #\d+:  .+? (No Limit|Pot Limit|Limit) \(€?([\d.]+)/€?([\d.]+)(?: EUR)?\) - "
)


def cents(text: str) -> int:
    return int(Decimal(text.replace(",", "")) * 100)


def check_round_trip(text: str, hand: Hand) -> None:
    """The amounts a PokerStars text shows add up to what the ledger booked: each player's posts, calls, bets
    and raises, less uncalled chips returned and what they collected; the pots less the rake are what was
    collected; the total pot is the pots. Every post PokerStars writes counts: ``posts the ante`` (dead money,
    no part of the player's bet), ``posts small blind`` / ``posts big blind`` / ``posts straddle`` (live bets;
    a ``posts small blind`` after the big blind, a dead small blind owed from missed blinds, is dead), and
    ``posts small & big blinds`` (the big blind live, the small blind dead). The big blind comes from the
    header: the second stake, or in Fixed-Limit, whose header names the bets, the small bet."""
    deltas, rake = ledger_of(hand)
    stakes = STAKES.match(text)
    assert stakes, text.splitlines()[0]
    big_blind = cents(stakes[2] if stakes[1] == "Limit" else stakes[3])
    moved: dict[str, int] = defaultdict(int)
    street_bets: dict[str, int] = defaultdict(int)
    collected = 0
    big_blind_posted = False
    for line in text.splitlines():
        if line.startswith("*** ") and line != "*** HOLE CARDS ***":
            street_bets.clear()
        elif m := re.match(rf"(.+): posts the ante {AMOUNT}", line):
            moved[m[1]] -= cents(m[2])
        elif m := re.match(rf"(.+): posts small & big blinds {AMOUNT}", line):
            moved[m[1]] -= cents(m[2])
            street_bets[m[1]] += min(cents(m[2]), big_blind)
        elif m := re.match(rf"(.+): posts (small blind|big blind|straddle) {AMOUNT}", line):
            moved[m[1]] -= cents(m[3])
            if not (m[2] == "small blind" and big_blind_posted):
                street_bets[m[1]] += cents(m[3])
            big_blind_posted |= m[2] == "big blind"
        elif m := re.match(rf"(.+): (?:calls|bets) {AMOUNT}", line):
            moved[m[1]] -= cents(m[2])
            street_bets[m[1]] += cents(m[2])
        elif m := re.match(rf"(.+): raises {AMOUNT} to {AMOUNT}", line):
            moved[m[1]] -= cents(m[3]) - street_bets[m[1]]
            street_bets[m[1]] = cents(m[3])
        elif m := re.match(rf"Uncalled bet \({AMOUNT}\) returned to (.+)", line):
            moved[m[2]] += cents(m[1])
        elif m := re.match(rf"(.+) collected {AMOUNT} from ", line):
            moved[m[1]] += cents(m[2])
            collected += cents(m[2])
        elif m := re.match(rf"Total pot {AMOUNT}(.*) \| Rake {AMOUNT}", line):
            total, pots, text_rake = cents(m[1]), m[2], cents(m[3])
    assert {name: moved[name] for name in deltas} == deltas, hand.id
    assert text_rake == rake and total == hand.pot_total and collected + rake == total, hand.id
    nets = [cents(amount) for amount in re.findall(rf"pot(?:-\d)? {AMOUNT}\.", pots)]
    assert not nets or sum(nets) == collected, hand.id
