"""Origins as `scheme://host:port`, and the room's own by default. No Django here: the settings use it."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_normalise(origin: str) -> str | None:
    """`scheme://host:port` with the port always written, lower case; None if it is not an http(s) origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    if parts.scheme.lower() not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme.lower()}://{host}:{port}"


def origins_default(*, allowed_hosts: list[str], port: int, secure: bool, trusted: list[str]) -> list[str]:
    """The origins the room serves pages from: each allowed host on `make run`'s port over HTTP, or over
    HTTPS on 443 behind a proxy (SECURE_SSL), plus CSRF_TRUSTED_ORIGINS."""
    out = list(trusted)
    for host in allowed_hosts:
        if host == "*" or host.startswith("."):
            continue  # wildcards name no origin: list them in ROOM_ORIGINS
        out.append(f"https://{host}" if secure else f"http://{host}:{port}")
    return out
