"""An evening of play at five tables (NL Hold'em in EUR with rake, PL Omaha, FL Hold'em, PL and FL Omaha Hi-Lo),
played through the services by scripted players, read back from every player's PokerStars download by an
independent reader: pokerkit's ``PokerStarsParser`` (the PHH authors' importer of PokerStars text, a pinned
PyPI package, not written with the exporter). Everything it reads must be what the room recorded: the players
and seats, the starting stacks, the blinds posted (``blinds_or_straddles``), the antes (``antes``: none this
evening), the actions, and the ``winnings`` it finds; replaying the betting with pokerkit's own rules, the pot
and the winners the ledger booked. Then a round trip, with the test's own regular expressions, of what it does
not read: the amounts in each text add up to the hand's settlement in the ledger.

What pokerkit's reader does not read (pokerkit 0.7.7, ``pokerkit/notation.py``), so that only the round trip
checks it: the rake and ``Total pot ... Main pot ... Side pot ...`` (no pattern; it settles without rake), the
collects by pot, ``and is all-in``, ``Uncalled bet (X) returned to``, ``posts the ante`` (its ante pattern
matches nothing), ``posts straddle`` and ``posts small & big blinds`` (its blind pattern is ``posts small|big
blind``). Its ``winnings`` pattern wants a space before the name, so of the collect lines it reads only the
summary's ``Seat N: name collected (X)`` (with a position mark in front, the "name" it reads is no player's):
where it reads one, the amount must be what that player won.

pokerkit's reader lists NL Hold'em only; the test tells it PokerStars' names of the other games. Its reader
replays each hand while parsing with a game built from the blinds alone, so it parses the Fixed-Limit games as
No-Limit (the chips that go in are the same); the test then replays what it parsed with pokerkit's own
Fixed-Limit games, ``FT`` (Fixed-Limit Hold'em) and ``FO/8`` (Fixed-Limit Omaha Hi-Lo, split pots and all),
with the small and big bets of the header, and PL Omaha with ``PO``. pokerkit has no Pot-Limit Omaha Hi-Lo:
those hands are replayed high-only (``PO``), and their high winners must be among the room's winners.
"""

import random
import re
import tomllib
from collections import defaultdict

import pytest
from pokerkit import ChipsPulling, ChipsPushing, HandHistory
from pokerkit.notation import PokerStarsParser

from tables import services
from tables.engine import fairness
from tables.engine.config import HandConfig
from tables.engine.hand import replay
from tables.engine.phh import export_phh
from tables.history.selectors import hands_export_text, hands_for_export
from tables.management.commands.seed_demo import rake_schedules_seed
from tables.models import Currency, Game, Hand, Structure
from tests.factories import eur_table_create as cashier_table_create
from tests.tables.history_helpers import (
    cents,
    check_round_trip,
    ledger_of,
    person,
    play,
    play_out,
    scripted_choice,
    seat_all,
    stack_next_deck,
)

pytestmark = [
    pytest.mark.django_db,
    # pokerkit keeps PokerStars' time-zone name as an extra field, and says so.
    pytest.mark.filterwarnings("ignore:The field 'time_zone_abbreviation':UserWarning"),
]


class RoomGamesPokerStarsParser(PokerStarsParser):
    """pokerkit's PokerStars reader with PokerStars' names of the room's other games (see the module)."""

    VARIANT = re.compile(r" (?P<variant>Hold'em (?:No |Pot )?Limit|Omaha (?:Hi/Lo )?(?:Pot )?Limit) ")
    VARIANTS = {
        "Hold'em No Limit": "NT",
        "Hold'em Pot Limit": "NT",
        "Hold'em Limit": "NT",
        "Omaha Pot Limit": "PO",
        "Omaha Hi/Lo Pot Limit": "PO",
        "Omaha Hi/Lo Limit": "PO",
    }


EVENING = [
    # game, structure, currency, small blind, big blind, buy-ins by seat, hands
    (Game.HOLDEM, Structure.NO_LIMIT, Currency.EUR, 5, 10, {1: 300, 2: 1_000, 3: 600, 4: 1_000}, 14),
    (Game.OMAHA, Structure.POT_LIMIT, Currency.PLAY, 50, 100, {1: 5_000, 2: 10_000, 3: 4_000, 4: 8_000}, 10),
    (
        Game.HOLDEM,
        Structure.FIXED_LIMIT,
        Currency.PLAY,
        100,
        200,
        {1: 10_000, 2: 20_000, 3: 8_000, 4: 6_000},
        10,
    ),
    (Game.OMAHA_HILO, Structure.POT_LIMIT, Currency.PLAY, 50, 100, {1: 6_000, 2: 10_000, 3: 3_000}, 10),
    (Game.OMAHA_HILO, Structure.FIXED_LIMIT, Currency.EUR, 5, 10, {1: 500, 2: 1_000, 3: 600}, 8),
]


