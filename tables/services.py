"""The table's services: everything a player, a timer or the dealer does to a table goes through here.

Each public service runs in one short transaction that first locks the table row (`select_for_update`),
so the actions of one table are applied one at a time whichever daphne process or Celery worker received
them, then loads the hand from its log, asks the engine, stores the result, and hands what must follow (its
messages, the lobby's mark, the next deal or bot move) to `tables.effects`, which carries it out after commit:
a rolled-back change never reaches a client or a timer. A player's action is judged against the table's view
and written with one check of the table's seq instead, without waiting for the lock unless that check fails
(`table_act`; docs/architecture.md).

Seat numbers: the database, the protocol and the page count seats from 1; the engine counts from 0.

Chips: stacks come from the table's chip store and a finished hand's settlement goes to it (`tables.chips`):
the ledger at cash tables, a tournament's own counts at tournament tables, which their tournament seats and
deals (`hand_deal(by_tournament=True)`); players there cannot take a seat, leave, sit out or top up.
"""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from cashier import selectors as cashier_selectors
from cashier import services as cashier
from cashier.errors import CashierError
from cashier.models import SeatSession
from tables import effects, held, presenters, waiting_rules
from tables.bots import BOTS_PER_TABLE, bot_move, bot_think_seconds, bot_users, bots_top_up
from tables.engine import fairness
from tables.engine.config import HandConfig, PostKind
from tables.engine.hand import Action, IllegalAction, start_hand
from tables.engine.hand import Hand as EngineHand
from tables.engine.positions import MissedBlinds, NotEnoughPlayers, Positions, SeatState, plan_hand
from tables.held import hand_engine, hand_engine_keep
from tables.models import ChatLine, ChatMute, Hand, RemoveReason, Seat, Table, WaitingEntry
from tables.selectors import (
    chat_line_json,
    hand_running,
    rake_schedule_for,
    seat_sessions_and_stacks,
    seat_stacks,
    table_seats,
)
from tables.state import table_snapshot

log = logging.getLogger(__name__)

DEAL_PAUSE_SECONDS = 3.0
TIMEOUTS_BEFORE_SIT_OUT = 2


class TableError(Exception):
    """A request the table refuses; nothing changed. `code` is for clients, `message` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_remember = hand_engine_keep  # the name inside this module


def table_lock(*, table_id: int, with_rake_schedule: bool = False) -> Table:
    """Lock the table row for the rest of the caller's transaction (and read its rake schedule with it)."""
    tables = Table.objects.select_for_update(of=("self",))
    if with_rake_schedule:
        tables = tables.select_related("rake_schedule")
    try:
        table = tables.get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError("no_table", _("This table does not exist.")) from None
    if table.settling_hand_id is not None:  # whatever comes next finds the last hand settled
        _hand_settle(table=table)
    return table


# --- seats ---------------------------------------------------------------------------------------


def _not_tournament(table: Table) -> None:
    """Players of a tournament are seated, moved and unseated by the tournament: they cannot take a seat,
    leave with chips, sit out or buy chips at its tables."""
    if table.is_tournament:
        raise TableError(
            "tournament_table",
            _("At a tournament table the tournament seats you, and you play every hand until you are out."),
        )


def _seat_of(*, table: Table, user) -> Seat | None:
    return Seat.objects.filter(table=table, user=user).first()


def seat_take(*, table_id: int, user, seat_number: int | None, buy_in: int, post: str) -> Seat:
    """Sit `user` down and buy in from the wallet. Caller holds nothing; this locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        if not table.is_open:
            raise TableError("table_closed", _("This table is closed."))
        if _seat_of(table=table, user=user) is not None:
            raise TableError("already_seated", _("You already have a seat at this table."))
        seats = Seat.objects.select_for_update().filter(table=table).order_by("number")
        reserved = _seats_offered_to_others(table=table, user=user)
        free = [s for s in seats if s.user_id is None and s.number not in reserved]
        if seat_number is None:
            if not free:
                raise TableError("table_full", _("The table is full."))
            seat = free[0]
        else:
            seat = next((s for s in seats if s.number == seat_number), None)
            if seat is None:
                raise TableError("bad_seat", _("There is no such seat at this table."))
            if seat.user_id is not None:
                raise TableError("seat_taken", _("This seat is taken."))
            if seat.number in reserved:
                raise TableError("seat_reserved", _("This seat is offered to a player on the waiting list."))
        cashier.seat_buy_in(user=user, table=table, seat_number=seat.number, amount=buy_in)
        if table.waiting_count:
            _waiting_entry_remove(table=table, user=user)  # seated: off the list (their offer taken)
        _seat_reset(seat)
        seat.user = user
        seat.status = Seat.Status.WAITING_BB
        seat.sat_down_at = timezone.now()
        seat.post_now = post == "now"
        seat.time_bank_ms = table.time_bank_seconds * 1000
        seat.disconnected = False  # sitting down is done over a connection to the table
        seat.save()
        _after_seat_change(
            table=table, event="seat", data={"seat": seat.number, "player": presenters.player_json(user)}
        )
        return seat


def seat_leave(*, table_id: int, user) -> None:
    """Leave: cash out at once between hands, or after the hand in play when dealt in."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        seat = _seat_of(table=table, user=user)
        if seat is None:
            raise TableError("not_seated", _("You have no seat at this table."))
        hand = hand_running(table=table)
        if hand is not None and str(seat.number - 1) in hand.players:
            # Even after folding: what they put in the pot is settled from their seat when the hand ends.
            seat.leave_after_hand = True
            seat.save(update_fields=["leave_after_hand"])
            _after_seat_change(table=table, event="seat", data={"seat": seat.number, "leaving": True})
            return
        _seat_release(table=table, seat=seat)
        _seats_freed(table=table)
        _after_seat_change(table=table, event="seat", data={"seat": seat.number, "player": None})


def _seat_release(*, table: Table, seat: Seat) -> None:
    cashier.seat_cash_out(user=seat.user, table=table)
    _seat_empty(seat)


def _seat_reset(seat: Seat) -> None:
    """An empty chair: nobody, no debts, no requests, default options (not saved)."""
    seat.user = None
    seat.status = Seat.Status.EMPTY
    seat.sat_down_at = None
    seat.is_new = True
    seat.post_now = seat.missed_small = seat.missed_big = False
    seat.sit_out_next = seat.leave_after_hand = seat.straddle = seat.run_twice = False
    seat.auto_muck = True
    seat.timeouts_in_row = 0
    seat.time_bank_ms = 0
    seat.disconnected = False
    seat.sat_out_at = None
    seat.remove_reason = ""


def _seat_empty(seat: Seat) -> None:
    _seat_reset(seat)
    seat.save()


def seat_sit_out(*, table_id: int, user) -> None:
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        now, seat = _seats_now(table=table, user=user)
        if now.hand is None:
            seat.status = Seat.Status.SITTING_OUT
            seat.sit_out_next = False
            seat.sat_out_at = seat.sat_out_at or timezone.now()
        else:
            seat.sit_out_next = True
        seat.save()
        _after_seat_change(
            table=table, event="seat", data={"seat": seat.number, "sitting_out": True}, now=now
        )


def seat_sit_in(*, table_id: int, user, post: str) -> None:
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        now, seat = _seats_now(table=table, user=user)
        if now.stacks.get(seat.number, 0) < table.big_blind:
            raise now.refused("no_chips", _("Top up before sitting in: your stack is below the big blind."))
        _seat_back_in(seat, post=post)
        seat.save()
        _after_seat_change(
            table=table, event="seat", data={"seat": seat.number, "sitting_out": False}, now=now
        )


def _seat_back_in(seat: Seat, *, post: str) -> None:
    """The player plays from the next deal: a seat that owes blinds waits for the big blind unless `post` is
    "now" (the big blind live, a missed small blind dead). Not saved."""
    seat.sit_out_next = False
    seat.timeouts_in_row = 0
    if seat.status == Seat.Status.SITTING_OUT:
        owes = seat.is_new or seat.missed_big or seat.missed_small
        seat.status = Seat.Status.WAITING_BB if owes else Seat.Status.ACTIVE
    seat.sat_out_at = None
    seat.post_now = post == "now"


def seat_options(
    *, table_id: int, user, auto_muck: bool | None, straddle: bool | None, run_twice: bool | None = None
) -> None:
    """A seated player's table options (None: unchanged). Run it twice takes effect from the next deal: the
    hand in play keeps the choices it was dealt with."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        now, seat = _seats_now(table=table, user=user)
        if straddle and not (table.allow_straddle and table.structure != "fl"):
            raise now.refused("no_straddle", _("This table does not offer the straddle."))
        if auto_muck is not None:
            seat.auto_muck = auto_muck
        if straddle is not None:
            seat.straddle = straddle
        if run_twice is not None:
            seat.run_twice = run_twice
        seat.save(update_fields=["auto_muck", "straddle", "run_twice"])
        _after_seat_change(table=table, event="seat", data={"seat": seat.number}, lobby=False, now=now)


def seat_top_up(*, table_id: int, user, amount: int, sit_in: str | None = None) -> None:
    """Add chips from the wallet between the player's hands. `sit_in` ("wait_bb" or "now"), for a player
    sitting out (a rebuy after going broke): sit back in with the same change, as `seat_sit_in` would; refused
    as a whole, nothing moved, when the stack would still be below the big blind."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        now, seat = _seats_now(table=table, user=user)
        if now.hand is not None and str(seat.number - 1) in now.hand.players:
            raise now.refused("hand_in_progress", _("Top up between hands, once this hand is over."))
        stack = now.stacks.get(seat.number, 0) + amount
        if sit_in is not None and stack < table.big_blind:
            raise now.refused(
                "no_chips", _("Add at least a big blind to sit in: your stack would be below it.")
            )
        try:
            cashier.seat_top_up(user=user, table=table, amount=amount)
        except CashierError:  # the wallet, the bounds, the cap: refused with nothing moved
            now.view_back()
            raise
        now.stacks[seat.number] = stack
        data: dict = {"seat": seat.number, "top_up": amount}
        if sit_in is not None:
            _seat_back_in(seat, post=sit_in)
            seat.save(update_fields=["sit_out_next", "timeouts_in_row", "status", "sat_out_at", "post_now"])
            data["sitting_out"] = False
        _after_seat_change(table=table, event="seat", data=data, lobby=sit_in is not None, now=now)


