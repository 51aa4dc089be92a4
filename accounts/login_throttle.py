"""Login throttling rules on top of django-axes (issue 32).

Failed logins lock out an account *from one address* (LOGIN_FAILURE_LIMIT failures of that pair), so a
stranger who knows a player's name (it is public at the tables) cannot keep them out: the player still logs in
from their own address. An address that failed LOGIN_ADDRESS_FAILURE_LIMIT times over any accounts is locked
out for every account, so one address cannot try many. Both for LOGIN_LOCKOUT_MINUTES. When an account's
failures reach LOGIN_FAILURE_LIMIT, its owner is told by email, in their language, once a lockout window."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Sum

ACCOUNT_AND_ADDRESS = ["username", "ip_address"]


def _failures(**filters) -> int:
    from axes.models import AccessAttempt
    from django.utils import timezone

    since = timezone.now() - settings.AXES_COOLOFF_TIME
    found = AccessAttempt.objects.filter(attempt_time__gte=since, **filters).aggregate(
        total=Sum("failures_since_start")
    )
    return int(found["total"] or 0)


def lockout_parameters(request_or_attempt, credentials=None) -> list:
    """AXES_LOCKOUT_PARAMETERS: the account and the address together; the address alone as well once it
    failed LOGIN_ADDRESS_FAILURE_LIMIT times (axes then counts all its failures, over the account limit)."""
    address = getattr(request_or_attempt, "axes_ip_address", None) or getattr(
        request_or_attempt, "ip_address", None
    )
    if address and _failures(ip_address=address) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
        return [ACCOUNT_AND_ADDRESS, "ip_address"]
    return [ACCOUNT_AND_ADDRESS]


def login_failures_notify(sender, request=None, username=None, ip_address=None, **kwargs) -> None:
    """axes' `user_locked_out`: when the account (not only the address) failed LOGIN_FAILURE_LIMIT times in
    the window, from one address or several, email its owner once a window."""
    from accounts.models import User
    from accounts.throttle import once_per

    if not username:
        return
    user = User.objects.filter(username=username, is_active=True, is_bot=False).exclude(email="").first()
    if user is None:
        return
    failures = _failures(username=username)
    if failures < settings.AXES_FAILURE_LIMIT:
        return
    window = int(settings.AXES_COOLOFF_TIME.total_seconds())
    if once_per(scope="login-failures-mail", subject=str(user.pk), seconds=window):
        login_failures_mail_send(user=user, failures=failures, address=ip_address or "")


def login_failures_mail_send(*, user, failures: int, address: str) -> None:
    """The email to the owner of an account locked out after wrong passwords, in the language of their
    profile (the room's default without one)."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.utils import translation

    context = {
        "user": user,
        "failures": failures,
        "address": address,
        "minutes": max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)),
    }
    with translation.override(user.preferred_language or settings.LANGUAGE_CODE):
        subject = render_to_string("accounts/login_failures_subject.txt", context).strip()
        body = render_to_string("accounts/login_failures_email.txt", context)
    send_mail(subject, body, None, [user.email])
