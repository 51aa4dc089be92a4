"""What this process holds of a table whose hand is running, between two actions at it: the engine's state of
each hand it last worked on (`hand_engine`, `hand_engine_keep`) and a view of each table (`take`, `keep`).

A `TableView` is the table, its running hand, its seats (with their users) and their stacks between hands as
they were when the table's `seq` was `seq`. Every change to a table's hand, seats or stacks is published, and
every publish moves `seq` on in the same transaction; so a view whose `seq` is still the table's is the truth,
and an action checked against it can be written with one statement that moves `seq` on only if it is still
the view's (tables.services.table_act). A view is kept only once what it shows has committed, taken out while
an action works on it, and dropped by any other publish from this process, so a change that rolled back is
never read again.

With more than one web process, a table's players are spread over them, and each process's view is made old by
every action taken through another. Such an action, written by its one statement, says what it wrote in its
group message (`follow`), which reaches every process holding one of the table's connections: there
`view_follow` moves the view (and the engine's state) on by that action, if the view was exactly the one the
action was judged against; any other view is left to fail its seq check, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from tables.engine.config import HandConfig
from tables.engine.hand import Action, IllegalAction, replay
from tables.engine.hand import Hand as EngineHand
from tables.models import Hand, Seat, Table
from tables.selectors import rake_schedule_for

# --- the engine's state of a hand ----------------------------------------------------------------------------

_cache: dict[int, tuple[int, EngineHand]] = {}
_CACHE_LIMIT = 400  # hands; an engine state is a large object graph that the garbage collector scans


def hand_engine(*, hand: Hand, table: Table) -> EngineHand:
    """The engine's state of a stored hand, now the caller's: taken out of this process's cache when the
    cached state is at the same action number, else rebuilt from the log (the log is the truth; the cache
    only saves replays). Taken out, so no other thread reads it while the caller changes it; the caller puts
    it back with `hand_engine_keep` when done, once what it shows is the stored hand."""
    cached = _cache.pop(hand.id, None)
    if cached is not None and cached[0] == len(hand.actions):
        return cached[1]
    config = HandConfig.from_dict(hand.config, rake=rake_schedule_for(table=table))
    return replay(config=config, actions=hand.actions)


def hand_engine_keep(hand_id: int, state: EngineHand) -> None:
    _cache.pop(hand_id, None)
    while len(_cache) >= _CACHE_LIMIT:  # the least recently kept go first (a dict keeps insertion order)
        _cache.pop(next(iter(_cache)), None)
    _cache[hand_id] = (state.action_no, state)


# --- the table's view ------------------------------------------------------------------------------------------

LIMIT = 5000  # tables; a process holding more starts again (a view is only a saving)


@dataclass
class TableView:
    seq: int
    table: Table
    hand: Hand
    seats: list[Seat]
    stacks: dict[int, int]


_views: dict[int, TableView] = {}


def take(table_id: int) -> TableView | None:
    """The table's view, out of the store: whoever takes it puts it back (or a newer one) when done."""
    return _views.pop(table_id, None)


def keep(view: TableView) -> None:
    if len(_views) >= LIMIT:
        _views.clear()
    _views[view.table.id] = view


def peek(table_id: int) -> TableView | None:
    """The table's view left in the store, for a look at what never changes during a hand (its hole cards):
    nothing of it may be changed, and it may be taken by an action at any moment."""
    return _views.get(table_id)


def drop(table_id: int) -> None:
    _views.pop(table_id, None)


# --- following another process's actions -----------------------------------------------------------------------


def follow_of(*, table_id: int, hand: Hand, seq_before: int, seq_after: int) -> dict:
    """What an action written by one statement wrote, for the other processes' views (`view_follow`): `hand` as
    it is after the action (its log ends with it). Public information only, as the group message is."""
    return {
        "table": table_id,
        "hand": hand.id,
        "seq_before": seq_before,
        "seq_after": seq_after,
        "action": hand.actions[-1],
        "to_act": hand.to_act,
        "deadline": hand.deadline.timestamp() if hand.deadline is not None else None,
        "saw_flop": hand.players_saw_flop,
    }


def view_follow(follow: dict) -> bool:
    """Move this process's view of the table on by another process's action (`follow_of`), when the view is
    the one that action was judged against (same hand, seq and action number); a view that is already past it
    (this process wrote it) stays, any other is dropped (it would fail its seq check). Runs on the event loop
    while database threads may take views: the view and the engine's state are taken out while they change,
    as `take` and `hand_engine` do. Returns whether the view followed."""
    view = _views.pop(follow["table"], None)
    if view is None:
        return False
    hand = view.hand
    if view.seq >= follow["seq_after"]:
        keep(view)  # this process's own action, or newer
        return False
    if view.seq != follow["seq_before"] or hand.id != follow["hand"]:
        return False  # old in another way: whoever acts next reads the table again
    cached = _cache.pop(hand.id, None)
    hand.actions = [*hand.actions, follow["action"]]
    hand.to_act = follow["to_act"]
    hand.deadline = (
        datetime.fromtimestamp(follow["deadline"], UTC) if follow["deadline"] is not None else None
    )
    hand.time_bank_used = False
    hand.players_saw_flop = follow["saw_flop"]
    if cached is not None and cached[0] == len(hand.actions) - 1:
        state = cached[1]
        try:
            state.act(Action.from_dict(follow["action"]))
        except IllegalAction:  # not the state the writer judged: rebuilt from the log when next needed
            pass
        else:
            hand_engine_keep(hand.id, state)
    view.seq = follow["seq_after"]
    keep(view)
    return True
