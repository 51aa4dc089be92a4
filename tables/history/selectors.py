"""Reads for hand histories: a player's hands, a table's last hands, the hands of an export, and each as
its viewer may see it. Only finished hands (``Hand.Status.COMPLETE``) are histories."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from tables.engine import fairness
from tables.history.frames import replay_frames
from tables.history.phh import phh_text
from tables.history.pokerstars import HAND_SEPARATOR, pokerstars_text
from tables.history.story import FULL_VIEW, HandStory, story_from_hand
from tables.history.tournament import TournamentFacts, tournament_facts
from tables.models import Hand

SHARE_SALT = "tables.history.share"
TOURNAMENT_CHIPS = "tournament"
"""The currency a tournament hand's amounts are given in (the table page's and money.js's word for whole chips)."""
HISTORY_KEPT = timedelta(days=92)
"""What a player's own history covers at least (SPEC 3: three months); older hands stay too."""


def _played_by(*user_ids: int) -> RawSQL:
    """The hand's players include one of ``user_ids`` (a jsonpath test the players' GIN index answers)."""
    users = " || ".join(f"@.user == {int(user_id)}" for user_id in user_ids) or "false"
    return RawSQL(
        "tables_hand.players @? %s::jsonpath",
        (f"$.* ? ({users})",),
        output_field=BooleanField(),
    )


def hands_played_by(*, user_ids: Iterable[int]) -> QuerySet[Hand]:
    """Every hand (in play or not) any of ``user_ids`` was dealt in, newest first: the admin's search."""
    return Hand.objects.filter(_played_by(*user_ids)).select_related("table").order_by("-id")


def hands_finished() -> QuerySet[Hand]:
    return Hand.objects.filter(status=Hand.Status.COMPLETE).select_related("table")


