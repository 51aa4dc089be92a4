"""The address a request came from, for throttling logins (django-axes) and the like.

Without a proxy (`make run`) it is the connection's own address. Behind PROXY_COUNT proxies that each append
to X-Forwarded-For, it is the entry that many places from the right: the one the first proxy of ours saw,
which a client cannot forge (whatever it puts in front of that header stays to the left). Anything that is
not an IP address counts as 0.0.0.0."""

from __future__ import annotations

import ipaddress
from types import SimpleNamespace

from django.conf import settings

UNKNOWN = "0.0.0.0"


def _address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


def client_ip(request) -> str:
    remote = _address(request.META.get("REMOTE_ADDR") or "") or UNKNOWN
    hops = getattr(settings, "PROXY_COUNT", 0)
    if hops <= 0:
        return remote
    forwarded = [part for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if len(forwarded) < hops:
        return remote
    return _address(forwarded[-hops]) or remote


USERNAME_KEPT = 150  # the longest username an account may have; a longer one names no account anyway


def login_username(request, credentials: dict | None = None) -> str:
    """The username a login tried, as django-axes records it: at most USERNAME_KEPT characters and no NUL
    (PostgreSQL stores neither a 10,000-character name in its column nor a NUL), so a hostile login form is
    refused like any wrong password rather than answered with a 500."""
    value = (credentials or {}).get("username")
    if value is None:
        value = request.POST.get("username", "") if request is not None and hasattr(request, "POST") else ""
    return str(value).replace("\x00", "")[:USERNAME_KEPT]


def scope_ip(scope: dict) -> str:
    """`client_ip` for a WebSocket's ASGI scope: its peer and its X-Forwarded-For header, read the same way."""
    client = scope.get("client") or ("", 0)
    headers = dict(scope.get("headers") or ())
    forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1")
    return client_ip(
        SimpleNamespace(META={"REMOTE_ADDR": client[0] or "", "HTTP_X_FORWARDED_FOR": forwarded})
    )


class ClientAddressMiddleware:
    """Puts the client's address (`scope_ip`) in a WebSocket's scope as `room_address`, for the consumers'
    limits per address (tables.ws_limits)."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        return await self.inner(dict(scope, room_address=scope_ip(scope)), receive, send)