def table_chat(*, table_id: int, user, text: str) -> ChatLine:
    """A chat line from a player seated at the table (spectators read only), sent with its author as the
    server knows them: `player` {name, bot} and `seat`, never a name the text could fake. Kept, so that whoever
    joins or reloads sees the last lines (selectors.chat_recent); refused to a player staff have muted. A line
    changes nothing of the hand, seats or stacks: the table's view this process holds (a hand running) finds
    the seat and stays the table's at the line's seq, so the next action still reads nothing."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        view = _view_held(table=table)
        if view is not None:
            seat = next((s for s in view.seats if s.user_id == user.id), None)
        else:
            seat = _seat_of(table=table, user=user)
        try:
            if seat is None:
                raise TableError(
                    "not_seated", _("Only the players seated at this table can chat; spectators read.")
                )
            if ChatMute.objects.filter(user=user).exists():
                raise TableError("muted", _("Staff have muted you in the chat: your messages are not sent."))
        except TableError:
            if view is not None:
                held.keep(view)
            raise
        line = ChatLine.objects.create(
            table=table, user=user, name=user.username, bot=user.is_bot, seat=seat.number, text=text
        )
        seq = effects.event(table_id=table.id, event="chat", data=chat_line_json(line))
        if view is not None:
            view.seq = seq
            transaction.on_commit(lambda: held.keep(view))
        return line


def seat_connection(*, table_id: int, user, connected: bool, still_gone=None) -> bool:
    """A seated player's first connection to the table opened, or their last one closed: the seat says so
    to everyone. Returns whether anything changed (nothing does for someone without a seat here).
    `still_gone` (for a closed connection): asked under the table's lock, False when a connection of theirs
    opened meanwhile, which then leaves the seat unmarked (tables.presence)."""
    if not Seat.objects.filter(table_id=table_id, user=user).exists():
        return False  # a spectator: no seat to mark, no lock to take
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        try:
            now, seat = _seats_now(table=table, user=user)
        except TableError:
            return False  # the seat was left meanwhile (the view went back)
        if seat.disconnected == (not connected) or (
            not connected and still_gone is not None and not still_gone()
        ):
            now.view_back()
            return False
        seat.disconnected = not connected
        seat.save(update_fields=["disconnected"])
        _after_seat_change(
            table=table,
            event="seat",
            data={"seat": seat.number, "disconnected": not connected},
            lobby=False,
            now=now,
        )
        return True


@dataclass
class _SeatsNow:
    """A table's seats (in order, with their users), their stacks between hands and its running hand (or
    None), as they are under the table's lock: what a seat change works on and publishes."""

    seats: list[Seat]
    stacks: dict[int, int]
    hand: Hand | None
    view: held.TableView | None = None  # the table's view the change took (a hand running)

    def refused(self, code: str, message) -> TableError:
        """A refusal before anything changed: the view taken goes back as it was (the table's seq is unchanged),
        so the next action at the table still needs no read."""
        self.view_back()
        return TableError(code, message)

    def view_back(self) -> None:
        if self.view is not None:
            held.keep(self.view)


def _seats_now(*, table: Table, user) -> tuple[_SeatsNow, Seat]:
    """The table as a seat change finds it (the caller holds its lock): with a hand running, the view this
    process holds when it is still the table (no read), else read; and the seat `user` sits in (refused if
    none)."""
    view = _view_locked(table=table)
    if view is not None:
        now = _SeatsNow(seats=view.seats, stacks=view.stacks, hand=view.hand, view=view)
    else:
        now = _SeatsNow(seats=table_seats(table=table), stacks=seat_stacks(table=table), hand=None)
    seat = next((s for s in now.seats if s.user_id == user.id), None)
    if seat is None:
        raise now.refused("not_seated", _("You have no seat at this table."))
    return now, seat


def _after_seat_change(
    *,
    table: Table,
    event: str,
    data: dict,
    lobby: bool = True,
    locked: bool = True,
    seats: list[Seat] | None = None,
    stacks: dict[int, int] | None = None,
    now: _SeatsNow | None = None,
) -> None:
    """Publish a change of the seats. `table` was read under its lock in this transaction unless `locked` is
    False; `seats` and `stacks`, when given, are current (read in this transaction, after the change). Or
    `now` gives seats, stacks and the running hand (`_seats_now`, changed by the caller): then, with a hand
    running, this process keeps the table's view at the seq the change took, so the next action at the table
    needs no read."""
    hand = state = effects.FETCH
    if now is not None:
        seats, stacks, hand = now.seats, now.stacks, now.hand
        state = hand_engine(hand=hand, table=table) if hand is not None else None
    seq = effects.publish(
        table_id=table.id,
        events=[{"event": event, **data}],
        table=table if locked else None,
        seats=seats,
        stacks=stacks,
        hand=hand,
        state=state,
    )
    if now is not None and now.hand is not None:
        kept = held.TableView(seq=seq, table=table, hand=now.hand, seats=now.seats, stacks=now.stacks)
        transaction.on_commit(lambda: (_remember(kept.hand.id, state), held.keep(kept)))
    if lobby and not table.is_tournament:
        effects.lobby_changed()
    # The next deal, unless a hand is running (its end asks for it); the tournament deals its tables (tables.chips
    # hooks).
    if not table.is_tournament and (now is None or now.hand is None):
        effects.deal_later(table.id, delay=0.5)


# --- dealing -------------------------------------------------------------------------------------


def _seat_state(seat: Seat, *, tournament: bool = False) -> SeatState:
    if tournament:  # nobody sits out of a tournament: away players are dealt in and the clock folds them
        return SeatState(
            new=seat.is_new,
            missed=MissedBlinds(small=seat.missed_small, big=seat.missed_big),
            just_posted_big_blind=seat.just_posted_big_blind,
        )
    return SeatState(
        sitting_out=seat.status == Seat.Status.SITTING_OUT,
        new=seat.is_new,
        post_now=seat.post_now,
        missed=MissedBlinds(small=seat.missed_small, big=seat.missed_big),
    )


def hand_deal(*, table_id: int, by_tournament: bool = False, first_button: int | None = None) -> Hand | None:
    """Deal the next hand if none is in play and at least two players are ready. Locks the table.

    A tournament table is dealt only by its tournament (`by_tournament`, after its busts and balancing), at the
    blinds and big-blind ante it set on the table row, everyone seated dealt in (`plan_hand(tournament=True)`;
    `first_button`: the seat the draw gave the first button)."""
    with transaction.atomic():
        table = table_lock(table_id=table_id, with_rake_schedule=True)
        if not table.is_open or table.paused or table.is_tournament != by_tournament:
            return None
        # The table's last hand: still running (the running hand is always the last), or ended moments ago.
        last = Hand.objects.filter(table=table).order_by("-number").only("status", "ended_at").first()
        if last is not None and last.status == Hand.Status.RUNNING:
            return None
        if last is not None and last.ended_at is not None:
            pause = DEAL_PAUSE_SECONDS - (timezone.now() - last.ended_at).total_seconds()
            if pause > 0.05:  # players get to see how the last hand ended: the deal comes at the pause's end
                if not by_tournament:  # (a tournament's floor deals its tables and keeps its own time)
                    effects.deal_later(table.id, delay=pause)
                return None
        all_seats = table_seats(table=table)
        seats = {s.number - 1: s for s in all_seats if s.user_id is not None}
        sessions, by_number = seat_sessions_and_stacks(table=table)
        barred: set[int] = set()
        if by_tournament:  # a busted player's seat is emptied by the tournament; none is dealt in meanwhile
            seats = {number: seat for number, seat in seats.items() if by_number.get(number + 1, 0) > 0}
            # Self-excluded players and closed accounts stay in the tournament as away players (their chips
            # are theirs), dealt in but never asked: the clock checks or folds for them at once.
            barred = cashier_selectors.users_barred(user_ids=[seat.user_id for seat in seats.values()])
        stacks = {number: by_number.get(number + 1, 0) for number in seats}
        if not by_tournament:
            # A player without a big blind left cannot be dealt in: sit them out until they top up.
            for number, seat in seats.items():
                if stacks[number] < table.big_blind and seat.status != Seat.Status.SITTING_OUT:
                    seat.status = Seat.Status.SITTING_OUT
                    seat.sat_out_at = seat.sat_out_at or timezone.now()
                    seat.save(update_fields=["status", "sat_out_at"])
            if not any(
                not seat.user.is_bot and seat.status != Seat.Status.SITTING_OUT for seat in seats.values()
            ):
                return None  # house bots play with people, never only among themselves
        states = {number: _seat_state(seat, tournament=by_tournament) for number, seat in seats.items()}
        previous = Positions(**table.positions) if table.positions else None
        if first_button is None or first_button not in states:
            first_button = min(states) if states else None
        try:
            plan = plan_hand(
                seat_count=table.seats,
                previous=previous,
                seats=states,
                first_button=first_button,
                tournament=by_tournament,
            )
        except NotEnoughPlayers:
            return None
        posts = [(post.seat, post.kind) for post in plan.posts]
        # A bomb pot (a table option) replaces the blinds: every player dealt in posts the ante, and the button
        # and the blinds' positions move on as if the blinds had been posted.
        bomb_pot = table.bomb_pot_ante(hand_number=table.hands_dealt + 1)
        straddler = (
            None if bomb_pot else _straddler(table=table, plan=plan, seats=seats, stacks=stacks, posts=posts)
        )
        # Tournaments: the big-blind ante, dead money the big blind posts for the table (as far as it covers).
        antes = {plan.big_blind: table.ante} if table.ante and plan.big_blind in plan.dealt_in else {}
        if straddler is not None:
            posts.append((straddler, PostKind.STRADDLE))
        deck = fairness.shuffled_deck()
        secret = fairness.commit_deck(deck=deck)
        small_bet = table.big_blind
        config = HandConfig(
            variant=table.game,
            structure=table.structure,
            seat_count=table.seats,
            stacks={number: stacks[number] for number in plan.dealt_in},
            button=plan.button,
            small_blind=table.small_blind,
            big_blind=table.big_blind,
            deck=tuple(deck),
            posts=() if bomb_pot else tuple(posts),
            bomb_pot=bomb_pot,
            chip=table.chip,
            small_bet=small_bet if table.structure == "fl" else None,
            big_bet=2 * small_bet if table.structure == "fl" else None,
            rake=rake_schedule_for(table=table),
            auto_muck={number: seats[number].auto_muck for number in plan.dealt_in},
            antes=antes,
            run_twice=frozenset(number for number in plan.dealt_in if seats[number].run_twice),
        )
        state = start_hand(config=config)
        table.hands_dealt += 1
        table.positions = {
            "button": plan.positions.button,
            "small_blind": plan.positions.small_blind,
            "big_blind": plan.positions.big_blind,
        }
        table.save(update_fields=["hands_dealt", "positions"])
        moved = []
        # Every `time_bank_refill_hands` hands the table deals, the time banks of the players dealt in refill.
        every = table.time_bank_refill_hands
        refill = table.time_bank_refill_seconds > 0 and every > 0 and table.hands_dealt % every == 0
        for number, seat in seats.items():
            before = (
                seat.missed_small,
                seat.missed_big,
                seat.is_new,
                seat.post_now,
                seat.status,
                seat.time_bank_ms,
                seat.just_posted_big_blind,
            )
            seat.just_posted_big_blind = False  # a hand dealt or waited out here: the move's flag is spent
            missed = plan.missed_blinds.get(number, MissedBlinds())
            seat.missed_small, seat.missed_big = missed.small, missed.big
            if number in plan.dealt_in:
                seat.is_new = False
                seat.post_now = False
                seat.status = Seat.Status.ACTIVE
                if refill:
                    _time_bank_refill(table=table, seat=seat)
            elif seat.status != Seat.Status.SITTING_OUT:
                seat.status = Seat.Status.WAITING_BB
            if (
                seat.missed_small,
                seat.missed_big,
                seat.is_new,
                seat.post_now,
                seat.status,
                seat.time_bank_ms,
                seat.just_posted_big_blind,
            ) != before:
                moved.append(seat)
        if moved:  # most deals move no seat: the same players, playing on
            Seat.objects.bulk_update(
                moved,
                [
                    "missed_small",
                    "missed_big",
                    "is_new",
                    "post_now",
                    "status",
                    "time_bank_ms",
                    "just_posted_big_blind",
                ],
            )
        hand = Hand(
            table=table,
            number=table.hands_dealt,
            config=config.as_dict(),
            actions=[],
            players={
                str(number): {
                    "user": seats[number].user_id,
                    "name": seats[number].user.username,
                    "bot": seats[number].user.is_bot,
                    "session": sessions[number + 1],
                    **({"barred": True} if seats[number].user_id in barred else {}),
                }
                for number in plan.dealt_in
            },
            deck_secret=secret.to_json(),
            commitment=secret.root_hex,
            hole_cards={str(number): state.hole_cards(number) for number in plan.dealt_in},
            players_dealt=len(plan.dealt_in),
        )
        if state.is_over:  # blinds put everyone all in: settled at once, from the stored row
            hand.save()
        # Stored (with whose turn it is and its deadline) and published with the seats and stacks read above.
        _after_hand_change(
            table=table, hand=hand, state=state, events=state.events, seats=all_seats, stacks=by_number
        )
        _remember(hand.id, state)
        return hand


