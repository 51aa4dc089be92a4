"""What every WebSocket consumer of the room (a table's, the lobby's) does before a message reaches a service,
and before a connection of an anonymous visitor is accepted: the connection's own rate, the parser's bounds,
then the limit of the player (per user) or of the address (anonymous visitors), each refusal answered with an
`error` and the connection left open (docs/protocol.md gives the figures)."""

from __future__ import annotations

import time

from django.utils import translation
from django.utils.translation import gettext_noop

from tables import protocol, ws_limits

RATE_PER_SECOND = 10
RATE_BURST = 20
FLOOD_CLOSE_AFTER = 10  # refused messages in a row before the connection is closed
CLOSE_FLOOD = 4429
CLOSE_TOO_MANY = 4409


def slow_bucket(message) -> str | None:
    """The slower limit a message also spends from: chat lines, waiting-list changes (each takes the table's
    lock) and `sync` (each reads the table from the database); None for the others."""
    if isinstance(message, protocol.Chat):
        return "chat"
    if isinstance(message, protocol.WaitingJoin | protocol.WaitingLeave):
        return "waiting"
    if isinstance(message, protocol.Sync):
        return "sync"
    return None


class GateMixin:
    """Mixed into tables.consumers.RoomConsumer. Expects `scope`, `language`, `channel_name`, `authenticated`,
    `send_error`, `close`, `accept`, and `connections_track` (the consumers' refresh of counted entries)."""

    def gate_open(self) -> None:
        """Set up the connection's own bucket and who its messages count for (call first in `connect`)."""
        self.limiter = protocol.RateLimiter(rate=RATE_PER_SECOND, burst=RATE_BURST, clock=time.monotonic)
        self.refused_in_row = 0
        self.address_keys: list[str] = []
        self.who = self.scope["user"].pk if self.authenticated else ws_limits.address_of(self.scope)

    def translated(self, text: str) -> str:
        with translation.override(self.language):
            return translation.gettext(text)

    async def address_claim(self, table_id: int | None) -> bool:
        """An anonymous visitor's connection counted under its address; False (sent `too_many_connections` and
        closed with 4409) when the address already holds as many as it may. A logged-in player's: True."""
        if self.authenticated:
            return True
        keys = await ws_limits.address_claim(self.who, table_id, self.channel_name, ttl=self.connections_ttl)
        if keys is None:
            await self.accept()
            await self.send_error(
                "too_many_connections",
                self.translated(
                    gettext_noop("Too many connections from your address: close one and try again.")
                ),
            )
            await self.close(code=CLOSE_TOO_MANY)
            return False
        self.address_keys = keys
        for key in keys:
            self.connections_track(key, self.channel_name, live=True)
        return True

    async def address_release(self) -> None:
        keys, self.address_keys = getattr(self, "address_keys", []), []
        for key in keys:
            self.connections_track(key, self.channel_name, live=False)
        if keys:
            await ws_limits.address_release(keys, self.channel_name)

    async def message_of(self, text_data=None, bytes_data=None):
        """The client's message parsed, or None when it was refused (and answered, or the connection closed
        after FLOOD_CLOSE_AFTER refusals of its own rate in a row)."""
        if not self.limiter.allow():
            self.refused_in_row += 1
            if self.refused_in_row >= FLOOD_CLOSE_AFTER:
                await self.close(code=CLOSE_FLOOD)
                return None
            await self.send_error(
                "rate_limited", self.translated(gettext_noop("Too many messages: slow down."))
            )
            return None
        self.refused_in_row = 0
        try:
            with translation.override(self.language):
                message = protocol.parse_client_message(text_data if text_data is not None else bytes_data)
        except protocol.ProtocolError as refused:
            await self.send_error(refused.code, refused.message)
            return None
        # over all of this player's (or address's) connections, on every web process
        refused = await ws_limits.user_allow(self.who, slow=slow_bucket(message))
        if refused == ws_limits.USER_REFUSED:
            await self.send_error(
                "rate_limited", self.translated(gettext_noop("Too many messages: slow down."))
            )
            return None
        if refused == ws_limits.SLOW_REFUSED:
            text = {
                "chat": gettext_noop("You are chatting too fast: wait a few seconds."),
                "waiting": gettext_noop("Too many waiting-list changes: wait a few seconds."),
            }.get(slow_bucket(message) or "", gettext_noop("Too many messages: slow down."))
            await self.send_error("rate_limited", self.translated(text))
            return None
        return message
