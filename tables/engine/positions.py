"""Seats to players over a sequence of hands: button, blinds, who is dealt in, who posts what.

SPEC 1.1 (dead-button rule, heads-up), 1.2 (new players, missed blinds) and 1.3 (a player moved from
another table never posts the big blind twice in a row).

Seat numbering: seats are ``0 .. seat_count - 1`` and increase clockwise (seat ``seat_count - 1`` is
followed by seat 0).

The rule everything else follows from is the one about the big blind: each hand it moves to the next
*eligible* seat clockwise (occupied, not sitting out). A player waiting for the big blind is eligible, so
the big blind never jumps over anyone who is at the table and willing to play; the small blind and the
button then follow where the big blind has been (the small blind is the seat that had the big blind last
hand, the button the seat that had the small blind), which is what makes buttons and small blinds "dead"
when the players who should have had them are gone.

Pure: stdlib only, no I/O. The caller keeps each seat's :class:`SeatState` between hands and feeds back
what the plan returns (``missed_blinds``, and ``new=False`` for the seats dealt in).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from tables.engine.config import PostKind

MIN_SEATS = 2
MAX_SEATS = 10


class NotEnoughPlayers(ValueError):
    """Fewer than two players can be dealt in: no hand can start."""


@dataclass(frozen=True, slots=True)
class MissedBlinds:
    """Blinds a seat owes because they went by while the player was sitting out."""

    small: bool = False
    big: bool = False

    @property
    def any(self) -> bool:
        return self.small or self.big


NO_MISSED_BLINDS = MissedBlinds()


@dataclass(frozen=True, slots=True)
class SeatState:
    """What the table knows about an occupied seat before the next hand.

    ``new``: the player has not been dealt a hand since sitting down at this table (cash: they enter by
    posting a big blind or by waiting for it; tournament: they are dealt in free unless they sit on the
    button or the small blind).
    ``post_now``: an entrant (new, or owing missed blinds) who would rather post at once than wait for
    the big blind to reach the seat. Ignored for players who owe nothing, and in tournaments.
    ``missed``: the bookkeeping of missed blinds returned by the previous plan.
    ``just_posted_big_blind``: tournaments: the player posted the big blind in the last hand played at
    the table they were moved from, so they must not get it here in the very next hand. The caller sets
    it for the first hand at the new table only.
    """

    sitting_out: bool = False
    new: bool = False
    post_now: bool = False
    missed: MissedBlinds = NO_MISSED_BLINDS
    just_posted_big_blind: bool = False


@dataclass(frozen=True, slots=True)
class Positions:
    """Where the button and the blinds were in a hand: the input the next hand is planned from.

    ``small_blind`` is the small blind's *position*, a seat number even when the small blind was dead
    (nobody posted it), because the next hand's button goes there. Heads-up it equals ``button``.
    """

    button: int
    small_blind: int
    big_blind: int


@dataclass(frozen=True, slots=True)
class Post:
    seat: int
    kind: PostKind

    @property
    def live(self) -> bool:
        return self.kind is not PostKind.DEAD_SMALL_BLIND


@dataclass(frozen=True, slots=True)
class HandPlan:
    """Everything about seats the next hand needs before the first card.

    ``small_blind_seat`` is the seat that posts the small blind, or ``None`` when it is dead; the
    position itself is ``positions.small_blind``. ``dealt_in`` is in dealing order (first seat clockwise
    of the button first, the button, when dealt in, last). ``posts`` lists the forced posts in the order
    they go in: small blind, big blind, then entries in dealing order. ``waiting`` are occupied seats,
    not sitting out, that are not dealt in (waiting for the big blind or for the button to pass).
    ``missed_blinds`` covers every occupied seat and replaces the caller's bookkeeping.
    ``restarted``: too few players could be dealt in by the rules, so everyone present was dealt in
    without entry posts and owed blinds were forgiven (a table coming back to life).
    """

    seat_count: int
    positions: Positions
    small_blind_seat: int | None
    heads_up: bool
    dealt_in: tuple[int, ...]
    posts: tuple[Post, ...]
    waiting: tuple[int, ...]
    sitting_out: tuple[int, ...]
    missed_blinds: Mapping[int, MissedBlinds] = field(default_factory=dict)
    restarted: bool = False

    @property
    def button(self) -> int:
        return self.positions.button

    @property
    def big_blind(self) -> int:
        return self.positions.big_blind

    @property
    def dead_button(self) -> bool:
        return self.positions.button not in self.dealt_in

    def seat_states_after(self, *, seats: Mapping[int, SeatState]) -> dict[int, SeatState]:
        """The states of ``seats`` (those this plan was made from) to plan the next hand from, before
        the caller applies what players did between hands (joins, leaves, sitting out or in)."""
        return {
            seat: replace(
                state,
                new=state.new and seat not in self.dealt_in,
                missed=self.missed_blinds[seat],
                just_posted_big_blind=False,
            )
            for seat, state in seats.items()
        }

    def posts_of(self, seat: int) -> tuple[PostKind, ...]:
        return tuple(post.kind for post in self.posts if post.seat == seat)

    def preflop_order(self, *, straddle: int | None = None) -> tuple[int, ...]:
        return preflop_action_order(
            seat_count=self.seat_count, big_blind=self.big_blind, dealt_in=self.dealt_in, straddle=straddle
        )

    def postflop_order(self, *, in_hand: Collection[int] | None = None) -> tuple[int, ...]:
        seats = self.dealt_in if in_hand is None else in_hand
        return postflop_action_order(seat_count=self.seat_count, button=self.button, in_hand=seats)


# --- orders -------------------------------------------------------------------------------------


def clockwise_from(*, seat_count: int, after: int, seats: Collection[int]) -> tuple[int, ...]:
    """``seats`` in clockwise order starting with the first one after ``after`` (``after`` itself,
    if among them, comes last). Every order at the table is this with a different starting point."""
    _check_seat(seat_count, after, "after")
    for seat in seats:
        _check_seat(seat_count, seat, "seat")
    return tuple(sorted(set(seats), key=lambda seat: (seat - after - 1) % seat_count))


def dealing_order(*, seat_count: int, button: int, dealt_in: Collection[int]) -> tuple[int, ...]:
    """One card at a time from the first seat clockwise of the button (the small blind; heads-up the
    big blind) to the button. The same order gives the odd chips of a split (SPEC 1.1)."""
    return clockwise_from(seat_count=seat_count, after=button, seats=dealt_in)


def preflop_action_order(
    *, seat_count: int, big_blind: int, dealt_in: Collection[int], straddle: int | None = None
) -> tuple[int, ...]:
    """Pre-flop the first to act is clockwise of the big blind (of the straddle, when there is one)
    and the big blind (straddler) acts last. Heads-up the seat after the big blind is the button,
    so the button acts first, as SPEC 1.1 wants, without a special case."""
    return clockwise_from(
        seat_count=seat_count, after=big_blind if straddle is None else straddle, seats=dealt_in
    )


def postflop_action_order(*, seat_count: int, button: int, in_hand: Collection[int]) -> tuple[int, ...]:
    """After the flop the first active player clockwise of the button acts first and the button last
    (heads-up: the big blind first). Also the showdown order when the river was checked around."""
    return clockwise_from(seat_count=seat_count, after=button, seats=in_hand)


def big_blind_soonest_seat(*, seat_count: int, previous: Positions, empty_seats: Collection[int]) -> int:
    """The empty seat that will post the big blind soonest (SPEC 1.3, a player moved in a tournament).

    The big blind moves to the first eligible seat clockwise of where it was, so the soonest is the
    empty seat nearest clockwise after the last big blind. It is never the small blind's position (that
    is the last big blind's own seat) and, with any other seat free, never the button.
    """
    if not empty_seats:
        raise ValueError("no empty seat")
    return clockwise_from(seat_count=seat_count, after=previous.big_blind, seats=empty_seats)[0]


# --- planning -----------------------------------------------------------------------------------


def plan_hand(
    *,
    seat_count: int,
    previous: Positions | None,
    seats: Mapping[int, SeatState],
    first_button: int | None = None,
    tournament: bool = False,
) -> HandPlan:
    """Plan the next hand from the last one's positions and the seats as they are now.

    ``seats`` maps every occupied seat to its state; seats not in it are empty. ``previous`` is the
    ``positions`` of the last hand actually played at this table, or ``None`` for the first hand, whose
    button is the first seat at or clockwise after ``first_button`` (default seat 0) that can play: the
    caller chooses (a draw in tournaments, the first occupied seat otherwise).

    Cash (``tournament=False``): an entrant (new, or owing missed blinds) is dealt in when the big blind
    reaches the seat (posting it like anyone, debts cleared), or at once with ``post_now``: a live big
    blind out of position, plus the small blind dead if the big blind was missed (a missed small blind
    alone is owed as a dead small blind only). ``post_now`` is not honoured when the big blind reaches the
    seat next hand anyway: that would be two big blinds in a row. Sitting out while the big blind goes
    by marks a missed big blind, sitting out on the small blind's position a missed small blind.
    Heads-up there are only the two blinds: an entrant dealt in on the button posts the small blind and
    owes nothing more.

    Tournament: nobody sits out (players who are away are dealt in and folded by the clock) and nobody
    posts to enter. A moved player sitting between the button and the big blind (on the button or the
    small blind's position) waits until the button has passed; one who just posted the big blind at the
    old table is not given it again and so waits those two hands too (SPEC 1.3, seed 004 "Gestione dei
    blinds").

    Raises :class:`NotEnoughPlayers` when fewer than two players are present and willing to play.
    """
    _check_table(seat_count, previous, seats, first_button)
    if tournament and any(state.sitting_out for state in seats.values()):
        raise ValueError("tournament players do not sit out: pass them as active, the clock folds them")
    present = sorted(seat for seat, state in seats.items() if not state.sitting_out)
    if len(present) < 2:
        raise NotEnoughPlayers(f"{len(present)} player(s) ready to play, a hand needs two")
    if previous is None:
        return _first_hand(seat_count, seats, present, first_button)

    # The big blind moves to the next seat clockwise that may take it; a moved tournament player who
    # just posted it elsewhere may not, unless nobody else can.
    may_take_big_blind = [seat for seat in present if not seats[seat].just_posted_big_blind]
    big_blind, small_blind_pos, button = _moved_blinds(seat_count, previous, may_take_big_blind, present)
    dealt, waiting = _who_is_dealt(
        seat_count, seats, present, big_blind, button, small_blind_pos, may_take_big_blind, tournament
    )
    restarted = len(dealt) < 2
    if restarted:
        # Everyone plays, but the big blind still skips a moved player who just posted it when anyone else
        # can take it (two tables merging into a heads-up).
        dealt, waiting = set(present), set()
        big_blind, small_blind_pos, button = _moved_blinds(seat_count, previous, may_take_big_blind, present)

    if len(dealt) == 2:
        # Heads-up: the big blind goes to the other player and the button posts the small blind.
        (other,) = dealt - {big_blind}
        positions = Positions(button=other, small_blind=other, big_blind=big_blind)
        small_blind_seat: int | None = other
    else:
        positions = Positions(button=button, small_blind=small_blind_pos, big_blind=big_blind)
        small_blind_seat = small_blind_pos if _plays_its_blind(seats, small_blind_pos, dealt) else None

    order = dealing_order(seat_count=seat_count, button=positions.button, dealt_in=dealt)
    posts = _posts(seats, order, positions, small_blind_seat, entries=not (restarted or tournament))
    missed = _missed_after(seat_count, seats, dealt, previous, positions, small_blind_seat, tournament)
    return HandPlan(
        seat_count=seat_count,
        positions=positions,
        small_blind_seat=small_blind_seat,
        heads_up=len(dealt) == 2,
        dealt_in=order,
        posts=posts,
        waiting=tuple(sorted(waiting)),
        sitting_out=tuple(sorted(seat for seat, state in seats.items() if state.sitting_out)),
        missed_blinds=MappingProxyType(missed),
        restarted=restarted,
    )


def _moved_blinds(
    seat_count: int, previous: Positions, may_take_big_blind: list[int], present: list[int]
) -> tuple[int, int, int]:
    """Big blind, small blind position and button by the dead-button rule (before heads-up)."""
    candidates = [seat for seat in may_take_big_blind if seat != previous.big_blind]
    if not candidates:
        candidates = [seat for seat in present if seat != previous.big_blind]
    big_blind = clockwise_from(seat_count=seat_count, after=previous.big_blind, seats=candidates)[0]
    small_blind_pos = previous.big_blind
    button = previous.small_blind
    if not _strictly_clockwise_between(seat_count, button, start=big_blind, end=small_blind_pos):
        # Only after a heads-up hand (button and small blind were one seat) or when the big blind had
        # to wrap round past the old button: put the button right before the small blind.
        button = (small_blind_pos - 1) % seat_count
    return big_blind, small_blind_pos, button


def _first_hand(
    seat_count: int, seats: Mapping[int, SeatState], present: list[int], first_button: int | None
) -> HandPlan:
    """Everyone present is dealt in without entry posts; the blinds go clockwise from the button."""
    start = 0 if first_button is None else first_button
    button = clockwise_from(seat_count=seat_count, after=(start - 1) % seat_count, seats=present)[0]
    order = dealing_order(seat_count=seat_count, button=button, dealt_in=present)
    if len(present) == 2:
        positions = Positions(button=button, small_blind=button, big_blind=order[0])
    else:
        positions = Positions(button=button, small_blind=order[0], big_blind=order[1])
    posts = (
        Post(seat=positions.small_blind, kind=PostKind.SMALL_BLIND),
        Post(seat=positions.big_blind, kind=PostKind.BIG_BLIND),
    )
    return HandPlan(
        seat_count=seat_count,
        positions=positions,
        small_blind_seat=positions.small_blind,
        heads_up=len(present) == 2,
        dealt_in=order,
        posts=posts,
        waiting=(),
        sitting_out=tuple(sorted(seat for seat, state in seats.items() if state.sitting_out)),
        missed_blinds=MappingProxyType({seat: NO_MISSED_BLINDS for seat in seats}),
        restarted=False,
    )


def _who_is_dealt(
    seat_count: int,
    seats: Mapping[int, SeatState],
    present: list[int],
    big_blind: int,
    button: int,
    small_blind_pos: int,
    may_take_big_blind: list[int],
    tournament: bool,
) -> tuple[set[int], set[int]]:
    dealt: set[int] = set()
    waiting: set[int] = set()
    # Where the big blind goes next hand if nothing changes: an entrant there waits for it rather
    # than post a big blind now and another one next hand.
    later = [seat for seat in may_take_big_blind if seat != big_blind]
    next_big_blind = clockwise_from(seat_count=seat_count, after=big_blind, seats=later)[0] if later else None
    blinds_arc = (small_blind_pos - button) % seat_count
    for seat in present:
        state = seats[seat]
        if seat == big_blind:
            dealt.add(seat)
        elif tournament:
            on_the_blinds = (seat - button) % seat_count <= blinds_arc
            (waiting if state.new and (on_the_blinds or state.just_posted_big_blind) else dealt).add(seat)
        elif not (state.new or state.missed.any):
            dealt.add(seat)
        elif state.post_now and seat != next_big_blind:
            dealt.add(seat)
        else:
            waiting.add(seat)
    return dealt, waiting


def _plays_its_blind(seats: Mapping[int, SeatState], seat: int, dealt: set[int]) -> bool:
    """The small blind is posted by its seat only if that player is dealt in as a regular: an entrant
    there (a new player on a seat just left by the last big blind) enters with an entry post instead."""
    state = seats.get(seat)
    return state is not None and seat in dealt and not state.new and not state.missed.any


def _posts(
    seats: Mapping[int, SeatState],
    order: tuple[int, ...],
    positions: Positions,
    small_blind_seat: int | None,
    *,
    entries: bool,
) -> tuple[Post, ...]:
    posts: list[Post] = []
    if small_blind_seat is not None:
        posts.append(Post(seat=small_blind_seat, kind=PostKind.SMALL_BLIND))
    posts.append(Post(seat=positions.big_blind, kind=PostKind.BIG_BLIND))
    if not entries:
        return tuple(posts)
    for seat in order:
        state = seats[seat]
        if seat in (positions.big_blind, small_blind_seat) or not (state.new or state.missed.any):
            continue
        if state.new or state.missed.big:
            posts.append(Post(seat=seat, kind=PostKind.ENTRY_BIG_BLIND))
        if state.missed.any and not state.new:
            posts.append(Post(seat=seat, kind=PostKind.DEAD_SMALL_BLIND))
    return tuple(posts)


def _missed_after(
    seat_count: int,
    seats: Mapping[int, SeatState],
    dealt: set[int],
    previous: Positions,
    positions: Positions,
    small_blind_seat: int | None,
    tournament: bool,
) -> dict[int, MissedBlinds]:
    """Dealt in clears every debt; sitting out while the big blind goes over the seat, or on the small
    blind's position, adds one. New players owe nothing: they enter as new players anyway."""
    missed: dict[int, MissedBlinds] = {}
    passed_over = (positions.big_blind - previous.big_blind) % seat_count
    for seat, state in seats.items():
        if seat in dealt or state.new or tournament:
            missed[seat] = NO_MISSED_BLINDS
            continue
        small, big = state.missed.small, state.missed.big
        if state.sitting_out:
            big = big or 0 < (seat - previous.big_blind) % seat_count < passed_over
            small = small or (seat == positions.small_blind and small_blind_seat is None)
        missed[seat] = MissedBlinds(small=small, big=big)
    return missed


# --- checks -------------------------------------------------------------------------------------


def _strictly_clockwise_between(seat_count: int, seat: int, *, start: int, end: int) -> bool:
    return 0 < (seat - start) % seat_count < (end - start) % seat_count


def _check_seat(seat_count: int, seat: int, what: str) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seat_count:
        raise ValueError(f"{what} {seat!r} is not a seat of a {seat_count}-seat table (0..{seat_count - 1})")


def _check_table(
    seat_count: int,
    previous: Positions | None,
    seats: Mapping[int, SeatState],
    first_button: int | None,
) -> None:
    if isinstance(seat_count, bool) or not isinstance(seat_count, int):
        raise ValueError(f"seat_count must be an int, not {seat_count!r}")
    if not MIN_SEATS <= seat_count <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seat_count}")
    for seat in seats:
        _check_seat(seat_count, seat, "seat")
    if previous is not None:
        for what in ("button", "small_blind", "big_blind"):
            _check_seat(seat_count, getattr(previous, what), f"previous {what}")
    if first_button is not None:
        _check_seat(seat_count, first_button, "first_button")