def play_evening(monkeypatch) -> tuple[list[Hand], list]:
    """The evening, the same every run: the players' choices and the decks come from seeded generators (the
    room's shuffle is the system's; a test may pass its own source, tables.engine.fairness)."""
    rng = random.Random(20240501)
    decks = random.Random(20240502)
    monkeypatch.setattr(
        fairness, "shuffled_deck", lambda: fairness.shuffle(items=fairness.FULL_DECK, rng=decks)
    )
    schedule, _nickel = rake_schedules_seed()
    people = [person(name, eur=50_000) for name in ("ada", "bruno", "carla", "dario", "elsa")]
    hands: list[Hand] = []
    for number, (game, structure, currency, sb, bb, buy_ins, count) in enumerate(EVENING):
        table = cashier_table_create(
            currency=currency,
            game=game,
            structure=structure,
            small_blind=sb,
            big_blind=bb,
            seats=6,
            rake_schedule=schedule,
        )
        players = [people[(number + i) % len(people)] for i in range(len(buy_ins))]
        seat_all(table, players, buy_ins)
        if number == 0:
            hands += opening_hands(monkeypatch, table)
        for _ in range(count):
            if services.hand_deal(table_id=table.id) is None:
                break  # fewer than two players left with chips
            hands.append(
                play_out(
                    table,
                    rng,
                    choose=fixed_limit_choice if structure == Structure.FIXED_LIMIT else scripted_choice,
                )
            )
    return hands, people


def fixed_limit_choice(legal, rng):
    """No all-in of one's own in Fixed-Limit: pokerkit's No-Limit replay would refuse the completion of a
    short all-in that Fixed-Limit allows (calling all-in for less stays)."""
    return scripted_choice([entry for entry in legal if entry["action"] != "all_in"], rng)


def opening_hands(monkeypatch, table) -> list[Hand]:
    """At the NL table, two hands from stacked decks: a three-way all-in with an uncalled bet and a side pot
    (seat 4 folds), then a royal flush on the board, which every player still in splits."""
    stack_next_deck(
        monkeypatch,
        order=[1, 2, 3, 0],
        holes={0: "AsAd", 1: "QsQd", 2: "KsKd", 3: "7c2h"},
        board="2c7h9dJc3s",
    )
    services.hand_deal(table_id=table.id)
    first = play(table, (3, "fold"), (0, "all_in"), (1, "all_in"), (2, "call"))
    stack_next_deck(monkeypatch, order=[0, 1, 2, 3], holes={}, board="AhKhQhJhTh")  # four players dealt in
    services.hand_deal(table_id=table.id)
    return [first, play_out(table, random.Random(7), choose=lambda legal, _rng: passive(legal))]


def passive(legal):
    actions = {entry["action"] for entry in legal}
    return ("check" if "check" in actions else "call" if "call" in actions else "muck"), None


def room_actions(hand: Hand) -> list[str]:
    """The hand's player actions as PHH writes them, from the engine's own record (not from the text)."""
    engine = replay(config=HandConfig.from_dict(hand.config), actions=hand.actions)
    actions = tomllib.loads(export_phh(engine))["actions"]
    return [a for a in actions if not a.startswith("d ") and " sm" not in a]


def features(hands: list[Hand]) -> dict[str, int]:
    found = defaultdict(int)
    for hand in hands:
        result = hand.result
        pots = result["pots"]
        found["showdown"] += len(hand.players) - sum(a["action"] == "fold" for a in hand.actions) > 1
        found["fold"] += any(a["action"] == "fold" for a in hand.actions)
        found["all_in"] += any(a["action"] == "all_in" for a in hand.actions)
        found["side_pot"] += len(pots) > 1
        found["split_pot"] += any(len([w for w in p["winners"].values() if w]) > 1 for p in pots)
        found["uncalled"] += bool(result["returned"])
        found["rake"] += bool(result["rake"])
        found[hand.table.game] += 1
        found[hand.table.structure] += 1
    return found


def test_an_evening_reads_back_with_an_independent_pokerstars_reader_and_adds_up_to_the_ledger(monkeypatch):
    hands, people = play_evening(monkeypatch)
    found = features(hands)
    for feature in (
        "showdown",
        "fold",
        "all_in",
        "side_pot",
        "split_pot",
        "uncalled",
        "rake",
        "omaha",
        "omaha_hilo",
        "fl",
        "pl",
        "nl",
    ):
        assert found[feature], f"the evening had no {feature}: {dict(found)}"
    read = 0
    for user in people:
        mine = list(hands_for_export(user=user))
        text = "".join(hands_export_text(hands=mine, fmt="pokerstars", user=user))
        parsed = list(RoomGamesPokerStarsParser()(text, parse_value=cents, error_status=True))
        assert len(parsed) == len(mine)
        for history, hand, chunk in zip(parsed, mine, text.split("\n\n\n"), strict=False):
            check_against_the_room(history, hand, chunk)
            check_round_trip(chunk, hand)
            read += 1
    assert read == sum(len(h.players) for h in hands), "every player's every hand was read"
    assert len(hands) >= 40, f"an evening is more than {len(hands)} hands"


