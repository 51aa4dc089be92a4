"""Counters in the room's cache (Redis), shared by every web process, for what costs the room work or sends
someone an email: sign-ups and password resets per client address, the "someone tried to sign up with your
address" mail per email address, the "failed logins on your account" mail per account.

Django's cache and two commands (ADD, then INCR) rather than another library: django-axes counts failed
logins only (a sign-up or a reset request is no failure), and a rate-limit package would keep the same counter
in the same cache behind a decorator. A fixed window: at most `limit` in each `window` seconds from the first.
Keys are hashed (no address or email is readable in Redis) and prefixed by settings.THROTTLE_KEY_PREFIX."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache


def _key(scope: str, subject: str) -> str:
    digest = hashlib.sha256(f"{scope}\x00{subject}".encode()).hexdigest()
    return f"{settings.THROTTLE_KEY_PREFIX}:{scope}:{digest}"


def throttle_hit(*, scope: str, subject: str, limit: int, window: int) -> bool:
    """Counts one more request of `subject` (an address, say) in `scope`; True once it is over `limit` in
    the window, that is when the request must be refused."""
    key = _key(scope, subject)
    if cache.add(key, 1, timeout=window):
        return 1 > limit
    try:
        count = cache.incr(key)
    except ValueError:  # the window ended between the two commands: this request opens the next one
        cache.add(key, 1, timeout=window)
        count = 1
    return count > limit


def once_per(*, scope: str, subject: str, seconds: int) -> bool:
    """True the first time in `seconds` for `subject` in `scope` (then send the email), False after."""
    return bool(cache.add(_key(scope, subject), 1, timeout=seconds))
