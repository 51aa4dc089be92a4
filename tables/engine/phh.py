"""PHH (the Poker Hand History format) in and out: replay a recorded hand through the engine.

PHH lists players from the small blind clockwise with the button last (heads-up: the big blind first,
then the button, who posts the small blind), and gives blinds and antes in pokerkit's order (heads-up
reversed). Here a file becomes a :class:`HandConfig` (seats ``0 .. n-1`` in the file's order, the button
the last seat, a deck order that deals exactly the recorded cards, unknown cards filled in from the
rest of the deck) plus our own :class:`Action` log, and the engine plays it by the room's rules.

A board run twice is written as PHH (and pokerkit) write several run-outs: after the all-in the ``d db``
actions of the first run, then those of the second (our export adds the commentary ``# run 1`` / ``# run 2``).
A file with more than five board cards is read as a hand whose players all agreed to run it twice.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tables.engine.cards import FULL_DECK, card_text, parse_cards
from tables.engine.config import ConfigError, HandConfig, PostKind, Structure, Variant
from tables.engine.hand import Action, Hand, IllegalAction, Phase
from tables.engine.rake import RakeSchedule, room_schedule

_VARIANTS: dict[str, tuple[Variant, Structure]] = {
    "NT": (Variant.HOLDEM, Structure.NO_LIMIT),
    "PT": (Variant.HOLDEM, Structure.POT_LIMIT),
    "FT": (Variant.HOLDEM, Structure.FIXED_LIMIT),
    "NO": (Variant.OMAHA, Structure.NO_LIMIT),
    "PO": (Variant.OMAHA, Structure.POT_LIMIT),
    "FO": (Variant.OMAHA, Structure.FIXED_LIMIT),
    "PO/8": (Variant.OMAHA_HILO, Structure.POT_LIMIT),
    "FO/8": (Variant.OMAHA_HILO, Structure.FIXED_LIMIT),
}
_CODES = {value: key for key, value in _VARIANTS.items()}


class PHHError(ValueError):
    """The file cannot be replayed by the engine (unsupported, malformed, or illegal by our rules)."""


@dataclass(frozen=True, slots=True)
class RecordedHand:
    """A PHH file read into the engine's terms."""

    config: HandConfig
    script: tuple[tuple[int, str, str], ...]
    """(seat, PHH verb, argument) of each player action, in order: ``f``, ``cc``, ``cbr``, ``sm``."""
    players: tuple[str, ...]


def _reorder_heads_up(values: Sequence[int], n: int) -> list[int]:
    """pokerkit (and so PHH) reads heads-up blinds and antes in reverse order."""
    values = list(values)
    return values[::-1] if n == 2 else values


