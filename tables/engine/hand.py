"""One hand of poker: configuration + action log -> state, legal actions, events, settlement.

``tables.engine.betting`` moves the chips the way pokerkit (pinned) does: whose turn it is, chips moving
from stacks to bets, rounds ending, bets collected and over-bets returned, all-in detection (checked against
pokerkit's public methods step by step in tests/engine/test_pokerkit_feed.py). Like pokerkit configured as a
permissive no-limit game, it moves whatever it is told to; the room's limits are checked here first, where
pokerkit's own differ (tests/engine/test_pokerkit_differences.py):

* minimum raise by the last *full* bet or raise (pre-flop by the big blind, by twice it with a straddle);
* a blind posted short by an all-in player does not lower the price of entering: pre-flop a call is to the
  full big blind (or straddle) while somebody else could still match it, and raises count from there;
* a short all-in does not reopen the betting to players who already acted unless the raises since they
  acted add up to a full raise (pokerkit treats a first pre-flop all-in below the big blind as a full
  raise and lets the limpers re-raise);
* Fixed-Limit: four bets a round with the big blind as the first (pokerkit allows a fifth pre-flop); an
  all-in of at least half a bet is a raise (counts toward the cap and reopens), less is not: the next
  player calls it or completes the bet;
* Pot-Limit: highest bet + every chip in the pots and on the table + the amount to call.

Cards are dealt by us from the caller's deck order (one at a time from the first seat clockwise of the
button, a burn before each street; a board run twice deals its second run after the first), and the
showdown, mucking and settlement are ours too.

:meth:`Hand.act` validates an action first (an :class:`IllegalAction` changes nothing), then applies it
to the hand in place; :func:`replay` rebuilds a hand from its configuration and action log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, NamedTuple

from tables.engine.betting import Betting
from tables.engine.cards import (
    FULL_DECK,
    card_ids,
    card_text,
    high_strength,
    omaha_high_strength,
    omaha_low_strength,
)
from tables.engine.config import HandConfig, PostKind, Structure, Variant
from tables.engine.settlement import Pot, Run, Settlement, Strength, build_pots, return_uncalled, settle

STREET_NAMES = ("preflop", "flop", "turn", "river")
_STREET_OF_BOARD = (0, -1, -1, 1, 2, 3)  # the street whose board has this many cards
BETTING_ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in")
SHOWDOWN_ACTIONS = ("show", "muck")
ACTIONS = BETTING_ACTIONS + SHOWDOWN_ACTIONS
_ACTION_SET = frozenset(ACTIONS)
_SHOWDOWN_SET = frozenset(SHOWDOWN_ACTIONS)
_NO_AMOUNT = frozenset(("fold", "check", "show", "muck"))


class IllegalAction(ValueError):
    """An action the rules refuse. ``reason`` is written for the player; nothing was changed."""

    def __init__(self, reason: str, *, code: str = "illegal_action") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class Phase(StrEnum):
    BETTING = "betting"
    SHOWDOWN = "showdown"
    """Waiting for a player with auto-muck off to show or muck a hand that cannot win."""
    COMPLETE = "complete"


_BETTING, _COMPLETE = Phase.BETTING, Phase.COMPLETE  # read on every decision


class Action(NamedTuple):
    """A player's decision. ``amount`` is the "to" amount on the street for bet/raise (optional for
    call and all-in, where it must then match). (A named tuple, like :class:`Event`: one is built for
    every decision.)"""

    seat: int
    kind: str
    amount: int | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "action": self.kind}
        if self.amount is not None:
            data["amount"] = self.amount
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        return cls(seat=data["seat"], kind=data["action"], amount=data.get("amount"))


class Event(NamedTuple):
    """Something that happened. ``to`` is ``None`` for everyone, or the only seat allowed to see it
    (its owner's hole cards). Mucked and folded cards never appear in any event. (A named tuple: a
    hand makes dozens of these, and a frozen dataclass costs several times more to build.)"""

    kind: str
    data: Mapping[str, Any]
    to: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"event": self.kind, **self.data}


@dataclass(frozen=True, slots=True)
class DeckMap:
    """Which deck position went where, for opening the fairness commitment: each seat's hole-card
    positions, the board positions dealt so far (flop, turn, river order), the burns, and when the board
    was run twice the positions of the second run's own cards (the cards both runs share are in
    ``board``)."""

    hole: Mapping[int, tuple[int, ...]]
    board: tuple[int, ...]
    burn: tuple[int, ...]
    second_board: tuple[int, ...] = ()


@dataclass(slots=True)
class _Street:
    """The room's bookkeeping of the betting round in play (reset each street)."""

    index: int
    full_raise: int
    fixed: int = 0
    price: int = 0
    """Pre-flop, the full blind (or straddle) a caller must match even when it was posted short."""
    fl_level: int = 0
    fl_count: int = 0
    level_at_action: dict[int, int] = field(default_factory=dict)
    count_at_action: dict[int, int] = field(default_factory=dict)
    aggressor: int | None = None


