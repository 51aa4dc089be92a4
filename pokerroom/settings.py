"""Settings, read from the environment once, here and nowhere else.

Environment variables:
  DATABASE_URL   postgresql://user:pass@host:port/name (a socket directory may be given percent-encoded as host)
  REDIS_URL      redis://host:port/db — channel layer, Celery broker and results, cache
  SECRET_KEY     default: generated once and kept in var/secret_key (SECRET_KEY_FILE names another file)
  DEBUG          0 (default) or 1: Django's debug pages, for development only
  ALLOWED_HOSTS  comma-separated, default "localhost,127.0.0.1,[::1]"
  CSRF_TRUSTED_ORIGINS  comma-separated origins (https://poker.example.com) behind a proxy
  SECURE_SSL     1 when served over HTTPS behind a proxy (default 0)
  PLAY_CHIPS_WELCOME, PLAY_CHIPS_REFILL_BELOW, DEPOSIT_LIMIT_RAISE_DELAY_DAYS, DEPOSIT_MAX: cashier settings
  WITHDRAWAL_SECOND_APPROVAL_FROM, ADJUSTMENT_SECOND_APPROVAL_FROM, DEPOSIT_REVIEW_*: staff reviews (docs/staff.md)
`make run` and `make test` set DATABASE_URL / REDIS_URL to embedded servers when they are not set.
"""

import os
import warnings
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from pokerroom.secret import secret_key_ensure
from pokerroom.site_origins import origins_default

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Safe by default (issue 11): debug pages only when asked for with DEBUG=1; without SECRET_KEY a key is
# generated once and kept in var/secret_key (SECRET_KEY_FILE), the same for every process of the room.
DEBUG = _env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "") or secret_key_ensure()

# `testserver` (Django's test client) is added by the test runner itself, never here.
ALLOWED_HOSTS = _env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = _env_list("CSRF_TRUSTED_ORIGINS", "")

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/pokerroom")
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

INSTALLED_APPS = [
    "daphne",
    "staff.apps.StaffAdminConfig",  # django.contrib.admin, on the room's audited admin site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "csp",  # Content-Security-Policy (CONTENT_SECURITY_POLICY below)
    "axes",  # login throttling: repeated failures lock out an account and an address (AXES_* below)
    "django_otp",  # two-factor sign-in (accounts.two_factor; OTP_* and TWO_FACTOR_* below)
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "accounts",
    "cashier",
    "tables",
    "tournaments",
    "staff",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # /static/ with DEBUG off, with or without a proxy
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): this session entered a code
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "pokerroom.headers.NoStoreMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the page that explains it
]

