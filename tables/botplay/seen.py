"""What one seat may see when its turn comes: the bots' only input.

``observe`` copies it out of the engine's hand: the seat's own hole cards, the board, stacks, bets, the pot,
who folded, the public action log street by street, the blinds and the legal actions. :class:`Seen` has no
field for another player's cards or for the deck, so a strategy given a ``Seen`` cannot read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from tables.engine.cards import card_ids
from tables.engine.config import Structure, Variant
from tables.engine.hand import Hand, Phase


@dataclass(frozen=True, slots=True)
class Move:
    """One public action: its seat, kind ("fold", "check", "call", "bet", "raise", "all_in"), the "to" amount
    of the street's bet after it, the street (0 pre-flop .. 3 river), and whether it raised the price."""

    seat: int
    kind: str
    amount: int
    street: int
    raised: bool


@dataclass(frozen=True, slots=True)
class Legal:
    """One entry of the engine's legal list ("to" amounts)."""

    action: str
    min: int
    max: int


@dataclass(frozen=True, slots=True)
class Seen:
    """The table as the seat to act sees it. Cards are the engine's integers (``tables.engine.cards``)."""

    variant: Variant
    structure: Structure
    seat: int
    hole: tuple[int, ...]
    board: tuple[int, ...]
    street: int
    order: tuple[int, ...]
    """Seats dealt in, in dealing order: first after the button .. the button last."""
    button: int
    stacks: Mapping[int, int]
    """Chips behind, now."""
    bets: Mapping[int, int]
    """This street's bets."""
    pot: int
    """Everything in the middle, this street's bets included."""
    folded: frozenset[int]
    small_blind: int
    big_blind: int
    chip: int
    moves: tuple[Move, ...]
    legal: tuple[Legal, ...]
    showdown: bool = False

    @property
    def live(self) -> tuple[int, ...]:
        """Seats still in the hand (not folded), in dealing order."""
        return tuple(s for s in self.order if s not in self.folded)

    @property
    def opponents(self) -> tuple[int, ...]:
        return tuple(s for s in self.live if s != self.seat)

    def total(self, seat: int) -> int:
        """A seat's chips behind plus its bet on this street."""
        return self.stacks[seat] + self.bets[seat]

    def legal_action(self, action: str) -> Legal | None:
        for item in self.legal:
            if item.action == action:
                return item
        return None

    @property
    def to_call(self) -> int:
        call = self.legal_action("call")
        return call.min - self.bets[self.seat] if call else 0


def observe(hand: Hand, seat: int) -> Seen:
    """What ``seat`` sees of ``hand`` when it is its turn (its own cards, nothing else hidden)."""
    config = hand.config
    moves: list[Move] = []
    street, top = 0, config.big_blind
    for event in hand.events:
        if event.to is not None:
            continue
        if event.kind == "street":
            street, top = street + 1, 0
        elif event.kind == "acted":
            data = event.data
            amount = int(data["amount"])
            raised = data["action"] in ("bet", "raise", "all_in") and amount > top
            top = max(top, amount)
            moves.append(Move(int(data["seat"]), str(data["action"]), amount, min(street, 3), raised))
    pots = sum(p.amount for p in hand.pots())
    bets = hand.bets
    legal = tuple(Legal(str(i["action"]), int(i["min"]), int(i["max"])) for i in hand.legal_actions())
    return Seen(
        variant=config.variant,
        structure=config.structure,
        seat=seat,
        hole=tuple(card_ids(hand.hole_cards(seat))),
        board=tuple(card_ids(hand.board)),
        street={"preflop": 0, "flop": 1, "turn": 2, "river": 3}[hand.street],
        order=hand.order,
        button=config.button,
        stacks=MappingProxyType(hand.stacks),
        bets=MappingProxyType(bets),
        pot=pots + sum(bets.values()),
        folded=hand.folded,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        chip=config.chip,
        moves=tuple(moves),
        legal=legal,
        showdown=hand.phase is Phase.SHOWDOWN,
    )
