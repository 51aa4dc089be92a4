"""Drop-in pokerkit hand types backed by phevaluator.

Bare pokerkit spends about 95 % of a hand in its own evaluator (it builds every five-card combination
and looks each up). These classes have the same interface as ``StandardHighHand``,
``OmahaHoldemHand`` and ``OmahaEightOrBetterLowHand`` (``from_game``, ordering, equality, hashing) and
can be passed to pokerkit's ``State`` in their place; the tests check that they order hands exactly as
pokerkit's own. Stronger hands compare greater, for the low too.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any, ClassVar, Self

from pokerkit import Card
from pokerkit.hands import Hand
from pokerkit.lookups import EightOrBetterLookup, Lookup, StandardLookup

from tables.engine.cards import (
    FULL_DECK,
    high_strength,
    low_strength_any,
    omaha_high_strength,
    omaha_low_strength,
)

_ID_OF_CARD: dict[Card, int] = {card: i for i, card in enumerate(Card.parse("".join(FULL_DECK)))}
_CARD_OF_ID = {i: card for card, i in _ID_OF_CARD.items()}


def _ids(cards: Iterable[Any]) -> list[int]:
    try:
        return [_ID_OF_CARD[card] for card in Card.clean(cards) if card]
    except KeyError as error:
        raise ValueError(f"unknown card {error}") from None


class _FastHand(Hand):
    """A hand whose value is an integer, bigger = stronger. The five cards behind it are found only
    when somebody asks for them (printing), never during play."""

    lookup: ClassVar[Lookup] = StandardLookup()
    low: ClassVar[bool] = False

    def __init__(self, cards: Any) -> None:
        ids = _ids(cards)
        if len(ids) != 5 or len(set(ids)) != 5:
            raise ValueError(f"The cards {cards!r} form an invalid {type(self).__qualname__} hand.")
        value = self._value_of_five(ids)
        if value is None:
            raise ValueError(f"The cards {cards!r} form an invalid {type(self).__qualname__} hand.")
        self._ids = tuple(ids)
        self._value = value

    @classmethod
    def _value_of_five(cls, ids: list[int]) -> int | None:
        return high_strength(ids)

    @classmethod
    def _new(cls, value: int, ids: tuple[int, ...]) -> Self:
        hand = cls.__new__(cls)
        hand._value = value
        hand._ids = ids
        return hand

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return self._value == other._value

    def __lt__(self, other: Hand) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return self._value < other._value

    def __hash__(self) -> int:
        return hash((type(self), self._value))

    @property
    def value(self) -> int:
        return self._value

    @property
    def cards(self) -> tuple[Card, ...]:
        ids = self._ids
        if len(ids) > 5:
            ids = next(
                combo for combo in combinations(ids, 5) if self._value_of_five(list(combo)) == self._value
            )
        return tuple(_CARD_OF_ID[i] for i in ids)


class FastStandardHighHand(_FastHand):
    """Best five of five to seven cards, any combination (Hold'em)."""

    @classmethod
    def from_game(cls, hole_cards: Any, board_cards: Any = ()) -> Hand:
        ids = _ids(hole_cards) + _ids(board_cards)
        if not 5 <= len(ids) <= 7:
            raise ValueError(
                "No valid FastStandardHighHand hand can be formed from the hole and board cards."
            )
        return cls._new(high_strength(ids), tuple(ids))


class _OmahaHand(_FastHand):
    """Exactly two hole cards and three board cards; remembers which were which for printing."""

    _hole: tuple[int, ...] = ()
    _board: tuple[int, ...] = ()

    @classmethod
    def _value_of_game(cls, hole: list[int], board: list[int]) -> int | None:
        raise NotImplementedError

    @classmethod
    def from_game(cls, hole_cards: Any, board_cards: Any = ()) -> Hand:
        hole, board = _ids(hole_cards), _ids(board_cards)
        value = cls._value_of_game(hole, board) if len(hole) >= 2 and len(board) >= 3 else None
        if value is None:
            raise ValueError(f"No valid {cls.__qualname__} hand can be formed from the hole and board cards.")
        hand = cls._new(value, tuple(hole + board))
        hand._hole, hand._board = tuple(hole), tuple(board)
        return hand

    @property
    def cards(self) -> tuple[Card, ...]:
        if not self._hole:
            return tuple(_CARD_OF_ID[i] for i in self._ids)
        for pair in combinations(self._hole, 2):
            for triple in combinations(self._board, 3):
                if self._value_of_five([*pair, *triple]) == self._value:
                    return tuple(_CARD_OF_ID[i] for i in (*pair, *triple))
        raise AssertionError("no five cards make this hand")  # pragma: no cover


class FastOmahaHoldemHand(_OmahaHand):
    """Omaha high."""

    @classmethod
    def _value_of_game(cls, hole: list[int], board: list[int]) -> int | None:
        return omaha_high_strength(hole, board)


class FastOmahaEightOrBetterLowHand(_OmahaHand):
    """Omaha 8-or-better low: five different ranks of eight or lower. ``value`` is the negated low
    value so that the better low compares greater."""

    lookup: ClassVar[Lookup] = EightOrBetterLookup()
    low: ClassVar[bool] = True

    @classmethod
    def _value_of_five(cls, ids: list[int]) -> int | None:
        low = low_strength_any(ids)
        return None if low is None else -low

    @classmethod
    def _value_of_game(cls, hole: list[int], board: list[int]) -> int | None:
        low = omaha_low_strength(hole, board)
        return None if low is None else -low
