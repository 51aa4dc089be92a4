"""What one person may ask of the room over its WebSockets, counted in Redis over every web process: a logged-in
player's messages (per user), an anonymous visitor's (per address), and how many sockets an anonymous address
may hold open. The consumers (tables.consumers) ask here before a message reaches a service.

A refused message is answered `rate_limited`, a refused connection `too_many_connections` (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import os
import time

from tables import protocol

# What one player may ask of the room (every message past the parser, `sync` included) over all their
# connections, every table, the lobby and every web process together (a token bucket in Redis); and, in a
# slower bucket of their own, chat lines, waiting-list changes (each takes the table's lock) and `sync` (each
# reads the table and its hand from the database; the browser asks at most once in 3 s a connection).
USER_RATE_PER_SECOND, USER_RATE_BURST = 20, 60
CHAT_RATE_PER_SECOND, CHAT_RATE_BURST = 0.5, 5
WAITING_RATE_PER_SECOND, WAITING_RATE_BURST = 1, 10
SYNC_RATE_PER_SECOND = float(os.environ.get("ROOM_SYNC_RATE", "1"))
SYNC_RATE_BURST = int(os.environ.get("ROOM_SYNC_BURST", "5"))
# What one address's anonymous visitors may ask together (they may only watch: `sync`, and messages refused
# with `login_required`), over all their connections and every web process. The operator may raise it (and the
# caps below) for an audience behind one address: ROOM_ADDRESS_RATE, ROOM_ADDRESS_BURST.
ADDRESS_RATE_PER_SECOND = float(os.environ.get("ROOM_ADDRESS_RATE", "5"))
ADDRESS_RATE_BURST = int(os.environ.get("ROOM_ADDRESS_BURST", "20"))
USER_REFUSED, CHAT_REFUSED = 1, 2  # what `user_allow` answers when a bucket is empty (0: allowed)
SLOW_REFUSED = CHAT_REFUSED  # the slow bucket (chat, waiting lists) was empty
SLOW_RATES = {
    "chat": (CHAT_RATE_PER_SECOND, CHAT_RATE_BURST),
    "waiting": (WAITING_RATE_PER_SECOND, WAITING_RATE_BURST),
    "sync": (SYNC_RATE_PER_SECOND, SYNC_RATE_BURST),
}

# A web process takes up to USER_LEASE_TOKENS of a player's tokens from Redis at once and spends them on the
# player's next messages within USER_LEASE_SECONDS (tokens left then are dropped, never given back): one Redis
# call for a few messages, the limit still the player's over every process. What a lease adds at most is the
# tokens it holds: a player's burst may reach USER_RATE_BURST plus USER_LEASE_TOKENS per web process, once.
USER_LEASE_TOKENS, USER_LEASE_SECONDS = 5, 5.0

# Both of a player's buckets in one call: take up to ARGV[5] tokens from the first (every message), and if it
# had one, one from the second (chat lines, waiting-list changes) when one is named. Answers how many were taken from the first
# (at least 1), or -1 / -2 when the first / second is empty. A bucket is a hash (`t`: when it was last filled,
# `n`: its tokens), kept only while it is not full again: a missing key is a full bucket. Redis's own clock,
# so that every web process (and machine) reads the same time.
_USER_BUCKETS_LUA = """
redis.replicate_commands()
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local function take(key, rate, burst, want)
  local kept = redis.call('HMGET', key, 't', 'n')
  local tokens = tonumber(kept[2])
  if tokens == nil then
    tokens = burst
  else
    tokens = math.min(burst, tokens + math.max(0, now - tonumber(kept[1])) * rate)
  end
  local taken = math.min(want, math.floor(tokens))
  if taken < 1 then
    return 0
  end
  redis.call('HSET', key, 't', tostring(now), 'n', tostring(tokens - taken))
  redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
  return taken
end
local taken = take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5]))
if taken == 0 then
  return -1
end
if KEYS[2] and take(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4]), 1) == 0 then
  return -2
