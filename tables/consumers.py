"""WebSocket consumers: they parse, call one service, answer. The rules live in services and the engine.

A table's group carries public information only. Each TableConsumer adds, for its own player, the hole
cards of their seat (once per hand: from the table's view this process holds, else read with it from the
database) and `legal` on their turn; a spectator's consumer adds nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

import orjson
from autobahn.exception import Disconnected
from channels.auth import AuthMiddleware, get_user
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.utils import translation
from django.utils.translation import gettext_noop

from cashier.errors import CashierError
from tables import presence, protocol, services
from tables.broadcast import LOBBY_GROUP, table_group, user_group
from tables.models import Table
from tables.selectors import chat_recent, table_list_open
from tables.state import for_viewer, table_snapshot_now
from tables.ws_gate import CLOSE_TOO_MANY, GateMixin
from tables.ws_limits import _redis

logger = logging.getLogger(__name__)

DB_THREADS = int(os.environ.get("ROOM_DB_THREADS", "4"))

# The consumers' database work runs on a few threads rather than Channels' one: while one action waits for
# PostgreSQL (its commit, say), actions at other tables go on. The changes of one table are made one at a
# time in this process (`_table_turn`), so its messages leave in the order of their seq.
_db_pool = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="room-db")
# What a handshake asks of the database before it is accepted (the session's user, whether the table exists)
# runs on threads of its own: daphne drops a handshake not accepted within 5 s, and at a tournament's start
# hundreds of accepted connections' first reads queue on the threads above (and Channels' one thread for
# `database_sync_to_async`, where the session's user was read, took every handshake one after another). A
# dropped handshake is tried again by the client, which made the queue longer still.
HANDSHAKE_DB_THREADS = int(os.environ.get("ROOM_HANDSHAKE_DB_THREADS", "2"))
_handshake_pool = ThreadPoolExecutor(max_workers=HANDSHAKE_DB_THREADS, thread_name_prefix="room-handshake")
_table_turns: dict[tuple[int, int], asyncio.Lock] = {}


def db_call(func):
    """`func` to await, run on one of the room's database threads (old connections closed before and
    after, as Channels' database_sync_to_async does)."""
    return database_sync_to_async(func, thread_sensitive=False, executor=_db_pool)


def handshake_call(func):
    """`func` to await on the handshake's database threads (as `db_call` does on the connections')."""
    return database_sync_to_async(func, thread_sensitive=False, executor=_handshake_pool)


class RoomAuthMiddleware(AuthMiddleware):
    """Channels' AuthMiddleware (the session's user in the scope), reading the user on the handshake's threads."""

    async def resolve_scope(self, scope) -> None:
        scope["user"]._wrapped = await handshake_call(get_user.func)(scope)


def RoomAuthMiddlewareStack(inner):  # noqa: N802 (named as Channels' AuthMiddlewareStack)
    return CookieMiddleware(SessionMiddleware(RoomAuthMiddleware(inner)))


def _table_turn(table_id: int) -> asyncio.Lock:
    key = (id(asyncio.get_running_loop()), table_id)
    lock = _table_turns.get(key)
    if lock is None:
        if len(_table_turns) > 20_000:
            for old in [k for k, v in _table_turns.items() if not v.locked()]:
                del _table_turns[old]
        lock = _table_turns[key] = asyncio.Lock()
    return lock


_background: set[asyncio.Task] = set()  # held until done: the loop keeps only weak references to tasks


def _in_background(work) -> None:
    """Run coroutine `work` on this event loop without waiting for it, the task held until it is done."""
    task = asyncio.get_running_loop().create_task(work)
    _background.add(task)
    task.add_done_callback(_background.discard)


def _settle_soon(table_id: int) -> None:
    """Settle the hand an action just ended and told (services.hand_settle) on the room's database threads, in
    the table's turn, without the player's connection waiting for it: its own frame goes out meanwhile. A
    settlement that fails here is logged; the next change of the table, or the workers' sweep, makes it."""

    async def settle() -> None:
        try:
            async with _table_turn(table_id):
                await db_call(services.hand_settle)(table_id=table_id)
        except Exception:  # noqa: BLE001 - logged; the sweep settles the table
            logger.exception("the settlement of the last hand at table %s failed", table_id)

    _in_background(settle())


