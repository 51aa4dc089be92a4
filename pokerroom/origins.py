"""The site's own origins, the only pages that may open its WebSockets.

A browser sends `Origin: scheme://host[:port]` with every WebSocket; Channels' AllowedHostsOriginValidator
checked the host alone, so a page served from any port or scheme of an allowed host (say a local app on
http://127.0.0.1:9999) could open a player's connection with their cookies. Here scheme, host and port must
all be one of settings.ROOM_ORIGINS, read at each connection (tests add Django's `testserver` there)."""

from __future__ import annotations

from channels.security.websocket import OriginValidator
from django.conf import settings

from pokerroom.site_origins import origin_normalise


class SiteOriginValidator(OriginValidator):
    def __init__(self, application):
        super().__init__(application, allowed_origins=[])

    def valid_origin(self, parsed_origin) -> bool:
        if parsed_origin is None:
            return False
        seen = origin_normalise(parsed_origin.geturl())
        allowed = {origin_normalise(origin) for origin in settings.ROOM_ORIGINS}
        return seen is not None and seen in allowed
