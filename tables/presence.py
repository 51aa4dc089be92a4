"""Who is connected to a table: each open WebSocket of a logged-in player is one member of a Redis set per
(table, player), whichever web process holds it. When the last one closes, a seated player is marked
disconnected at their seat (services.seat_connection); their first connection back clears the mark.

A web process that dies without closing its connections leaves its members behind (until that player's
next connection and disconnection at the table, or a day without any): the mark is a courtesy to the other
players, never a reason to act on a hand, which the clock and the time bank decide as for anyone.
"""

from __future__ import annotations

import logging

import redis

from tables import clock, services

log = logging.getLogger(__name__)

KEY_TTL_SECONDS = 24 * 3600


def _key(table_id: int, user_id: int) -> str:
    return f"room:presence:{table_id}:{user_id}"


def connection_opened(*, table_id: int, user, channel: str) -> None:
    """A connection of `user` to the table opened; clears their seat's mark if it carries one.

    The member is added before the seat is looked at under the table's lock, and a closing connection asks
    for the members under that same lock before it marks the seat: whichever comes first, a player who is
    connected is never left marked."""
    try:
        client = clock.redis_client()
        pipe = client.pipeline()
        pipe.sadd(_key(table_id, user.id), channel)
        pipe.expire(_key(table_id, user.id), KEY_TTL_SECONDS)
        pipe.execute()
    except redis.RedisError:
        log.warning("presence: Redis is not answering; table %s", table_id)
    services.seat_connection(table_id=table_id, user=user, connected=True)


def connection_closed(*, table_id: int, user, channel: str) -> bool:
    """A connection of `user` to the table closed; when it was their last, their seat (if they have one) is
    marked disconnected. Returns whether that was their last connection."""
    key = _key(table_id, user.id)
    try:
        client = clock.redis_client()
        pipe = client.pipeline()
        pipe.srem(key, channel)
        pipe.scard(key)
        _removed, left = pipe.execute()
    except redis.RedisError:
        log.warning("presence: Redis is not answering; table %s", table_id)
        return False
    if left:
        return False

    def still_gone() -> bool:
        try:
            return not clock.redis_client().scard(key)
        except redis.RedisError:
            return True

    services.seat_connection(table_id=table_id, user=user, connected=False, still_gone=still_gone)
    return True