class Limits(NamedTuple):
    """What the player to act may do, in "to" amounts on the street."""

    seat: int
    to_call: int
    call_to: int
    total: int
    can_raise: bool
    min_to: int
    max_to: int
    facing_bet: bool
    top: int
    """The highest bet on the street."""
    place: int
    """The player's place in the dealing order (``Betting``'s numbering)."""


# Named tuples built straight from a tuple: their generated __new__ is a Python function, and the engine
# makes a Limits for every decision and an Event for every action.
_new_limits = partial(tuple.__new__, Limits)
_new_event = partial(tuple.__new__, Event)


class Hand:
    """A hand in play or finished. Build it with :func:`start_hand` or :func:`replay`."""

    def __init__(self, config: HandConfig) -> None:
        self.config = config
        self.log: list[Action] = []
        self.events: list[Event] = []
        self.phase = Phase.BETTING
        self.settlement: Settlement | None = None
        c = config
        self._order = c.order
        self._index = {seat: i for i, seat in enumerate(self._order)}
        self._n = len(self._order)
        self._deck = card_ids(c.deck)
        self._next = 0
        self._hole: dict[int, list[int]] = {seat: [] for seat in self._order}
        self._hole_pos: dict[int, list[int]] = {seat: [] for seat in self._order}
        self._board: list[int] = []
        self._board_pos: list[int] = []
        self._burn_pos: list[int] = []
        self._second_board: list[int] = []
        """The second run's whole board (with the cards both runs share), when the board was run twice."""
        self._second_board_pos: list[int] = []
        self._folded: set[int] = set()
        self._mucked: set[int] = set()
        self._shown: dict[int, Strength] = {}
        self._shown_cards: set[int] = set()
        self._showdown_queue: list[int] = []
        self._uncontested_winner: int | None = None
        self._winner_may_show = False
        self._river_aggressor: int | None = None
        self._limits_at = -1
        """The number of actions taken when ``_limits_now`` was worked out (one decision's limits)."""
        self._limits_now: Limits
        self._fixed_limit = c.structure is Structure.FIXED_LIMIT
        self._pot_limit = c.structure is Structure.POT_LIMIT
        self._total_chips = sum(c.stacks.values())
        self._showdown_pots: list[Pot] | None = None
        self._strengths: dict[int, Strength] = {}
        self._street: _Street
        self._dead: dict[int, int] = {seat: 0 for seat in self._order}
        self._betting = self._post()
        # Live chips each seat pushed forward, including over-bets later handed back.
        self._put_in = {seat: self._betting.bets[i] for seat, i in self._index.items()}
        self._start_events()
        self._deal_street()
        self._advance()

    # --- construction --------------------------------------------------------------------------

    def _post(self) -> Betting:
        """The forced posts, each as far as the stack covers it: dead money (antes, a dead small blind, a
        bomb pot's post) first, then the live blinds."""
        c = self.config
        n = self._n
        live = [0] * n
        dead = [c.bomb_pot] * n
        for seat, kind in c.posts:
            i = self._index[seat]
            if kind is PostKind.SMALL_BLIND:
                live[i] = c.small_blind
            elif kind is PostKind.BIG_BLIND:
                live[i] = c.big_blind
            elif kind is PostKind.STRADDLE:
                live[i] = 2 * c.big_blind
            elif kind is PostKind.ENTRY_BIG_BLIND:
                live[i] = -c.big_blind  # live, but it does not decide who opens
            elif kind is PostKind.DEAD_SMALL_BLIND:
                dead[i] += c.small_blind  # into the pot, not a bet
        for seat, ante in c.antes.items():
            dead[self._index[seat]] += ante
        stacks = [c.stacks[seat] for seat in self._order]
        for seat, i in self._index.items():
            self._dead[seat] = min(dead[i], stacks[i])
        return Betting.posted(stacks=stacks, dead=dead, live=live)

    def _start_events(self) -> None:
        c = self.config
        self._emit(
            "hand_started",
            button=c.button,
            seats=list(self._order),
            stacks={str(s): c.stacks[s] for s in self._order},
            variant=c.variant.value,
            structure=c.structure.value,
        )
        betting = self._betting
        for seat in self._order:
            i = self._index[seat]
            contributed = c.stacks[seat] - betting.stacks[i]
            live = betting.bets[i]
            dead = contributed - live
            if dead:
                self._emit("posted", seat=seat, kind="dead", amount=dead)
            if live:
                kinds = [k.value for s, k in c.posts if s == seat and k is not PostKind.DEAD_SMALL_BLIND]
                self._emit("posted", seat=seat, kind=kinds[0] if kinds else "blind", amount=live)

    # --- public read side ------------------------------------------------------------------------

    @property
    def order(self) -> tuple[int, ...]:
        return self._order

    @property
    def is_over(self) -> bool:
        return self.phase is _COMPLETE

    @property
    def action_no(self) -> int:
        """Actions taken so far: the number a client's ``act`` must carry (PROTOCOL.md)."""
        return len(self.log)

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand waits for, or ``None``."""
        if self.phase is _BETTING:
            actors = self._betting.actor_indices
            return self._order[actors[0]] if actors else None
        if self.phase is Phase.SHOWDOWN:
            return self._showdown_queue[0]
        return None

    @property
    def street(self) -> str:
        return STREET_NAMES[self._street.index]

    @property
    def board(self) -> list[str]:
        """The board (the first run's, when the board was run twice)."""
        return [card_text(card) for card in self._board]

    @property
    def boards(self) -> list[list[str]]:
        """Every board of the hand: one, or two when the rest of the board was run twice."""
        if self._second_board:
            return [self.board, [card_text(card) for card in self._second_board]]
        return [self.board]

    @property
    def runs_twice(self) -> bool:
        return bool(self._second_board)

    def hole_cards(self, seat: int) -> list[str]:
        """A seat's own cards (for its owner; never send another player's unshown cards)."""
        return [FULL_DECK[card] for card in self._hole[seat]]

    def shown_cards(self) -> dict[int, list[str]]:
        """Hands turned up so far: what everyone may see."""
        return {seat: self.hole_cards(seat) for seat in self._order if seat in self._shown_cards}

    @property
    def stacks(self) -> dict[int, int]:
        if self.settlement is not None:
            return dict(self.settlement.finishing_stacks)
        stacks = self._betting.stacks
        return {seat: stacks[i] for seat, i in self._index.items()}

    @property
    def bets(self) -> dict[int, int]:
        if self.phase is not Phase.BETTING:
            return {seat: 0 for seat in self._order}
        bets = self._betting.bets
        return {seat: bets[i] for seat, i in self._index.items()}

    @property
    def folded(self) -> frozenset[int]:
        return frozenset(self._folded)

    @property
    def mucked(self) -> frozenset[int]:
        return frozenset(self._mucked)

    def contributions(self) -> dict[int, int]:
        """Live chips each seat has put in so far (blinds and bets, over-bets already returned);
        dead money is in :meth:`dead_money`."""
        stacks = self._betting.stacks
        dead = self._dead
        return {seat: self.config.stacks[seat] - stacks[i] - dead[seat] for seat, i in self._index.items()}

    def dead_money(self) -> dict[int, int]:
        """Antes, dead small blinds and bomb-pot posts per seat: in the main pot, nobody's bet."""
        return dict(self._dead)

    def pots(self) -> list[Pot]:
        """Pots formed so far (bets of the street in progress not yet counted)."""
        bets = self.bets
        collected = {seat: amount - bets[seat] for seat, amount in self.contributions().items()}
        return build_pots(
            order=self._order, contributions=collected, folded=self._folded, dead=sum(self._dead.values())
        )

    def chips_total(self) -> int:
        """Stacks + everything in the middle + rake: constant through a hand (conservation checks)."""
        if self.settlement is not None:
            return sum(self.settlement.finishing_stacks.values()) + self.settlement.rake
        return sum(self._betting.stacks) + sum(self.contributions().values()) + sum(self._dead.values())

    @property
    def deck_map(self) -> DeckMap:
        return DeckMap(
            hole={seat: tuple(self._hole_pos[seat]) for seat in self._order},
            board=tuple(self._board_pos),
            burn=tuple(self._burn_pos),
            second_board=tuple(self._second_board_pos),
        )

    def public_positions(self) -> list[int]:
        """Deck positions whose cards became public: the board (both runs') and the hands shown."""
        shown = [p for seat in self._order if seat in self._shown_cards for p in self._hole_pos[seat]]
        return sorted(self._board_pos + self._second_board_pos + shown)

    def view(self, *, seat: int | None = None) -> dict[str, Any]:
        """The hand as ``seat`` may see it (``None``: a spectator): the hand's part of PROTOCOL.md's
        ``state``. Cards only for the viewer's own seat and for hands shown; ``legal`` only for the
        player to act."""
        stacks, bets = self.stacks, self.bets
        over = self.settlement is not None
        seats = []
        for s in self._order:
            if s in self._folded:
                status = "folded"
            elif not over and stacks[s] == 0:
                status = "all_in"
            else:
                status = "active"
            visible = s == seat or s in self._shown_cards
            seats.append(
                {
                    "seat": s,
                    "stack": stacks[s],
                    "bet": bets[s],
                    "status": status,
                    "cards": self.hole_cards(s) if visible else None,
                }
            )
        if self.settlement is not None:
            pots = [
                {"amount": p.amount, "rake": p.rake, "net": p.net, "eligible": list(p.eligible)}
                for p in self.settlement.pots
            ]
        else:
            pots = [
                {"amount": p.amount, "rake": 0, "net": p.amount, "eligible": list(p.eligible)}
                for p in self.pots()
            ]
        to_act = self.to_act
        return {
            "street": self.street,
            "phase": self.phase.value,
            "action_no": self.action_no,
            "button": self.config.button,
            "board": self.board,
            "boards": self.boards,
            "seats": seats,
            "pots": pots,
            "to_act": to_act,
            "legal": self.legal_actions() if seat is not None and seat == to_act else None,
        }

    @property
    def winner_may_show(self) -> int | None:
        """The uncontested winner, while they may still choose to show (default: muck)."""
        return self._uncontested_winner if self._winner_may_show else None

    def limits(self) -> Limits | None:
        """The betting limits of the player to act, or ``None`` outside the betting."""
        actors = self._betting.actor_indices
        if self.phase is not Phase.BETTING or not actors:
            return None
        return self._limits(actors[0])

    def _limits(self, index: int) -> Limits:
        """Limits of the player to act, at position ``index`` of the dealing order: worked out once per
        decision (the number of actions taken says which decision)."""
        number = len(self.log)
        if self._limits_at != number:
            self._limits_now = self._compute_limits(index)
            self._limits_at = number
        return self._limits_now

    def legal_actions(self) -> list[dict[str, int | str]]:
        """PROTOCOL.md's ``legal`` list for the player to act: ``{action, min, max}`` in "to" amounts."""
        phase = self.phase
        if phase is Phase.SHOWDOWN:
            return [{"action": "show", "min": 0, "max": 0}, {"action": "muck", "min": 0, "max": 0}]
        actors = self._betting.actor_indices
        if phase is not Phase.BETTING or not actors:
            return []
        _, to_call, call_to, total, can_raise, min_to, max_to, facing_bet, _, _ = self._limits(actors[0])
        legal: list[dict[str, int | str]] = [
            {"action": "fold", "min": 0, "max": 0},
            {"action": "call", "min": call_to, "max": call_to}
            if to_call
            else {"action": "check", "min": 0, "max": 0},
        ]
        if can_raise and total >= min_to:
            legal.append({"action": "raise" if facing_bet else "bet", "min": min_to, "max": max_to})
        if total <= call_to or (can_raise and total <= max_to):
            legal.append({"action": "all_in", "min": total, "max": total})
        return legal

    # --- acting ----------------------------------------------------------------------------------

    def act(self, action: Action) -> list[Event]:
        """Apply ``action`` in place and return the events it caused; :class:`IllegalAction` (nothing
        changed) when the rules refuse it."""
        plan = self._check(action)
        start = len(self.events)
        self.log.append(action)
        self._execute(action, plan)
        return self.events[start:]

    def _check(self, action: Action) -> tuple[str, int, Limits | None]:
        """Validate without changing anything. Returns (operation, "to" amount) for :meth:`_execute`."""
        if not isinstance(action, Action):
            raise IllegalAction("not an action")
        seat, kind, amount = action
        if type(seat) is not int:
            raise IllegalAction("the seat must be an integer", code="bad_seat")
        if kind not in _ACTION_SET:
            raise IllegalAction(f"unknown action {kind!r}", code="bad_action")
        if amount is not None:
            if type(amount) is not int:
                raise IllegalAction("the amount must be a whole number of chips", code="bad_amount")
            if amount < 0:
                raise IllegalAction("the amount cannot be negative", code="bad_amount")
            if amount and kind in _NO_AMOUNT:
                raise IllegalAction(f"{kind} takes no amount", code="bad_amount")
        index = self._index.get(seat)
        if index is None:
            raise IllegalAction(f"seat {seat} is not in this hand", code="not_in_hand")
        if self.phase is not _BETTING:
            return self._check_after_betting(seat, kind)
        actors = self._betting.actor_indices
        if not actors or actors[0] != index:
            raise IllegalAction("it is not your turn", code="not_your_turn")
        if kind in _SHOWDOWN_SET:
            raise IllegalAction("there is no showdown yet", code="bad_action")
        limits = self._limits_now if self._limits_at == len(self.log) else self._limits(index)
        if kind == "fold":
            return ("fold", 0, limits)
        if kind == "check":
            if limits.to_call:
                raise IllegalAction(f"you cannot check: {limits.to_call} to call", code="cannot_check")
            return ("check", 0, limits)
        if kind == "call":
            if not limits.to_call:
                raise IllegalAction("there is nothing to call: check", code="cannot_call")
            if amount is not None and amount != limits.call_to:
                raise IllegalAction(f"calling makes your bet {limits.call_to}", code="bad_amount")
            return ("call", limits.call_to, limits)
        if kind == "all_in":
            return self._check_all_in(amount, limits)
        return self._check_bet_or_raise(kind, amount, limits)

    def _check_after_betting(self, seat: int, kind: str) -> tuple[str, int, None]:
        """A show or a muck: at the showdown by the player whose turn it is, or by the uncontested winner."""
        if self.phase is Phase.COMPLETE:
            if kind in _SHOWDOWN_SET and seat == self.winner_may_show:
                return (kind, 0, None)
            raise IllegalAction("the hand is over", code="hand_over")
        if seat != self._showdown_queue[0]:
            raise IllegalAction("it is not your turn", code="not_your_turn")
        if kind not in _SHOWDOWN_SET:
            raise IllegalAction("at the showdown you can only show or muck", code="bad_action")
        return (kind, 0, None)

    def _check_all_in(self, amount: int | None, limits: Limits) -> tuple[str, int, Limits]:
        if amount is not None and amount != limits.total:
            raise IllegalAction(f"all-in is {limits.total}", code="bad_amount")
        if not self._all_in_allowed(limits):
            raise IllegalAction("you cannot go all-in here", code="cannot_raise")
        return ("call" if limits.total <= limits.call_to else "raise", limits.total, limits)

    def _check_bet_or_raise(self, kind: str, amount: int | None, limits: Limits) -> tuple[str, int, Limits]:
        if kind == "bet" and limits.facing_bet:
            raise IllegalAction("there is a bet already: raise", code="cannot_bet")
        if kind == "raise" and not limits.facing_bet:
            raise IllegalAction("there is no bet to raise: bet", code="cannot_raise")
        if amount is None:
            raise IllegalAction(f"{kind} needs an amount", code="bad_amount")
        if not limits.can_raise:
            raise IllegalAction(self._why_no_raise(limits), code="cannot_raise")
        if amount == limits.total and self._all_in_allowed(limits):
            return ("raise", amount, limits)  # all-in, possibly for less than a full raise
        if amount % self.config.chip:
            raise IllegalAction(f"amounts go in steps of {self.config.chip}", code="bad_amount")
        if amount > limits.total:
            raise IllegalAction(f"you have only {limits.total}", code="bad_amount")
        if amount < limits.min_to:
            raise IllegalAction(f"the minimum {kind} is to {limits.min_to}", code="below_min")
        if amount > limits.max_to:
            raise IllegalAction(f"the maximum {kind} is to {limits.max_to}", code="above_max")
        return ("raise", amount, limits)

    def _why_no_raise(self, limits: Limits) -> str:
        if limits.total <= limits.call_to:
            return "you can only call all-in"
        if self.config.structure is Structure.FIXED_LIMIT and self._street.fl_count >= 4:
            return "the betting is capped: four bets a round"
        return "the betting was not reopened to you: call or fold"

    def _all_in_allowed(self, limits: Limits) -> bool:
        if limits.total <= limits.call_to:
            return True
        return limits.can_raise and limits.total <= limits.max_to

    def _compute_limits(self, index: int) -> Limits:
        betting = self._betting
        st = self._street
        bets, stacks = betting.bets, betting.stacks
        bet, stack = bets[index], stacks[index]
        total = bet + stack
        top = max(bets)
        if top < st.price and self._another_covers(index, top):
            top = st.price  # a blind posted short does not lower the price of entering
        to_call = top - bet if top - bet < stack else stack
        # A raise needs chips beyond the call and somebody else able to answer it; and after a short
        # all-in, a player who already acted only if the betting was reopened to them.
        can_raise = False
        if stack > to_call:
            statuses = betting.statuses
            for i in range(self._n):
                if statuses[i] and stacks[i] + bets[i] > top and i != index:
                    can_raise = True
                    break
        if self._fixed_limit:
            if can_raise and (st.fl_count >= 4 or st.count_at_action.get(index, -1) == st.fl_count):
                can_raise = False
            min_to = max_to = max(st.fl_level + st.fixed, top + self.config.chip)
        else:
            acted_at = st.level_at_action.get(index)
            if can_raise and acted_at is not None and top - acted_at < st.full_raise:
                can_raise = False
            min_to = top + st.full_raise
            if self._pot_limit:
                max_to = max(min_to, 2 * top - bet + self._total_chips - sum(stacks))
            else:
                max_to = total
        if max_to > total:
            max_to = total
        return _new_limits(
            (
                self._order[index],
                to_call,
                bet + to_call,
                total,
                can_raise,
                min_to,
                max_to,
                top > 0,
                top,
                index,
            )
        )

    def _another_covers(self, index: int, top: int) -> bool:
        """Could someone else still in put in more than ``top``, and so match chips put in above it?"""
        betting = self._betting
        statuses, stacks, bets = betting.statuses, betting.stacks, betting.bets
        for i in range(self._n):
            if statuses[i] and stacks[i] + bets[i] > top and i != index:
                return True
        return False

    def _execute(self, action: Action, plan: tuple[str, int, Limits | None]) -> None:
        operation, amount, limits = plan
        seat = action.seat
        if limits is None:
            self._show_or_muck(seat, operation)
            return
        betting = self._betting
        index = limits.place
        st = self._street
        top = limits.top
        if operation == "fold":
            self._folded.add(seat)
            betting.fold(index)
            amount = 0
        elif operation == "raise":
            self._put_in[seat] += amount - limits.call_to + limits.to_call
            betting.raise_to(index, amount)
            if self._fixed_limit:
                if 2 * (amount - st.fl_level) >= st.fixed:  # a full bet, or an all-in of half a bet or more
                    st.fl_count += 1
                    st.fl_level = amount
                    st.aggressor = index
            else:
                if amount - top >= st.full_raise:
                    st.full_raise = amount - top
                st.aggressor = index
        elif operation == "call" and limits.call_to > max(betting.bets):
            # Calling the full blind over a short one: in pokerkit's terms a raise, and one that gives
            # nobody a new decision (everyone who acted before is all-in or folded).
            self._put_in[seat] += limits.to_call
            betting.raise_to(index, limits.call_to)
        else:
            self._put_in[seat] += limits.to_call
            betting.call(index, limits.to_call)
        stack = betting.stacks[index]
        kind = "all_in" if operation == "raise" and stack == 0 else action.kind
        self.events.append(
            _new_event(("acted", {"seat": seat, "action": kind, "amount": amount, "stack": stack}, None))
        )
        if self._fixed_limit:
            st.count_at_action[index] = st.fl_count
        else:
            st.level_at_action[index] = top if top > amount else amount
        if not betting.actor_indices:
            self._advance()

    def _show_or_muck(self, seat: int, operation: str) -> None:
        if self.phase is Phase.COMPLETE:  # the uncontested winner's optional show
            self._winner_may_show = False
            if operation == "show":
                self._show(seat, evaluate=False)
            else:
                self._emit("mucked", seat=seat)
            return
        self._showdown_queue.pop(0)
        if operation == "show":
            self._show(seat)
        else:
            self._muck(seat)
        self._continue_showdown()

    # --- flow ------------------------------------------------------------------------------------

    def _advance(self) -> None:
        """Deal and move on until a player has to decide or the hand is over."""
        betting = self._betting
        while not betting.actor_indices:
            statuses = betting.statuses
            if sum(statuses) == 1:
                self._finish_uncontested(self._order[statuses.index(True)])
                return
            live = [seat for seat in self._order if seat not in self._folded]
            if betting.all_in_status:  # a player still in is all-in: every hand is turned up
                self._run_out_and_show(live)
                return
            if len(self._board) < 5:
                self._deal_street()
                continue
            # River betting over with two or more players: the showdown.
            self._river_aggressor = self._street.aggressor
            self._start_showdown(live)
            return

    def _take(self) -> tuple[int, int]:
        position = self._next
        self._next += 1
        return position, self._deck[position]

    def _deal_street(self) -> None:
        """Deal the next street from our deck in the room's order (the hole cards first), then open its
        betting round."""
        board = self._board
        if self._next == 0:
            self._deal_hole_cards()
            count = 3 if self.config.bomb_pot else 0  # a bomb pot starts on the flop
        else:
            count = 1 if board else 3
        if count:
            burn = self._next
            self._burn_pos.append(burn)
            dealt = self._deck[burn + 1 : burn + 1 + count]
            board += dealt
            self._board_pos += range(burn + 1, burn + 1 + count)
            self._next = burn + 1 + count
            self._emit(
                "street",
                street=STREET_NAMES[_STREET_OF_BOARD[len(board)]],
                cards=[FULL_DECK[card] for card in dealt],
                board=self.board,
            )
        street = _STREET_OF_BOARD[len(board)]
        self._begin_street(street)
        self._betting.last_round = street == 3
        self._betting.begin_round()

    def _deal_hole_cards(self) -> None:
        """One card at a time from the first seat after the button: the i-th seat of the dealing order
        gets deck positions i, i + n, i + 2n, ..."""
        n, count = self._n, self.config.variant.hole_cards
        end = n * count
        for i, seat in enumerate(self._order):
            self._hole[seat] = self._deck[i:end:n]
            positions = self._hole_pos[seat] = list(range(i, end, n))
            self._emit("dealt", to=seat, seat=seat, cards=self.hole_cards(seat), positions=positions)
        self._next = end
        self._emit("dealt", seats=list(self._order), count=count)

    def _begin_street(self, index: int) -> None:
        c = self.config
        fixed = 0
        if c.structure is Structure.FIXED_LIMIT:
            assert c.small_bet is not None and c.big_bet is not None
            fixed = c.small_bet if index <= 1 else c.big_bet
        if index == 0:
            full = 2 * c.big_blind if c.straddle_seat is not None else c.big_blind
            self._street = _Street(index, full, fixed, price=full, fl_level=c.big_blind, fl_count=1)
        else:
            self._street = _Street(index, c.big_blind, fixed)

    def _deal_rest_of_board(self, board: list[int], positions: list[int], *, run: int | None = None) -> None:
        """Deal the streets ``board`` still lacks, a burn before each; ``run`` (1 or 2) when the board is
        run twice, said in each ``street`` event."""
        extra = {} if run is None else {"run": run}
        while len(board) < 5:
            count = 3 if not board else 1
            position, _ = self._take()
            self._burn_pos.append(position)
            cards = []
            for _ in range(count):
                position, card = self._take()
                board.append(card)
                positions.append(position)
                cards.append(card)
            self._emit(
                "street",
                street=STREET_NAMES[_STREET_OF_BOARD[len(board)]],
                cards=[card_text(x) for x in cards],
                board=[card_text(x) for x in board],
                **extra,
            )

    def _runs_twice(self, live: list[int]) -> bool:
        """Everyone still in agreed to run it twice, cards are still to come, and the deck holds them twice."""
        board = len(self._board)
        if board >= 5 or not self.config.run_twice.issuperset(live):
            return False
        per_run = {0: 8, 3: 4, 4: 2}[board]  # a burn before each street still to come
        return self._next + 2 * per_run <= len(self._deck)

    def _evaluate(self, seat: int, board: Sequence[int]) -> Strength:
        hole = self._hole[seat]
        variant = self.config.variant
        if variant is Variant.HOLDEM:
            return Strength(high_strength((*hole, *board)))
        if variant is Variant.OMAHA_HILO:
            return Strength(omaha_high_strength(hole, board), omaha_low_strength(hole, board))
        return Strength(omaha_high_strength(hole, board))

    def _strength(self, seat: int) -> Strength:
        """The hand's value on the full board (asked only at the showdown; computed once)."""
        known = self._strengths.get(seat)
        if known is None:
            known = self._strengths[seat] = self._evaluate(seat, self._board)
        return known

    def _show(self, seat: int, *, evaluate: bool = True) -> None:
        if evaluate:
            self._shown[seat] = self._strength(seat)
        self._shown_cards.add(seat)
        self._emit("showdown", seat=seat, cards=self.hole_cards(seat), positions=list(self._hole_pos[seat]))

    def _muck(self, seat: int) -> None:
        self._mucked.add(seat)
        self._emit("mucked", seat=seat)

    def _run_out_and_show(self, live: list[int]) -> None:
        """No more betting possible: every hand still in is turned up and the board is run out, twice
        when everyone still in agreed (the second run dealt after the first, from the same deck)."""
        for seat in live:
            self._show(seat, evaluate=False)
        if self._runs_twice(live):
            shared = len(self._board)
            self._deal_rest_of_board(self._board, self._board_pos, run=1)
            self._second_board = self._board[:shared]
            self._deal_rest_of_board(self._second_board, self._second_board_pos, run=2)
        else:
            self._deal_rest_of_board(self._board, self._board_pos)
        for seat in live:  # strengths on the full board
            self._shown[seat] = self._strength(seat)
        self._settle()

    def _showdown_order(self, live: list[int]) -> list[int]:
        start = self._river_aggressor
        if start is None or self._order[start] not in live:
            return list(live)
        first = self._order[start]
        at = live.index(first)
        return live[at:] + live[:at]

    def _start_showdown(self, live: list[int]) -> None:
        self._showdown_queue = self._showdown_order(live)
        self._continue_showdown()

    def _can_win(self, seat: int) -> bool:
        """Could this hand win (or tie) any pot it is eligible for, against the hands shown so far?"""
        mine = self._strength(seat)
        if self._showdown_pots is None:
            matched, _ = return_uncalled(self.contributions(), self._folded)
            dead = sum(self._dead.values())
            self._showdown_pots = build_pots(
                order=self._order, contributions=matched, folded=self._folded, dead=dead
            )
        for pot in self._showdown_pots:
            if seat not in pot.eligible:
                continue
            rivals = [self._shown[s] for s in pot.eligible if s in self._shown]
            if not rivals or mine.high >= max(r.high for r in rivals):
                return True
            if mine.low is not None:
                lows = [r.low for r in rivals if r.low is not None]
                if not lows or mine.low <= min(lows):
                    return True
        return False

    def _continue_showdown(self) -> None:
        queue = self._showdown_queue
        while queue:
            seat = queue[0]
            if self._can_win(seat):
                queue.pop(0)
                self._show(seat)
            elif self.config.auto_muck.get(seat, True):
                queue.pop(0)
                self._muck(seat)
            else:
                self.phase = Phase.SHOWDOWN
                return
        self._settle()

    def _finish_uncontested(self, winner: int) -> None:
        self._uncontested_winner = winner
        self._winner_may_show = True
        self._settle()

    def _settle(self) -> None:
        c = self.config
        saw_flop = len(self._board) >= 3
        contributions = self.contributions()
        # Over-bets already handed back when a street's bets were collected.
        returned_before = {seat: self._put_in[seat] - contributions[seat] for seat in self._order}
        shown = {s: v for s, v in self._shown.items() if s not in self._mucked}
        runs: tuple[Run, ...] = ()
        if self._second_board:
            second = tuple(card_text(card) for card in self._second_board)
            runs = (
                Run(tuple(self.board), shown),
                Run(second, {seat: self._evaluate(seat, self._second_board) for seat in shown}),
            )
        self.settlement = settle(
            order=self._order,
            starting_stacks=c.stacks,
            contributions=contributions,
            dead=self._dead,
            folded=frozenset(self._folded),
            shown=shown,
            hi_lo=c.variant.hi_lo,
            chip=c.chip,
            rake=c.rake,
            players_dealt=self._n,
            big_blind=c.big_blind,
            saw_flop=saw_flop,
            returned_before=returned_before,
            runs=runs,
        )
        self.phase = Phase.COMPLETE
        for seat, amount in self.settlement.returned.items():
            self._emit("uncalled_returned", seat=seat, amount=amount)
        for number, pot in enumerate(self.settlement.pots):
            self._emit("pot_awarded", pot=number, **pot.as_dict())
        self._emit(
            "hand_ended",
            rake=self.settlement.rake,
            stacks={str(s): v for s, v in self.settlement.finishing_stacks.items()},
        )

    def _emit(self, event: str, /, *, to: int | None = None, **data: Any) -> None:
        self.events.append(_new_event((event, data, to)))


# --- module-level API --------------------------------------------------------------------------------


def start_hand(*, config: HandConfig) -> Hand:
    """Post the blinds, deal the cards and stop at the first decision (or at the end)."""
    return Hand(config)


def replay(*, config: HandConfig, actions: Iterable[Action | Mapping[str, Any]]) -> Hand:
    """Rebuild a hand from its configuration and action log (the log is the truth; a pickle is at most
    a cache)."""
    hand = Hand(config)
    for action in actions:
        hand.act(action if isinstance(action, Action) else Action.from_dict(action))
    return hand


def visible_events(events: Sequence[Event], *, seat: int | None) -> list[Event]:
    """The events a given seat (or a spectator, ``None``) may receive."""
    return [event for event in events if event.to is None or event.to == seat]