def hand_list_for_player(
    *,
    user,
    table_id: int | None = None,
    game: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[Hand]:
    """The hands ``user`` was dealt in, newest first, filtered by table, game and dates (local days, both
    included)."""
    hands = hands_finished().filter(_played_by(user.id))
    return _filtered(hands, table_id=table_id, game=game, since=since, until=until).order_by(
        "-ended_at", "-id"
    )


def _filtered(
    hands: QuerySet[Hand], *, table_id: int | None, game: str | None, since: date | None, until: date | None
) -> QuerySet[Hand]:
    if table_id is not None:
        hands = hands.filter(table_id=table_id)
    if game:
        hands = hands.filter(table__game=game)
    if since is not None:
        hands = hands.filter(ended_at__gte=_day_start(since))
    if until is not None:
        hands = hands.filter(ended_at__lt=_day_start(until + timedelta(days=1)))
    return hands


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def hand_row(*, hand: Hand, user_id: int | None) -> dict[str, Any]:
    """A line of "My hands" (and of the table's last hands): what a glance needs, read from the stored row
    without replaying it. ``cards`` and ``net`` are the player's own (``None`` for someone not in it). A
    tournament table's amounts are its whole chips: its currency says ``tournament``, as the table's state does."""
    result = hand.result or {}
    seat = next(
        (int(s) for s, p in hand.players.items() if user_id is not None and p["user"] == user_id), None
    )
    start = hand.config["stacks"]
    winners: dict[str, int] = {}
    for pot in result.get("pots", []):
        for winner, amount in pot["winners"].items():
            name = hand.players[winner]["name"]
            winners[name] = winners.get(name, 0) + amount
    table = hand.table
    return {
        "hand_id": hand.id,
        "number": hand.number,
        "table": {
            "id": table.id,
            "name": table.name,
            "game": table.game,
            "structure": table.structure,
            "currency": TOURNAMENT_CHIPS if table.is_tournament else table.currency,
            "stakes": table.stakes_label,
        },
        "ended_at": hand.ended_at,
        "board": result.get("board", []),
        "boards": result.get("boards") or [result.get("board", [])],
        "pot": hand.pot_total,
        "rake": result.get("rake", 0),
        "winners": [{"name": name, "amount": amount} for name, amount in winners.items() if amount],
        "seat": None if seat is None else seat + 1,
        "cards": hand.hole_cards.get(str(seat)) if seat is not None else None,
        "net": None if seat is None else result["finishing_stacks"][str(seat)] - start[str(seat)],
    }


def table_last_hands(*, table_id: int, limit: int = 10) -> QuerySet[Hand]:
    """The table's last finished hands, newest first (public: boards, pots and winners)."""
    return hands_finished().filter(table_id=table_id).order_by("-number")[:limit]


def hand_for_player(*, hand_id: int, user) -> tuple[Hand, int] | None:
    """A finished hand ``user`` was dealt in, with their engine seat; ``None`` otherwise (nobody learns
    anything of hands they did not play but what the table showed: see the share view)."""
    if user is None or not user.is_authenticated:
        return None
    hand = hands_finished().filter(pk=hand_id).first()
    if hand is None:
        return None
    seat = next((int(s) for s, p in hand.players.items() if p["user"] == user.id), None)
    return None if seat is None else (hand, seat)


def hand_share_token(*, hand_id: int) -> str:
    """An unguessable link to the public view of a hand: the hand's id, signed with the site's key."""
    return signing.dumps(hand_id, salt=SHARE_SALT, compress=True)


def hand_from_share_token(*, token: str) -> Hand | None:
    try:
        hand_id = signing.loads(token, salt=SHARE_SALT)
    except signing.BadSignature:
        return None
    if isinstance(hand_id, bool) or not isinstance(hand_id, int):
        return None
    return hands_finished().filter(pk=hand_id).first()


# --- a hand as one viewer gets it -----------------------------------------------------------------------


def hand_openings(*, hand: Hand, story: HandStory, viewer: int | str | None) -> list[dict[str, Any]]:
    """The deck openings ``viewer`` may check (the public positions and their own hole cards)."""
    secret = fairness.DeckSecret.from_json(hand.deck_secret)
    return [
        opening.to_json()
        for opening in fairness.open_positions(secret=secret, positions=story.positions_for(viewer))
    ]


def hand_tournament(
    *, hand: Hand, known: dict[int, TournamentFacts | None] | None = None
) -> TournamentFacts | None:
    """The tournament of a tournament table's hand (``None`` for a cash hand: no query); ``known``: the
    tournaments already read, by table (an export reads each table's once)."""
    if not hand.table.is_tournament:
        return None
    if known is None:
        return tournament_facts(table_id=hand.table_id)
    if hand.table_id not in known:
        known[hand.table_id] = tournament_facts(table_id=hand.table_id)
    return known[hand.table_id]


def hand_pokerstars(
    *, hand: Hand, viewer: int | str | None, known: dict[int, TournamentFacts | None] | None = None
) -> str:
    """One hand as PokerStars text: a tournament table's hand in PokerStars' tournament form."""
    story = story_from_hand(hand=hand, tournament=hand_tournament(hand=hand, known=known))
    return pokerstars_text(story, viewer=viewer, local_zone=settings.TIME_ZONE)


def hand_phh(
    *, hand: Hand, viewer: int | str | None, known: dict[int, TournamentFacts | None] | None = None
) -> str:
    """One hand as PHH: a tournament table's hand with the tournament's fields."""
    story = story_from_hand(hand=hand, tournament=hand_tournament(hand=hand, known=known))
    return phh_text(
        story,
        config=hand.config,
        actions=hand.actions,
        viewer=viewer,
        openings=hand_openings(hand=hand, story=story, viewer=viewer),
        local_zone=settings.TIME_ZONE,
    )


def hand_replay(*, hand: Hand, viewer: int | str | None) -> dict[str, Any]:
    """The replayer's frames, with the deck commitment's openings this viewer may check (a tournament hand's
    ``table.currency`` is ``tournament``: whole chips)."""
    story = story_from_hand(hand=hand, tournament=hand_tournament(hand=hand))
    return {
        **replay_frames(story, viewer=viewer),
        "openings": hand_openings(hand=hand, story=story, viewer=viewer),
    }


# --- exports of many hands ------------------------------------------------------------------------------

EXPORT_FORMATS = ("pokerstars", "phh")


def hands_for_export(
    *,
    user=None,
    table_id: int | None = None,
    game: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[Hand]:
    """The hands of an export, oldest first (the order of a hand-history file): one player's when ``user``
    is given, else every finished hand (staff)."""
    if user is not None:
        hands = hands_finished().filter(_played_by(user.id))
    else:
        hands = hands_finished()
    return _filtered(hands, table_id=table_id, game=game, since=since, until=until).order_by("ended_at", "id")


def hands_export_text(*, hands: Iterable[Hand], fmt: str, user=None) -> Iterator[str]:
    """The hands written in ``fmt``, each as ``user`` may see it (``None``: staff's full view), hand by hand
    (a long export streams). PokerStars hands are separated as PokerStars separates them; PHH hands as the
    PHH files of a ``.phhs`` collection, under a ``[n]`` table each. A tournament's hands are written in
    the tournament form (its facts read once a table)."""
    tournaments: dict[int, TournamentFacts | None] = {}
    for index, hand in enumerate(hands.iterator(chunk_size=200) if isinstance(hands, QuerySet) else hands):
        viewer = (
            FULL_VIEW
            if user is None
            else next(int(s) for s, p in hand.players.items() if p["user"] == user.id)
        )
        if fmt == "phh":
            body = hand_phh(hand=hand, viewer=viewer, known=tournaments)
            yield f"[{index + 1}]\n{body}\n"
        else:
            yield hand_pokerstars(hand=hand, viewer=viewer, known=tournaments).rstrip("\n") + HAND_SEPARATOR