def _time_bank_refill(*, table: Table, seat: Seat) -> None:
    """`seat`'s time bank gains `time_bank_refill_seconds`, never above `time_bank_max_seconds` (not saved)."""
    most = table.time_bank_max_seconds * 1000
    if seat.time_bank_ms < most:
        seat.time_bank_ms = min(most, seat.time_bank_ms + table.time_bank_refill_seconds * 1000)


def _straddler(*, table: Table, plan, seats: dict, stacks: dict, posts: list) -> int | None:
    """SPEC 1.1: where the table allows it, the first player after the big blind may post a live straddle
    of twice the big blind, if they asked for it, can cover it and post nothing else this hand."""
    if not table.allow_straddle or table.structure == "fl" or len(plan.dealt_in) < 3:
        return None
    first = plan.preflop_order()[0]
    if not seats[first].straddle or any(seat == first for seat, _kind in posts):
        return None
    return first if stacks[first] >= 2 * table.big_blind else None


# --- acting --------------------------------------------------------------------------------------


@dataclass
class _Acted:
    """A player's action judged against a view of the table (`_act_judge`), not written yet."""

    view: held.TableView
    state: EngineHand  # the hand after the action
    events: list
    move: Action
    row: Seat  # the acting player's seat
    row_changes: dict  # the seat's clock bookkeeping: timeouts in a row cleared, a time bank's rest


def table_act(
    *,
    table_id: int,
    user,
    hand_id: int,
    action_no: int,
    action: str,
    amount: int | None,
    settle_later: bool = False,
) -> int | None:
    """A player's action in the hand. Refused with a TableError (nothing changed) when it answers another
    decision than the one the hand waits for, or when the engine finds it illegal.

    An action that ends a hand at a cash table is told first and settled after (`_act_write_end`, then
    `hand_settle`): with `settle_later` the settlement is left to the caller, who gets the table's id to pass
    to `hand_settle` once the player has their answer (a web process does it a moment later); else it is
    done here before returning None. Whatever locks the table first settles it in any case (`table_lock`).

    One path: the table's view (held by this process between two actions, or read without a lock), one
    judgement of the action against it (`_act_judge`, which writes nothing), and one write that checks the
    table's seq is still the view's (`_act_write`: one statement in the middle of a hand, one transaction when
    the hand ends or the seat's clock bookkeeping changes). When another process changed the table since the
    view (the write finds another seq, or a refusal was judged on a view that is no longer the table), the
    table is read again under its lock and the same judgement made once more, where the write cannot miss."""
    ask = {"player": user.id, "hand_id": hand_id, "action_no": action_no, "action": action, "amount": amount}
    if not transaction.get_connection().in_atomic_block:  # in a caller's transaction: straight to the lock
        view = held.take(table_id) or _view_load(table_id=table_id)
        if view is not None:
            try:
                acted = _act_judge(view=view, **ask)
            except TableError:
                if not _view_current(view):
                    acted = None  # judged on an old view: judged again below, on the table as it is
                else:
                    held.keep(view)  # unchanged, and still the table: the refusal stands
                    raise
            if acted is not None and _act_write(acted):
                return _settle_after(acted, later=settle_later)
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        view = _view_locked(table=table)
        if view is None:  # no hand running: the uncontested winner of the last one may still show
            if action in ("show", "muck"):
                _winner_choice(table=table, user=user, hand_id=hand_id, action_no=action_no, action=action)
                return None
            raise TableError("stale", _("That hand is over."))
        acted = _act_judge(view=view, **ask)
        if not _act_write(acted, locked=table):
            raise RuntimeError(f"table {table_id}: an action under the table's lock missed its seq")
    return _settle_after(acted, later=settle_later)


def _settle_after(acted: _Acted, *, later: bool) -> int | None:
    """After a written action: settle the hand it ended and told (`_act_write_end`) now, or, `later`, return
    the table's id for the caller to settle it (`hand_settle`). None when there is nothing to settle."""
    table = acted.view.table
    if not acted.state.is_over or table.is_tournament:
        return None
    if later:
        return table.id
    hand_settle(table_id=table.id)
    return None


def _act_judge(
    *,
    view: held.TableView,
    player: int,
    hand_id: int,
    action_no: int,
    action: str,
    amount: int | None,
    asked: bool = True,
) -> _Acted:
    """The action of the player whose user id is `player`, judged against `view` (the table as it was at
    `view.seq`): what it does, or a TableError saying why not. Writes nothing; the engine's state of a refused
    action goes back to the cache unchanged. `asked`: the player asked for it (not the clock or a bot's move),
    refused to a player who may no longer play."""
    hand, table = view.hand, view.table
    if hand.id != hand_id:
        raise TableError("stale", _("That hand is over."))
    if hand.action_no != action_no:
        raise TableError("stale", _("That decision has already been taken."))
    seat = next((int(s) for s, dealt in hand.players.items() if dealt["user"] == player), None)
    if seat is None:
        raise TableError("not_in_hand", _("You are not playing this hand."))
    if asked and _barred(hand, seat):
        raise TableError(
            "barred",
            _(
                "Your account may not play now (a self-exclusion, or the account is closed): the clock checks "
                "or folds your hand for you."
            ),
        )
    state = hand_engine(hand=hand, table=table)
    if state.to_act != seat:
        _remember(hand.id, state)
        raise TableError("not_your_turn", _("It is not your turn."))
    move = Action(seat=seat, kind=action, amount=amount)
    try:
        events = state.act(move)  # validates first: no change if illegal
    except IllegalAction as refused:
        _remember(hand.id, state)
        raise TableError(refused.code, presenters.refusal_text(refused, state=state, table=table)) from None
    row = next(s for s in view.seats if s.number == seat + 1)
    changes = {"timeouts_in_row": 0} if row.timeouts_in_row else {}
    if hand.time_bank_used:
        changes["time_bank_ms"] = _remaining_ms(hand)  # what is left of the time bank stays in it
    return _Acted(view=view, state=state, events=events, move=move, row=row, row_changes=changes)


def _act_write(acted: _Acted, *, locked: Table | None = None) -> bool:
    """Write a judged action if the table's seq is still its view's; False, and nothing written, if not.
    `locked`: the caller holds the table's lock and the view is the table as it is. From here on the view's
    hand and the engine's state are changed: unless written, whoever needs them next rebuilds them from the
    log (neither goes back to this process's store). What follows is carried out after commit (or at once,
    when the one statement is all there is)."""
    if acted.state.is_over and not acted.view.table.is_tournament:
        return _act_write_end(acted, locked=locked)
    if acted.state.is_over or acted.row_changes:
        return _act_write_transaction(acted, locked=locked)
    return _act_write_statement(acted)


