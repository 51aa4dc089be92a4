"""The configuration of one hand: everything that is fixed before the first card.

A hand is this configuration plus its action log; the engine rebuilds the state from the two. The seats
follow ``tables.engine.positions`` (numbers ``0 .. seat_count - 1`` increasing clockwise), whose plans post
with this module's ``PostKind``, so a plan's posts can be passed straight through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from tables.engine.cards import FULL_DECK
from tables.engine.rake import RakeSchedule

_FULL_DECK_SET = frozenset(FULL_DECK)
MIN_PLAYERS = 2
MAX_PLAYERS = 10


class Variant(StrEnum):
    HOLDEM = "holdem"
    OMAHA = "omaha"
    OMAHA_HILO = "omaha_hilo"

    @property
    def hole_cards(self) -> int:
        return 2 if self is Variant.HOLDEM else 4

    @property
    def hi_lo(self) -> bool:
        return self is Variant.OMAHA_HILO


class Structure(StrEnum):
    NO_LIMIT = "nl"
    POT_LIMIT = "pl"
    FIXED_LIMIT = "fl"


class PostKind(StrEnum):
    """Forced posts before the cards."""

    SMALL_BLIND = "small_blind"
    """Live bet of the small blind amount."""
    BIG_BLIND = "big_blind"
    """Live bet of the big blind amount, by the seat the big blind reached."""
    ENTRY_BIG_BLIND = "entry_big_blind"
    """A live big blind out of position (new player, or back from missed blinds); it counts as their bet
    and has the option like the big blind."""
    DEAD_SMALL_BLIND = "dead_small_blind"
    """The small blind straight into the pot: not a bet, never returned, not counted toward calls."""
    STRADDLE = "straddle"
    """Live blind of twice the big blind by the first player after the big blind; acts last pre-flop."""


class ConfigError(ValueError):
    """The configuration cannot describe a hand (a bug on the caller's side, not a player's mistake)."""


def fixed_limit_small_blind(*, small_bet: int, chip: int) -> int:
    """SPEC 1.1: the FL small blind is half the small bet rounded down to the table's smallest chip."""
    return small_bet // 2 // chip * chip