_card_loads: dict[tuple[int, int, int], asyncio.Future] = {}


async def _hand_hole_cards(table_id: int, hand_id: int) -> dict[str, list[str]]:
    """The hand's cards (engine seat -> cards) for this process's connections at the table to take their own
    player's from: from the table's view this process holds, else read once, whichever of the table's
    connections asks first (the others, sent the same message at the same moment, wait for that read)."""
    cards = services.hand_hole_cards_held(table_id=table_id, hand_id=hand_id)  # no database call
    if cards is not None:
        return cards
    key = (id(asyncio.get_running_loop()), table_id, hand_id)
    load = _card_loads.get(key)
    if load is None:
        load = _card_loads[key] = asyncio.ensure_future(
            db_call(services.hand_hole_cards)(table_id=table_id, hand_id=hand_id)
        )
        load.add_done_callback(lambda _done: _card_loads.pop(key, None))
    return await asyncio.shield(load)  # one connection closing does not cancel the read for the others


# How long a change of a table that reached this process before the change made just before it waits for that
# one (TableConsumer.room_batch): the two were published by two processes, each after its own commit.
REORDER_WAIT_SECONDS = 0.25
CLOSE_NO_TABLE = 4404
# One player's connections to one table, counted over every web process (in Redis): a few tabs or devices,
# not 60 connections multiplying the per-connection rate limit.
CONNECTIONS_PER_USER_AND_TABLE = 4
# Each process refreshes its live connections' entries every CONNECTION_REFRESH seconds; an entry not refreshed
# for CONNECTION_TTL (a process killed before it could release its connections) no longer counts.
CONNECTION_REFRESH = 20
CONNECTION_TTL = 60
# Who is online, room-wide: a sorted set of user ids, each scored with when one of their connections (a table,
# seated or watching, or the lobby) was last opened or refreshed. A member seen within CONNECTION_TTL is
# online (staff.selectors.players_online counts them and trims the older ones); house bots and anonymous
# visitors are never added.
ONLINE_KEY = "room:online"


def _connections_key(user_id: int, table_id: int) -> str:
    return f"room:ws:{table_id}:{user_id}"


# This process's live connections, by event loop: {loop id: {(Redis key, channel name), ...}}, how many of them
# each person online holds ({loop id: {user id: connections}}, the lobby's included), and the task that keeps
# their entries fresh.
_connections_live: dict[int, set[tuple[str, str]]] = {}
_online_live: dict[int, dict[int, int]] = {}
_connections_refreshers: dict[int, asyncio.Task] = {}


async def _connections_refresh() -> None:
    """Every CONNECTION_REFRESH seconds, mark this event loop's live connections as still open (one pipelined
    ZADD XX each: an entry released meanwhile is not brought back) and the people holding them as still
    online (one ZADD of them all in the same pipeline)."""
    loop_key = id(asyncio.get_running_loop())
    live = _connections_live.setdefault(loop_key, set())
    online = _online_live.setdefault(loop_key, {})
    while True:
        await asyncio.sleep(CONNECTION_REFRESH)
        if not live and not online:
            continue
        now = time.time()
        try:
            async with _redis().pipeline(transaction=False) as pipe:
                for key, channel_name in list(live):
                    pipe.zadd(key, {channel_name: now}, xx=True)
                    pipe.expire(key, CONNECTION_TTL)
                if online:
                    pipe.zadd(ONLINE_KEY, dict.fromkeys(online, now))
                await pipe.execute()
        except Exception:  # Redis away for a moment: the next round tries again
            logger.warning("could not refresh the connection counts", exc_info=True)


def _refresher_ensure(loop_key: int) -> None:
    task = _connections_refreshers.get(loop_key)
    if task is None or task.done():
        _connections_refreshers[loop_key] = asyncio.get_running_loop().create_task(_connections_refresh())


def _connections_track(key: str, channel_name: str, *, live: bool) -> None:
    loop_key = id(asyncio.get_running_loop())
    entries = _connections_live.setdefault(loop_key, set())
    if live:
        entries.add((key, channel_name))
        _refresher_ensure(loop_key)
    else:
        entries.discard((key, channel_name))