# One statement: lock the table if its seq is still the view's, write the hand's row (its new log and clock; at
# its end its result too, and the status `settling`), move the seq on by the messages the change sends and, at
# the hand's end, mark the hand to settle on the table; no row back if the view was old (nothing written then).
_HAND_WRITE_SQL = f"""
WITH locked AS (
    SELECT id FROM {Table._meta.db_table} WHERE id = %(table)s AND seq = %(seq)s FOR UPDATE
), written AS (
    UPDATE {Hand._meta.db_table}
    SET actions = %(actions)s::jsonb, to_act = %(to_act)s, deadline = %(deadline)s, time_bank_used = false,
        players_saw_flop = %(saw_flop)s, status = %(status)s, pot_total = %(pot_total)s,
        ended_at = %(ended_at)s, result = %(result)s::jsonb
    WHERE id = %(hand)s AND status = 'running' AND table_id IN (SELECT id FROM locked)
    RETURNING table_id
)
UPDATE {Table._meta.db_table} SET seq = %(seq)s + %(count)s, settling_hand_id = %(settling)s
WHERE id IN (SELECT table_id FROM written)
RETURNING seq
"""


def _hand_write(*, view: held.TableView, count: int) -> int | None:
    """The one statement of `_HAND_WRITE_SQL` for the view's hand as it is now (not saved yet), taking `count`
    seqs; the table's new seq, or None if the view was no longer the table (nothing written)."""
    hand = view.hand
    settling = hand.status == Hand.Status.SETTLING
    with connection.cursor() as cursor:
        cursor.execute(
            _HAND_WRITE_SQL,
            {
                "table": view.table.id,
                "seq": view.seq,
                "actions": json.dumps(hand.actions),
                "to_act": hand.to_act,
                "deadline": hand.deadline,
                "saw_flop": hand.players_saw_flop,
                "status": hand.status,
                "pot_total": hand.pot_total,
                "ended_at": hand.ended_at,
                "result": json.dumps(hand.result) if hand.result is not None else None,
                "hand": hand.id,
                "count": count,
                "settling": hand.id if settling else None,
            },
        )
        written = cursor.fetchone()
    return None if written is None else written[0]


def _act_write_statement(acted: _Acted) -> bool:
    """An action in the middle of a hand that changes no seat: the hand's log and clock and the table's seq,
    in one statement that writes nothing if the seq is no longer the view's."""
    view, state, hand, table = acted.view, acted.state, acted.view.hand, acted.view.table
    hand.actions = [*hand.actions, acted.move.as_dict()]
    public = _hand_moved_on(table=table, hand=hand, state=state, events=acted.events)
    snapshot = table_snapshot(table=table, hand=hand, state=state, seats=view.seats, stacks=view.stacks)
    count = len(public) + 1
    written = _hand_write(view=view, count=count)
    if written is None:
        return False
    view.seq = written
    transaction.on_commit(lambda: (_remember(hand.id, state), held.keep(view)))
    effects.publish_numbered(
        table_id=table.id,
        first_seq=written - count + 1,
        events=public,
        snapshot=snapshot,
        follow=held.follow_of(table_id=table.id, hand=hand, seq_before=written - count, seq_after=written),
    )
    if _bot_to_act(hand=hand, state=state):
        effects.bot_later(hand.id, hand.action_no, delay=bot_think_seconds(state=state, table=table))
    return True


def _act_write_transaction(acted: _Acted, *, locked: Table | None) -> bool:
    """An action that ends the hand (its settlement) or moves the seat's clock bookkeeping: one transaction
    under the table's lock, taken only if the seq is still the view's."""
    view, state, hand = acted.view, acted.state, acted.view.hand
    with transaction.atomic(savepoint=False):
        table = locked or Table.objects.select_for_update().filter(pk=view.table.id, seq=view.seq).first()
        if table is None:
            return False
        if acted.row_changes:  # before the snapshot, which shows the time bank
            Seat.objects.filter(pk=acted.row.pk).update(**acted.row_changes)
            for field, value in acted.row_changes.items():
                setattr(acted.row, field, value)
        hand.actions = [*hand.actions, acted.move.as_dict()]
        transaction.on_commit(lambda: _remember(hand.id, state))
        seq = _after_hand_change(
            table=table, hand=hand, state=state, events=acted.events, seats=view.seats, stacks=view.stacks
        )
        if not state.is_over:
            kept = held.TableView(seq=seq, table=table, hand=hand, seats=view.seats, stacks=view.stacks)
            transaction.on_commit(lambda: held.keep(kept))
    return True


def _act_write_end(acted: _Acted, *, locked: Table | None) -> bool:
    """An action that ends a hand at a cash table, the first half of the hand's end: the hand's row with its
    result and the status `settling`, the table marked to settle it, and the players told how it ended (its
    events, then the table with each stack as it was plus the seat's net result), in the one statement of a
    move in the middle of a hand (in a transaction with the seat's clock bookkeeping when that changes too).
    No money moves here and no seat changes: `hand_settle` (or whatever locks the table first) makes the
    settlement's transfer and carries out what players asked for during the hand, off the player's path."""
    view, state, hand, table = acted.view, acted.state, acted.view.hand, acted.view.table
    stacks = _stacks_settled(view.stacks, net=_seat_nets(hand=hand, state=state))
    if stacks is None:  # a seat of the hand has no stack in the view: the whole end in one transaction
        return _act_write_transaction(acted, locked=locked)
    with transaction.atomic(savepoint=False) if acted.row_changes else nullcontext():
        if acted.row_changes:  # under the lock, taken only if the seq is still the view's
            if locked is None and not (
                Table.objects.select_for_update().filter(pk=table.id, seq=view.seq).exists()
            ):
                return False
            Seat.objects.filter(pk=acted.row.pk).update(**acted.row_changes)
            for field, value in acted.row_changes.items():  # before the snapshot, which shows the time bank
                setattr(acted.row, field, value)
        hand.actions = [*hand.actions, acted.move.as_dict()]
        public = _hand_moved_on(table=table, hand=hand, state=state, events=acted.events)
        _hand_ended(hand=hand, state=state, status=Hand.Status.SETTLING)
        for event in public:
            if event["event"] == "hand_ended":
                event.update(presenters.hand_summary(hand=hand))
        shown = state.winner_may_show is not None  # the uncontested winner may still show
        snapshot = table_snapshot(
            table=table,
            hand=hand if shown else None,
            state=state if shown else None,
            seats=view.seats,
            stacks=stacks,
        )
        count = len(public) + 1
        written = _hand_write(view=view, count=count)
        if written is None:
            if acted.row_changes:
                raise RuntimeError(f"table {table.id}: a hand's end under the table's lock missed its seq")
            return False
    kept = (written, view.seats, stacks)
    transaction.on_commit(lambda: (_remember(hand.id, state), _settling.__setitem__(table.id, kept)))
    effects.publish_numbered(
        table_id=table.id, first_seq=written - count + 1, events=public, snapshot=snapshot
    )
    return True


# Table id -> (seq, seats, stacks after the settlement) of a hand's end this process wrote and told, for its
# settlement to take instead of reading them again while the table's seq is still that one.
_settling: dict[int, tuple[int, list[Seat], dict[int, int]]] = {}


def hand_settle(*, table_id: int) -> bool:
    """The second half of a hand's end (the first: `_act_write_end`), in its own transaction under the
    table's lock: the settlement's one ledger transfer, the hand complete, what players asked for during it
    carried out (leave, sit out, cash-outs, bots buying back), the table told again and the next deal asked
    for. Returns whether there was a hand to settle: none when whoever locked the table first settled it."""
    with transaction.atomic():
        table = (
            Table.objects.select_for_update(of=("self",))
            .select_related("settling_hand")
            .filter(pk=table_id)
            .first()
        )
        if table is None or table.settling_hand is None:
            return False
        _hand_settle(table=table, hand=table.settling_hand)
        return True


# The settled hand complete and the table's mark taken off, in one statement.
_HAND_SETTLED_SQL = f"""
WITH settled AS (
    UPDATE {Hand._meta.db_table} SET status = 'complete' WHERE id = %(hand)s AND status = 'settling'
)
UPDATE {Table._meta.db_table} SET settling_hand_id = NULL WHERE id = %(table)s
"""


def _hand_settle(*, table: Table, hand: Hand | None = None) -> None:
    """Settle the hand the table is marked to settle (see `hand_settle`; `hand`: that hand, when the caller
    read it with the table); the caller holds the table's lock."""
    if hand is None:
        hand = Hand.objects.get(pk=table.settling_hand_id)
    state = hand_engine(hand=hand, table=table)
    kept = _settling.pop(table.id, None)
    seats, stacks = (kept[1], kept[2]) if kept is not None and kept[0] == table.seq else (None, None)
    _hand_store_settle(table=table, hand=hand, state=state)
    with connection.cursor() as cursor:
        cursor.execute(_HAND_SETTLED_SQL, {"hand": hand.id, "table": table.id})
    hand.status = Hand.Status.COMPLETE
    table.settling_hand = None
    seats, stacks, events = _seats_after_hand(table=table, seats=seats, stacks=stacks)
    shown = state.winner_may_show is not None
    transaction.on_commit(lambda: _remember(hand.id, state))
    table.seq = effects.publish(
        table_id=table.id,
        events=events,
        table=table,
        hand=hand if shown else None,
        state=state if shown else None,
        seats=seats,
        stacks=stacks,
    )
    effects.lobby_changed()
    effects.deal_later(table.id, delay=DEAL_PAUSE_SECONDS)


def tables_unsettled(*, grace_seconds: float = 2.0) -> list[int]:
    """Tables whose last hand was told ended more than `grace_seconds` ago and is not settled yet (the web
    process that was to settle it stopped first): for the sweep, which settles them."""
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    return list(
        Table.objects.filter(settling_hand__isnull=False, settling_hand__ended_at__lt=cutoff).values_list(
            "id", flat=True
        )
    )


def _view_current(view: held.TableView) -> bool:
    """Whether the table's seq is still the view's (one read, no lock): the view is the table as it is."""
    return Table.objects.filter(pk=view.table.id, seq=view.seq).exists()


def _view_held(*, table: Table) -> held.TableView | None:
    """The view of the table this process holds, taken out, if it is the table still (the caller holds its
    lock); else None, with no read."""
    view = held.take(table.id)
    return view if view is not None and view.seq == table.seq else None


