"""`/healthz`: what a load balancer or an operator asks before sending players here.

Anyone gets `{"ok": true|false}` with 200 or 503, nothing more. Staff logged in, or a caller sending the
operator's HEALTHZ_TOKEN (header `X-Health-Token`), also get each service's state and timing, and the live
workers' names. Workers are read from one sorted set (pokerroom.celery), never by scanning Redis keys."""

import hmac
import time

import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from accounts import two_factor
from pokerroom.celery import HEARTBEAT_SECONDS, WORKERS_KEY


def _check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True}


def _check_redis() -> dict:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    finally:
        client.close()
    return {"ok": True}


def _check_workers() -> dict:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        live = client.zrangebyscore(WORKERS_KEY, time.time() - HEARTBEAT_SECONDS * 3, "+inf")
    finally:
        client.close()
    workers = sorted(name.decode() for name in live)
    return {"ok": bool(workers), "workers": workers}


CHECKS = {"postgresql": _check_database, "redis": _check_redis, "celery": _check_workers}


def _may_see_details(request) -> bool:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff and two_factor.is_verified(request):
        return True
    token = getattr(settings, "HEALTHZ_TOKEN", "")
    given = request.headers.get("X-Health-Token", "")
    return bool(token) and hmac.compare_digest(token.encode(), given.encode())


@never_cache
def healthz(request):
    report: dict = {}
    for name, check in CHECKS.items():
        started = time.monotonic()
        if name == "celery" and not report["redis"]["ok"]:
            report[name] = {"ok": False, "error": "the broker (Redis) is unreachable", "ms": 0.0}
            continue
        try:
            result = check()
        except Exception as exc:  # noqa: BLE001 - a health check reports every failure, whatever it is
            result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        result["ms"] = round((time.monotonic() - started) * 1000, 1)
        report[name] = result
    healthy = all(item["ok"] for item in report.values())
    body: dict = {"ok": healthy}
    if _may_see_details(request):
        body["services"] = report
    return JsonResponse(body, status=200 if healthy else 503)
