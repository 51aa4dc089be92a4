"""Shared fixtures: real processes of the room (daphne, Celery worker) against the test database.

pytest-django creates the test database on the PostgreSQL that DATABASE_URL names (`make test` starts an
embedded one when it is not set); the processes started here are pointed at that test database and at the
same Redis, so a test sees exactly what a player would, through real sockets.
"""

from __future__ import annotations

import os

import pytest

from tests.live import Room, database_url_for

# A test run: passwords hashed in 1,000 PBKDF2 rounds, not 1,000,000 (pokerroom/hashers.py), here and in every
# room process a test starts (they get this environment, tests/live.py). The settings are loaded already.
os.environ["ROOM_TEST_RUN"] = "1"


def _test_run_hashers() -> None:
    from django.conf import settings
    from django.contrib.auth import hashers

    if "pokerroom.hashers.TestRunPBKDF2PasswordHasher" not in settings.PASSWORD_HASHERS:
        settings.PASSWORD_HASHERS = [
            "pokerroom.hashers.TestRunPBKDF2PasswordHasher",
            *settings.PASSWORD_HASHERS,
        ]
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()


_test_run_hashers()


@pytest.fixture(autouse=True)
def language_of_the_room():
    """Every test starts in the room's default language: a test (or a request it made) that activated
    Italian in this thread does not make the next test's refusals Italian."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def testserver_origin(settings):
    """Django's test client and Channels' communicator speak as http://testserver: one of the site's
    origins in tests only (pokerroom.origins)."""
    settings.ROOM_ORIGINS = [*settings.ROOM_ORIGINS, "http://testserver"]


@pytest.fixture(autouse=True)
def throttles_of_this_test(settings) -> str:
    """Each test counts sign-ups, password resets and once-a-day mails afresh (accounts/throttle.py): its own
    key prefix in Redis, here and in the room processes it starts, so no earlier test's count applies."""
    import uuid

    settings.THROTTLE_KEY_PREFIX = f"throttle-test-{uuid.uuid4().hex}"
    return settings.THROTTLE_KEY_PREFIX


@pytest.fixture
def room_env(transactional_db, settings, backends_ended_at_the_end, throttles_of_this_test) -> dict[str, str]:
    """The environment a room process needs to share this test's database and Redis."""
    from django.db import connection

    env = dict(os.environ)
    env["DATABASE_URL"] = database_url_for(connection.settings_dict)
    env["REDIS_URL"] = settings.REDIS_URL
    env["THROTTLE_KEY_PREFIX"] = throttles_of_this_test
    env["DEBUG"] = "0"  # as `make run` and production run
    env.setdefault("LOG_LEVEL", "INFO")
    return env


@pytest.fixture
def live_room(room_env):
    """daphne and a Celery worker against the test database; stopped when the test ends."""
    room = Room(room_env)
    try:
        room.start_worker()
        room.start_daphne()
        yield room
    finally:
        room.stop()


@pytest.fixture
def live_room_with_beat(room_env):
    """As live_room, the worker running beat too: the sweeps (seats past their limits freed every 2 s,
    tournaments started at their time, the payout refresh)."""
    room = Room(room_env)
    try:
        room.start_worker(beat=True)
        room.start_daphne()
        yield room
    finally:
        room.stop()


@pytest.fixture(scope="session")
def backends_ended_at_the_end(django_db_setup, django_db_blocker):
    """Killed daphne and worker processes (the recovery and fault tests) can leave a server backend behind
    for a moment; end them before the test database is dropped (this tears down before django_db_setup)."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def admin_client(db, admin_user):
    """pytest-django's `admin_client`, through the two-factor code step too: staff need it before any admin
    page (tests/admin_client.py makes the superuser's authenticator app and types its code)."""
    from django.test import Client

    from tests.admin_client import staff_log_in

    return staff_log_in(Client(), admin_user)
