"""Response headers the room adds itself (the Content-Security-Policy comes from django-csp)."""

from __future__ import annotations

from django.conf import settings


class NoStoreMiddleware:
    """`Cache-Control: no-store` on the cashier's and the account's pages (and the admin's): balances, card
    labels and personal data are never kept by a browser's back button cache or a shared proxy."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith(tuple(settings.NO_STORE_PATH_PREFIXES)):
            response["Cache-Control"] = "no-store"
        return response