def _online_track(user_id: int | None, *, live: bool) -> bool:
    """Count one more (or one fewer) connection of `user_id` (None: a house bot, not counted) in this event
    loop; True when a release leaves this loop without any of theirs (so they leave the online set)."""
    if user_id is None:
        return False
    loop_key = id(asyncio.get_running_loop())
    online = _online_live.setdefault(loop_key, {})
    if live:
        online[user_id] = online.get(user_id, 0) + 1
        _refresher_ensure(loop_key)
        return False
    left = online.get(user_id, 0) - 1
    if left > 0:
        online[user_id] = left
        return False
    online.pop(user_id, None)
    return True


def online_id(user) -> int | None:
    """The id a logged-in person counts online under; None for anonymous visitors and house bots."""
    if user is None or not user.is_authenticated or getattr(user, "is_bot", False):
        return None
    return user.pk


async def connection_claim(user_id: int, table_id: int, channel_name: str, *, online: bool = True) -> bool:
    """Count this connection among the player's at the table, and the player online (unless `online` is False:
    a house bot); False (and not counted at the table) past the cap. Entries a killed process left behind stop
    counting CONNECTION_TTL seconds after their last refresh."""
    key, now = _connections_key(user_id, table_id), time.time()
    async with _redis().pipeline(transaction=True) as pipe:
        pipe.zremrangebyscore(key, 0, now - CONNECTION_TTL)
        pipe.zadd(key, {channel_name: now})
        pipe.zcard(key)
        pipe.expire(key, CONNECTION_TTL)
        if online:
            pipe.zadd(ONLINE_KEY, {user_id: now})
        count = (await pipe.execute())[2]
    if count > CONNECTIONS_PER_USER_AND_TABLE:
        await _redis().zrem(key, channel_name)
        return False
    _connections_track(key, channel_name, live=True)
    _online_track(user_id if online else None, live=True)
    return True


async def connection_release(user_id: int, table_id: int, channel_name: str, *, online: bool = True) -> None:
    """This connection closed: it no longer counts at the table, nor the player online once this process holds
    no other connection of theirs (one held by another process puts them back within CONNECTION_REFRESH)."""
    key = _connections_key(user_id, table_id)
    _connections_track(key, channel_name, live=False)
    gone = _online_track(user_id if online else None, live=False)
    async with _redis().pipeline(transaction=False) as pipe:
        pipe.zrem(key, channel_name)
        if gone:
            pipe.zrem(ONLINE_KEY, user_id)
        await pipe.execute()


async def online_claim(user_id: int) -> None:
    """A connection that counts its person online and nothing else (the lobby's): one ZADD. The count is a
    courtesy to staff: Redis not answering leaves it to the next refresh, and the lobby works on."""
    _online_track(user_id, live=True)
    try:
        await _redis().zadd(ONLINE_KEY, {user_id: time.time()})
    except Exception:
        logger.warning("could not count a player online", exc_info=True)


async def online_release(user_id: int) -> None:
    if _online_track(user_id, live=False):
        try:
            await _redis().zrem(ONLINE_KEY, user_id)
        except Exception:  # counted until CONNECTION_TTL has passed
            logger.warning("could not count a player offline", exc_info=True)


# What a consumer's cleanup may take when its application is cancelled, before it gives up (the entries it
# would release then expire after CONNECTION_TTL).
CANCELLED_CLEANUP_SECONDS = 5.0
CLOSE_ABNORMAL = 1006