def _view_locked(*, table: Table) -> held.TableView | None:
    """The table's view under its lock (the caller holds it): the one this process holds if it is the table
    still, else read; None when no hand is running."""
    view = _view_held(table=table)
    if view is not None:
        return view
    hand = hand_running(table=table)
    if hand is None:
        return None
    return held.TableView(
        seq=table.seq, table=table, hand=hand, seats=table_seats(table=table), stacks=seat_stacks(table=table)
    )


def hand_hole_cards_held(*, table_id: int, hand_id: int) -> dict[str, list[str]] | None:
    """Every player's cards in a running hand (engine seat -> cards), as `hand_hole_cards`, from the table's view
    this process holds, with no database call (safe on the event loop); None when it holds none of that hand."""
    view = held.peek(table_id)  # nothing of it is changed: the cards never change during a hand
    if view is not None and view.hand.id == hand_id:
        return view.hand.hole_cards
    return None


def hand_hole_cards(*, table_id: int, hand_id: int) -> dict[str, list[str]]:
    """Every player's cards in a hand (engine seat -> cards), for the table's connections in this process to
    pick their own player's from, never to send as they are. While the hand runs they come with the table's
    view, read here if this process holds none for that hand yet (its first action then finds it ready); a
    finished hand's from its row."""
    view = held.take(table_id)
    if view is None or view.hand.id != hand_id:
        view = _view_load(table_id=table_id)
    if view is not None:
        held.keep(view)
        if view.hand.id == hand_id:
            return view.hand.hole_cards
    return (
        Hand.objects.filter(pk=hand_id, table_id=table_id).values_list("hole_cards", flat=True).first() or {}
    )


def _view_load(*, table_id: int) -> held.TableView | None:
    """The table as it is now, read without a transaction: its row and running hand in one statement, then
    seats and stacks. A change committed between these reads has moved the table's seq past the one read
    first, so an action written against this view fails its seq check and nothing is written."""
    found = list(
        Hand.objects.select_related("table", "table__rake_schedule")
        .filter(table_id=table_id, status=Hand.Status.RUNNING)
        .order_by()[:1]  # at most one (a unique partial index): no ORDER BY to tempt a scan of every hand
    )
    if not found:
        return None
    hand = found[0]
    table = hand.table
    return held.TableView(
        seq=table.seq, table=table, hand=hand, seats=table_seats(table=table), stacks=seat_stacks(table=table)
    )


def _winner_choice(*, table: Table, user, hand_id: int, action_no: int, action: str) -> None:
    """The uncontested winner of the table's last hand shows (or mucks) before the next deal. The money is
    already settled; the hand's log, the cards shown and the public openings change. Caller holds the lock.

    Only the player (the user, not whoever sits in that chair now) who won the hand, still seated, and only
    while it is the table's latest hand: once the next hand is dealt a finished hand's record never changes."""
    hand = Hand.objects.filter(pk=hand_id, table=table, status=Hand.Status.COMPLETE).first()
    seat = _seat_of(table=table, user=user)
    if hand is None or seat is None or hand.action_no != action_no:
        raise TableError("stale", _("That hand is over."))
    if Hand.objects.filter(table=table, number__gt=hand.number).exists():
        raise TableError("stale", _("That hand is over."))
    own = next((int(s) for s, player in hand.players.items() if player.get("user") == user.id), None)
    state = hand_engine(hand=hand, table=table)
    if own is None or state.winner_may_show != own or own != seat.number - 1:
        _remember(hand.id, state)
        raise TableError("stale", _("That hand is over."))
    try:
        events = state.act(Action(seat=own, kind=action))
    except IllegalAction as refused:
        raise TableError(refused.code, presenters.refusal_text(refused, state=state, table=table)) from None
    transaction.on_commit(lambda: _remember(hand.id, state))
    hand.actions = [*hand.actions, {"seat": own, "action": action}]
    hand.result = {
        **hand.result,
        "shown": {str(s + 1): cards for s, cards in state.shown_cards().items()},
        "public_positions": state.public_positions(),
    }
    hand.save(update_fields=["actions", "result"])
    public = [presenters.event_for_clients(event.as_dict()) for event in events if event.to is None]
    effects.publish(table_id=table.id, events=public, table=table, hand=None, state=None)


def _remaining_ms(hand: Hand) -> int:
    if hand.deadline is None:
        return 0
    return max(0, int((hand.deadline - timezone.now()).total_seconds() * 1000))


def _after_hand_change(
    *,
    table: Table,
    hand: Hand,
    state: EngineHand,
    events,
    seats: list[Seat] | None = None,
    stacks: dict[int, int] | None = None,
) -> int:
    """Store the hand's new state and (after commit) broadcast it; returns the snapshot's seq. `seats` (with
    their users) and `stacks` (seat number -> chips between hands), when the caller holds them current, save
    the snapshot its two queries."""
    public = _hand_moved_on(table=table, hand=hand, state=state, events=events)
    seat_events: list[dict] = []
    if state.is_over:  # the end moves seats and stacks: the snapshot gets them as they are after it
        seats, stacks, seat_events = _hand_finish(
            table=table, hand=hand, state=state, seats=seats, stacks=stacks
        )
    else:
        if hand.pk is None:
            hand.save()
        else:  # the configuration, the deck and the cards never change after the deal: don't rewrite them
            hand.save(update_fields=["actions", "to_act", "deadline", "time_bank_used", "players_saw_flop"])
        if _bot_to_act(hand=hand, state=state):
            effects.bot_later(hand.id, hand.action_no, delay=bot_think_seconds(state=state, table=table))
    for event in public:
        if event["event"] == "hand_ended":
            event.update(presenters.hand_summary(hand=hand))
    public.extend(seat_events)  # players removed as the hand ended, after its end
    # A hand is shown while it runs, and after it while its uncontested winner may still choose to show.
    shown = not state.is_over or state.winner_may_show is not None
    current = {} if seats is None else {"seats": seats, "stacks": stacks}
    seq = effects.publish(
        table_id=table.id,
        events=public,
        table=table,
        hand=hand if shown else None,
        state=state if shown else None,
        **current,
    )
    if state.is_over and table.is_tournament:  # the tournament records busts, balances and deals next
        from tables.chips import tournament_hooks

        tournament_hooks().hand_over(table=table)
    elif state.is_over:  # after the players' broadcast: the lobby and the next deal can wait a moment
        effects.lobby_changed()
        effects.deal_later(table.id, delay=DEAL_PAUSE_SECONDS)
    return seq


def _hand_moved_on(*, table: Table, hand: Hand, state: EngineHand, events) -> list[dict]:
    """What the engine's `events` change on the hand's row besides its log (not saved here): who saw the
    flop and, while it runs, whose turn it is and its deadline (the workers' decision clock reads it).
    Returns the public events, as clients get them."""
    if hand.players_saw_flop == 0 and any(
        e.kind == "street" and e.data.get("street") == "flop" for e in events
    ):
        hand.players_saw_flop = len(state.order) - len(state.folded)
    if not state.is_over:
        hand.to_act = state.to_act
        seconds = 0 if _barred(hand, state.to_act) else table.action_seconds
        hand.deadline = timezone.now() + timedelta(seconds=seconds)
        hand.time_bank_used = False
    return [presenters.event_for_clients(event.as_dict()) for event in events if event.to is None]


def _barred(hand: Hand, seat: int | None) -> bool:
    """Whether the player dealt in at engine seat `seat` may not play (self-excluded, or the account closed):
    their actions are refused and the clock decides for them as soon as it is their turn."""
    return bool(hand.players.get(str(seat), {}).get("barred"))


def _bot_to_act(*, hand: Hand, state: EngineHand) -> bool:
    return not state.is_over and bool(hand.players.get(str(state.to_act), {}).get("bot"))


def _hand_finish(
    *,
    table: Table,
    hand: Hand,
    state: EngineHand,
    seats: list[Seat] | None = None,
    stacks: dict[int, int] | None = None,
) -> tuple[list[Seat], dict[int, int], list[dict]]:
    """Settle the finished hand, store its result and carry out what players asked for during it; returns the
    table's seats (with their users) and stacks as they are now, and the events of the seats it freed.

    `seats` and `stacks`, when the caller holds them as the table is under its lock (read in this transaction,
    or a view whose seq the lock checked: every change of a seat or of a seat's chips moves the seq on), are
    not read again: at a cash table the stacks after the hand are those plus each seat's net result, the
    amounts the settlement's one transfer moves."""
    _hand_store_settle(table=table, hand=hand, state=state)
    _hand_ended(hand=hand, state=state, status=Hand.Status.COMPLETE)
    hand.save(
        update_fields=[
            "status",
            "pot_total",
            "to_act",
            "deadline",
            "ended_at",
            "result",
            "actions",
            "players_saw_flop",
            "time_bank_used",
        ]
    )
    after = None
    if seats is not None and stacks is not None and not table.is_tournament:
        after = _stacks_settled(stacks, net=_seat_nets(hand=hand, state=state))
    if after is None:
        return _seats_after_hand(table=table)
    return _seats_after_hand(table=table, seats=seats, stacks=after)


def _hand_ended(*, hand: Hand, state: EngineHand, status: str) -> None:
    """The finished hand's row as it is once over, not saved: `status`, the pots, its end and its result."""
    settlement = state.settlement
    hand.status = status
    hand.pot_total = sum(pot.amount for pot in settlement.pots)
    hand.to_act = None
    hand.deadline = None
    hand.time_bank_used = False
    hand.ended_at = timezone.now()
    hand.result = {
        **settlement.as_dict(),
        "board": state.board,
        "boards": state.boards,
        "shown": {str(seat + 1): cards for seat, cards in state.shown_cards().items()},
        "public_positions": state.public_positions(),
        "hole_positions": {str(seat): list(positions) for seat, positions in state.deck_map.hole.items()},
    }


def _seat_nets(*, hand: Hand, state: EngineHand) -> dict[int, int]:
    """Seat number -> what the finished hand won or lost each seat dealt in, rake taken."""
    start = hand.config["stacks"]
    return {
        int(seat) + 1: state.settlement.finishing_stacks[int(seat)] - chips for seat, chips in start.items()
    }


