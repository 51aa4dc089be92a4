"""Hand histories in PHH (the Poker Hand History format of the research community), for one viewer.

The actions come from the engine's own export (``tables.engine.phh.export_phh``); here the cards the viewer
may not see become ``????`` (PHH's unknown card), and the file gets PHH's optional fields (venue, table,
hand, time, seats, players, finishing stacks, winnings, currency; a tournament hand's ``event`` and
``level``) and the deck commitment as user-defined fields (PHH's leading underscore): ``_deck_commitment`` (the Merkle root published before the first card),
``_deck_openings`` (the positions this viewer may check, each with its card, salt and proof) and ``_rake``.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from tables.engine.config import HandConfig
from tables.engine.hand import replay
from tables.engine.phh import export_phh
from tables.history.story import HandStory

UNKNOWN_CARD = "??"


def phh_text(
    story: HandStory,
    *,
    config: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    viewer: int | str | None,
    openings: Sequence[Mapping[str, Any]],
    local_zone: str = "Europe/Rome",
) -> str:
    """One hand as PHH for ``viewer`` (an engine seat, ``FULL_VIEW`` or ``None``), from the stored
    configuration and action log; ``openings`` are the deck openings this viewer may have."""
    engine_hand = replay(config=HandConfig.from_dict(config), actions=actions)
    names = [story.by_seat[seat].name for seat in story.order]
    data = tomllib.loads(export_phh(engine_hand, players=names))
    visible = story.cards_for(viewer)
    data["actions"] = [_hide_cards(line, story.order, visible) for line in data["actions"]]
    local = story.started_at.astimezone(ZoneInfo(local_zone))
    data.update(
        {
            "venue": "Poker room",
            "table": story.table_name,
            "hand": story.hand_id,
            "seat_count": story.seat_count,
            "seats": [seat + 1 for seat in story.order],
            "currency": "EUR" if story.currency == "eur" else "play chips",
            "day": local.day,
            "month": local.month,
            "year": local.year,
            "time": local.time().replace(microsecond=0),
            "time_zone": str(local.tzinfo),
            "finishing_stacks": [story.finishing[seat] for seat in story.order],
            "winnings": [story.won().get(seat, 0) for seat in story.order],
            "_rake": story.rake,
            "_deck_commitment": story.commitment,
            "_deck_openings": list(openings),
        }
    )
    if story.tournament is not None:
        data.update(_tournament_fields(story))
    return "".join(f"{key} = {_toml(value)}\n" for key, value in data.items())


def _tournament_fields(story: HandStory) -> dict[str, Any]:
    """A tournament hand's fields: PHH's ``event`` (the tournament) and ``level`` (the blind level), the
    amounts in the tournament's chips, and user-defined fields for what PHH has no field for: the
    tournament's number, its table's number, the buy-in and fee (cents of ``_buy_in_currency``)."""
    facts = story.tournament
    assert facts is not None
    return {
        "event": f"Tournament #{facts.tournament_id}: {facts.name}",
        "level": facts.level_of(
            small_blind=story.small_blind,
            big_blind=story.big_blind,
            ante=story.table_ante,
            started_at=story.started_at,
        ),
        "currency": "tournament chips",
        "_tournament": facts.tournament_id,
        "_tournament_table": facts.table_number,
        "_buy_in": facts.buy_in,
        "_fee": facts.fee,
        "_buy_in_currency": "EUR" if facts.currency == "eur" else "play chips",
    }


def _hide_cards(line: str, order: Sequence[int], visible: Mapping[int, Sequence[str]]) -> str:
    """``d dh p3 AhKd`` stays only if the viewer may see seat ``order[2]``'s cards; else ``????``."""
    words = line.split()
    if words[:2] == ["d", "dh"]:
        seat = order[int(words[2][1:]) - 1]
        if seat not in visible:
            words[3] = UNKNOWN_CARD * (len(words[3]) // 2)
    return " ".join(words)


def _toml(value: Any) -> str:
    """A value in TOML: JSON's strings, numbers, booleans and arrays are TOML's too; tables are inline."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if hasattr(value, "isoformat"):  # a time of day: TOML's local time
        return value.isoformat()
    return json.dumps(value)