FIXED_LIMIT_STAKES = re.compile(r"^PokerStars Hand #\d+:  .+? Limit \(€?([\d.]+)/€?([\d.]+)(?: EUR)?\) - ")


def replayed_with_the_right_game(history, hand: Hand, text: str):
    """The parsed hand in pokerkit's own game for it: Fixed-Limit Hold'em or Omaha Hi-Lo with the header's small
    and big bets; the other games as parsed (NL Hold'em, PL Omaha; PL Omaha Hi-Lo high-only, see the module)."""
    if hand.table.structure != Structure.FIXED_LIMIT:
        return history
    small_bet, big_bet = (cents(amount) for amount in FIXED_LIMIT_STAKES.match(text).groups())
    assert (small_bet, big_bet) == (hand.config["small_bet"], hand.config["big_bet"]), hand.id
    return HandHistory(
        variant="FO/8" if hand.table.game == Game.OMAHA_HILO else "FT",
        antes=history.antes,
        blinds_or_straddles=history.blinds_or_straddles,
        small_bet=small_bet,
        big_bet=big_bet,
        starting_stacks=history.starting_stacks,
        actions=history.actions,
    )


def check_against_the_room(history, hand: Hand, text: str) -> None:
    config = hand.config
    by_name = {p["name"]: int(seat) for seat, p in hand.players.items()}
    assert sorted(history.players) == sorted(by_name), hand.id
    for name, seat, stack in zip(history.players, history.seats, history.starting_stacks, strict=True):
        assert seat == by_name[name] + 1, (hand.id, name)
        assert stack == config["stacks"][str(by_name[name])], (hand.id, name)
    posted = {
        hand.players[str(seat)]["name"]: config["small_blind" if kind == "small_blind" else "big_blind"]
        for seat, kind in config["posts"]
        if kind in ("small_blind", "big_blind")
    }
    # What pokerkit makes of the blinds it read (its list is by position: reversed heads-up): each player's
    # bet before the first action.
    first = next(iter(history))
    pokerkit_posted = {name: bet for name, bet in zip(history.players, first.bets, strict=True) if bet}
    assert pokerkit_posted == posted, hand.id
    assert not any(history.antes) and not config["antes"], hand.id
    played = [a for a in history.actions if not a.startswith("d ") and " sm" not in a]
    assert played == room_actions(hand), hand.id
    won = defaultdict(int)
    for pot in hand.result["pots"]:
        for seat, amount in pot["winners"].items():
            won[hand.players[seat]["name"]] += amount
    for name, amount in zip(history.players, getattr(history, "winnings", None) or [], strict=False):
        assert not amount or amount == won[name], (hand.id, name, "pokerkit's winnings")
    # pokerkit replays the betting with its own rules and settles without rake.
    game = replayed_with_the_right_game(history, hand, text)
    final = list(game)[-1]
    pushed = defaultdict(int)
    pulled = 0
    for operation in final.operations:
        if isinstance(operation, ChipsPushing):
            for index, amount in enumerate(operation.amounts):
                pushed[history.players[index]] += amount
        elif isinstance(operation, ChipsPulling):
            pulled += operation.amount
    deltas, rake = ledger_of(hand)
    pokerkit_deltas = {
        name: final.stacks[i] - history.starting_stacks[i] for i, name in enumerate(history.players)
    }
    # pokerkit hands an uncontested winner's whole last bet back (it pulls it with the pot); the room only
    # the part nobody matched (SPEC 1.1, issue 11), so the matched part is in the room's pot.
    uncollected = pulled - sum(pushed.values())
    matched = uncollected - sum(hand.result["returned"].values()) if uncollected else 0
    assert sum(pushed.values()) + matched == hand.pot_total, "pokerkit's pot is the room's"
    assert rake == hand.result["rake"] and sum(pokerkit_deltas.values()) - sum(deltas.values()) == rake
    winners = {name for name, amount in won.items() if amount}
    pokerkit_winners = {name for name, amount in pushed.items() if amount}
    if hand.table.game == Game.OMAHA_HILO and hand.table.structure != Structure.FIXED_LIMIT:
        assert pokerkit_winners <= winners | {n for n in deltas if deltas[n] >= 0}, hand.id
    else:
        assert pokerkit_winners == winners, hand.id
    for name, delta in deltas.items():
        if name not in winners:  # nobody but a winner pays rake
            assert delta == pokerkit_deltas[name], (hand.id, name)
