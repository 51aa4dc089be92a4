"""Two-factor sign-in pages (accounts.two_factor): the login's second step, and My account's page that turns
it on and off and makes new recovery codes.

With two-factor on, the password alone logs nobody in: the session only remembers, for a few minutes, who
typed the right password (PENDING_KEY); the login happens when the code is right. So a half-done login is
anonymous everywhere, the tables' WebSockets included."""

import time

from django import forms
from django.conf import settings
from django.contrib import auth, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django_otp import login as otp_login

from accounts import two_factor
from accounts.views import RoomLoginView, language_cookie_set

PENDING_KEY = "two_factor_pending"
PENDING_SECONDS = 5 * 60  # time to type the code after the password


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=40,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autofocus": True, "maxlength": "40"}),
    )


class AppCodeForm(CodeForm):
    """Only the app's six digits (turning it on, new recovery codes)."""

    code = forms.CharField(
        label=gettext_lazy("Code from the app"),
        max_length=40,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "maxlength": "40"}
        ),
    )


def _safe_next(request, url: str | None, default: str) -> str:
    """`url` when it is a path of this site (what `next` should be), else `default`."""
    if (
        url
        and url.startswith("/")
        and url_has_allowed_host_and_scheme(
            url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return url
    return default


def _default_next(user) -> str:
    return reverse("admin:index") if user.is_staff else reverse(settings.LOGIN_REDIRECT_URL)


class TwoFactorLoginView(RoomLoginView):
    """The room's login (and the admin's, staff.sites): a right password for an account with two-factor on
    leads to the code step instead of logging in."""

    def form_valid(self, form):
        user = form.get_user()
        if not two_factor.is_enabled(user):
            return super().form_valid(form)
        if self.request.user.is_authenticated:
            auth.logout(self.request)
        self.request.session[PENDING_KEY] = {
            "user": user.pk,
            "backend": user.backend,
            "at": int(time.time()),
            "next": self.get_success_url(),
        }
        return redirect("two_factor_code")


def _pending_user(request):
    pending = request.session.get(PENDING_KEY)
    if not isinstance(pending, dict):
        return None
    if int(time.time()) - int(pending.get("at") or 0) > PENDING_SECONDS:
        request.session.pop(PENDING_KEY, None)
        return None
    return get_user_model().objects.filter(pk=pending.get("user"), is_active=True).first()


def _code_step_user(request):
    """Who the code step is for: who just typed their password, or the logged-in user whose session has not
    entered a code yet (staff sent here by the admin); None when there is no code to ask for."""
    user = _pending_user(request)
    if user is not None:
        return user, True
    user = request.user
    if user.is_authenticated and two_factor.is_enabled(user) and not two_factor.is_verified(request):
        return user, False
    return None, False


@never_cache
@require_http_methods(["GET", "POST"])
def two_factor_code(request):
    """The login's second step: the code the player's authenticator app shows now, or a recovery code."""
    user, pending = _code_step_user(request)
    if user is None:
        if request.user.is_authenticated:
            return HttpResponseRedirect(
                _safe_next(request, request.GET.get("next"), _default_next(request.user))
            )
        messages.error(request, _("Log in again: the time to enter the code is over."))
        return redirect("login")
    form = CodeForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            device = two_factor.code_check(user=user, code=form.cleaned_data["code"])
        except two_factor.TwoFactorLocked as error:
            form.add_error("code", str(error))
            status = 429
        except two_factor.TwoFactorError as error:
            form.add_error("code", str(error))
        else:
            return _code_accepted(request, user=user, device=device, pending=pending)
    return render(request, "registration/two_factor_code.html", {"form": form}, status=status)


def _code_accepted(request, *, user, device, pending: bool):
    if pending:
        data = request.session.pop(PENDING_KEY)
        auth.login(request, user, backend=data["backend"])
        target = _safe_next(request, data.get("next"), _default_next(user))
    else:
        target = _safe_next(request, request.GET.get("next"), _default_next(user))
    otp_login(request, device)
    if device.name == two_factor.RECOVERY_DEVICE_NAME:
        messages.warning(
            request,
            _("You used a recovery code: %(count)d left. Make new ones from My account.")
            % {"count": two_factor.recovery_codes_left(user=user)},
        )
    response = HttpResponseRedirect(target)
    if pending and user.preferred_language:
        language_cookie_set(response, user.preferred_language)
    return response


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def two_factor_manage(request):
    """My account's two-factor page: turn it on (the app's secret and QR code, then a code to confirm), off
    (a code), or make new recovery codes (a code from the app). Recovery codes are shown once, here."""
    user = request.user
    next_url = _safe_next(request, request.POST.get("next") or request.GET.get("next"), "")
    action = request.POST.get("action") if request.method == "POST" else None
    if not two_factor.is_enabled(user):
        return _setup(request, next_url=next_url, posted=action == "enable")
    form = AppCodeForm(request.POST if action is not None else None)
    status = 200
    if action in {"disable", "regenerate"} and form.is_valid():
        try:
            if action == "disable":
                two_factor.disable(user=user, code=form.cleaned_data["code"])
            else:
                codes = two_factor.recovery_codes_regenerate(user=user, code=form.cleaned_data["code"])
        except two_factor.TwoFactorError as error:
            form.add_error("code", str(error))
            status = 429 if isinstance(error, two_factor.TwoFactorLocked) else 400
        else:
            if action == "disable":
                messages.success(request, _("Two-factor sign-in is off: your password alone logs you in."))
                return redirect("two_factor")
            return _codes_page(request, codes=codes, next_url=next_url)
    elif action is not None:
        status = 400
    context = {
        "enabled": True,
        "form": form,
        "action": action,
        "recovery_left": two_factor.recovery_codes_left(user=user),
        "next": next_url,
    }
    return render(request, "accounts/two_factor.html", context, status=status)


def _setup(request, *, next_url: str, posted: bool):
    user = request.user
    device = two_factor.setup_device(user=user)
    form = AppCodeForm(request.POST if posted else None)
    status = 200
    if posted and form.is_valid():
        try:
            device, codes = two_factor.enable(user=user, code=form.cleaned_data["code"])
        except two_factor.TwoFactorError as error:
            form.add_error("code", str(error))
            status = 429 if isinstance(error, two_factor.TwoFactorLocked) else 400
        else:
            otp_login(request, device)
            return _codes_page(request, codes=codes, next_url=next_url, turned_on=True)
    elif request.method == "POST":
        status = 400
    context = {
        "enabled": False,
        "form": form,
        "secret": two_factor.secret_base32(device),
        "otpauth": device.config_url,
        "qr": two_factor.qr_svg(device),
        "next": next_url,
    }
    return render(request, "accounts/two_factor.html", context, status=status)


def _codes_page(request, *, codes: list[str], next_url: str, turned_on: bool = False):
    return render(
        request,
        "accounts/two_factor_codes.html",
        {"codes": codes, "next": next_url, "turned_on": turned_on},
    )
