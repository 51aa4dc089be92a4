"""Settings, read from the environment once, here and nowhere else.

Environment variables:
  DATABASE_URL   postgresql://user:pass@host:port/name (a socket directory may be given percent-encoded as host)
  REDIS_URL      redis://host:port/db — channel layer, Celery broker and results, cache
  SECRET_KEY     required when DEBUG=0
  DEBUG          1 (default) or 0
  ALLOWED_HOSTS  comma-separated, default "localhost,127.0.0.1,[::1]"
  CSRF_TRUSTED_ORIGINS  comma-separated origins (https://poker.example.com) behind a proxy
  SECURE_SSL     1 when served over HTTPS behind a proxy (default: the opposite of DEBUG)
  PLAY_CHIPS_WELCOME, PLAY_CHIPS_REFILL_BELOW, DEPOSIT_LIMIT_RAISE_DELAY_DAYS: cashier settings (see cashier)
  WITHDRAWAL_SECOND_APPROVAL_FROM, DEPOSIT_REVIEW_*: staff reviews (docs/staff.md)
`make run` and `make test` set DATABASE_URL / REDIS_URL to embedded servers when they are not set.
"""

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = _env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("SECRET_KEY must be set when DEBUG=0")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdefghij"

ALLOWED_HOSTS = _env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
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
    "accounts",
    "cashier",
    "tables",
    "tournaments",
    "staff",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
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
    "cashier-payments-chase": {"task": "cashier.payments_chase", "schedule": 300.0, "options": {"expires": 300.0}},
    # The payout statistics' daily rows: today's every minute, and yesterday's final figures after midnight.
    "payout-today": {"task": "tables.tasks.payout_days_refresh_task", "schedule": 60.0, "options": {"expires": 60.0}},
    "payout-after-midnight": {
        "task": "tables.tasks.payout_days_refresh_task", "schedule": crontab(hour=0, minute=5), "args": (1,),
    },
}

SECURE_SSL = _env_bool("SECURE_SSL", not DEBUG)
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
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}

# The room's own settings (cashier, tables) live next to the code that uses them but are read here, once.
PLAY_CHIPS_WELCOME = int(os.environ.get("PLAY_CHIPS_WELCOME", "1000000"))
PLAY_CHIPS_REFILL_BELOW = int(os.environ.get("PLAY_CHIPS_REFILL_BELOW", "100000"))
DEPOSIT_LIMIT_RAISE_DELAY_DAYS = int(os.environ.get("DEPOSIT_LIMIT_RAISE_DELAY_DAYS", "7"))
CASHIER_PAYMENT_PROVIDER = os.environ.get("CASHIER_PAYMENT_PROVIDER", "cashier.providers.SandboxProvider")
# A withdrawal of this many cents or more is paid only once two members of staff approved it.
WITHDRAWAL_SECOND_APPROVAL_FROM = int(os.environ.get("WITHDRAWAL_SECOND_APPROVAL_FROM", "100000"))
# Deposits flagged for staff review (cents): one this large, this much in 24 hours, more deposits than this
# in 24 hours, or this many times the player's median earlier deposit (with at least 3 earlier ones).
DEPOSIT_REVIEW_FROM = int(os.environ.get("DEPOSIT_REVIEW_FROM", "100000"))
DEPOSIT_REVIEW_DAY_TOTAL = int(os.environ.get("DEPOSIT_REVIEW_DAY_TOTAL", "200000"))
DEPOSIT_REVIEW_COUNT_PER_DAY = int(os.environ.get("DEPOSIT_REVIEW_COUNT_PER_DAY", "5"))
DEPOSIT_REVIEW_FACTOR = int(os.environ.get("DEPOSIT_REVIEW_FACTOR", "5"))
# Seconds a seat freed at a full table is held for the player on its waiting list it is offered to.
WAITING_OFFER_SECONDS = int(os.environ.get("WAITING_OFFER_SECONDS", "30"))
