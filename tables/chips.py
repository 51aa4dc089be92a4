"""The chip seam: where a table's stacks live and where a finished hand's settlement goes.

A cash table's chips are money: each seat's stack is the balance of its seat account in the cashier's ledger,
and a hand is settled by one balanced ledger transfer (rake included). A tournament table's chips are not
money: they are the tournament's own counts (`tournaments.Entry.chips`), never the ledger, and no rake is
taken. The table code asks `store_for(table)` and never needs to know which.

`tables` imports no tournament code: the tournaments app registers its store (and what a tournament table
adds to the table's state and does after a hand) here when it loads (`TournamentsConfig.ready`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from tables.models import Table


class ChipStore(Protocol):
    def sessions_and_stacks(self, *, table: Table) -> tuple[dict[int, int], dict[int, int]]:
        """Seat number -> the key a hand settles each seat by (stored as the hand's players' `session`), and
        seat number -> chips between hands."""

    def stacks(self, *, table: Table) -> dict[int, int]:
        """Seat number -> chips between hands."""

    def settle(
        self, *, table: Table, hand_ref: str, deltas: Mapping[int, int], put_in: Mapping[int, int], rake: int
    ) -> None:
        """A finished hand: each key's net change (`deltas`, adding up to -rake) and what it put in the pots."""


class LedgerStore:
    """Cash tables: the cashier's seat sessions and accounts (the queries the table code always made)."""

    def sessions_and_stacks(self, *, table: Table) -> tuple[dict[int, int], dict[int, int]]:
        from cashier.models import SeatSession

        sessions, stacks = {}, {}
        rows = SeatSession.objects.filter(table=table, closed_at__isnull=True).values_list(
            "seat_number", "id", "account__balance"
        )
        for number, session, balance in rows:
            sessions[number], stacks[number] = session, balance
        return sessions, stacks

    def stacks(self, *, table: Table) -> dict[int, int]:
        from cashier.models import SeatSession

        rows = SeatSession.objects.filter(table=table, closed_at__isnull=True).values_list(
            "seat_number", "account__balance"
        )
        return dict(rows)

    def settle(
        self, *, table: Table, hand_ref: str, deltas: Mapping[int, int], put_in: Mapping[int, int], rake: int
    ) -> None:
        from cashier import services as cashier

        cashier.hand_settle(
            table=table, hand_ref=hand_ref, deltas=dict(deltas), put_in=dict(put_in), rake=rake
        )


class TournamentHooks(Protocol):
    """What the tournaments app adds to a tournament table (registered by it)."""

    store: ChipStore

    def state_fields(self, *, table: Table, stacks: Mapping[int, int]) -> dict | None:
        """The `tournament` object of the table's `state` (docs/protocol.md)."""

    def hand_over(self, *, table: Table) -> None:
        """A hand ended at the table (called in the hand's transaction): the tournament takes over the next deal."""


_ledger = LedgerStore()
_tournament: TournamentHooks | None = None


def tournament_hooks_register(hooks: TournamentHooks) -> None:
    global _tournament
    _tournament = hooks


def tournament_hooks() -> TournamentHooks:
    if _tournament is None:
        raise RuntimeError("a tournament table, but the tournaments app registered no chip store")
    return _tournament


def store_for(table: Table) -> ChipStore:
    """The chip store of `table`: the ledger for cash tables, the tournament's counts for tournament tables."""
    if table.kind == Table.Kind.TOURNAMENT:
        return tournament_hooks().store
    return _ledger
