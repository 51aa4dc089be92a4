"""The table as a client may see it (PROTOCOL.md's `state`), built once per change for everyone, plus the
two private parts each consumer adds for its own player: their hole cards and, on their turn, `legal`.

`table_snapshot` never reads a hole card: the public snapshot cannot leak one, whoever it is sent to.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from tables import held
from tables.engine.hand import Hand as EngineHand
from tables.models import Hand, Seat, Table, WaitingEntry
from tables.selectors import hand_running, seat_stacks, table_as_json, table_seats


def _seat_status(seat: Seat, state: EngineHand | None, in_hand: bool) -> str:
    if seat.user_id is None:
        return "empty"
    if state is not None and in_hand:
        number = seat.number - 1
        if number in state.folded:
            return "folded"
        if state.stacks.get(number, 0) == 0 and not state.is_over:
            return "all_in"
        return "active"
    return seat.status


def _seats_reserved(table: Table) -> set[int]:
    """Empty seats held for a player on the waiting list (read only when the table has a list)."""
    if not table.waiting_count:
        return set()
    return set(
        WaitingEntry.objects.filter(
            table=table, offered_seat__isnull=False, offer_expires_at__gt=timezone.now()
        ).values_list("offered_seat", flat=True)
    )


def _kept_until(table: Table, seat: Seat, stack: int) -> str | None:
    """When a player sitting out loses the seat unless they sit in (or, with no chips, buy back): ISO 8601,
    None for everyone else (the room's limits: tables.services.seats_expired_release)."""
    if seat.user_id is None or seat.status != Seat.Status.SITTING_OUT or seat.sat_out_at is None:
        return None
    limit = table.bust_limit_seconds if stack <= 0 else table.sit_out_limit_seconds
    return (seat.sat_out_at + timedelta(seconds=limit)).isoformat()


def table_snapshot(
    *,
    table: Table,
    hand: Hand | None,
    state: EngineHand | None,
    seats: list[Seat] | None = None,
    stacks: dict[int, int] | None = None,
) -> dict:
    """Everything public about the table now. `hand`/`state` are the running hand (or None); `seats` (in
    order, with their users) and `stacks` (seat number -> chips between hands) are read unless given."""
    if seats is None:
        seats = table_seats(table=table)
    wallet_stacks = seat_stacks(table=table) if stacks is None else stacks
    shown = state.shown_cards() if state is not None else {}
    reserved = _seats_reserved(table)
    players = hand.players if hand is not None else {}
    seat_rows = []
    for seat in seats:
        number = seat.number - 1
        in_hand = str(number) in players
        if state is not None and in_hand:
            stack, bet = state.stacks.get(number, 0), state.bets.get(number, 0)
        else:
            stack, bet = wallet_stacks.get(seat.number, 0), 0
        holds_cards = (
            state is not None and in_hand and number not in state.folded and number not in state.mucked
        )
        seat_rows.append(
            {
                "seat": seat.number,
                "player": {"name": seat.user.username, "bot": seat.user.is_bot} if seat.user_id else None,
                "stack": stack,
                "bet": bet,
                "status": _seat_status(seat, state, in_hand),
                "cards": shown.get(number) if holds_cards else None,
                "has_cards": holds_cards,
                "time_bank_ms": seat.time_bank_ms,
                "sitting_out_next": seat.sit_out_next,
                "leaving": seat.leave_after_hand,
                "disconnected": bool(seat.user_id) and seat.disconnected,
                "kept_until": _kept_until(table, seat, stack),
                "reserved": seat.user_id is None and seat.number in reserved,
                "_options": {
                    "auto_muck": seat.auto_muck,
                    "straddle": seat.straddle,
                    "run_twice": seat.run_twice,
                },
            }
        )
    now = timezone.now()
    snapshot = {
        "type": "state",
        "server_time": now.isoformat(),
        "table": table_as_json(
            table=table,
            players=sum(1 for s in seats if s.user_id),
            bots=sum(1 for s in seats if s.user_id and s.user.is_bot),
        ),
        "hand": None,
        "seats": seat_rows,
        "board": [],
        "boards": [],
        "pots": [],
        "button": table.positions["button"] + 1 if table.positions else None,
        "to_act": None,
        "remaining_ms": None,
        "legal": None,
    }
    if table.is_tournament:  # the tournament's fields (docs/protocol.md): level, blinds, clock, places
        from tables.chips import tournament_hooks

        snapshot["tournament"] = tournament_hooks().state_fields(table=table, stacks=wallet_stacks)
    if hand is not None and state is not None:
        snapshot["hand"] = {
            "id": hand.id,
            "number": hand.number,
            "action_no": hand.action_no,
            "street": state.street,
            "deck_commitment": hand.commitment,
            "bomb_pot": hand.config.get("bomb_pot", 0),
        }
        snapshot["board"] = state.board
        snapshot["boards"] = state.boards
        if state.settlement is not None:
            snapshot["pots"] = [
                {
                    "amount": pot.amount,
                    "rake": pot.rake,
                    "net": pot.net,
                    "eligible": [s + 1 for s in pot.eligible],
                }
                for pot in state.settlement.pots
            ]
        else:
            snapshot["pots"] = [
                {
                    "amount": pot.amount,
                    "rake": 0,
                    "net": pot.amount,
                    "eligible": [s + 1 for s in pot.eligible],
                }
                for pot in state.pots()
            ]
        if state.to_act is not None:
            snapshot["to_act"] = state.to_act + 1
            snapshot["remaining_ms"] = (
                max(0, int((hand.deadline - now).total_seconds() * 1000)) if hand.deadline else None
            )
            snapshot["_legal"] = state.legal_actions()
        elif state.is_over and state.winner_may_show is not None:
            # Won uncontested: until the next deal the winner may show (SPEC 1.1; not showing is mucking).
            snapshot["to_act"] = state.winner_may_show + 1
            snapshot["_legal"] = [
                {"action": "show", "min": 0, "max": 0},
                {"action": "muck", "min": 0, "max": 0},
            ]
    return snapshot


def table_snapshot_now(*, table_id: int) -> dict | None:
    """The table's public snapshot as committed now, with the seq it is at (what a client that joins or asks
    for `sync` gets); None if there is no such table. Read in one transaction, so it is one moment's."""
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            return None
        hand = hand_running(table=table)
        state = held.hand_engine(hand=hand, table=table) if hand is not None else None
        snapshot = table_snapshot(table=table, hand=hand, state=state)
        if state is not None:
            held.hand_engine_keep(hand.id, state)
        snapshot["seq"] = table.seq
        return snapshot


def for_viewer(snapshot: dict, *, seat_number: int | None, hole_cards: list[str] | None) -> dict:
    """The snapshot as one client receives it: its own cards in its seat, `legal` only on its turn."""
    message = {key: value for key, value in snapshot.items() if not key.startswith("_")}
    rows = []
    for row in snapshot["seats"]:
        public = {key: value for key, value in row.items() if not key.startswith("_")}
        if seat_number is not None and row["seat"] == seat_number:
            message["options"] = row.get("_options")
            if hole_cards and row["has_cards"]:
                public["cards"] = list(hole_cards)
        rows.append(public)
    message["seats"] = rows
    if seat_number is not None and snapshot.get("to_act") == seat_number:
        message["legal"] = snapshot.get("_legal")
    return message