# Logins go through django-axes first: it refuses an account or an address locked out for failing too often.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "pokerroom.urls"
ASGI_APPLICATION = "pokerroom.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# No health check before each use: Channels closes old connections around every database_sync_to_async
# call, and the check cost daphne a round trip per call (7 % of its time under load, docs/performance.md).
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=False)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# Django's default hashers (PBKDF2 at 1,000,000 rounds first); a test run hashes with 1,000 rounds first
# (pokerroom/hashers.py says why; tests/conftest.py sets ROOM_TEST_RUN for itself and the processes it starts).
if os.environ.get("ROOM_TEST_RUN") == "1":
    from django.conf import global_settings

    PASSWORD_HASHERS = ["pokerroom.hashers.TestRunPBKDF2PasswordHasher", *global_settings.PASSWORD_HASHERS]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes: LOGIN_FAILURE_LIMIT failed logins lock out an account from the address they came from (not from
# elsewhere: a stranger cannot lock a player out), and LOGIN_ADDRESS_FAILURE_LIMIT failed logins over any
# accounts lock out the address for every account, each for LOGIN_LOCKOUT_MINUTES (accounts/login_throttle.py);
# the admin's login included. The account's owner is told by email. A success resets the pair's count.
# Behind a proxy the address is taken from X-Forwarded-For, PROXY_COUNT hops from the right (pokerroom.addresses).
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "20"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = "accounts.login_throttle.lockout_parameters"
AXES_RESET_ON_SUCCESS = True
# A login tried while locked out is refused without being counted: the right password typed then is no
# "wrong password" in the owner's email, and the lockout ends LOGIN_LOCKOUT_MINUTES after the failure that
# caused it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"  # the page in the player's language (axes has no Italian)
AXES_CLIENT_IP_CALLABLE = "pokerroom.addresses.client_ip"
AXES_USERNAME_CALLABLE = "pokerroom.addresses.login_username"
AXES_COOLOFF_MESSAGE = _(
    "Too many failed logins: this account or your address is locked for a while. Try again "
    "later, or reset your password."
)
AXES_VERBOSE = False
PROXY_COUNT = int(os.environ.get("PROXY_COUNT", "0"))
# Sign-ups and password-reset requests taken from one client address in an hour; more get a 429 page and no
# work done (accounts/throttle.py, counters in Redis under THROTTLE_KEY_PREFIX). The "someone tried to sign up
# with your address" mail goes at most once a day to an address.
SIGNUP_PER_ADDRESS_PER_HOUR = int(os.environ.get("SIGNUP_PER_ADDRESS_PER_HOUR", "10"))
PASSWORD_RESET_PER_ADDRESS_PER_HOUR = int(os.environ.get("PASSWORD_RESET_PER_ADDRESS_PER_HOUR", "5"))
THROTTLE_KEY_PREFIX = os.environ.get("THROTTLE_KEY_PREFIX", "throttle")
# Two-factor sign-in (accounts.two_factor): codes from an authenticator app, named "Poker room" there.
# TWO_FACTOR_FAILURE_LIMIT wrong codes in a row close the code step of that account for
# TWO_FACTOR_LOCKOUT_MINUTES; django-otp's own growing delays are off (a factor of 0), the room counts instead.
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Poker room")
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_STATIC_THROTTLE_FACTOR = 0
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # the admin never shows an app's secret or QR code, nor recovery codes
TWO_FACTOR_FAILURE_LIMIT = int(os.environ.get("TWO_FACTOR_FAILURE_LIMIT", "5"))
TWO_FACTOR_LOCKOUT_MINUTES = int(os.environ.get("TWO_FACTOR_LOCKOUT_MINUTES", "15"))
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("it", _("Italian"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["pokerroom.formats"]  # dates with a 24-hour clock; Italian ones as Italian writes them
USE_I18N = True
TIME_ZONE = "Europe/Rome"
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
# WhiteNoise serves the files where they are (static/ and the apps'), read once at start: never a stale
# copy. A proxy in front serves what `collectstatic` puts in STATIC_ROOT instead (README).
WHITENOISE_USE_FINDERS = True
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")  # no collectstatic yet
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "pokerroom.layers.RoomChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": os.environ.get("CHANNEL_PREFIX", "pokerroom")},
    }
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "pokerroom",
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE: dict = {
    "tables-sweep": {"task": "tables.tasks.tables_sweep", "schedule": 2.0, "options": {"expires": 2.0}},
    "tournaments-sweep": {
        "task": "tournaments.tasks.tournaments_sweep",
        "schedule": 3.0,
        "options": {"expires": 3.0},
    },
    "cashier-payments-chase": {
        "task": "cashier.payments_chase",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
    # The payout statistics' daily rows: today's every minute, and yesterday's final figures after midnight.
    "payout-today": {
        "task": "tables.tasks.payout_days_refresh_task",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    "payout-after-midnight": {
        "task": "tables.tasks.payout_days_refresh_task",
        "schedule": crontab(hour=0, minute=5),
        "args": (1,),
    },
}

# HTTPS is the operator's to switch on (SECURE_SSL=1 behind an HTTPS proxy): `make run` serves plain HTTP.
SECURE_SSL = _env_bool("SECURE_SSL", False)
if SECURE_SSL:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Content-Security-Policy (django-csp): scripts only from the room's own files, never inline (the pages keep
# their data in <script type="application/json"> blocks, which are not run); WebSockets to the room itself.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],  # style attributes set by the table's script
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# /healthz gives its details (each service, the workers) to staff and to callers sending this token.
HEALTHZ_TOKEN = os.environ.get("HEALTHZ_TOKEN", "")
# Pages and API answers never kept by a browser's or a proxy's cache (pokerroom.headers): each that may carry
# a player's own data (money, the account, their hands and hole cards, the wallet at a table). Regular
# expressions matched at the start of the path; a shared hand's link shows public cards only.
NO_STORE_PATHS = (
    r"/cashier/",
    r"/accounts/",
    r"/admin/",
    r"/hands/(?!shared/)",
    r"/api/hands/(?!shared/)",
    r"/api/tables/\d+/(?:money|last-hands)/",
)

# The pages that may open the room's WebSockets: scheme, host and port (pokerroom.origins). By default each
# allowed host on PORT over HTTP (`make run`), or on HTTPS behind a proxy with SECURE_SSL, plus
# CSRF_TRUSTED_ORIGINS. The supervisor sets PORT for its web processes.
ROOM_ORIGINS = _env_list("ROOM_ORIGINS", "") or origins_default(
    allowed_hosts=ALLOWED_HOSTS,
    port=int(os.environ.get("PORT", "8000")),
    secure=SECURE_SSL,
    trusted=CSRF_TRUSTED_ORIGINS,
)
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# Email: the console (the process's log) unless an SMTP server is named. Password resets and email
# verification links go this way.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = _env_bool("EMAIL_USE_SSL", EMAIL_PORT == 465)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Poker room <noreply@localhost>")

# The room's own settings (cashier, tables) live next to the code that uses them but are read here, once.
PLAY_CHIPS_WELCOME = int(os.environ.get("PLAY_CHIPS_WELCOME", "1000000"))
PLAY_CHIPS_REFILL_BELOW = int(os.environ.get("PLAY_CHIPS_REFILL_BELOW", "100000"))
DEPOSIT_LIMIT_RAISE_DELAY_DAYS = int(os.environ.get("DEPOSIT_LIMIT_RAISE_DELAY_DAYS", "7"))
# The most one deposit may be, in cents (EUR 10,000.00 by default), whatever the player's own limits.
DEPOSIT_MAX = int(os.environ.get("DEPOSIT_MAX", "1000000"))
CASHIER_PAYMENT_PROVIDER = os.environ.get("CASHIER_PAYMENT_PROVIDER", "cashier.providers.SandboxProvider")
# A withdrawal of this many cents or more is paid only once two members of staff approved it.
WITHDRAWAL_SECOND_APPROVAL_FROM = int(os.environ.get("WITHDRAWAL_SECOND_APPROVAL_FROM", "100000"))
# A balance adjustment of this many cents or more (either way) is booked only once a second member of staff
# approved it (cashier.adjustments; docs/cashier.md).
ADJUSTMENT_SECOND_APPROVAL_FROM = int(os.environ.get("ADJUSTMENT_SECOND_APPROVAL_FROM", "10000"))
# Deposits flagged for staff review (cents): one this large, this much in 24 hours, more deposits than this
# in 24 hours, or this many times the player's median earlier deposit (with at least 3 earlier ones).
DEPOSIT_REVIEW_FROM = int(os.environ.get("DEPOSIT_REVIEW_FROM", "100000"))
DEPOSIT_REVIEW_DAY_TOTAL = int(os.environ.get("DEPOSIT_REVIEW_DAY_TOTAL", "200000"))
DEPOSIT_REVIEW_COUNT_PER_DAY = int(os.environ.get("DEPOSIT_REVIEW_COUNT_PER_DAY", "5"))
DEPOSIT_REVIEW_FACTOR = int(os.environ.get("DEPOSIT_REVIEW_FACTOR", "5"))
# Seconds a seat freed at a full table is held for the player on its waiting list it is offered to.
WAITING_OFFER_SECONDS = int(os.environ.get("WAITING_OFFER_SECONDS", "30"))