class RoomConsumer(GateMixin, AsyncWebsocketConsumer):
    connections_ttl = CONNECTION_TTL

    @staticmethod
    def connections_track(key: str, channel_name: str, *, live: bool) -> None:
        _connections_track(key, channel_name, live=live)

    async def __call__(self, scope, receive, send) -> None:
        """Channels' consumer, and its `disconnect` when the application is cancelled instead of told, or ends
        with an exception: daphne cancels an application whose client went away and which has not ended within
        its close timeout (a handshake given up while `connect` waited on a busy database thread). Without this,
        what `connect` had counted (the player's connection at the table, the player online) stayed counted
        until its TTL, and a player retrying under load was refused as having the table open in too many
        windows; after an exception, until the web process restarted."""
        try:
            await super().__call__(scope, receive, send)
        except (asyncio.CancelledError, Exception):
            try:
                await asyncio.wait_for(self.disconnect(CLOSE_ABNORMAL), timeout=CANCELLED_CLEANUP_SECONDS)
            except Exception:  # the TTLs end what could not be released here
                logger.warning("a cancelled consumer could not release what it held", exc_info=True)
            raise

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch without the hop it makes to the database thread before every message to close
        old connections: a table's broadcast reaches each of its consumers, and that hop queued each of them
        behind the actions in the database thread. Every database call here goes through `db_call`, which
        closes old connections itself, before and after."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def room_message(self, event: dict) -> None:
        await self.send_json(event["message"])

    async def send_json(self, message: dict) -> None:
        await self.send(text_data=_dumps(message))

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        """Channels' send; a frame to a client that has just gone (daphne's Disconnected: a broadcast reaching
        a connection closed a moment before) is dropped, and the disconnect that follows does the clean-up."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            pass

    async def send_error(self, code: str, message: str) -> None:
        await self.send_json({"type": "error", "code": code, "message": message})

    @property
    def authenticated(self) -> bool:
        user = self.scope.get("user")
        return bool(user is not None and user.is_authenticated)

    async def player_group_join(self) -> None:
        """A logged-in player's connections hear what is for them alone (a seat offered, a seat taken away)."""
        if self.authenticated:
            self.player_group = user_group(self.scope["user"].id)
            await self.channel_layer.group_add(self.player_group, self.channel_name)

    async def player_group_leave(self) -> None:
        if getattr(self, "player_group", None):
            await self.channel_layer.group_discard(self.player_group, self.channel_name)


def _waiting_call(message, *, table_id: int, user, language: str) -> dict:
    with translation.override(language):
        if isinstance(message, protocol.WaitingJoin):
            return services.waiting_join(table_id=table_id, user=user)
        return services.waiting_leave(table_id=table_id, user=user)


class LobbyConsumer(RoomConsumer):
    """The lobby's list of tables, live; a logged-in player may also join and leave waiting lists from here
    and hears of the seats offered to them."""

    async def connect(self) -> None:
        self.language = language_of(self.scope)
        self.gate_open()
        if not await self.address_claim(None):
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.player_group_join()
        await self.accept()
        self.online = online_id(self.scope.get("user"))
        if self.online is not None:  # counted online (staff's dashboard) while the lobby is open
            await online_claim(self.online)
        await self.send_json({"type": "tables", "tables": await db_call(table_list_open)()})
        if self.authenticated:  # the lists this player is on, so the lobby shows them after a reload
            for waiting in await db_call(_waiting_lists_of)(self.scope["user"]):
                await self.send_json(waiting)

    async def disconnect(self, code: int) -> None:
        await self.address_release()
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await self.player_group_leave()
        if getattr(self, "online", None) is not None:
            online, self.online = self.online, None
            await online_release(online)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Only `waiting_join` and `waiting_leave` (with `table`), within the limits (`message_of`); any other
        message the parser takes is ignored."""
        message = await self.message_of(text_data, bytes_data)
        if not isinstance(message, protocol.WaitingJoin | protocol.WaitingLeave):
            return
        with translation.override(self.language):
            if not self.authenticated:
                await self.send_json(
                    {
                        "type": "error",
                        "code": "login_required",
                        "message": translation.gettext("Log in to join a waiting list."),
                    }
                )
                return
            if message.table is None:
                await self.send_json(
                    {
                        "type": "error",
                        "code": "missing_field",
                        "message": translation.gettext("Say which table."),
                    }
                )
                return
        try:
            await db_call(_waiting_call)(
                message, table_id=message.table, user=self.scope["user"], language=self.language
            )
        except services.TableError as refused:
            await self.send_json(
                {"type": "error", "code": refused.code, "message": refused.message, "table": message.table}
            )


def _opening_reads(*, table_id: int, user, channel: str) -> tuple[dict | None, list[dict], dict | None]:
    """What a new connection is sent first, read in one trip to a database thread (at a tournament's start
    hundreds of connections open at once, and each trip waits its turn): a logged-in player counted present
    (a seat marked disconnected is cleared, before the first state), the table's state, its last chat lines,
    and the player's place on its waiting list."""
    if user is not None:
        presence.connection_opened(table_id=table_id, user=user, channel=channel)
    snapshot = table_snapshot_now(table_id=table_id)
    chat = chat_recent(table_id=table_id)
    return snapshot, chat, _waiting_of(table_id, user) if user is not None else None


