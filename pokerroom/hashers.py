"""A password hasher for the test suite only.

Django's PBKDF2 takes 1,000,000 rounds a password (about half a second of CPU here, seconds on a loaded
machine), and the suite makes well over a thousand players. Under a test run (`ROOM_TEST_RUN=1`, set by
tests/conftest.py for itself and for every room process a test starts) passwords are hashed with this
1,000-round PBKDF2 first; every other hasher stays in the list, so a stored password of either kind checks.
A room that is not a test run never lists it (pokerroom/settings.py).
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class TestRunPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    algorithm = "pbkdf2_sha256_testrun"
    iterations = 1_000
