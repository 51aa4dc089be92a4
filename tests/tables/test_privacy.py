"""No card of another player that was not shown reaches anyone, ever: every frame sent to every client
(players, an anonymous spectator, a logged-in watcher without a seat) over many hands at several tables is
captured and checked hand by hand against `Hand.hole_cards` and `Hand.result["shown"]`, and so are the
hand-history API (`/api/hands/<id>/`) as each of them sees it and the deck openings it and `hand_ended`
carry. The 1,000-hand version of this check is `bench/privacy.py`."""

import asyncio
import json
import random
import time
import urllib.request

import pytest

from tables import services
from tables.bots import bot_choose
from tables.models import Hand
from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, cards_seen, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

TABLES = 3
PLAYERS_PER_TABLE = 4
PLAY_SECONDS = 30
MIN_HANDS = 12


def segments_by_hand(frames: list[dict]) -> list[tuple[int | None, list[dict]]]:
    """Split a client's frames into hands: each `hand_ended` event closes the frames since the previous one
    (that hand's deal, actions, streets, showdown and the states in between). The last segment, if any, is a
    hand still in play: its id comes from the states in it."""
    out, current = [], []
    for frame in frames:
        current.append(frame)
        if frame.get("type") == "event" and frame.get("event") == "hand_ended":
            out.append((frame["hand_id"], current))
            current = []
    if current:
        ids = {f["hand"]["id"] for f in current if f.get("type") == "state" and f.get("hand")}
        assert len(ids) <= 1, f"frames of two hands without a hand_ended between them: {ids}"
        out.append((ids.pop() if ids else None, current))
    return out


def visible_to(hand: Hand, user_id: int | None) -> tuple[set[str], set[str]]:
    """(cards the viewer may see in this hand, cards they must never see)."""
    result = hand.result or {}
    shown = {card for cards in (result.get("shown") or {}).values() for card in cards}
    board = set(result.get("board") or [])
    own: set[str] = set()
    for seat, player in hand.players.items():
        if user_id is not None and player["user"] == user_id:
            own = set(hand.hole_cards.get(seat, []))
    others = {card for seat, cards in hand.hole_cards.items() for card in cards} - own - shown
    return own | shown | board, others


def check_frames(frames: list[dict], user_id: int | None, hands: dict[int, Hand], who: str) -> int:
    checked = 0
    for hand_id, segment in segments_by_hand(frames):
        if hand_id is None:
            assert not cards_seen(segment), f"{who}: cards outside any hand: {cards_seen(segment)}"
            continue
        hand = hands[hand_id]
        allowed, forbidden = visible_to(hand, user_id)
        seen = cards_seen(segment)
        assert not seen & forbidden, f"{who} saw {seen & forbidden} of another player in hand {hand_id}"
        if hand.status == Hand.Status.COMPLETE:
            assert seen <= allowed, (
                f"{who} saw {seen - allowed}, neither theirs, shown nor the board, in {hand_id}"
            )
        checked += 1
    return checked


def api_hand(base_url: str, hand_id: int, session: str | None) -> dict:
    request = urllib.request.Request(f"{base_url}/api/hands/{hand_id}/")
    if session:
        request.add_header("Cookie", f"sessionid={session}")
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.loads(response.read())


