"""The player's cashier page: balances, deposit and withdrawal forms, refills, the statement. Thin: parse,
call one service, answer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.two_factor import is_enabled as two_factor_enabled
from cashier import services
from cashier.errors import CashierError
from cashier.forms import DepositForm, DepositLimitForm, SelfExclusionForm, WithdrawalForm
from cashier.models import Deposit, Withdrawal
from cashier.selectors import (
    deposit_limits_for,
    self_exclusion_active,
    self_exclusion_liftable_from,
    wallet_balances,
    wallet_entries,
)
from cashier.templatetags.money import format_amount

STATEMENT_PAGE_SIZE = 25


def _page(request, deposit_form=None, withdrawal_form=None, status=200):
    user = request.user
    page = Paginator(wallet_entries(user=user), STATEMENT_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "cashier/wallet.html",
        {
            "balances": wallet_balances(user=user),
            "deposit_form": deposit_form or DepositForm(),
            "withdrawal_form": withdrawal_form or WithdrawalForm(two_factor=two_factor_enabled(user)),
            "entries": page,
            "withdrawals": Withdrawal.objects.filter(user=user)[:10],
            "deposits_pending": Deposit.objects.filter(user=user, status=Deposit.Status.PENDING),
        },
        status=status,
    )


@login_required
@require_GET
def wallet(request):
    return _page(request)


@login_required
@require_POST
def deposit(request):
    form = DepositForm(request.POST)
    if not form.is_valid():
        return _page(request, deposit_form=form, status=400)
    try:
        result = services.deposit_create(
            user=request.user,
            amount=form.cleaned_data["amount"],
            card_number=form.cleaned_data["card_number"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except CashierError as error:
        form.add_error(None, str(error))
        return _page(request, deposit_form=form, status=400)
    amount = format_amount(result.amount)
    if result.status == Deposit.Status.SUCCEEDED:
        if getattr(result, "replayed", False):
            messages.info(
                request,
                _("This deposit of %(amount)s was already credited; nothing was charged again.")
                % {"amount": amount},
            )
        else:
            messages.success(request, _("%(amount)s deposited to your wallet.") % {"amount": amount})
    elif result.status == Deposit.Status.DECLINED:
        messages.error(
            request,
            _("Your deposit of %(amount)s was declined: %(reason)s")
            % {"amount": amount, "reason": result.message},
        )
    else:
        messages.warning(
            request,
            _(
                "The payment provider has not answered yet: your deposit of %(amount)s is "
                "pending. We will complete or cancel it; you will never be charged twice."
            )
            % {"amount": amount},
        )
    return redirect("cashier:wallet")


@login_required
@require_POST
def withdraw(request):
    form = WithdrawalForm(request.POST, two_factor=two_factor_enabled(request.user))
    if not form.is_valid():
        return _page(request, withdrawal_form=form, status=400)
    try:
        result = services.withdrawal_request(
            user=request.user,
            amount=form.cleaned_data["amount"],
            card_number=form.cleaned_data["card_number"],
            idempotency_key=form.cleaned_data["idempotency_key"],
            otp_code=form.cleaned_data.get("otp_code", ""),
        )
    except CashierError as error:
        form.add_error(None, str(error))
        return _page(request, withdrawal_form=form, status=400)
    messages.success(
        request,
        _("Withdrawal of %(amount)s requested: the money is set aside while our staff review it.")
        % {"amount": format_amount(result.amount)},
    )
    return redirect("cashier:wallet")


@login_required
@require_POST
def refill(request):
    try:
        transfer = services.play_chips_refill(user=request.user)
    except CashierError as error:
        messages.error(request, str(error))
    else:
        amount = transfer.entries.get(account__user=request.user).amount
        messages.success(
            request, _("%(amount)s added to your play chips.") % {"amount": format_amount(amount, "play")}
        )
    target = request.POST.get("next") or ""
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("profile")
    return redirect(target)


# Responsible gaming (SPEC 2): deposit limits and self-exclusion, on the player's account pages.


@login_required
@require_http_methods(["GET", "POST"])
def deposit_limits(request):
    form = DepositLimitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            limit = services.deposit_limit_set(
                user=request.user, period=form.cleaned_data["period"], amount=form.cleaned_data["amount"]
            )
        except CashierError as error:
            messages.error(request, str(error))
        else:
            if limit.pending_from:
                messages.success(
                    request,
                    _("Your new limit will apply from %(date)s.")
                    % {"date": date_format(timezone.localtime(limit.pending_from), "DATETIME_FORMAT")},
                )
            else:
                messages.success(request, _("Your new limit applies now."))
            return redirect("deposit_limits")
    return render(
        request, "accounts/limits.html", {"form": form, "limits": deposit_limits_for(user=request.user)}
    )


@login_required
@require_http_methods(["GET", "POST"])
def self_exclusion(request):
    form = SelfExclusionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.player_self_exclude(user=request.user, period=form.cleaned_data["period"])
        except CashierError as error:
            messages.error(request, str(error))
        else:
            messages.success(
                request, _("You are now excluded from playing. Your seats are being cashed out.")
            )
            return redirect("profile")
    active = self_exclusion_active(user=request.user)
    return render(
        request,
        "accounts/self_exclusion.html",
        {
            "form": form,
            "active": active,
            "liftable_from": active and self_exclusion_liftable_from(active),
        },
    )
