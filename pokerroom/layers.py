"""The room's channel layer: Channels' Redis pub/sub layer, decoding each message once per process.

Redis delivers a group's message once to each process, and the layer hands the same bytes to every member of
the group there (a table's six players, its spectators); each of them decoded it again. Here the first decodes
it and the others get that decoded message. Group messages carry public information only, and consumers treat
what they receive as read-only (tables.consumers builds each player's own message anew).

Decoded once per process, a table's message is also where this process learns of an action another process
wrote at that table: its `follow` moves this process's view of the table on (tables.held.view_follow).
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer

from tables.held import view_follow

_REMEMBERED = 512  # messages; a message reaches all its local members within moments of arriving


class RoomChannelLayer(RedisPubSubChannelLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._decoded: dict[int, tuple[bytes, dict]] = {}

    def deserialize(self, message: bytes) -> dict:
        # Keyed by the bytes object itself (the one Redis delivered, held here so its id stays its own).
        found = self._decoded.get(id(message))
        if found is not None and found[0] is message:
            return found[1]
        decoded = super().deserialize(message)
        follow = decoded.get("follow") if isinstance(decoded, dict) else None
        if follow is not None:
            view_follow(follow)
        if len(self._decoded) >= _REMEMBERED:
            del self._decoded[next(iter(self._decoded))]
        self._decoded[id(message)] = (message, decoded)
        return decoded
