"""A protocol client for tests: a player (or spectator) on a real WebSocket, recording every frame."""

from __future__ import annotations

import asyncio
import json
import time

import websockets


def session_cookie_for(user) -> str:
    """Log `user` in the way the login form would, and return the session cookie's value."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


ORIGIN = (b"origin", b"http://testserver")


def communicator(table_id: int, *, cookie: str | None = None, origin=ORIGIN, path_query: str = ""):
    """The table's consumer in-process (Channels' WebsocketCommunicator on the room's ASGI application), with
    the site's Origin and, given a session cookie's value (`session_cookie_for`), that player logged in;
    `path_query` as the browser's ("?frames=batch")."""
    from channels.testing import WebsocketCommunicator

    from pokerroom.asgi import application

    headers = [origin] if origin else []
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/{path_query}", headers=headers)


class TableClient:
    def __init__(self, room, table_id: int, *, session: str | None = None, query: str = "") -> None:
        self.room = room
        self.table_id = table_id
        self.session = session
        self.query = query  # e.g. "?frames=batch"
        self.frames: list[dict] = []
        self.ws = None
        self.state: dict | None = None

    async def __aenter__(self) -> TableClient:
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else {}
        self.ws = await websockets.connect(
            f"{self.room.ws_url}/ws/tables/{self.table_id}/{self.query}",
            origin=self.room.http_url,
            additional_headers=headers,
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def send(self, **message) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 15) -> dict:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=timeout))
        self.frames.append(message)
        if message["type"] == "state":
            self.state = message
        for inner in message.get("messages", ()) if message["type"] == "batch" else ():
            if inner["type"] == "state":
                self.state = inner
        return message

    async def until(self, predicate, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message; last state: {self.state}")
            message = await self.recv(timeout=left)
            if predicate(message):
                return message

    async def drain(self, seconds: float = 0.3) -> None:
        try:
            while True:
                await self.recv(timeout=seconds)
        except TimeoutError:
            pass

    def my_seat(self) -> dict | None:
        return next((row for row in self.state["seats"] if row["cards"]), None) if self.state else None


def cards_seen(frames) -> set[str]:
    """Every card a client was sent, wherever it was in a message (any list of card strings)."""
    found: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                if (
                    isinstance(item, str)
                    and len(item) == 2
                    and item[0] in "23456789TJQKA"
                    and item[1] in "cdhs"
                ):
                    found.add(item)
                else:
                    walk(item)

    walk(frames)
    return found


# --- playing a hand over the sockets --------------------------------------------------------------------


def hand_state(message) -> bool:
    return message["type"] == "state" and message["hand"] is not None


def hand_ended(message) -> bool:
    return message["type"] == "event" and message["event"] == "hand_ended"


async def play_hand(clients: dict, first: dict, decide) -> dict:
    """Play the hand of `first` (a state) to its end over the sockets: the client whose seat is to act gets its
    turn (a state with `legal`; the last one it read, or the next) and sends `decide(state)`; returns the
    `hand_ended` event, once the hand is settled (a moment after it is told)."""
    ended = await _hand_played(clients, first, decide)
    from tests.factories import hand_settled  # Django's models: loaded once the tests' settings are

    await asyncio.to_thread(hand_settled, ended["hand_id"])
    return ended


async def _hand_played(clients: dict, first: dict, decide) -> dict:
    to_act, action_no = first["to_act"], first["hand"]["action_no"]
    while True:
        client = clients[to_act]
        turn = client.state
        if not (turn and turn.get("legal") and turn["hand"] and turn["hand"]["action_no"] == action_no):
            turn = await client.until(lambda m: (m["type"] == "state" and m.get("legal")) or hand_ended(m))
        if hand_ended(turn):
            return turn
        action, amount = decide(turn)
        hand = turn["hand"]
        await client.send(
            type="act", action=action, amount=amount, hand_id=hand["id"], action_no=hand["action_no"]
        )
        after = await client.until(
            lambda m, n=hand["action_no"]: (
                hand_ended(m) or m["type"] == "error" or (hand_state(m) and m["hand"]["action_no"] > n)
            )
        )
        assert after["type"] != "error", after
        if hand_ended(after):
            return after
        to_act, action_no = after["to_act"], after["hand"]["action_no"]
