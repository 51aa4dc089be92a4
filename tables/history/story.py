"""A finished hand told from its record, and who may see which of its cards.

The action flow (posts, deals, actions, streets, hands shown or mucked) comes from replaying the stored
configuration and action log through the engine (the log is the truth); the money (pots, rake, uncalled
chips returned, final stacks) comes from the stored settlement, which is what the ledger booked. Nothing here
touches the database: :func:`story_from_hand` takes a row already read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tables.engine.config import HandConfig, PostKind
from tables.engine.hand import Event, replay
from tables.history.names import hand_name
from tables.history.tournament import TournamentFacts

FULL_VIEW = "full"
"""The viewer who sees every card dealt (staff's complete history)."""


@dataclass(frozen=True, slots=True)
class StorySeat:
    seat: int
    """The engine's seat (0-based); the table shows ``seat + 1``."""
    name: str
    bot: bool
    user_id: int | None
    stack: int
    """Chips at the start of the hand."""
    cards: tuple[str, ...] = field(repr=False)
    """Every hole card the seat was dealt: private, see :meth:`HandStory.cards_for`."""

    @property
    def number(self) -> int:
        return self.seat + 1


@dataclass(frozen=True, slots=True)
class HandStory:
    """One finished hand as a history: who sat where, what happened in order, what the money did."""

    hand_id: int
    number: int
    table_id: int
    table_name: str
    game: str
    structure: str
    currency: str
    chip: int
    small_blind: int
    big_blind: int
    small_bet: int | None
    big_bet: int | None
    seat_count: int
    button: int
    started_at: datetime
    ended_at: datetime | None
    seats: tuple[StorySeat, ...]
    """In seat order."""
    order: tuple[int, ...]
    """Seats dealt in, in dealing order (the first after the button first)."""
    posts: tuple[tuple[int, str], ...]
    antes: Mapping[int, int]
    events: tuple[Event, ...] = field(repr=False)
    board: tuple[str, ...]
    folded: frozenset[int]
    mucked: frozenset[int]
    shown: frozenset[int]
    pots: tuple[Mapping[str, Any], ...]
    """The stored settlement's pots: amount, rake, net, eligible and winners (engine seats)."""
    rake: int
    returned: Mapping[int, int]
    finishing: Mapping[int, int]
    commitment: str
    public_positions: tuple[int, ...]
    hole_positions: Mapping[int, tuple[int, ...]]
    boards: tuple[tuple[str, ...], ...] = ()
    """Every board: the one board, or both when the rest of the board was run twice (the first is ``board``)."""
    tournament: TournamentFacts | None = None
    """The tournament of a tournament table's hand (its number, buy-in, levels), ``None`` for a cash hand."""

    @property
    def table_ante(self) -> int:
        """The ante the table dealt with (a big-blind ante: the big blind's), 0 for none."""
        return max(self.antes.values(), default=0)

    @property
    def run_twice(self) -> bool:
        return len(self.boards) > 1

    # --- who may see what ------------------------------------------------------------------------

    def seat_of(self, user_id: int | None) -> int | None:
        """The engine seat ``user_id`` played in this hand, or ``None``."""
        if user_id is None:
            return None
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    def cards_for(self, viewer: int | str | None) -> dict[int, tuple[str, ...]]:
        """The hole cards ``viewer`` may see, by engine seat: a player (their seat) sees their own cards and
        the hands shown; anyone else (``None``) the hands shown; staff (:data:`FULL_VIEW`) every hand.
        Folded and mucked hands of others are never in it (SPEC 1.1, 3)."""
        return {
            s.seat: s.cards
            for s in self.seats
            if viewer == FULL_VIEW or s.seat in self.shown or s.seat == viewer
        }

    def positions_for(self, viewer: int | str | None) -> tuple[int, ...]:
        """The deck positions whose openings ``viewer`` may get: the public ones and their own hole cards
        (staff: the same as the player whose view they take; the whole deck is never opened)."""
        own = self.hole_positions.get(viewer, ()) if isinstance(viewer, int) else ()
        return tuple(sorted({*self.public_positions, *own}))

    # --- derived ---------------------------------------------------------------------------------

    @property
    def by_seat(self) -> dict[int, StorySeat]:
        return {s.seat: s for s in self.seats}

    @property
    def stakes_label(self) -> str:
        return f"{self.structure.upper()}{self.big_blind}"

    @property
    def pot_total(self) -> int:
        return sum(pot["amount"] for pot in self.pots)

    @property
    def went_to_showdown(self) -> bool:
        return len(self.order) - len(self.folded) > 1

    def won(self) -> dict[int, int]:
        """What each seat collected from the pots (after rake)."""
        totals: dict[int, int] = {}
        for pot in self.pots:
            for seat, amount in pot["winners"].items():
                totals[int(seat)] = totals.get(int(seat), 0) + amount
        return totals

    def net(self, seat: int) -> int:
        """The seat's result in the hand: final stack less starting stack."""
        return self.finishing[seat] - self.by_seat[seat].stack

    def description(self, seat: int, board: tuple[str, ...] | None = None) -> str:
        """The shown hand's name ("a pair of Aces") on ``board`` (the first board unless told: a board run
        twice names each run's hands on its own board), "" before a flop."""
        return hand_name(
            hole=self.by_seat[seat].cards, board=self.board if board is None else board, game=self.game
        )

    def won_by_run(self) -> list[dict[int, int]]:
        """What each seat collected on each board of a hand run twice (after rake), in run order."""
        totals: list[dict[int, int]] = [{} for _ in self.boards]
        for pot in self.pots:
            for run in pot["runs"]:
                for seat, amount in run["winners"].items():
                    won = totals[run["run"] - 1]
                    won[int(seat)] = won.get(int(seat), 0) + amount
        return totals


def story_from_hand(*, hand: Any, tournament: TournamentFacts | None = None) -> HandStory:
    """The story of a finished hand (a ``tables.models.Hand`` with its table loaded); ``tournament``: the
    tournament of a tournament table's hand."""
    table = hand.table
    config = HandConfig.from_dict(hand.config)
    state = replay(config=config, actions=hand.actions)
    result = hand.result or {}
    players = {int(seat): player for seat, player in hand.players.items()}
    seats = tuple(
        StorySeat(
            seat=seat,
            name=players[seat]["name"],
            bot=bool(players[seat].get("bot")),
            user_id=players[seat].get("user"),
            stack=config.stacks[seat],
            cards=tuple(state.hole_cards(seat)),
        )
        for seat in sorted(config.stacks)
    )
    return HandStory(
        hand_id=hand.id,
        number=hand.number,
        table_id=table.id,
        table_name=table.name,
        game=config.variant.value,
        structure=config.structure.value,
        currency=table.currency,
        chip=config.chip,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        seat_count=config.seat_count,
        button=config.button,
        started_at=hand.started_at,
        ended_at=hand.ended_at,
        seats=seats,
        order=tuple(state.order),
        posts=tuple((seat, PostKind(kind).value) for seat, kind in config.posts),
        # A bomb pot's post is every dealt player's ante (PHH writes it so too), not a dead small blind.
        antes={seat: config.antes.get(seat, 0) + config.bomb_pot for seat in state.order}
        if config.bomb_pot
        else dict(config.antes),
        events=tuple(state.events),
        board=tuple(result.get("board", state.board)),
        folded=frozenset(state.folded),
        mucked=frozenset(state.mucked),
        shown=frozenset(state.shown_cards()),
        pots=tuple(
            {
                **pot,
                "winners": {int(seat): amount for seat, amount in pot["winners"].items()},
                "runs": [
                    {**run, "winners": {int(seat): amount for seat, amount in run["winners"].items()}}
                    for run in pot.get("runs", ())
                ],
            }
            for pot in result.get("pots", [])
        ),
        rake=result.get("rake", 0),
        returned={int(seat): amount for seat, amount in result.get("returned", {}).items()},
        finishing={int(seat): amount for seat, amount in result.get("finishing_stacks", {}).items()},
        commitment=hand.commitment,
        public_positions=tuple(result.get("public_positions", state.public_positions())),
        hole_positions={int(seat): tuple(p) for seat, p in result.get("hole_positions", {}).items()},
        boards=tuple(tuple(board) for board in result.get("boards") or state.boards),
        tournament=tournament,
    )


# --- the hand step by step ------------------------------------------------------------------------------

BETTING_VERBS = ("fold", "check", "call", "bet", "raise")


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happened, in the words every writer needs (amounts in the smallest unit).

    ``kind``: ``post`` (``verb``: small_blind, big_blind, both (a dead small blind and a live big blind),
    straddle, ante; ``amount``), ``deal``, ``action`` (``verb`` one of :data:`BETTING_VERBS`; ``amount`` the
    chips it added, ``to`` the seat's bet on the street after it, ``raise_by`` the raise over the highest
    bet), ``street`` (``street``, ``cards`` dealt, ``board``), ``return`` (uncalled chips back), ``show``
    (``cards``), ``muck``, ``collect`` (``pot`` index, ``amount`` after rake). ``all_in``: the seat has no
    chips left after it. ``after_end``: the uncontested winner showing or mucking once the hand is settled.
    ``run``: 1 or 2 for the streets dealt, and the halves of pots collected, of a board run twice (else 0).
    """

    kind: str
    seat: int | None = None
    verb: str = ""
    amount: int = 0
    to: int = 0
    raise_by: int = 0
    all_in: bool = False
    street: str = "preflop"
    cards: tuple[str, ...] = ()
    board: tuple[str, ...] = ()
    pot: int | None = None
    after_end: bool = False
    run: int = 0


def story_steps(story: HandStory) -> list[Step]:
    """The hand in order: posts, the deal, actions and streets, uncalled chips returned right after the
    betting that left them uncalled (as PokerStars writes it), hands shown or mucked, then the pots
    collected (from the stored settlement) and anything the uncontested winner did after."""
    stacks = {seat: story.by_seat[seat].stack for seat in story.order}
    bets = dict.fromkeys(story.order, 0)
    steps: list[Step] = []
    street = "preflop"
    ended = False
    for event in story.events:
        data = event.data
        if event.kind == "posted":
            steps.extend(_post_steps(story, data, stacks, bets))
        elif event.kind == "dealt" and event.to is None:
            steps.append(Step("deal"))
        elif event.kind == "acted" and data["action"] in ("show", "muck"):
            continue  # the showdown and mucked events tell it
        elif event.kind == "acted":
            steps.append(_action_step(data, stacks, bets, street))
        elif event.kind == "street":
            street = data["street"]
            bets = dict.fromkeys(story.order, 0)
            steps.append(
                Step(
                    "street",
                    street=street,
                    cards=tuple(data["cards"]),
                    board=tuple(data["board"]),
                    run=data.get("run", 0),
                )
            )
        elif event.kind == "showdown":
            steps.append(Step("show", seat=data["seat"], cards=tuple(data["cards"]), after_end=ended))
        elif event.kind == "mucked":
            steps.append(Step("muck", seat=data["seat"], after_end=ended))
        elif event.kind == "hand_ended":
            ended = True
            steps.append(Step("end"))
    _insert_returns(story, steps)
    end = next(i for i, step in enumerate(steps) if step.kind == "end")
    if story.run_twice:  # each pot's half on the first board, then each pot's half on the second
        steps[end:end] = [
            Step("collect", seat=seat, amount=amount, pot=index, run=number)
            for number in (1, 2)
            for index in reversed(range(len(story.pots)))
            for run in story.pots[index]["runs"]
            if run["run"] == number
            for seat, amount in run["winners"].items()
            if amount
        ]
    else:
        steps[end:end] = [
            Step("collect", seat=seat, amount=amount, pot=index)
            for index in reversed(range(len(story.pots)))
            for seat, amount in story.pots[index]["winners"].items()
            if amount
        ]
    return steps


def _post_steps(story: HandStory, data: Mapping[str, Any], stacks: dict, bets: dict) -> list[Step]:
    seat, amount = data["seat"], data["amount"]
    stacks[seat] -= amount
    all_in = stacks[seat] == 0
    if data["kind"] != "dead":
        bets[seat] += amount
        return [
            Step(
                "post",
                seat=seat,
                verb=_LIVE_POSTS.get(data["kind"], "big_blind"),
                amount=amount,
                to=bets[seat],
                all_in=all_in,
            )
        ]
    ante = min(story.antes.get(seat, 0), amount)
    steps = (
        [Step("post", seat=seat, verb="ante", amount=ante, all_in=all_in and ante == amount)] if ante else []
    )
    if amount > ante:  # a dead small blind: told with the live big blind it comes with
        steps.append(Step("post", seat=seat, verb="dead_small_blind", amount=amount - ante, all_in=all_in))
    return steps


_LIVE_POSTS = {
    "small_blind": "small_blind",
    "big_blind": "big_blind",
    "entry_big_blind": "big_blind",
    "straddle": "straddle",
}


def _action_step(data: Mapping[str, Any], stacks: dict, bets: dict, street: str) -> Step:
    seat, kind, to = data["seat"], data["action"], data["amount"]
    top = max(bets.values())
    if kind in ("fold", "check"):
        return Step("action", seat=seat, verb=kind, street=street, to=bets[seat])
    if kind == "all_in":
        kind = "call" if to <= top else ("bet" if top == 0 else "raise")
    added = to - bets[seat]
    bets[seat] = to
    stacks[seat] -= added
    return Step(
        "action",
        seat=seat,
        verb=kind,
        amount=added,
        to=to,
        raise_by=max(0, to - top),
        all_in=data["stack"] == 0,
        street=street,
    )


def _insert_returns(story: HandStory, steps: list[Step]) -> None:
    """Uncalled chips go back when the betting that left them uncalled is over: after the last betting
    action (or the deal, when the blinds alone put everyone all-in)."""
    if not story.returned:
        return
    anchor = max(i for i, step in enumerate(steps) if step.kind in ("action", "deal"))
    steps[anchor + 1 : anchor + 1] = [
        Step("return", seat=seat, amount=amount) for seat, amount in story.returned.items() if amount
    ]


def story_check(story: HandStory) -> list[str]:
    """What does not add up between the replayed actions and the stored settlement (empty when the history
    is the ledger's): each seat's starting stack, less what its steps put in, plus what came back and what
    it collected, must be its final stack; the pots less the rake must be what was collected."""
    stacks = {seat: story.by_seat[seat].stack for seat in story.order}
    for step in story_steps(story):
        if step.kind in ("post", "action"):
            stacks[step.seat] -= step.amount
        elif step.kind in ("return", "collect"):
            stacks[step.seat] += step.amount
    problems = [
        f"seat {seat + 1}: the steps end at {stacks[seat]}, the settlement at {story.finishing.get(seat)}"
        for seat in story.order
        if stacks[seat] != story.finishing.get(seat)
    ]
    collected = sum(story.won().values())
    if story.pot_total - story.rake != collected:
        problems.append(f"pots {story.pot_total} less rake {story.rake} is not the {collected} collected")
    return problems