def test_no_client_ever_sees_a_card_of_another_player_that_was_not_shown(live_room):
    tables = [table_create(seats=6, action_seconds=20, time_bank_seconds=0) for _ in range(TABLES)]
    seated: dict[int, list] = {}
    for table in tables:
        seated[table.id] = [player_create() for _ in range(PLAYERS_PER_TABLE)]
        for seat, user in enumerate(seated[table.id], start=1):
            services.seat_take(table_id=table.id, user=user, seat_number=seat, buy_in=200, post="now")
    watcher = player_create()
    sessions = {user.pk: session_cookie_for(user) for users in seated.values() for user in users}
    sessions[watcher.pk] = session_cookie_for(watcher)
    rng = random.Random(7)

    async def play(client: TableClient, name: str, stop_at: float) -> None:
        """A scripted player: acts from `legal` with the house bots' policy; tops up and sits in when broke."""
        acted = None
        while time.monotonic() < stop_at:
            try:
                message = await client.recv(timeout=max(0.1, stop_at - time.monotonic()))
            except TimeoutError:
                return
            if message["type"] != "state":
                continue
            hand, legal = message.get("hand"), message.get("legal")
            mine = next((r for r in message["seats"] if (r["player"] or {}).get("name") == name), None)
            if hand is None and mine is not None and mine["status"] == "sitting_out":
                if mine["stack"] < 200:
                    await client.send(type="top_up", amount=200 - mine["stack"])
                await client.send(type="sit_in", post="now")
            if not (hand and legal) or acted == (hand["id"], hand["action_no"]):
                continue
            acted = (hand["id"], hand["action_no"])
            pot = sum(p["amount"] for p in message["pots"]) + sum(r["bet"] for r in message["seats"])
            kind, amount = bot_choose(legal=legal, pot=pot, stack=0, rng=rng)
            await client.send(
                type="act", action=kind, amount=amount, hand_id=hand["id"], action_no=hand["action_no"]
            )

    async def watch(client: TableClient, stop_at: float) -> None:
        while time.monotonic() < stop_at:
            try:
                await client.recv(timeout=max(0.1, stop_at - time.monotonic()))
            except TimeoutError:
                return

    async def scenario():
        clients = []
        for table in tables:
            for user in seated[table.id]:
                clients.append((user.pk, TableClient(live_room, table.id, session=sessions[user.pk])))
            clients.append((None, TableClient(live_room, table.id)))
            clients.append((watcher.pk, TableClient(live_room, table.id, session=sessions[watcher.pk])))
        for _user_id, client in clients:
            await client.__aenter__()
        try:
            stop_at = time.monotonic() + PLAY_SECONDS
            names = {u.pk: u.username for users in seated.values() for u in users}
            await asyncio.gather(
                *(
                    play(client, names[user_id], stop_at) if user_id in names else watch(client, stop_at)
                    for user_id, client in clients
                )
            )
        finally:
            for _user_id, client in clients:
                await client.__aexit__(None, None, None)
        return clients

    clients = asyncio.run(scenario())
    hands = {hand.id: hand for hand in Hand.objects.filter(table__in=tables)}
    complete = [h for h in hands.values() if h.status == Hand.Status.COMPLETE]
    assert len(complete) >= MIN_HANDS, f"only {len(complete)} hands played"
    assert any(h.result.get("shown") for h in complete), "some hands went to a showdown"

    segments = 0
    for user_id, client in clients:
        who = f"user {user_id}" if user_id else "the anonymous spectator"
        segments += check_frames(client.frames, user_id, hands, f"{who} at table {client.table_id}")
        if user_id in {u.pk for u in seated[client.table_id]}:
            # only the hands this client was sent a state of: the last deal may come after it stopped reading
            seen = {f["hand"]["id"] for f in client.frames if f["type"] == "state" and f.get("hand")}
            own = {
                card
                for h in hands.values()
                if h.id in seen
                for seat, p in h.players.items()
                if p["user"] == user_id
                for card in h.hole_cards[seat]
            }
            assert own and own <= cards_seen(client.frames), "a player does get their own cards"
    assert segments >= MIN_HANDS * (PLAYERS_PER_TABLE + 2) // 2

    # the hand-history API and its deck openings, as each player, the watcher and an anonymous visitor see them
    viewers = [(None, None), (watcher.pk, sessions[watcher.pk])] + [
        (user.pk, sessions[user.pk]) for users in seated.values() for user in users[:2]
    ]
    for hand in complete:
        for user_id, session in viewers:
            data = api_hand(live_room.http_url, hand.id, session)
            allowed, forbidden = visible_to(hand, user_id)
            seen = cards_seen(data)
            assert not seen & forbidden, f"/api/hands/{hand.id}/ showed {seen & forbidden} to user {user_id}"
            assert seen <= allowed, f"/api/hands/{hand.id}/ showed {seen - allowed} to user {user_id}"
            opened = {opening["card"] for opening in data["openings"]}
            assert opened <= allowed
