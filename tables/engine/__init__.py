"""The rules of one hand of poker, exact to the chip: pure Python, no Django, nothing of the project.

Public API (see the modules for details)::

    from tables.engine import HandConfig, PostKind, Action, start_hand, replay, IllegalAction

    hand = start_hand(config=HandConfig(variant="holdem", structure="nl", seat_count=6,
                                        stacks={0: 200, 1: 200, 2: 200}, button=0,
                                        small_blind=1, big_blind=2, deck=deck,
                                        posts=[(1, PostKind.SMALL_BLIND), (2, PostKind.BIG_BLIND)],
                                        rake=room_schedule(1)))
    hand.to_act, hand.legal_actions()          # 0, [{"action": "fold", ...}, {"action": "call", ...}, ...]
    events = hand.act(Action(0, "raise", 6))  # IllegalAction, and nothing changed, if the rules refuse
    hand.settlement                            # pots (gross, rake, net, eligible, winners), stacks
    hand.deck_map                              # deck positions of each seat's hole cards, board, burns

``positions`` (who posts what over a sequence of hands) and ``fairness`` (the shuffle and the deck
commitment) live beside this package's hand engine.
"""

from tables.engine.config import (
    ConfigError,
    HandConfig,
    PostKind,
    Structure,
    Variant,
    fixed_limit_small_blind,
)
from tables.engine.hand import (
    Action,
    DeckMap,
    Event,
    Hand,
    IllegalAction,
    Limits,
    Phase,
    replay,
    start_hand,
    visible_events,
)
from tables.engine.rake import ROOM_RAKE_001, ROOM_RAKE_005, RakeCap, RakeRule, RakeSchedule, room_schedule
from tables.engine.settlement import PotResult, RunResult, Settlement

__all__ = [
    "ROOM_RAKE_001",
    "ROOM_RAKE_005",
    "Action",
    "ConfigError",
    "DeckMap",
    "Event",
    "Hand",
    "HandConfig",
    "IllegalAction",
    "Limits",
    "Phase",
    "PostKind",
    "PotResult",
    "RakeCap",
    "RakeRule",
    "RakeSchedule",
    "RunResult",
    "Settlement",
    "Structure",
    "Variant",
    "fixed_limit_small_blind",
    "replay",
    "room_schedule",
    "start_hand",
    "visible_events",
]
