"""What happens around a player's account. Accounts import no other app of the room: the apps that must act
when something happens here (the cashier gives a new player their welcome chips) register a function, once,
in their `AppConfig.ready()`, rather than listening to signals, so the order of things is written down.

Closing an account takes the player's money off the tables: that is the cashier's `player_deactivate`."""

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from accounts.audit import staff_action_record
from accounts.models import User

_signed_up: list[Callable] = []


def user_signed_up_register(func: Callable) -> None:
    """`func(*, user)`: called inside the transaction of `user_signed_up`, in the order registered."""
    if func not in _signed_up:
        _signed_up.append(func)


def user_signed_up(*, user) -> None:
    """Called once, right after a player's account is created (in the sign-up view's request)."""
    with transaction.atomic():
        for func in _signed_up:
            func(user=user)


EMAIL_VERIFY_SALT = "accounts.email-verify"
EMAIL_VERIFY_MAX_AGE = 3 * 24 * 3600  # seconds a verification link works


def email_verification_token(*, user) -> str:
    """A signed token naming the user and the address it proves (a later change of email voids it)."""
    from django.core import signing

    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=EMAIL_VERIFY_SALT, compress=True)


def email_verification_send(*, user, request) -> None:
    """Email `user` the link that confirms their address (the console, or SMTP when EMAIL_HOST is set)."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.urls import reverse

    link = request.build_absolute_uri(reverse("email_verify", args=[email_verification_token(user=user)]))
    context = {"user": user, "link": link}
    send_mail(
        render_to_string("accounts/email_verify_subject.txt", context).strip(),
        render_to_string("accounts/email_verify_email.txt", context),
        None,
        [user.email],
    )


SIGNUP_ATTEMPT_MAIL_EVERY = 24 * 3600  # seconds: at most one such mail a day to an address


def email_signup_attempt_send(*, email: str, request) -> None:
    """Someone signed up with an address that already has an account: tell its owner, by email only (the page
    answers as for a new address, so that nobody learns who plays here), at most once a day."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.urls import reverse

    from accounts.throttle import once_per

    if not once_per(scope="signup-taken-mail", subject=email.lower(), seconds=SIGNUP_ATTEMPT_MAIL_EVERY):
        return

    context = {
        "login": request.build_absolute_uri(reverse("login")),
        "reset": request.build_absolute_uri(reverse("password_reset")),
    }
    send_mail(
        render_to_string("accounts/email_taken_subject.txt", context).strip(),
        render_to_string("accounts/email_taken_email.txt", context),
        None,
        [email],
    )


def email_verify(*, token: str):
    """The user whose address the token proves, now marked verified; None for a bad, old or outdated link."""
    from django.core import signing
    from django.utils import timezone

    from accounts.models import User

    try:
        data = signing.loads(token, salt=EMAIL_VERIFY_SALT, max_age=EMAIL_VERIFY_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or user.email.lower() != data.get("e"):
        return None
    if user.email_verified_at is None:
        user.email_verified_at = timezone.now()
        user.save(update_fields=["email_verified_at"])
    return user


def identity_verify(*, user, staff_user) -> bool:
    """Staff checked the player's identity documents (what withdrawals need). False when there was nothing
    to do: already verified, or a house bot, which has no identity."""
    now = timezone.now()
    with transaction.atomic():
        done = User.objects.filter(pk=user.pk, identity_verified_at__isnull=True, is_bot=False).update(
            identity_verified_at=now, identity_verified_by=staff_user
        )
        if done:
            staff_action_record(
                actor=staff_user,
                action="identity.verify",
                target=user,
                before={"identity_verified_at": None},
                after={"identity_verified_at": now, "identity_verified_by": staff_user.pk},
            )
    if done:
        user.identity_verified_at, user.identity_verified_by = now, staff_user
    return bool(done)


_account_closer: Callable | None = None


def account_close_register(func: Callable) -> None:
    """`func(*, user, staff_user, note)`: what closing an account does beyond the flag (the cashier's
    `player_deactivate`: seats cashed out, tournaments left, wallets locked while it happens)."""
    global _account_closer
    _account_closer = func


def account_active_set(*, user, active: bool, staff_user, note: str = "") -> None:
    """Staff open or close an account from the admin's Users page: closing is the registered service (the same
    as the player page's), opening `player_reactivate`; each recorded in the audit log. Lock: none held."""
    if active:
        player_reactivate(user=user, staff_user=staff_user, note=note)
    elif _account_closer is not None:
        _account_closer(user=user, staff_user=staff_user, note=note)
    else:  # no cashier: nothing to cash out, the flag and its audit entry only
        with transaction.atomic():
            if User.objects.filter(pk=user.pk, is_active=True).update(is_active=False):
                staff_action_record(
                    actor=staff_user,
                    action="player.deactivate",
                    target=user,
                    before={"is_active": True},
                    after={"is_active": False},
                    note=note,
                )
        user.is_active = False


def player_reactivate(*, user, staff_user, note: str = "") -> None:
    with transaction.atomic():
        if User.objects.filter(pk=user.pk, is_active=False).update(is_active=True):
            staff_action_record(
                actor=staff_user,
                action="player.reactivate",
                target=user,
                before={"is_active": False},
                after={"is_active": True},
                note=note,
            )
    user.is_active = True
