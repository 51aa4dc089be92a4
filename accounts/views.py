from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.forms import SignUpForm
from accounts.services import user_signed_up


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("lobby")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        user_signed_up(user=user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("lobby")
    return render(request, "registration/signup.html", {"form": form})


def locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a login while the account or the address is locked out: 429, and a page that
    says what happened and when to try again (the login form's own page, the admin's too)."""
    from django.conf import settings

    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return render(request, "registration/locked_out.html", {"cooloff_minutes": minutes}, status=429)


@login_required
def profile(request):
    return render(request, "accounts/profile.html", {})


# Responsible gaming: deposit limits and self-exclusion (SPEC 2). Thin views over cashier.services.


@login_required
@require_http_methods(["GET", "POST"])
def deposit_limits(request):
    from django.contrib import messages
    from django.utils import timezone
    from django.utils.formats import date_format
    from django.utils.translation import gettext as _

    from accounts.forms import DepositLimitForm
    from cashier.errors import CashierError
    from cashier.selectors import deposit_limits_for
    from cashier.services import deposit_limit_set

    form = DepositLimitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            limit = deposit_limit_set(user=request.user, period=form.cleaned_data["period"],
                                      amount=form.cleaned_data["amount"])
        except CashierError as error:
            messages.error(request, str(error))
        else:
            if limit.pending_from:
                messages.success(request, _("Your new limit will apply from %(date)s.") % {
                    "date": date_format(timezone.localtime(limit.pending_from), "DATETIME_FORMAT")})
            else:
                messages.success(request, _("Your new limit applies now."))
            return redirect("deposit_limits")
    return render(request, "accounts/limits.html", {"form": form, "limits": deposit_limits_for(user=request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def self_exclusion(request):
    from django.contrib import messages
    from django.utils.translation import gettext as _

    from accounts.forms import SelfExclusionForm
    from cashier.errors import CashierError
    from cashier.selectors import self_exclusion_active, self_exclusion_liftable_from
    from cashier.services import player_self_exclude

    form = SelfExclusionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            player_self_exclude(user=request.user, period=form.cleaned_data["period"])
        except CashierError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("You are now excluded from playing. Your seats are being cashed out."))
            return redirect("profile")
    active = self_exclusion_active(user=request.user)
    return render(request, "accounts/self_exclusion.html", {
        "form": form, "active": active, "liftable_from": active and self_exclusion_liftable_from(active),
    })
