"""ASGI entry point: HTTP through Django (static files by WhiteNoise's middleware, for a room run without a
proxy), WebSockets through Channels with the session's user, refused unless the Origin is one of the site's
own (pokerroom.origins)."""

import gc
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokerroom.settings")

# The event loop shares the interpreter with the consumers' database threads (tables.consumers): a thread
# busy settling a hand hands the loop its turn after 0.2 ms rather than Python's default 5 ms, so frames keep
# flowing to the other tables meanwhile.
sys.setswitchinterval(float(os.environ.get("ROOM_SWITCH_INTERVAL", "0.0002")))
GC_YOUNG = int(os.environ.get("ROOM_GC_YOUNG", "20000"))

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from pokerroom.addresses import ClientAddressMiddleware  # noqa: E402
from pokerroom.origins import SiteOriginValidator  # noqa: E402
from pokerroom.routing import websocket_urlpatterns  # noqa: E402
from tables.consumers import RoomAuthMiddlewareStack  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SiteOriginValidator(
            ClientAddressMiddleware(RoomAuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# Under ASGI each HTTP request runs its synchronous part on a thread of its own, and a persistent database
# connection (CONN_MAX_AGE) left open there outlives the request with nothing to reuse it: hundreds of pages
# and /api/hands/ calls ran PostgreSQL out of connections. They are closed as each request ends; the
# consumers' database threads (tables.consumers) keep theirs.
from django.core.signals import request_finished  # noqa: E402
from django.db import connections  # noqa: E402


def _request_connections_close(**kwargs) -> None:
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:  # one inside a transaction is its owner's (a test's, say)
            connection.close()


request_finished.connect(
    _request_connections_close, weak=False, dispatch_uid="room-request-connections-close"
)

# Garbage collection: everything loaded at start-up (Django, the apps, the engine) is frozen out of the
# collector's reach, and young objects are collected in larger batches. A full collection scanning the
# startup heap paused the process for 180-240 ms during play (measured with gc.callbacks), the worst
# action-to-broadcast latencies of a busy room.
gc.collect()
gc.freeze()
gc.set_threshold(GC_YOUNG, 20, 20)
