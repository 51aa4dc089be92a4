"""The address a request came from, for throttling logins (django-axes) and the like.

Without a proxy (`make run`) it is the connection's own address. Behind PROXY_COUNT proxies that each append
to X-Forwarded-For, it is the entry that many places from the right: the one the first proxy of ours saw,
which a client cannot forge (whatever it puts in front of that header stays to the left). Anything that is
not an IP address counts as 0.0.0.0."""

from __future__ import annotations

import ipaddress

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
