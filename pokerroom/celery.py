import os
import time

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokerroom.settings")

app = Celery("pokerroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A worker keeps its database connection from one task to the next, as a web process keeps its own: Celery's
# Django fixup closes every connection before and after each task unless CELERY_DB_REUSE_MAX is set, and each
# deal, timeout and bot move connected to PostgreSQL anew (a quarter of a deal's time in a saturated run,
# docs/performance.md). With it set, the fixup closes them only every CELERY_DB_REUSE_MAX tasks, and around
# each task Django's own rule applies (`_database_connections_kept`): closed once older than CONN_MAX_AGE, or
# broken; a kept connection is checked once before its next task's first query (CONN_HEALTH_CHECKS).
app.conf.CELERY_DB_REUSE_MAX = 1000


def _database_connections_kept() -> None:
    from celery.signals import task_postrun, task_prerun, worker_process_init

    @worker_process_init.connect(weak=False)
    def checked_before_reuse(**kwargs):
        from django.db import connections

        for alias in connections:
            connections[alias].settings_dict["CONN_HEALTH_CHECKS"] = True

    def close_old(**kwargs):
        from django.db import close_old_connections

        close_old_connections()

    task_prerun.connect(close_old, weak=False)
    task_postrun.connect(close_old, weak=False)


_database_connections_kept()


# Workers announce themselves in Redis every few seconds, so /healthz can tell at once whether any is alive
# (a broadcast ping would make every health check wait out its whole timeout). Each worker also runs the
# decision clock (tables.clock), which sends the timeouts of decisions whose time ran out.
HEARTBEAT_PREFIX = "room:worker:"
HEARTBEAT_SECONDS = 5
# Every worker's last beat (hostname -> unix time), one sorted set: /healthz reads it without scanning keys.
WORKERS_KEY = "room:workers"


def _heartbeat_loop(hostname: str, stop) -> None:
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    while True:
        try:
            now = time.time()
            with client.pipeline() as pipe:
                pipe.set(HEARTBEAT_PREFIX + hostname, "1", ex=HEARTBEAT_SECONDS * 3)
                pipe.zadd(WORKERS_KEY, {hostname: now})
                pipe.zremrangebyscore(WORKERS_KEY, 0, now - HEARTBEAT_SECONDS * 60)  # long gone
                pipe.execute()
        except redis.RedisError:
            pass  # Redis is down; /healthz says so, and the next beat tries again
        if stop.wait(HEARTBEAT_SECONDS):
            break
    try:
        client.delete(HEARTBEAT_PREFIX + hostname)
        client.zrem(WORKERS_KEY, hostname)
    except redis.RedisError:
        pass


def _connect_heartbeat() -> None:
    import threading

    from celery.signals import worker_ready, worker_shutdown

    stop = threading.Event()
    threads: list[threading.Thread] = []

    @worker_ready.connect(weak=False)
    def start(sender, **kwargs):
        from tables.tasks import clock_run

        heartbeat = threading.Thread(target=_heartbeat_loop, args=(sender.hostname, stop), daemon=True)
        clock = threading.Thread(target=clock_run, args=(stop,), name="decision-clock", daemon=True)
        for thread in (heartbeat, clock):
            threads.append(thread)
            thread.start()

    @worker_shutdown.connect(weak=False)
    def finish(sender, **kwargs):
        stop.set()
        for thread in threads:
            thread.join(timeout=3)  # the heartbeat's last act is to remove the worker's key


_connect_heartbeat()