end
return taken
"""

Who = int | str  # a logged-in player's id, or `address_of`'s "address:<ip>" for anonymous visitors


def _rates(who: Who, kind: str) -> tuple[float, int]:
    """The bucket `kind` ("all", or a slow one: "chat", "waiting") of a player or an address."""
    if kind != "all":
        return SLOW_RATES[kind]
    if isinstance(who, str):
        return ADDRESS_RATE_PER_SECOND, ADDRESS_RATE_BURST
    return USER_RATE_PER_SECOND, USER_RATE_BURST


_user_limiters: dict[tuple[int, str, Who], protocol.RateLimiter] = {}


def user_limiter(user_id: Who, kind: str) -> protocol.RateLimiter:
    """The token bucket that every connection of `user_id` (or an address) in this process (and event loop)
    shares: used only while Redis cannot be asked (`user_allow`)."""
    key = (id(asyncio.get_running_loop()), kind, user_id)
    limiter = _user_limiters.get(key)
    if limiter is None:
        if len(_user_limiters) > 50_000:
            _user_limiters.clear()  # a fresh bucket is a full one: at worst a burst more for everyone
        rate, burst = _rates(user_id, kind)
        limiter = _user_limiters[key] = protocol.RateLimiter(rate=rate, burst=burst, clock=time.monotonic)
    return limiter


_user_scripts: dict[int, object] = {}
# (event loop, player) -> [tokens left, monotonic time they expire]: this process's lease of the player's tokens
# (-1 left: the bucket was empty at the last ask); and the ask for a lease under way, which other messages await.
_user_leases: dict[tuple[int, Who], list] = {}
_lease_asks: dict[tuple[int, Who], asyncio.Future] = {}


async def user_allow(user_id: Who, *, chat: bool = False, slow: str | None = None) -> int:
    """Whether the player (or the address, for anonymous visitors) may send one more message (0), over all their
    connections on every web process, or which of their limits refuses it (USER_REFUSED; SLOW_REFUSED for a
    chat line, `chat`, or a message of another slow bucket, `slow`: "waiting"). A message of no slow bucket
    spends a token of this process's lease when it holds one; else one Redis call (EVALSHA) takes a new lease,
    the player's other messages arriving meanwhile waiting for it rather than asking too (a lease never holds
    more than USER_LEASE_TOKENS). A slow one is always asked of Redis (its token and one of the first bucket).
    If Redis cannot answer, this process's own buckets decide, as they did before the room counted in Redis."""
    loop = asyncio.get_running_loop()
    key = (id(loop), user_id)
    slow = "chat" if chat else slow
    refused = _refused_still(key, slow)
    if refused:
        return refused
    if slow is not None:
        return _refused_remember(key, slow, await _user_ask(key, slow=slow))
    while not _lease_spend(key):
        asking = _lease_asks.get(key)
        if asking is None:
            asked = _lease_asks[key] = loop.create_future()
            try:
                answer = _refused_remember(key, None, await _user_ask(key, slow=None))
            finally:
                del _lease_asks[key]
                asked.set_result(None)
            return answer
        await asyncio.shield(asking)  # another message's lease: spend from it, or ask next
        lease = _user_leases.get(key)
        if lease is not None and lease[0] == -1:  # the bucket was empty when it asked
            return USER_REFUSED
    return 0


async def _user_ask(key: tuple[int, Who], *, slow: str | None) -> int:
    """One Redis call for the player's buckets: a slow message's tokens, or a new lease (one token spent at once)."""
    import redis.exceptions

    loop_key, user_id = key
    script = _user_scripts.get(loop_key)
    if script is None:
        script = _user_scripts[loop_key] = _redis().register_script(_USER_BUCKETS_LUA)
    keys = [f"room:rate:all:{user_id}", *([f"room:rate:{slow}:{user_id}"] if slow else [])]
    rate, burst = _rates(user_id, "all")
    slow_rate, slow_burst = SLOW_RATES[slow] if slow else (0, 0)
    try:
        taken = int(
            await script(
                keys=keys,
                args=[
                    rate,
                    burst,
                    slow_rate,
                    slow_burst,
                    1 if slow else USER_LEASE_TOKENS,  # a slow message takes its own token, no lease
                ],
            )
        )
    except redis.exceptions.RedisError:
        _user_leases.pop(key, None)  # no answer: nothing to tell the messages that waited for it
        if not user_limiter(user_id, "all").allow():
            return USER_REFUSED
        if slow and not user_limiter(user_id, slow).allow():
            return SLOW_REFUSED
        return 0
    if not slow:
        if len(_user_leases) > 50_000:
            _user_leases.clear()  # leases dropped: their tokens are spent, nobody gains any
        # -1 (refused) is kept as the lease for the messages that waited for this answer: refused too.
        _user_leases[key] = [max(taken - 1, -1), time.monotonic() + USER_LEASE_SECONDS]
    if taken < 0:
        return USER_REFUSED if taken == -1 else SLOW_REFUSED
    return 0


# (event loop, player or address, bucket) -> monotonic time until which this process refuses without asking
# Redis: the bucket was empty, and gets its next token only after 1 / its rate (a flood is refused with no
# Redis call per message).
_refused_until: dict[tuple[int, Who, str], float] = {}


def _refused_still(key: tuple[int, Who], slow: str | None) -> int:
    """USER_REFUSED or SLOW_REFUSED while a bucket found empty cannot have a token yet; else 0."""
    now = time.monotonic()
    if _refused_until.get((*key, "all"), 0.0) > now:
        return USER_REFUSED
    if slow is not None and _refused_until.get((*key, slow), 0.0) > now:
        return SLOW_REFUSED
    return 0


