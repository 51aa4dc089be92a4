"""`/healthz`: what a load balancer or an operator asks before sending players here."""

import time

import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from pokerroom.celery import HEARTBEAT_PREFIX


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
        keys = client.keys(HEARTBEAT_PREFIX + "*")
    finally:
        client.close()
    workers = sorted(key.decode()[len(HEARTBEAT_PREFIX):] for key in keys)
    return {"ok": bool(workers), "workers": workers}


CHECKS = {"postgresql": _check_database, "redis": _check_redis, "celery": _check_workers}


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
    return JsonResponse({"ok": healthy, "services": report}, status=200 if healthy else 503)
