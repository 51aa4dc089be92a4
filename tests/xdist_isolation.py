"""Each pytest-xdist worker of `make test` gets a Redis database and a channel-layer prefix of its own.

Loaded with `-p` (pyproject.toml's addopts), so it runs before pytest-django reads the settings, which read
REDIS_URL and CHANNEL_PREFIX once (pokerroom/settings.py). The test database is already one per worker
(pytest-django names it test_<name>_gw0, ...); without this the workers would share Redis: one's Celery worker
would take the other's tasks, one's clock the other's due tables, and Redis pub/sub (the channel layer) is not
scoped by database at all, so the prefix keeps one worker's table groups from the other's. The room processes
a test starts get this environment (tests/live.py). Outside xdist it does nothing.
"""

import os

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw") and _worker[2:].isdigit():
    _url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    _base, _, _db = _url.rpartition("/")
    if not (_db.isdigit() and _base.count("/") >= 2):
        _base = _url.rstrip("/")
    os.environ["REDIS_URL"] = f"{_base}/{int(_worker[2:]) + 1}"
    os.environ["CHANNEL_PREFIX"] = f"pokerroom-{_worker}"