def _hand_store_settle(*, table: Table, hand: Hand, state: EngineHand) -> None:
    """The finished hand's settlement to the table's chip store (at a cash table one ledger transfer, keyed by
    the hand so that it is never made twice): each seat's net change and what it put into the pots."""
    from tables.chips import store_for

    settlement = state.settlement
    sessions = {int(seat): dealt["session"] for seat, dealt in hand.players.items()}
    nets = _seat_nets(hand=hand, state=state)
    deltas = {sessions[number - 1]: net for number, net in nets.items()}
    # What each seat put into the pots, uncalled bets excluded: what it won back less its net change.
    put_in = {sessions[number - 1]: settlement.won.get(number - 1, 0) - net for number, net in nets.items()}
    store_for(table).settle(
        table=table, hand_ref=f"hand:{hand.id}", deltas=deltas, put_in=put_in, rake=settlement.rake
    )


def _stacks_settled(stacks: dict[int, int], *, net: dict[int, int]) -> dict[int, int] | None:
    """Seat number -> chips after a settlement that moved `net` (seat number -> net result) to the seats whose
    chips before it were `stacks`; None if a seat of the hand has no stack there (read them instead)."""
    if any(number not in stacks for number in net):
        return None
    return {number: chips + net.get(number, 0) for number, chips in stacks.items()}


def _seats_after_hand(
    *, table: Table, seats: list[Seat] | None = None, stacks: dict[int, int] | None = None
) -> tuple[list[Seat], dict[int, int], list[dict]]:
    """Carry out what players asked for during the hand: leave, sit out; cash out the self-excluded and those
    the room removes (sat out too long, busted, staff); bots buy back, and one makes room for people who wait.
    Returns the table's seats and stacks as they are after it, and the events telling who was removed.
    `seats` and `stacks` (the chips after the settlement): the table's as they are, when the caller has them;
    read otherwise (one read, of the players to cash out, when given and no seat comes free)."""
    if seats is None or stacks is None:
        seats, stacks = table_seats(table=table), seat_stacks(table=table)
    if table.is_tournament:  # nobody leaves, sits out or buys chips: the tournament unseats the busted
        return seats, stacks, []
    bots_top_up(table=table, seats=seats, stacks=stacks)
    excluded = cashier_selectors.seats_to_cash_out_after_hand(table=table)
    events: list[dict] = []
    freed = False
    now = timezone.now()
    for seat in seats:
        if seat.user_id is None:
            continue
        if seat.leave_after_hand or seat.number in excluded:
            reason, user = seat.remove_reason, seat.user
            _seat_release(table=table, seat=seat)
            stacks.pop(seat.number, None)  # cashed out: the seat session is closed
            freed = True
            events.append(_seat_removed_event(table=table, number=seat.number, user=user, reason=reason))
        elif seat.sit_out_next or (
            stacks.get(seat.number, 0) < table.big_blind and seat.status != Seat.Status.SITTING_OUT
        ):
            # asked to sit out, or broke: out until they top up and sit in (they see it as the hand ends)
            seat.status = Seat.Status.SITTING_OUT
            seat.sit_out_next = False
            seat.sat_out_at = seat.sat_out_at or now
            seat.save(update_fields=["status", "sit_out_next", "sat_out_at"])
    if table.bots_allowed and any(s.user_id is not None and s.user.is_bot for s in seats):
        made_room = _bot_make_room(table=table, seats=seats, stacks=stacks)
        if made_room is not None:
            events.append(made_room)
            freed = True
    if freed:
        _seats_freed(table=table)
    return seats, stacks, events


def hand_timeout(*, hand_id: int, action_no: int) -> bool:
    """The clock ran out on a decision: use the time bank if any is left, else check if free or fold (or muck
    at the showdown), judged and written as the player's own action would be (`_act_judge`, `_act_write`),
    with the seat's count of timeouts in a row moved on in the same write (the state it publishes shows the
    seat sitting out from the next hand after the second). A timer that fires late or twice finds the
    decision taken and does nothing. Locks the table."""
    with transaction.atomic():
        hand = Hand.objects.filter(pk=hand_id).only("table_id").first()
        if hand is None:
            return False
        table = table_lock(table_id=hand.table_id)
        view = _view_locked(table=table)
        if view is None:
            return False
        hand = view.hand
        if (
            hand.id != hand_id
            or hand.action_no != action_no
            or (hand.deadline and hand.deadline > timezone.now())
        ):
            held.keep(view)  # taken, or the time bank moved the clock on (it comes back): unchanged
            return False
        state = hand_engine(hand=hand, table=table)
        seat_no = state.to_act
        legal = {item["action"] for item in state.legal_actions()}
        hand_engine_keep(hand.id, state)  # unchanged: the judgement takes it again
        seat = next((s for s in view.seats if s.number == seat_no + 1), None)
        if (
            seat is not None
            and not hand.time_bank_used
            and seat.time_bank_ms > 0
            and not _barred(hand, seat_no)
        ):
            hand.deadline = timezone.now() + timedelta(milliseconds=seat.time_bank_ms)
            hand.time_bank_used = True
            hand.save(update_fields=["deadline", "time_bank_used"])
            seat.time_bank_ms = 0
            seat.save(update_fields=["time_bank_ms"])
            effects.publish(table_id=table.id, events=[], table=table, seats=view.seats, stacks=view.stacks)
            return True
        kind = "check" if "check" in legal else ("muck" if "muck" in legal else "fold")
        acted = _act_judge(
            view=view,
            player=hand.players[str(seat_no)]["user"],
            hand_id=hand_id,
            action_no=action_no,
            action=kind,
            amount=None,
            asked=False,
        )
        timeouts = acted.row.timeouts_in_row + 1
        changes = {**acted.row_changes, "timeouts_in_row": timeouts}
        if timeouts >= TIMEOUTS_BEFORE_SIT_OUT and not table.is_tournament:
            changes["sit_out_next"] = True
        acted = replace(acted, row_changes=changes)
        if not _act_write(acted, locked=table):
            raise RuntimeError(f"table {table.id}: a timeout under the table's lock missed its seq")
    _settle_after(acted, later=False)
    return True


def hands_overdue(*, grace_seconds: float = 2.0) -> list[tuple[int, int]]:
    """Decisions whose deadline passed without a timer acting on them (a worker died): for the sweep."""
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    hands = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__lt=cutoff).only("id", "actions")
    return [(hand.id, hand.action_no) for hand in hands]


def tables_idle() -> list[int]:
    """Open tables with no hand in play and at least two seated players: the sweep offers them a deal."""
    running = Hand.objects.filter(table=OuterRef("pk"), status=Hand.Status.RUNNING)
    return list(
        Table.objects.filter(is_open=True, paused=False, kind=Table.Kind.CASH)
        .annotate(
            seated=Count("seat_set", filter=Q(seat_set__user__isnull=False)),
            people=Count(
                "seat_set",
                filter=Q(seat_set__user__is_bot=False) & ~Q(seat_set__status=Seat.Status.SITTING_OUT),
            ),
            busy=Exists(running),
        )
        .filter(seated__gte=2, people__gte=1, busy=False)
        .values_list("id", flat=True)
    )


# --- house bots (their play: tables.bots) --------------------------------------------------------


def bot_act(*, hand_id: int, action_no: int) -> bool:
    """The bot whose turn it is acts, if the hand still waits for that decision: its move chosen from the
    table's view under the table's lock, then judged and written as a player's action is (`_act_judge`,
    `_act_write`)."""
    with transaction.atomic():
        hand = Hand.objects.filter(pk=hand_id).only("table_id").first()
        if hand is None:
            return False
        table = table_lock(table_id=hand.table_id)
        view = _view_locked(table=table)
        if view is None:
            return False
        if view.hand.id != hand_id or view.hand.action_no != action_no:  # a late task: the decision is taken
            held.keep(view)  # unchanged, and the table as it is
            return False
        hand = view.hand
        state = hand_engine(hand=hand, table=table)
        seat = state.to_act
        hand_engine_keep(hand.id, state)  # unchanged: the judgement takes it again
        dealt = hand.players.get(str(seat), {}) if seat is not None else {}
        if not dealt.get("bot"):
            held.keep(view)
            return False
        kind, amount = bot_move(state=state, seat=seat, user_id=dealt["user"])
        acted = _act_judge(
            view=view,
            player=dealt["user"],
            hand_id=hand_id,
            action_no=action_no,
            action=kind,
            amount=amount,
            asked=False,
        )
        if not _act_write(acted, locked=table):
            raise RuntimeError(f"table {table.id}: a bot's move under the table's lock missed its seq")
    _settle_after(acted, later=False)
    return True


def bots_seat(*, table_id: int, count: int = BOTS_PER_TABLE) -> int:
    """Seat house bots at a practice table that allows them, up to `count`, each buying in for the table's
    maximum from its own play wallet (funded from the issuer when short). Returns how many sat down."""
    table = Table.objects.get(pk=table_id)
    if not table.bots_allowed or table.currency != "play":
        return 0
    seated = Seat.objects.filter(table=table, user__is_bot=True).count()
    free = Seat.objects.filter(table=table, user__isnull=True).count()
    want = min(count - seated, free - 1)  # always leave room for a person
    busy = set(Seat.objects.filter(user__is_bot=True).values_list("user_id", flat=True))
    added = 0
    for bot in bot_users():
        if added >= want:
            break
        if bot.id in busy:
            continue
        if cashier_selectors.wallet_balances(user=bot).get("play", 0) < table.max_buy_in:
            cashier.bot_wallet_fund(bot=bot, amount=10 * table.max_buy_in)
        seat_take(table_id=table.id, user=bot, seat_number=None, buy_in=table.max_buy_in, post="wait_bb")
        added += 1
    return added


# --- hooks the cashier calls (registered in TablesConfig.ready) ----------------------------------


def hook_seat_release(session):
    """For the cashier: take the player of the open seat session `session` off its table (self-excluded, or
    the account closed). Cashed out and the seat freed now if no hand is being played at the table, else
    flagged and cashed out when the hand ends (`_seats_after_hand`). Returns the closed session or None.
    Locks the table, then the ledger; the caller holds no lock."""
    with transaction.atomic():
        table = table_lock(table_id=session.table_id)
        if hand_running(table=table) is not None:
            cashier.seat_cash_out_after_hand(session=session)
            return None
        closed = cashier.seat_cash_out(user=session.user, table=table)
        seat = Seat.objects.filter(table=table, number=session.seat_number, user_id=session.user_id).first()
        if seat is not None:
            _seat_empty(seat)
            _seats_freed(table=table)
            _after_seat_change(table=table, event="seat", data={"seat": seat.number, "player": None})
        return closed


