"""Response headers the room adds itself (the Content-Security-Policy comes from django-csp)."""

from __future__ import annotations

import re
from functools import cache

from django.conf import settings


@cache
def _no_store_paths(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def is_private_path(path: str) -> bool:
    """Whether the answer at `path` may carry a player's own data (settings.NO_STORE_PATHS)."""
    return _no_store_paths(tuple(settings.NO_STORE_PATHS)).match(path) is not None


class NoStoreMiddleware:
    """`Cache-Control: no-store` on every page and API answer that may carry a player's own data: the
    cashier, the account and the admin, My hands and its downloads (one's own hole cards), the replayer's and
    a hand's data, a table's last hands and the wallet at a table. A browser's back button cache or a shared
    proxy never keeps them; public pages (the lobby, payout, fairness) stay cacheable."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_private_path(request.path):
            response["Cache-Control"] = "no-store"
        return response