def _waiting_of(table_id: int, user) -> dict | None:
    """Where a player connecting to a table stands on its waiting list, if they are on it."""
    from tables.models import WaitingEntry

    if not WaitingEntry.objects.filter(table_id=table_id, user=user).exists():
        return None
    return services.waiting_position(table=Table.objects.get(pk=table_id), user=user)


def _waiting_lists_of(user) -> list[dict]:
    """Where a player stands on every waiting list they are on (`waiting` messages)."""
    from tables.models import WaitingEntry

    entries = WaitingEntry.objects.filter(user=user).select_related("table")
    return [services.waiting_position(table=entry.table, user=user) for entry in entries]


def language_of(scope: dict) -> str:
    """The player's language for messages on this connection: the site's language cookie (what the
    language menu sets), else the browser's Accept-Language, else the default."""
    from django.conf import settings

    headers = {
        name.decode("latin1").lower(): value.decode("latin1") for name, value in scope.get("headers", [])
    }
    cookies = SimpleCookie()
    try:
        cookies.load(headers.get("cookie", ""))
    except CookieError:
        pass
    choice = cookies.get(settings.LANGUAGE_COOKIE_NAME)
    candidates = [choice.value] if choice else []
    for part in headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip()
        if code:
            candidates.append(code)
    for code in candidates:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


# Tables this process has seen exist (tables are closed, not deleted): a handshake waits on the database (four
# threads, behind every connection's reads) only for the first connection to a table. At a 900-entrant
# tournament's start the exists query queued behind the other connections' state reads past daphne's 20 s.
_tables_seen: set[int] = set()

# The frames of a table's change as any connection without a seat in it sees them (spectators; everyone, for a
# change of events only), encoded once per process and sent to each such connection: keyed by the group
# message itself (tables' messages are decoded once per process, pokerroom.layers) and held with it, so its id
# stays its own while remembered.
_public_frames: dict[tuple[int, bool], tuple[dict, list[str]]] = {}
_PUBLIC_FRAMES_REMEMBERED = 256  # changes; one reaches all its local connections within moments


def _dumps(message: dict) -> str:
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def public_frames(event: dict, *, batched: bool) -> list[str]:
    """The frames of a table's change (`room.batch`) for a connection with no seat in it: its events as they
    are, its snapshot without anyone's cards or `legal` (tables.state.for_viewer with no seat); one frame
    (`batch`) or one a message, as the connection asked."""
    key = (id(event), batched)
    found = _public_frames.get(key)
    if found is not None and found[0] is event:
        return found[1]
    out = [
        for_viewer(message, seat_number=None, hole_cards=None) if message["type"] == "state" else message
        for message in event["messages"]
    ]
    frames = (
        [_dumps({"type": "batch", "messages": out})] if batched and len(out) > 1 else [_dumps(m) for m in out]
    )
    if len(_public_frames) >= _PUBLIC_FRAMES_REMEMBERED:
        del _public_frames[next(iter(_public_frames))]
    _public_frames[key] = (event, frames)
    return frames


