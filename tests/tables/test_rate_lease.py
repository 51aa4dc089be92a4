"""A player's rate limit over every web process is a token bucket in Redis; a web process takes a few of the
player's tokens in one call (a lease) and spends them on the player's next messages, so most messages cost no
Redis call (docs/protocol.md). Read here on the real Redis: what the bucket holds after each message, and that
the lease never lets more through than the bucket gave."""

import asyncio
import time

import pytest
import redis
from django.conf import settings

from tables import ws_limits
from tables.ws_limits import (
    USER_LEASE_TOKENS,
    USER_RATE_BURST,
    USER_RATE_PER_SECOND,
    USER_REFUSED,
    user_allow,
)
from tests.factories import player_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_loop_caches():
    """Each test runs its own event loop: the clients, scripts and leases kept per loop start empty."""
    caches = (
        ws_limits._redis_clients,
        ws_limits._user_scripts,
        ws_limits._user_leases,
        ws_limits._lease_asks,
        ws_limits._refused_until,
    )
    for cache in caches:
        cache.clear()
    yield
    for cache in caches:
        cache.clear()


def _bucket(user_id: int) -> float:
    """The tokens the player's bucket held when a process last took some (a full bucket has no key)."""
    kept = redis.Redis.from_url(settings.REDIS_URL).hget(f"room:rate:all:{user_id}", "n")
    return float(USER_RATE_BURST if kept is None else kept)


@pytest.fixture
def no_refill(monkeypatch):
    """A bucket that refills a token in about 17 minutes: what a test reads of it after a few messages is what
    they took, however long a busy machine stalls between them (at the room's rate a stall of a twentieth of
    a second refilled a token and the readings no longer told a lease from a refill)."""
    monkeypatch.setattr(ws_limits, "USER_RATE_PER_SECOND", 0.001)


def test_a_process_takes_a_few_tokens_at_once_and_spends_them_without_asking_redis(no_refill):
    player = player_create()

    async def scenario():
        seen = []
        started = time.monotonic()
        for _ in range(USER_LEASE_TOKENS + 1):
            assert await user_allow(player.id, chat=False) == 0
            seen.append(_bucket(player.id))
        return seen, time.monotonic() - started

    seen, elapsed = asyncio.run(scenario())
    assert seen[0] == USER_RATE_BURST - USER_LEASE_TOKENS, "the first message took a lease"
    assert seen[1:USER_LEASE_TOKENS] == [seen[0]] * (USER_LEASE_TOKENS - 1), "the next ones spent it"
    # the next lease took 5 more; the bucket refilled meanwhile at its rate (a loaded machine takes its time)
    refilled = USER_RATE_PER_SECOND * elapsed
    assert seen[USER_LEASE_TOKENS] <= seen[0] - USER_LEASE_TOKENS + refilled, "then the next lease"


def test_a_chat_line_is_asked_of_redis_and_leaves_the_lease_alone(no_refill):
    player = player_create()

    async def scenario():
        assert await user_allow(player.id, chat=False) == 0
        before = _bucket(player.id)
        assert await user_allow(player.id, chat=True) == 0
        after_chat = _bucket(player.id)
        assert await user_allow(player.id, chat=False) == 0
        return before, after_chat, _bucket(player.id)

    before, after_chat, after = asyncio.run(scenario())
    assert before - 1 <= after_chat < before, "the chat line took one token of the bucket"
    assert after == after_chat, "the message after it spent the lease"


def test_the_lease_lets_through_no_more_than_the_bucket_gives():
    player = player_create()

    async def scenario():
        started = time.monotonic()
        answers = [await user_allow(player.id, chat=False) for _ in range(3 * USER_RATE_BURST)]
        return answers, time.monotonic() - started

    answers, elapsed = asyncio.run(scenario())
    allowed = answers.count(0)
    assert set(answers) == {0, USER_REFUSED}
    assert USER_RATE_BURST <= allowed <= USER_RATE_BURST + USER_RATE_PER_SECOND * elapsed + 1, (
        allowed,
        elapsed,
    )


def test_a_lease_not_spent_in_time_is_dropped(monkeypatch):
    monkeypatch.setattr(ws_limits, "USER_LEASE_SECONDS", 0.0)
    player = player_create()

    async def scenario():
        assert await user_allow(player.id, chat=False) == 0
        assert await user_allow(player.id, chat=False) == 0
        return _bucket(player.id)

    left = asyncio.run(scenario())
    assert left < USER_RATE_BURST - 2 * USER_LEASE_TOKENS + 1, "each message took a lease of its own"


def test_messages_arriving_at_once_wait_for_one_lease_rather_than_each_taking_one():
    """Twelve messages of one player at once on one process: three leases of five, not twelve."""
    player = player_create()

    async def scenario():
        return await asyncio.gather(*(user_allow(player.id, chat=False) for _ in range(12)))

    answers = asyncio.run(scenario())
    assert answers == [0] * 12
    assert _bucket(player.id) >= USER_RATE_BURST - 3 * USER_LEASE_TOKENS, "no tokens taken and dropped"