def load_phh(text: str, *, rake: RakeSchedule | None = None, chip: int = 1) -> RecordedHand:
    """Read a PHH document into a configuration and a script of player actions."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PHHError(f"not a PHH file: {error}") from None
    try:
        return _load(data, rake=rake, chip=chip)
    except (KeyError, TypeError, IndexError) as error:
        raise PHHError(f"malformed PHH: {error!r}") from None
    except ConfigError as error:
        raise PHHError(f"cannot configure the hand: {error}") from None


def _load(data: Mapping[str, Any], *, rake: RakeSchedule | None, chip: int) -> RecordedHand:
    code = data["variant"]
    if code not in _VARIANTS:
        raise PHHError(f"unsupported variant {code!r}")
    variant, structure = _VARIANTS[code]
    stacks = list(data["starting_stacks"])
    n = len(stacks)
    blinds = _reorder_heads_up(data.get("blinds_or_straddles", [0] * n), n)
    antes = _reorder_heads_up(data.get("antes", [0] * n), n)
    if any(type(x) is not int for x in (*stacks, *blinds, *antes)):
        raise PHHError("amounts must be whole chips")
    seats = list(range(n))
    button = n - 1
    posts: list[tuple[int, PostKind]] = []
    small_blind = big_blind = 0
    if n == 2:
        # Heads-up the button (seat 1) posts the small blind, seat 0 the big blind.
        if blinds[1]:
            posts.append((1, PostKind.SMALL_BLIND))
        posts.append((0, PostKind.BIG_BLIND))
        small_blind, big_blind = blinds[1], blinds[0]
    elif not blinds[1] and blinds[0]:
        # A single blind on the first seat: the big blind, with the small blind dead.
        posts.append((0, PostKind.BIG_BLIND))
        big_blind = blinds[0]
        small_blind = (
            data.get("small_bet", big_blind) // 2 if structure is Structure.FIXED_LIMIT else big_blind // 2
        )
    else:
        if blinds[0]:
            posts.append((0, PostKind.SMALL_BLIND))
        posts.append((1, PostKind.BIG_BLIND))
        small_blind, big_blind = blinds[0], blinds[1]
        for index in range(2, n):
            if blinds[index]:
                if index != 2 or blinds[index] != 2 * big_blind:
                    raise PHHError("only a straddle of twice the big blind after the big blind is supported")
                posts.append((index, PostKind.STRADDLE))
    small_bet = big_bet = None
    if structure is Structure.FIXED_LIMIT:
        small_bet, big_bet = data["small_bet"], data["big_bet"]
    hole: dict[int, list[str | None]] = {seat: [] for seat in seats}
    board: list[str] = []
    script: list[tuple[int, str, str]] = []
    for raw in data["actions"]:
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "d":
            if words[1] == "dh":
                seat = int(words[2][1:]) - 1
                cards = words[3] if len(words) > 3 else ""
                for i in range(0, len(cards), 2):
                    card = cards[i : i + 2]
                    hole[seat].append(None if card == "??" else card_text(parse_cards(card)[0]))
            elif words[1] == "db":
                board.extend(card_text(c) for c in parse_cards(words[2]))
            else:
                raise PHHError(f"unsupported dealer action {raw!r}")
            continue
        seat = int(words[0][1:]) - 1
        if not 0 <= seat < n:
            raise PHHError(f"no player {words[0]}")
        script.append((seat, words[1], " ".join(words[2:])))
    hole_count = variant.hole_cards
    slots: list[str | None] = [None] * 52
    for seat in seats:
        cards = hole[seat]
        if cards and len(cards) != hole_count:
            raise PHHError(f"player p{seat + 1} has {len(cards)} hole cards, not {hole_count}")
        for round_, card in enumerate(cards):
            slots[round_ * n + seat] = card  # dealing order = file order, one card at a time
    position = hole_count * n
    for start, count in _board_streets(len(board)):
        position += 1  # burn
        for k in range(count):
            if start + k < len(board):
                slots[position] = board[start + k]
            position += 1
    known = [card for card in slots if card is not None]
    if len(known) != len(set(known)):
        raise PHHError("a card is dealt twice")
    spare = iter(card for card in FULL_DECK if card not in set(known))
    deck = tuple(card if card is not None else next(spare) for card in slots)
    config = HandConfig(
        variant=variant,
        structure=structure,
        seat_count=max(n, 2),
        stacks=dict(zip(seats, stacks, strict=True)),
        button=button,
        small_blind=small_blind,
        big_blind=big_blind,
        deck=deck,
        posts=tuple(posts),
        chip=chip,
        small_bet=small_bet,
        big_bet=big_bet,
        antes={seat: ante for seat, ante in zip(seats, antes, strict=True) if ante},
        rake=rake,
        run_twice=frozenset(seats) if len(board) > 5 else frozenset(),
    )
    players = tuple(data.get("players", [f"p{i + 1}" for i in seats]))
    return RecordedHand(config=config, script=tuple(script), players=players)


def _board_streets(cards: int) -> list[tuple[int, int]]:
    """(index in the recorded board, card count) of each street dealt, in dealing order: flop, turn, river,
    then, when the board was run twice (more than five cards), the second run's streets after the first's."""
    streets = [(0, 3), (3, 1), (4, 1)]
    if cards > 5:
        shared = 10 - cards  # both runs deal the same streets: shared + 2 x (5 - shared) cards
        counts = [count for start, count in streets if start >= shared]
        streets += [(5 + sum(counts[:i]), count) for i, count in enumerate(counts)]
    return streets


def play_recorded(recorded: RecordedHand) -> Hand:
    """Play the script through the engine. Each PHH verb becomes the room's action of that meaning
    (``cc`` a check or a call, ``cbr`` a bet or a raise or an all-in); showdown verbs are used only
    when the engine waits for that player's decision (auto-muck decides the rest)."""
    hand = Hand(recorded.config)
    for seat, verb, argument in recorded.script:
        if hand.is_over or (verb == "sm" and hand.to_act != seat):
            if verb == "sm":
                continue
            raise PHHError(f"p{seat + 1} {verb}: the hand is already over")
        action = _translate(hand, seat, verb, argument)
        try:
            hand.act(action)
        except IllegalAction as error:
            raise PHHError(f"p{seat + 1} {verb} {argument}: {error.reason}") from None
    if not hand.is_over:
        raise PHHError("the recorded actions stop before the end of the hand")
    if recorded.config.run_twice and not hand.runs_twice:
        raise PHHError("the board is run twice where the rules run it once")
    return hand


def _translate(hand: Hand, seat: int, verb: str, argument: str) -> Action:
    if verb == "f":
        return Action(seat, "fold")
    if verb == "sm":
        if hand.phase is not Phase.SHOWDOWN:
            raise PHHError("show/muck outside the showdown")
        return Action(seat, "show" if argument and "?" not in argument else "muck")
    limits = hand.limits()
    if limits is None or limits.seat != seat:
        raise PHHError(f"p{seat + 1} acts out of turn")
    if verb == "cc":
        return Action(seat, "call" if limits.to_call else "check")
    if verb == "cbr":
        amount = int(argument)
        if amount == limits.total:
            return Action(seat, "all_in")
        return Action(seat, "raise" if limits.facing_bet else "bet", amount)
    raise PHHError(f"unsupported player action {verb!r}")