def hook_player_barred(*, user) -> int:
    """For the cashier: `user` may no longer play (self-excluded, or the account closed). In every hand running
    where they are dealt in, their actions are refused from now on and the clock checks or folds for them at
    once (`_barred`); at a tournament table every later deal does the same until they are out. Their cash
    seats are released by `hook_seat_release`. Returns the hands marked. Locks each table in turn."""
    marked = 0
    for table_id in Seat.objects.filter(user=user).values_list("table_id", flat=True):
        with transaction.atomic():
            table = table_lock(table_id=table_id)
            try:
                now, seat = _seats_now(table=table, user=user)
            except TableError:
                continue  # the seat was freed meanwhile
            hand, number = now.hand, seat.number - 1
            if (
                hand is None
                or hand.players.get(str(number), {}).get("user") != user.id
                or _barred(hand, number)
            ):
                now.view_back()
                continue
            hand.players[str(number)]["barred"] = True
            if hand.to_act == number:
                hand.deadline = timezone.now()  # due now: the clock decides for them
            hand.save(update_fields=["players", "deadline"])
            # Published as any change of the seat, without saying why: a self-exclusion is nobody else's business.
            _after_seat_change(table=table, event="seat", data={"seat": seat.number}, lobby=False, now=now)
            marked += 1
    return marked


# --- seats coming free: removal, waiting lists, house bots making room (docs/tables.md) ----------------------


def _offer_seconds() -> int:
    """How long a seat offered from the waiting list is held for its player (settings.WAITING_OFFER_SECONDS)."""
    return int(getattr(settings, "WAITING_OFFER_SECONDS", 30))


def _user_tell(*, user, message: dict) -> None:
    """After commit, to every connection of `user` (lobby and tables): a message for them alone."""
    effects.tell_player(user_id=user.id, message=message)


def _seat_removed_event(*, table: Table, number: int, user, reason: str) -> dict:
    """The public event of seat `number` freed as its player left; when the room removed them (`reason`, a
    RemoveReason), it names them and why, and they are told on every connection of theirs."""
    event = {"event": "seat", "seat": number, "player": None}
    if reason:
        event.update(removed=reason, name=user.username)
        if not user.is_bot:
            _user_tell(
                user=user,
                message={
                    "type": "removed",
                    "table": table.id,
                    "table_name": table.name,
                    "seat": number,
                    "reason": reason,
                    "message": presenters.in_language(user, lambda: presenters.removed_text(reason, table)),
                },
            )
    return event


def _seat_expiry(*, table: Table, seat: Seat, stack: int, now) -> str:
    """Why the room takes `seat` from its player now (RemoveReason), or "": sitting out with no chips past the
    table's buy-back limit, or sitting out at all past its sit-out limit."""
    if seat.user_id is None or seat.status != Seat.Status.SITTING_OUT or seat.sat_out_at is None:
        return ""
    away = (now - seat.sat_out_at).total_seconds()
    if stack <= 0 and away >= table.bust_limit_seconds:
        return RemoveReason.BUSTED
    if away >= table.sit_out_limit_seconds:
        return RemoveReason.SAT_OUT
    return ""


def seats_expired(*, now=None) -> list[tuple[int, int, int, str]]:
    """Seats whose players the room removes now (`_seat_expiry`): (table id, seat number, user id, reason).
    Seats sitting out with no start recorded (from before the rule) start their clock here."""
    now = now or timezone.now()
    Seat.objects.filter(status=Seat.Status.SITTING_OUT, user__isnull=False, sat_out_at__isnull=True).update(
        sat_out_at=now
    )
    seats = list(  # cash tables only: a tournament's floor unseats its players, and its chips are not money
        Seat.objects.filter(
            status=Seat.Status.SITTING_OUT, user__isnull=False, table__kind=Table.Kind.CASH
        ).select_related("table")
    )
    if not seats:
        return []
    stacks = {
        (table_id, number): balance
        for table_id, number, balance in SeatSession.objects.filter(
            table_id__in={s.table_id for s in seats}, closed_at__isnull=True
        ).values_list("table_id", "seat_number", "account__balance")
    }
    expired = []
    for seat in seats:
        reason = _seat_expiry(
            table=seat.table, seat=seat, stack=stacks.get((seat.table_id, seat.number), 0), now=now
        )
        if reason:
            expired.append((seat.table_id, seat.number, seat.user_id, reason))
    return expired


