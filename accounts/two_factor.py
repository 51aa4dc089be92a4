"""Two-factor sign-in (issue 32): a six-digit code from an authenticator app (TOTP, django-otp) after the
password, and ten single-use recovery codes (django-otp static tokens) for a lost phone.

A player turns it on from My account; staff must have it before any admin page. With it on, the login asks
for a code before the session is logged in (accounts.two_factor_views), and a EUR withdrawal asks for one too
(cashier.services.withdrawal_request). Wrong codes are counted per account: TWO_FACTOR_FAILURE_LIMIT of them
close the code step for TWO_FACTOR_LOCKOUT_MINUTES (django-otp's own growing delays are off, settings.py)."""

from base64 import b32encode

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext as _
from django_otp import devices_for_user
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

RECOVERY_CODE_COUNT = 10
APP_DEVICE_NAME = "authenticator"
RECOVERY_DEVICE_NAME = "recovery"
CODE_MAX_LENGTH = (
    20  # a six-digit code or an eight-letter recovery code, with spaces or dashes a player types
)


class TwoFactorError(Exception):
    """A code was refused; the message says why, in the player's language."""


class TwoFactorLocked(TwoFactorError):
    """Too many wrong codes in a row: no code is checked until the wait is over."""


def _failures_key(user) -> str:
    """Per account; the time it was made too, so that a number reused (a database made again) starts afresh."""
    joined = int(user.date_joined.timestamp() * 1_000_000) if user.date_joined else 0
    return f"two-factor-failures:{user.pk}:{joined}"


def _failure_limit() -> int:
    return int(getattr(settings, "TWO_FACTOR_FAILURE_LIMIT", 5))


def _lockout_seconds() -> int:
    return int(getattr(settings, "TWO_FACTOR_LOCKOUT_MINUTES", 15)) * 60


def lockout_minutes() -> int:
    return _lockout_seconds() // 60


def is_enabled(user) -> bool:
    """The player confirmed an authenticator app: logins and EUR withdrawals ask for a code."""
    if user is None or not user.is_authenticated:
        return False
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def is_verified(request) -> bool:
    """This session entered a right code (or turned two-factor on) since it logged in."""
    user = getattr(request, "user", None)
    check = getattr(user, "is_verified", None)
    return bool(user is not None and user.is_authenticated and check is not None and check())


def setup_device(*, user) -> TOTPDevice:
    """The app secret the player is adding to their app: the same one until they confirm it with a code."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False, name=APP_DEVICE_NAME).first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=APP_DEVICE_NAME, confirmed=False)
    return device


def secret_base32(device: TOTPDevice) -> str:
    """The secret as an app asks for it when typed by hand: base32, in groups of four."""
    secret = b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def qr_svg(device: TOTPDevice) -> str:
    """The otpauth:// address as a QR code, an inline SVG element (drawn here: no image file, no Pillow)."""
    import qrcode
    from qrcode.image.svg import SvgPathImage

    image = qrcode.make(device.config_url, image_factory=SvgPathImage, box_size=8, border=2)
    return image.to_string(encoding="unicode")


def code_normalize(code: str) -> str:
    """What the player typed, without the spaces and dashes apps and our recovery list put in codes."""
    return "".join(ch for ch in str(code or "") if ch not in " -\t").lower()


def _locked(user) -> bool:
    return int(cache.get(_failures_key(user)) or 0) >= _failure_limit()


def _failure_count(user) -> None:
    key = _failures_key(user)
    cache.add(key, 0, timeout=_lockout_seconds())
    try:
        cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=_lockout_seconds())


def _locked_error() -> TwoFactorLocked:
    return TwoFactorLocked(
        _("Too many wrong codes: wait %(minutes)d minutes, then try again.") % {"minutes": lockout_minutes()}
    )


def _app_token_match(device: TOTPDevice, code: str) -> bool:
    return len(code) == device.digits and code.isascii() and code.isdigit() and device.verify_token(code)


def code_check(*, user, code: str, recovery: bool = True):
    """The device that accepts `code` (the app's current code, or, with `recovery`, an unused recovery code,
    which is then used up); TwoFactorError when it is wrong or too many wrong codes came before. A right code
    starts the count of wrong ones again."""
    if _locked(user):
        raise _locked_error()
    code = code_normalize(code)
    matched = None
    if code and len(code) <= CODE_MAX_LENGTH:
        with transaction.atomic():
            for device in devices_for_user(user, confirmed=True, for_verify=True):
                if isinstance(device, TOTPDevice) and _app_token_match(device, code):
                    matched = device
                elif recovery and isinstance(device, StaticDevice) and code.isalnum() and code.isascii():
                    matched = device if device.verify_token(code) else None
                if matched is not None:
                    break
    if matched is None:
        _failure_count(user)
        if _locked(user):
            raise _locked_error()
        raise TwoFactorError(_("That code is not right. Enter the code your authenticator app shows now."))
    cache.delete(_failures_key(user))
    return matched


def _recovery_codes_new(*, user) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_DEVICE_NAME, confirmed=True)
    tokens = [StaticToken.random_token() for _ in range(RECOVERY_CODE_COUNT)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=token) for token in tokens)
    return [f"{token[:4]}-{token[4:]}" for token in tokens]


def enable(*, user, code: str) -> tuple[TOTPDevice, list[str]]:
    """Turn two-factor on once the player typed the code their app shows for the new secret: the app is
    confirmed, and ten new recovery codes are made (returned to be shown once)."""
    if _locked(user):
        raise _locked_error()
    code = code_normalize(code)
    with transaction.atomic():
        device = TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False).first()
        if device is None:
            raise TwoFactorError(_("Open this page again to get a new secret for your app."))
        accepted = _app_token_match(device, code)
        if accepted:
            TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
            device.confirmed = True
            device.save(update_fields=["confirmed"])
            codes = _recovery_codes_new(user=user)
    if not accepted:
        _failure_count(user)
        raise TwoFactorError(
            _("That code is not right. Check that your app shows the Poker room entry and type its code now.")
        )
    cache.delete(_failures_key(user))
    return device, codes


def disable(*, user, code: str) -> None:
    """Turn two-factor off, with a current code or a recovery code; staff keep it (the admin needs it)."""
    if user.is_staff:
        raise TwoFactorError(_("Staff must keep two-factor sign-in on: the staff pages need it."))
    code_check(user=user, code=code)
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()


def recovery_codes_regenerate(*, user, code: str) -> list[str]:
    """Ten new recovery codes for a current code from the app; the old ones stop working."""
    code_check(user=user, code=code, recovery=False)
    with transaction.atomic():
        return _recovery_codes_new(user=user)


def recovery_codes_left(*, user) -> int:
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()
