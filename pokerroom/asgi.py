"""ASGI entry point: HTTP through Django (static files included, for a room run without a proxy), WebSockets
through Channels with the session's user, refused unless the Origin is one of ALLOWED_HOSTS."""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokerroom.settings")

# The event loop shares the interpreter with the consumers' database threads (tables.consumers): a thread
# busy settling a hand hands the loop its turn after 1 ms rather than Python's default 5 ms, so frames keep
# flowing to the other tables meanwhile.
sys.setswitchinterval(float(os.environ.get("ROOM_SWITCH_INTERVAL", "0.001")))

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from pokerroom.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ASGIStaticFilesHandler(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