def seat_remove(
    *,
    table_id: int,
    seat_number: int,
    reason: str,
    user_id: int | None = None,
    staff_user=None,
    note: str = "",
) -> str:
    """Take the player off seat `seat_number` and cash their stack out to the wallet (the cashier's ordinary
    cash-out): at once if they are not dealt into the hand in play, else when it ends. They are told (the
    table's log, and an event to their own connections) and the seat is offered to the waiting list.

    `reason` is a RemoveReason. For the room's own limits (sat out, busted) the limit is checked again here,
    under the table's lock; `user_id`, when given, must still be the seat's player. `staff_user`: the member of
    staff who asked, recorded in the audit log with `note`. Returns "now", "after_hand", or "" when nothing
    was done (an empty seat, another player, a limit no longer passed). Locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        seat = Seat.objects.select_related("user").filter(table=table, number=seat_number).first()
        if seat is None or seat.user_id is None or (user_id is not None and seat.user_id != user_id):
            return ""
        if reason in (RemoveReason.SAT_OUT, RemoveReason.BUSTED):
            stack = seat_stacks(table=table).get(seat.number, 0)
            if _seat_expiry(table=table, seat=seat, stack=stack, now=timezone.now()) != reason:
                return ""
        hand = hand_running(table=table)
        after_hand = hand is not None and str(seat.number - 1) in hand.players
        if staff_user is not None:
            staff_action_record(
                actor=staff_user,
                action="table.remove_player",
                target=table,
                player=seat.user,
                before={"seat": seat.number, "player": seat.user.username},
                after={"seat": seat.number, "player": None, "when": "after_hand" if after_hand else "now"},
                note=note,
            )
        if after_hand:
            seat.leave_after_hand = True
            seat.remove_reason = reason
            seat.save(update_fields=["leave_after_hand", "remove_reason"])
            _after_seat_change(
                table=table, event="seat", data={"seat": seat.number, "leaving": True}, lobby=False
            )
            return "after_hand"
        user = seat.user
        _seat_release(table=table, seat=seat)
        event = _seat_removed_event(table=table, number=seat.number, user=user, reason=reason)
        _seats_freed(table=table)
        _after_seat_change(table=table, event="seat", data={k: v for k, v in event.items() if k != "event"})
        return "now"


def seats_expired_release(*, now=None) -> int:
    """The sweep's part: remove every player past the table's sit-out or buy-back limit (`seat_remove`, which
    checks the limit again under the table's lock). One table's failure is logged and never stops the others.
    Returns how many seats were freed or will be once their hand ends."""
    done = 0
    for table_id, number, user_id, reason in seats_expired(now=now):
        try:
            if seat_remove(table_id=table_id, seat_number=number, reason=reason, user_id=user_id):
                done += 1
        except Exception:  # noqa: BLE001 - logged with its traceback; the other tables go on
            log.exception("sweep: removing seat %s of table %s failed", number, table_id)
    return done


# The waiting list.


def _seats_offered_to_others(*, table: Table, user) -> set[int]:
    """Seats of `table` held for another player on its waiting list (an offer not yet expired)."""
    if not table.waiting_count:
        return set()
    return set(
        WaitingEntry.objects.filter(
            table=table, offered_seat__isnull=False, offer_expires_at__gt=timezone.now()
        )
        .exclude(user=user)
        .values_list("offered_seat", flat=True)
    )


_waiting_recount, _waiting_changed = waiting_rules.waiting_recount, waiting_rules.waiting_changed


def _waiting_entry_remove(*, table: Table, user) -> WaitingEntry | None:
    entry = WaitingEntry.objects.filter(table=table, user=user).first()
    if entry is not None:
        entry.delete()
        _waiting_recount(table=table)
        _waiting_offer(table=table)  # a seat they were offered and did not take goes to the next
        _waiting_changed(table=table)
    return entry


def _waiting_offer(*, table: Table) -> None:
    """Offer each free seat that nobody holds to the first players on the list not offered one yet, for
    WAITING_OFFER_SECONDS (30); each is told on their own connections. Caller holds the table's lock."""
    if not table.waiting_count:
        return
    now = timezone.now()
    seconds = _offer_seconds()
    entries = list(
        WaitingEntry.objects.filter(table=table).select_related("user").order_by("joined_at", "id")
    )
    offered = {e.offered_seat for e in entries if e.offered_seat is not None}
    free = [
        n
        for n in Seat.objects.filter(table=table, user__isnull=True, number__lte=table.seats)
        .order_by("number")
        .values_list("number", flat=True)
        if n not in offered
    ]
    waiting = [e for e in entries if e.offered_seat is None]
    chosen = waiting_rules.offer_candidates(table=table, entries=waiting, seats=len(free))
    for number, entry in zip(free, chosen, strict=False):
        entry.offered_seat = number
        entry.offer_expires_at = now + timedelta(seconds=seconds)
        entry.save(update_fields=["offered_seat", "offer_expires_at"])
        _user_tell(
            user=entry.user,
            message={
                "type": "seat_offer",
                "table": table.id,
                "table_name": table.name,
                "seat": number,
                "seconds": seconds,
                "expires_at": entry.offer_expires_at.isoformat(),
                "min_buy_in": table.min_buy_in,
                "max_buy_in": table.effective_max_buy_in,
            },
        )


def _seats_freed(*, table: Table) -> None:
    """Seats of `table` came free: the waiting list is offered them. Caller holds the table's lock."""
    if table.waiting_count:
        _waiting_offer(table=table)


def waiting_position(*, table: Table, user) -> dict:
    """Where `user` stands on `table`'s list: `position` (from 1; None when not on it), `count`, and the seat
    offered to them with when the offer ends."""
    entries = list(WaitingEntry.objects.filter(table=table).order_by("joined_at", "id"))
    mine = next((i for i, e in enumerate(entries) if e.user_id == user.id), None)
    entry = entries[mine] if mine is not None else None
    return {
        "type": "waiting",
        "table": table.id,
        "table_name": table.name,
        "count": len(entries),
        "position": None if mine is None else mine + 1,
        "offered_seat": entry.offered_seat if entry is not None else None,
        "expires_at": entry.offer_expires_at.isoformat()
        if entry is not None and entry.offer_expires_at
        else None,
    }


def waiting_join(*, table_id: int, user) -> dict:
    """Put `user` on the waiting list of a full table (joining twice changes nothing). Refused when they sit
    there or a seat is free for them. At a practice table a house bot makes room. Returns `waiting_position`;
    the player is also told on their connections. Locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        _not_tournament(table)
        if not table.is_open:
            raise TableError("table_closed", _("This table is closed."))
        if getattr(user, "is_bot", False):
            raise TableError("no_bots", _("House bots do not wait for seats."))
        if _seat_of(table=table, user=user) is not None:
            raise TableError("already_seated", _("You already have a seat at this table."))
        if not WaitingEntry.objects.filter(table=table, user=user).exists():
            reserved = _seats_offered_to_others(table=table, user=user)
            free = Seat.objects.filter(table=table, user__isnull=True, number__lte=table.seats).exclude(
                number__in=reserved
            )
            if free.exists():
                raise TableError("seat_free", _("A seat is free at this table: sit down."))
            if (refusal := waiting_rules.join_refusal(table=table, user=user)) is not None:
                raise TableError(refusal.code, str(refusal))  # a seat offered could not be taken
            WaitingEntry.objects.create(table=table, user=user)
            _waiting_recount(table=table)
            _waiting_changed(table=table)
            _bot_make_room_between_hands(table=table)
        position = waiting_position(table=table, user=user)
        _user_tell(user=user, message=position)
        return position


def waiting_leave(*, table_id: int, user) -> dict:
    """Take `user` off the table's waiting list (a seat offered to them goes to the next). Locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        if _waiting_entry_remove(table=table, user=user) is None:
            raise TableError("not_waiting", _("You are not on this table's waiting list."))
        position = waiting_position(table=table, user=user)
        _user_tell(user=user, message=position)
        return position


def waiting_offers_expire(*, now=None) -> int:
    """The sweep's part: offers not taken in time take their players off the list, and each seat goes to the
    next. Returns how many offers ended."""
    now = now or timezone.now()
    ended = 0
    for table_id in set(
        WaitingEntry.objects.filter(offer_expires_at__lt=now).values_list("table_id", flat=True)
    ):
        try:
            with transaction.atomic():
                table = table_lock(table_id=table_id)
                expired = list(
                    WaitingEntry.objects.filter(table=table, offer_expires_at__lt=now).select_related("user")
                )
                for entry in expired:
                    entry.delete()
                    _user_tell(
                        user=entry.user,
                        message={
                            "type": "seat_offer_expired",
                            "table": table.id,
                            "table_name": table.name,
                            "seat": entry.offered_seat,
                            "message": presenters.in_language(
                                entry.user, lambda t=table: presenters.offer_expired_text(t)
                            ),
                        },
                    )
                    ended += 1
                _waiting_recount(table=table)
                _waiting_offer(table=table)
                _waiting_changed(table=table)
        except Exception:  # noqa: BLE001 - logged; the other tables go on
            log.exception("sweep: the waiting list of table %s failed", table_id)
    return ended


# House bots making room, and coming back.


def _bot_make_room(*, table: Table, seats: list[Seat], stacks: dict[int, int]) -> dict | None:
    """At a practice table where more people wait than seats are free, or no seat is free, one house bot not
    in a hand leaves (cashed out as anyone). Returns its seat event, or None. Caller holds the table's lock;
    `seats` and `stacks` are the table's now and are updated."""
    free = sum(1 for s in seats if s.user_id is None and s.number <= table.seats)
    if not (table.waiting_count > free or free == 0):
        return None
    bot = next((s for s in reversed(seats) if s.user_id is not None and s.user.is_bot), None)
    if bot is None:
        return None
    user, number = bot.user, bot.number
    _seat_release(table=table, seat=bot)
    stacks.pop(number, None)
    table.bots_made_room += 1
    table.save(update_fields=["bots_made_room"])
    return _seat_removed_event(table=table, number=number, user=user, reason=RemoveReason.MAKE_ROOM)


def _bot_make_room_between_hands(*, table: Table) -> None:
    """As `_bot_make_room`, now, if no hand is in play (else the hand's end does it). Caller holds the lock."""
    if not table.bots_allowed or hand_running(table=table) is not None:
        return
    seats = table_seats(table=table)
    if not any(s.user_id is not None and s.user.is_bot for s in seats):
        return
    stacks = seat_stacks(table=table)
    event = _bot_make_room(table=table, seats=seats, stacks=stacks)
    if event is not None:
        _seats_freed(table=table)
        _after_seat_change(
            table=table,
            event="seat",
            data={k: v for k, v in event.items() if k != "event"},
            seats=seats,
            stacks=stacks,
        )


def tables_bots_return() -> int:
    """The sweep's part: house bots that left a practice table to make room come back once nobody waits and
    at least two seats are free (one stays free for a person), so a newcomer alone still finds a game."""
    back = 0
    for table in Table.objects.filter(
        is_open=True, paused=False, bots_allowed=True, bots_made_room__gt=0, waiting_count=0
    ):
        try:
            seated = Seat.objects.filter(table=table, user__is_bot=True).count()
            added = bots_seat(table_id=table.id, count=seated + table.bots_made_room)
        except Exception:  # noqa: BLE001 - logged; the other tables go on
            log.exception("sweep: house bots could not come back to table %s", table.id)
            continue
        if added:
            Table.objects.filter(pk=table.pk, bots_made_room__gte=added).update(
                bots_made_room=F("bots_made_room") - added
            )
            back += added
    return back


# --- staff's table controls (the table's admin page; each written to the audit log) -------------------------

MAX_NOTICE_CHARS = 300


def _notice_clean(text: str) -> str:
    text = (text or "").strip()
    if len(text) > MAX_NOTICE_CHARS:
        raise TableError("too_large", _("A message has at most %(n)d characters.") % {"n": MAX_NOTICE_CHARS})
    return text


def table_pause(*, table_id: int, staff_user, notice: str) -> Table:
    """Stop dealing at the table: the hand in play finishes, no new one is dealt until staff resume it. The
    players read `notice` (an announcement, and the table's state carries it). Locks the table."""
    notice = _notice_clean(notice)
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        before = {"paused": table.paused, "pause_notice": table.pause_notice}
        table.paused, table.pause_notice = True, notice
        table.save(update_fields=["paused", "pause_notice"])
        staff_action_record(
            actor=staff_user,
            action="table.pause",
            target=table,
            before=before,
            after={"paused": True, "pause_notice": notice},
            note=notice,
        )
        effects.publish(
            table_id=table.id, events=[{"event": "paused", "paused": True, "text": notice}], table=table
        )
        effects.lobby_changed()
        return table


def table_resume(*, table_id: int, staff_user) -> Table:
    """Deal again at a paused table. Locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        before = {"paused": table.paused, "pause_notice": table.pause_notice}
        table.paused, table.pause_notice = False, ""
        table.save(update_fields=["paused", "pause_notice"])
        staff_action_record(
            actor=staff_user,
            action="table.resume",
            target=table,
            before=before,
            after={"paused": False, "pause_notice": ""},
        )
        _after_seat_change(table=table, event="paused", data={"paused": False, "text": ""})
        return table


def table_message(*, table_id: int, staff_user, text: str) -> int:
    """A message from the staff to everyone at the table (an `announcement`). Returns its seq. Locks the table."""
    text = _notice_clean(text)
    if not text:
        raise TableError("bad_value", _("A message needs some text."))
    with transaction.atomic():
        table = table_lock(table_id=table_id)
        staff_action_record(
            actor=staff_user, action="table.message", target=table, after={"text": text}, note=text
        )
        return effects.event(table_id=table.id, event="announcement", data={"text": text, "from": "staff"})


def hand_cancel(*, table_id: int, staff_user, note: str = "") -> Hand:
    """Cancel the hand in play: every chip its players put in goes back to them, and the hand is marked
    cancelled. Nothing is booked: a hand moves money in the ledger only when it is settled at its end, so each
    seat's account still holds the stack it was dealt with. What each put in is recorded (`result.returned`,
    seats from 1) with who cancelled it; the players' requests (leave, sit out) are carried out as at any
    hand's end. Locks the table."""
    with transaction.atomic():
        table = table_lock(table_id=table_id, with_rake_schedule=True)
        hand = hand_running(table=table)
        if hand is None:
            raise TableError("no_hand", _("No hand is in play at this table."))
        state = hand_engine(hand=hand, table=table)
        start = {int(seat): stack for seat, stack in hand.config["stacks"].items()}
        returned = {str(seat + 1): start[seat] - state.stacks.get(seat, 0) for seat in sorted(start)}
        hand.status = Hand.Status.CANCELLED
        hand.to_act = None
        hand.deadline = None
        hand.ended_at = timezone.now()
        hand.result = {
            "cancelled": True,
            "returned": returned,
            "board": state.board,
            "cancelled_by": staff_user.username,
            "note": note,
            "pots": [],
            "rake": 0,
        }
        hand.save(update_fields=["status", "to_act", "deadline", "ended_at", "result"])
        staff_action_record(
            actor=staff_user,
            action="hand.cancel",
            target=hand,
            before={"status": "running"},
            after={"status": "cancelled", "returned": returned},
            note=note,
        )
        seats, stacks, seat_events = _seats_after_hand(table=table)
        event = {
            "event": "hand_cancelled",
            "hand_id": hand.id,
            "number": hand.number,
            "returned": returned,
            "stacks": {str(number): stack for number, stack in stacks.items()},
        }
        effects.publish(
            table_id=table.id,
            events=[event, *seat_events],
            table=table,
            hand=None,
            state=None,
            seats=seats,
            stacks=stacks,
        )
        effects.lobby_changed()
        effects.deal_later(table.id, delay=DEAL_PAUSE_SECONDS)
        return hand