def _refused_remember(key: tuple[int, Who], slow: str | None, answer: int) -> int:
    if answer:
        kind = "all" if answer == USER_REFUSED else slow or "all"
        if len(_refused_until) > 50_000:
            _refused_until.clear()
        _refused_until[(*key, kind)] = time.monotonic() + 1 / _rates(key[1], kind)[0]
    return answer


def _lease_spend(key: tuple[int, Who]) -> bool:
    """Spend a token of this process's lease of the player's tokens, if it holds one still valid."""
    lease = _user_leases.get(key)
    if lease is None or lease[0] <= 0 or lease[1] <= time.monotonic():
        return False
    lease[0] -= 1
    return True


_redis_clients: dict[int, object] = {}


# The asyncio Redis client's connections, per event loop: at most REDIS_POOL_SIZE at once, a command waiting
# up to REDIS_POOL_WAIT seconds for one. redis-py's default pool refuses the 101st at once (MaxConnectionsError):
# 450 players connecting to one web process within seconds (a tournament's start) had their handshakes fail.
REDIS_POOL_SIZE = 100
REDIS_POOL_WAIT = 10.0


def _redis():
    """An asyncio Redis client for this event loop (the room's REDIS_URL), on a pool that waits for a free
    connection rather than refusing."""
    import redis.asyncio as redis_asyncio
    from django.conf import settings

    key = id(asyncio.get_running_loop())
    client = _redis_clients.get(key)
    if client is None:
        pool = redis_asyncio.BlockingConnectionPool.from_url(
            settings.REDIS_URL, max_connections=REDIS_POOL_SIZE, timeout=REDIS_POOL_WAIT
        )
        client = _redis_clients[key] = redis_asyncio.Redis(connection_pool=pool)
    return client


# Anonymous visitors' sockets, per client address over every web process (in Redis, as a player's connections
# are counted per user): at most this many to one table, and this many in all (tables and lobby together).
# As many as a player may open at one table (4); enough for a household behind one address to watch; not
# hundreds of sockets from one visitor (each spectator at a table adds to every change the table sends: 8 at one
# table made its players' round trip 1.5 x on a loaded machine, bench/abuse.py).
# ROOM_ANONYMOUS_PER_TABLE and ROOM_ANONYMOUS_PER_ADDRESS set them.
ANONYMOUS_CONNECTIONS_PER_ADDRESS_AND_TABLE = int(os.environ.get("ROOM_ANONYMOUS_PER_TABLE", "4"))
ANONYMOUS_CONNECTIONS_PER_ADDRESS = int(os.environ.get("ROOM_ANONYMOUS_PER_ADDRESS", "16"))


def address_of(scope: dict) -> str:
    """The rate-limit identity of an anonymous connection: "address:" and the client's address as
    pokerroom.addresses reads it (PROXY_COUNT; put in the scope by its middleware), else the socket's peer."""
    address = scope.get("room_address")
    if not address:
        client = scope.get("client") or ("0.0.0.0", 0)
        address = client[0] or "0.0.0.0"
    return f"address:{address}"


def address_keys(who: str, table_id: int | None) -> list[str]:
    """The Redis sorted sets an anonymous connection counts in: the address's in all, and at its table."""
    keys = [f"room:ws:{who}"]
    if table_id is not None:
        keys.append(f"room:ws:{table_id}:{who}")
    return keys


async def address_claim(who: str, table_id: int | None, channel_name: str, *, ttl: int) -> list[str] | None:
    """Count an anonymous connection under its address (at `table_id`, None for the lobby): the keys it now
    counts in (to refresh and release), or None (and counted nowhere) when one of the caps is reached.
    Entries a killed process left behind stop counting `ttl` seconds after their last refresh."""
    keys, now = address_keys(who, table_id), time.time()
    caps = [ANONYMOUS_CONNECTIONS_PER_ADDRESS, ANONYMOUS_CONNECTIONS_PER_ADDRESS_AND_TABLE]
    async with _redis().pipeline(transaction=True) as pipe:
        for key in keys:
            pipe.zremrangebyscore(key, 0, now - ttl)
            pipe.zadd(key, {channel_name: now})
            pipe.zcard(key)
            pipe.expire(key, ttl)
        answers = await pipe.execute()
    counts = answers[2::4]
    if any(count > cap for count, cap in zip(counts, caps, strict=False)):
        await address_release(keys, channel_name)
        return None
    return keys


async def address_release(keys: list[str], channel_name: str) -> None:
    async with _redis().pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.zrem(key, channel_name)
        await pipe.execute()