def replay_file(path: str | Path, *, rake: RakeSchedule | str | None = None) -> dict[str, Any]:
    """Replay one PHH file: ``{"file", "finishing_stacks" (file's player order), "rake"}`` or
    ``{"file", "error"}`` when it cannot be replayed. Never raises for a bad file.

    ``rake="room"``: amounts are euro cents at a smallest chip of 0.01 and the room's schedule is used.
    """
    name = str(path)
    schedule = room_schedule(1) if rake == "room" else rake
    if isinstance(schedule, str):
        return {"file": name, "error": f"unknown rake {schedule!r}"}
    try:
        text = Path(path).read_text(encoding="utf-8")
        recorded = load_phh(text, rake=schedule)
        hand = play_recorded(recorded)
    except (OSError, UnicodeDecodeError) as error:
        return {"file": name, "error": f"cannot read: {error}"}
    except PHHError as error:
        return {"file": name, "error": str(error)}
    except Exception as error:  # noqa: BLE001 - a replay tool reports, it never crashes on a file
        return {"file": name, "error": f"{type(error).__name__}: {error}"}
    settlement = hand.settlement
    assert settlement is not None
    stacks = [settlement.finishing_stacks[seat] for seat in range(len(recorded.config.stacks))]
    return {"file": name, "finishing_stacks": stacks, "rake": settlement.rake}


def replay_files(
    paths: Iterable[str | Path], *, rake: RakeSchedule | str | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """Replay many files; returns (one result per file, whether all of them replayed)."""
    results = [replay_file(path, rake=rake) for path in paths]
    return results, all("error" not in result for result in results)


def export_phh(hand: Hand, *, players: Sequence[str] | None = None) -> str:
    """A hand as PHH text (seats in dealing order, the button last; all cards known to the room)."""
    config = hand.config
    order = hand.order
    n = len(order)
    code = _CODES[(config.variant, config.structure)]
    blinds = [0] * n
    antes = [0] * n
    for seat, kind in config.posts:
        i = order.index(seat)
        amount = {
            PostKind.SMALL_BLIND: config.small_blind,
            PostKind.BIG_BLIND: config.big_blind,
            PostKind.STRADDLE: 2 * config.big_blind,
            PostKind.ENTRY_BIG_BLIND: -config.big_blind,
        }.get(kind)
        if amount is None:
            antes[i] += config.small_blind
        else:
            blinds[i] = amount
    for seat, ante in config.antes.items():
        antes[order.index(seat)] += ante
    if config.bomb_pot:
        antes = [a + config.bomb_pot for a in antes]
    blinds, antes = _reorder_heads_up(blinds, n), _reorder_heads_up(antes, n)
    lines = [
        f"variant = {code!r}",
        "ante_trimming_status = false",
        f"antes = {antes}",
        f"blinds_or_straddles = {blinds}",
    ]
    if config.structure is Structure.FIXED_LIMIT:
        lines += [f"small_bet = {config.small_bet}", f"big_bet = {config.big_bet}"]
    else:
        lines.append(f"min_bet = {config.big_blind}")
    lines.append(f"starting_stacks = {[config.stacks[s] for s in order]}")
    actions = [f"d dh p{i + 1} {''.join(hand.hole_cards(seat))}" for i, seat in enumerate(order)]
    for event in hand.events:
        data = event.data
        if event.kind == "street":
            run = f" # run {data['run']}" if "run" in data else ""
            actions.append(f"d db {''.join(data['cards'])}{run}")
        elif event.kind == "acted":
            p = f"p{order.index(data['seat']) + 1}"
            verb = {"fold": "f", "check": "cc", "call": "cc"}.get(data["action"])
            if verb is None:
                verb = f"cbr {data['amount']}" if data["amount"] > _bet_before(hand, event) else "cc"
            actions.append(f"{p} {verb}")
        elif event.kind == "showdown":
            actions.append(f"p{order.index(data['seat']) + 1} sm {''.join(data['cards'])}")
        elif event.kind == "mucked":
            actions.append(f"p{order.index(data['seat']) + 1} sm")
    lines.append(f"actions = {actions}")
    if players is not None:
        lines.append(f"players = {list(players)}")
    return "\n".join(lines) + "\n"


def _bet_before(hand: Hand, event: Any) -> int:
    """The highest bet on the street just before ``event`` (to tell an all-in call from a raise)."""
    top = 0
    for earlier in hand.events:
        if earlier is event:
            return top
        if earlier.kind == "street":
            top = 0
        elif earlier.kind in ("posted", "acted") and earlier.data.get("kind") != "dead":
            top = max(top, earlier.data.get("amount", 0))
    return top