@dataclass(frozen=True)
class HandConfig:
    """One hand's settings. Money is integers in the smallest unit (cents or play chips).

    ``stacks`` maps each seat dealt in to its stack; ``button`` is a seat number that may be empty (dead
    button). ``posts`` lists ``(seat, PostKind)`` pairs; objects with ``seat`` and ``kind`` attributes
    (``positions.Post``) are accepted too. ``deck`` is the shuffled deck, 52 distinct cards like "As",
    dealt from position 0. ``antes`` are dead money per seat (tournament antes, a big-blind ante).
    ``bomb_pot``: every player posts this amount and the hand starts on the flop (no blinds).
    ``auto_muck`` per seat (default on). ``rake``: the schedule, or ``None`` for no rake.
    ``run_twice``: the seats that agree to run the board twice; when every player still in is among them
    and nobody can bet any more before the river, the rest of the board is dealt twice.
    """

    variant: Variant
    structure: Structure
    seat_count: int
    stacks: Mapping[int, int]
    button: int
    small_blind: int
    big_blind: int
    deck: tuple[str, ...]
    posts: tuple[tuple[int, PostKind], ...] = ()
    chip: int = 1
    small_bet: int | None = None
    big_bet: int | None = None
    antes: Mapping[int, int] = field(default_factory=dict)
    bomb_pot: int = 0
    rake: RakeSchedule | None = None
    auto_muck: Mapping[int, bool] = field(default_factory=dict)
    run_twice: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "variant", Variant(self.variant))
        set_(self, "structure", Structure(self.structure))
        set_(self, "stacks", MappingProxyType(dict(self.stacks)))
        set_(self, "antes", MappingProxyType({s: a for s, a in dict(self.antes).items() if a}))
        set_(self, "auto_muck", MappingProxyType(dict(self.auto_muck)))
        set_(self, "run_twice", frozenset(self.run_twice))
        set_(self, "deck", tuple(self.deck))
        set_(self, "posts", tuple(_normalise_post(post) for post in self.posts))
        if self.structure is Structure.FIXED_LIMIT:
            small_bet = self.small_bet if self.small_bet is not None else self.big_blind
            set_(self, "small_bet", small_bet)
            set_(self, "big_bet", self.big_bet if self.big_bet is not None else 2 * small_bet)
        self._validate()

    # --- derived ---------------------------------------------------------------------------------

    @property
    def order(self) -> tuple[int, ...]:
        """Seats dealt in, clockwise from the first after the button (the button, if dealt in, last):
        the dealing order, the order after the flop and the odd-chip order."""
        return tuple(sorted(self.stacks, key=lambda seat: (seat - self.button - 1) % self.seat_count))

    @property
    def straddle_seat(self) -> int | None:
        for seat, kind in self.posts:
            if kind is PostKind.STRADDLE:
                return seat
        return None

    @property
    def big_blind_seat(self) -> int | None:
        for seat, kind in self.posts:
            if kind is PostKind.BIG_BLIND:
                return seat
        return None

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (seat keys become strings); :meth:`from_dict` reads it back."""
        return {
            "variant": self.variant.value,
            "structure": self.structure.value,
            "seat_count": self.seat_count,
            "stacks": {str(s): v for s, v in self.stacks.items()},
            "button": self.button,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "deck": list(self.deck),
            "posts": [[seat, kind.value] for seat, kind in self.posts],
            "chip": self.chip,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "antes": {str(s): v for s, v in self.antes.items()},
            "bomb_pot": self.bomb_pot,
            "auto_muck": {str(s): v for s, v in self.auto_muck.items()},
            "run_twice": sorted(self.run_twice),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, rake: RakeSchedule | None = None) -> HandConfig:
        return cls(
            variant=Variant(data["variant"]),
            structure=Structure(data["structure"]),
            seat_count=data["seat_count"],
            stacks={int(s): v for s, v in data["stacks"].items()},
            button=data["button"],
            small_blind=data["small_blind"],
            big_blind=data["big_blind"],
            deck=tuple(data["deck"]),
            posts=tuple((seat, PostKind(kind)) for seat, kind in data.get("posts", ())),
            chip=data.get("chip", 1),
            small_bet=data.get("small_bet"),
            big_bet=data.get("big_bet"),
            antes={int(s): v for s, v in data.get("antes", {}).items()},
            bomb_pot=data.get("bomb_pot", 0),
            rake=rake,
            auto_muck={int(s): v for s, v in data.get("auto_muck", {}).items()},
            run_twice=frozenset(data.get("run_twice", ())),
        )

    # --- validation ------------------------------------------------------------------------------

    def _validate(self) -> None:
        def integer(value: object, what: str, *, minimum: int = 0) -> None:
            if type(value) is not int or value < minimum:
                raise ConfigError(f"{what} must be an integer >= {minimum}, not {value!r}")

        integer(self.seat_count, "seat_count", minimum=MIN_PLAYERS)
        if self.seat_count > MAX_PLAYERS:
            raise ConfigError(f"at most {MAX_PLAYERS} seats")
        integer(self.chip, "chip", minimum=1)
        integer(self.small_blind, "small_blind")
        integer(self.big_blind, "big_blind", minimum=1)
        integer(self.bomb_pot, "bomb_pot")
        integer(self.button, "button")
        if self.button >= self.seat_count:
            raise ConfigError("button must be a seat of the table")
        if not MIN_PLAYERS <= len(self.stacks) <= MAX_PLAYERS:
            raise ConfigError(f"a hand needs {MIN_PLAYERS} to {MAX_PLAYERS} players")
        seats = range(self.seat_count)
        for seat, stack in self.stacks.items():
            if type(seat) is not int or seat not in seats or type(stack) is not int or stack < 1:
                integer(seat, "seat")
                if seat >= self.seat_count:
                    raise ConfigError(f"seat {seat} is not at a {self.seat_count}-seat table")
                integer(stack, f"stack of seat {seat}", minimum=1)
        for seat in self.run_twice:
            if seat not in self.stacks:
                raise ConfigError(f"seat {seat} agrees to run it twice but is not dealt in")
        for seat, ante in self.antes.items():
            if seat not in self.stacks:
                raise ConfigError(f"ante for seat {seat}, which is not dealt in")
            integer(ante, f"ante of seat {seat}")
        for amount, what in ((self.small_blind, "small blind"), (self.big_blind, "big blind")):
            if amount % self.chip:
                raise ConfigError(f"{what} {amount} is not a multiple of the smallest chip {self.chip}")
        if self.structure is Structure.FIXED_LIMIT:
            integer(self.small_bet, "small_bet", minimum=1)
            integer(self.big_bet, "big_bet", minimum=1)
        if len(self.deck) != 52 or set(self.deck) != _FULL_DECK_SET:
            bad = [text for text in self.deck if text not in _FULL_DECK_SET]
            raise ConfigError(
                f"the deck must be the 52 cards once each{f' (not a card: {bad[0]!r})' if bad else ''}"
            )
        seen: set[tuple[int, PostKind]] = set()
        for seat, kind in self.posts:
            if seat not in self.stacks:
                raise ConfigError(f"seat {seat} posts {kind.value} but is not dealt in")
            if (seat, kind) in seen:
                raise ConfigError(f"seat {seat} posts {kind.value} twice")
            seen.add((seat, kind))
        kinds = [kind for _, kind in self.posts]
        if self.bomb_pot:
            if self.posts:
                raise ConfigError("a bomb pot has no blinds")
            return
        if kinds.count(PostKind.BIG_BLIND) != 1:
            raise ConfigError("exactly one seat posts the big blind")
        if kinds.count(PostKind.SMALL_BLIND) > 1 or kinds.count(PostKind.STRADDLE) > 1:
            raise ConfigError("at most one small blind and one straddle")
        straddle = self.straddle_seat
        if straddle is not None:
            if self.structure is Structure.FIXED_LIMIT:
                raise ConfigError("no straddle in Fixed-Limit")
            if len(self.stacks) < 3:
                raise ConfigError("no straddle heads-up")
            order = self.order
            bb = self.big_blind_seat
            assert bb is not None
            if order[(order.index(bb) + 1) % len(order)] != straddle:
                raise ConfigError("the straddle is the first player after the big blind")
        by_seat: dict[int, list[PostKind]] = {}
        for seat, kind in self.posts:
            by_seat.setdefault(seat, []).append(kind)
        for seat, seat_kinds in by_seat.items():
            live = [k for k in seat_kinds if k is not PostKind.DEAD_SMALL_BLIND]
            if len(live) > 1:
                raise ConfigError(f"seat {seat} posts more than one live blind")


def _normalise_post(post: object) -> tuple[int, PostKind]:
    if isinstance(post, tuple):
        seat, kind = post
    else:
        seat, kind = post.seat, post.kind  # type: ignore[attr-defined]
    return seat, PostKind(str(getattr(kind, "value", kind)))