def _frames_batched(scope: dict) -> bool:
    """The client asked, in its WebSocket's address (`/ws/tables/<id>/?frames=batch`), for each change of the
    table in one frame instead of one frame a message (docs/protocol.md)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("frames") == ["batch"]


class TableConsumer(RoomConsumer):
    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.last_seq = 0
        self.seq_known = False  # a state sent: `last_seq` is where the table was
        # Changes that came before the one the table made just before them, waiting for it (`room_batch`).
        self.early: list[tuple[int, dict]] = []
        self.early_wait: asyncio.TimerHandle | None = None
        self.cards: tuple[int, int, list[str] | None] | None = None  # (hand id, seat, cards)
        self.language = language_of(self.scope)
        self.gate_open()
        self.counted = False
        self.batched = _frames_batched(self.scope)
        # Read once: the scope's user is a lazy proxy, and every state this connection is sent looks for its seat.
        self.username = self.user.username if self.authenticated else None
        if (
            self.table_id not in _tables_seen
        ):  # the handshake waits on the database once per table and process
            if not await handshake_call(Table.objects.filter(pk=self.table_id).exists)():
                await self.close(code=CLOSE_NO_TABLE)
                return
            _tables_seen.add(self.table_id)
        if self.authenticated:
            if not await connection_claim(
                self.user.pk, self.table_id, self.channel_name, online=online_id(self.user) is not None
            ):
                await self.accept()
                await self.send_error(
                    "too_many_connections",
                    self.translated(
                        gettext_noop(
                            "This table is already open in too many of your windows: close one and try again."
                        )
                    ),
                )
                await self.close(code=CLOSE_TOO_MANY)
                return
            self.counted = True
        elif not await self.address_claim(self.table_id):
            return
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        await self.player_group_join()
        await self.accept()
        self.present = self.authenticated
        snapshot, chat, waiting = await db_call(_opening_reads)(
            table_id=self.table_id, user=self.user if self.authenticated else None, channel=self.channel_name
        )
        if snapshot is not None:
            await self.send_state(snapshot)
        await self.send_json({"type": "chat_history", "lines": chat})
        if waiting is not None:
            await self.send_json(waiting)

    async def disconnect(self, code: int) -> None:
        # What Redis alone releases comes first: the seat's mark below waits on a database thread, which under
        # load (a tournament's start) can take longer than a cancelled consumer's cleanup may; a connection
        # left counted (and refreshed by this process) would refuse the player's retries for good.
        if getattr(self, "counted", False):
            self.counted = False
            await connection_release(
                self.user.pk, self.table_id, self.channel_name, online=online_id(self.user) is not None
            )
        await self.address_release()
        if getattr(self, "early_wait", None) is not None:
            self.early_wait.cancel()
        if hasattr(self, "table_id"):
            await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
        await self.player_group_leave()
        if getattr(self, "present", False):
            self.present = False
            await db_call(presence.connection_closed)(
                table_id=self.table_id, user=self.user, channel=self.channel_name
            )

    @property
    def authenticated(self) -> bool:
        return bool(self.user is not None and self.user.is_authenticated)

    # --- outgoing ----------------------------------------------------------------------------------

    async def send_fresh_state(self) -> None:
        snapshot = await db_call(table_snapshot_now)(table_id=self.table_id)
        if snapshot is not None:
            await self.send_state(snapshot)

    async def room_batch(self, event: dict) -> None:
        """One change of the table, in the order of its seq: each process publishes its changes after its own
        commit, so a change can reach this process a moment before the one the table made just before it (a
        web process's action and the worker's deal). A change that comes early waits here, up to
        REORDER_WAIT_SECONDS, for the ones before it, and the client gets them in order instead of a gap and a
        `sync`; after that wait it goes as it is (a change never published: the client asks for `sync`)."""
        first = min((message.get("seq", 0) for message in event["messages"]), default=0)
        if self.seq_known and first > self.last_seq + 1:
            self.early.append((first, event))
            self.early.sort(key=lambda early: early[0])
            if self.early_wait is None:
                self.early_wait = asyncio.get_running_loop().call_later(
                    REORDER_WAIT_SECONDS, self._early_wait_over
                )
            return
        await self.change_send(event)
        while self.early and self.early[0][0] <= self.last_seq + 1:
            await self.change_send(self.early.pop(0)[1])
        if not self.early and self.early_wait is not None:
            self.early_wait.cancel()
            self.early_wait = None

    def _early_wait_over(self) -> None:
        """The changes before the early ones did not come in time: they go (through the consumer's own queue,
        so they are sent between two messages, never in the middle of one's sending)."""
        self.early_wait = None
        _in_background(self.channel_layer.send(self.channel_name, {"type": "room.early"}))

    async def room_early(self, event: dict) -> None:
        if self.early_wait is not None:  # more came early since: this sends them too
            self.early_wait.cancel()
            self.early_wait = None
        early, self.early = self.early, []
        for _first, change in early:  # none left if the missing change came meanwhile
            await self.change_send(change)

    async def change_send(self, event: dict) -> None:
        """One change of the table: its public events and the snapshot after it. A client that connected with
        `?frames=batch` gets them in one frame (`{"type": "batch", "messages": [...]}`, in seq order), any other
        one frame a message. A connection with no seat in the change gets the frames every such connection in
        this process gets, encoded once (`public_frames`)."""
        messages = event["messages"]
        if not any(message["type"] == "state" and self.own_seat(message) is not None for message in messages):
            self.last_seq = max([self.last_seq, *(message.get("seq", 0) for message in messages)])
            for frame in public_frames(event, batched=self.batched):
                await self.send(text_data=frame)
            return
        if self.batched and len(messages) > 1:
            out = [await self.viewer_message(message) for message in messages]
            await self.send_json({"type": "batch", "messages": out})
            return
        for message in messages:
            await self.send_json(await self.viewer_message(message))

    async def viewer_message(self, message: dict) -> dict:
        """A group message as this connection's client may see it: a snapshot with its player's own cards and
        `legal` added (tables.state.for_viewer), an event as it is."""
        if message["type"] == "state":
            return await self.viewer_state(message)
        self.last_seq = max(self.last_seq, message.get("seq", 0))
        return message

    async def send_state(self, snapshot: dict) -> None:
        await self.send_json(await self.viewer_state(snapshot))
        self.seq_known = True

    async def viewer_state(self, snapshot: dict) -> dict:
        self.last_seq = max(self.last_seq, snapshot.get("seq", 0))
        seat_number = self.own_seat(snapshot)
        cards = None
        hand = snapshot.get("hand")
        if seat_number is not None and hand is not None:
            key = (hand["id"], seat_number)
            if self.cards is None or self.cards[:2] != key:
                every = await _hand_hole_cards(self.table_id, hand["id"])
                self.cards = (*key, every.get(str(seat_number - 1)))
            cards = self.cards[2]
        return for_viewer(snapshot, seat_number=seat_number, hole_cards=cards)

    def own_seat(self, snapshot: dict) -> int | None:
        username = self.username
        if username is None:
            return None
        for row in snapshot.get("seats", ()):
            player = row.get("player")
            if player and player["name"] == username:
                return row["seat"]
        return None

    async def send_error(self, code: str, message: str) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, "seq": self.last_seq})

    # --- incoming ----------------------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None) -> None:
        message = await self.message_of(text_data, bytes_data)
        if message is None:
            return
        if isinstance(message, protocol.Sync):
            await self.send_fresh_state()
            return
        if not self.authenticated:
            await self.send_error(
                "login_required", self.translated(gettext_noop("Log in to play; spectators may only watch."))
            )
            return
        try:
            async with _table_turn(self.table_id):
                to_settle = await db_call(self.dispatch_message)(message)
            if to_settle is not None:  # the action ended a hand: settled after the player has the answer
                _settle_soon(to_settle)
        except services.TableError as refused:
            await self.send_error(refused.code, refused.message)
        except Exception as refused:  # noqa: BLE001 - a domain error of the cashier, say; never a crash
            if isinstance(refused, CashierError):
                await self.send_error(getattr(refused, "code", "cashier"), str(refused))
            else:
                raise

    def dispatch_message(self, message) -> int | None:
        """Carry out the message; the id of a table whose hand the action ended and left to settle, or None."""
        with translation.override(self.language):
            return self.dispatch_in_language(message)

    def dispatch_in_language(self, message) -> int | None:
        table_id, user = self.table_id, self.user
        match message:
            case protocol.Act():
                return services.table_act(
                    table_id=table_id,
                    user=user,
                    hand_id=message.hand_id,
                    action_no=message.action_no,
                    action=message.action,
                    amount=message.amount,
                    settle_later=True,
                )
            case protocol.Join():
                services.seat_take(
                    table_id=table_id,
                    user=user,
                    seat_number=message.seat,
                    buy_in=message.buy_in,
                    post=message.post,
                )
            case protocol.SitOut():
                services.seat_sit_out(table_id=table_id, user=user)
            case protocol.SitIn():
                services.seat_sit_in(table_id=table_id, user=user, post=message.post)
            case protocol.TopUp():
                services.seat_top_up(
                    table_id=table_id, user=user, amount=message.amount, sit_in=message.sit_in
                )
            case protocol.Leave():
                services.seat_leave(table_id=table_id, user=user)
            case protocol.Options():
                services.seat_options(
                    table_id=table_id,
                    user=user,
                    auto_muck=message.auto_muck,
                    straddle=message.straddle,
                    run_twice=message.run_twice,
                )
            case protocol.Chat():
                services.table_chat(table_id=table_id, user=user, text=message.text)
            case protocol.WaitingJoin():
                services.waiting_join(table_id=table_id, user=user)
            case protocol.WaitingLeave():
                services.waiting_leave(table_id=table_id, user=user)
