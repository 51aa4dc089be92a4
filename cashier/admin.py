"""Staff's view of the money: the ledger read-only, withdrawals to review, deposits to chase, the audit."""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import DepositLimit, SelfExclusion
from cashier import hooks, services
from cashier.errors import CashierError
from cashier.management.commands.ledger_check import report_lines
from cashier.models import Account, Deposit, Entry, RejectionReason, SeatSession, Transfer, Withdrawal
from cashier.selectors import EXCLUSION_DAYS, ledger_check, self_exclusion_active, wallet_balances
from cashier.templatetags.money import format_amount


class ReadOnlyAdmin(admin.ModelAdmin):
    """The ledger is append-only: staff look, nobody adds, changes or deletes from here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("account", "shown_amount", "shown_balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("amount"))
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.account.currency)

    @admin.display(description=gettext_lazy("balance after"))
    def shown_balance_after(self, obj):
        return format_amount(obj.balance_after, obj.account.currency)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "user", "table", "ref", "shown_balance", "created_at")
    list_filter = ("kind", "currency")
    search_fields = ("user__username", "user__email", "ref")
    list_select_related = ("user", "table")
    change_list_template = "admin/cashier/account/change_list.html"

    @admin.display(description=gettext_lazy("balance"), ordering="balance")
    def shown_balance(self, obj):
        return format_amount(obj.balance, obj.currency)

    def get_urls(self):
        return [
            path(
                "ledger-check/",
                self.admin_site.admin_view(self.ledger_check_view),
                name="cashier_ledger_check",
            ),
            *super().get_urls(),
        ]

    def ledger_check_view(self, request):
        report = ledger_check()
        return TemplateResponse(
            request,
            "cashier/admin_ledger_check.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Ledger check"),
                "report": report,
                "lines": report_lines(report),
                "opts": self.model._meta,
            },
        )


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "user", "table", "hand_ref", "created_at", "memo")
    list_filter = ("kind", "currency")
    search_fields = ("idempotency_key", "hand_ref", "user__username", "user__email")
    date_hierarchy = "created_at"
    inlines = [EntryInline]
    list_select_related = ("user", "table")


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transfer", "account", "shown_amount", "shown_balance_after")
    list_filter = ("account__kind", "account__currency")
    search_fields = ("account__user__username", "account__user__email")
    list_select_related = ("transfer", "account", "account__user")

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.account.currency)

    @admin.display(description=gettext_lazy("balance after"))
    def shown_balance_after(self, obj):
        return format_amount(obj.balance_after, obj.account.currency)


@admin.register(SeatSession)
class SeatSessionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "seat_number",
        "user",
        "opened_at",
        "shown_moved_in",
        "closed_at",
        "shown_left_with",
        "cash_out_after_hand",
    )
    list_filter = ("currency", "closed_at")
    search_fields = ("user__username", "user__email", "table__name")
    list_select_related = ("table", "user")

    @admin.display(description=gettext_lazy("moved in from the wallet"), ordering="moved_in")
    def shown_moved_in(self, obj):
        return format_amount(obj.moved_in, obj.currency)

    @admin.display(description=gettext_lazy("left with"), ordering="left_with")
    def shown_left_with(self, obj):
        return "-" if obj.left_with is None else format_amount(obj.left_with, obj.currency)


@admin.register(Deposit)
class DepositAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "shown_amount", "card_label", "status", "attempts", "message", "created_at")
    list_filter = ("status",)
    search_fields = ("user__username", "user__email", "idempotency_key", "provider_ref")
    actions = ["retry_with_provider"]

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.currency)

    def has_change_permission(self, request, obj=None):
        return obj is None and request.user.has_perm("cashier.change_deposit")  # lets the action run

    @admin.action(
        description=gettext_lazy("Ask the payment provider again about the selected pending deposits")
    )
    def retry_with_provider(self, request, queryset):
        done = 0
        for deposit in queryset.filter(status=Deposit.Status.PENDING):
            done += services.deposit_retry(deposit=deposit).status != Deposit.Status.PENDING
        self.message_user(request, _("%(n)d deposit(s) settled.") % {"n": done})


class RejectForm(forms.Form):
    reason_code = forms.ChoiceField(
        label=gettext_lazy("Reason the player reads"), choices=RejectionReason.choices
    )
    reason = forms.CharField(
        label=gettext_lazy("Note to the player (optional)"), max_length=200, required=False
    )


@admin.register(Withdrawal)
class WithdrawalAdmin(ReadOnlyAdmin):
    """Withdrawals to review: each is decided from its own page, after a confirmation (approve, or reject with
    a reason the player reads); from WITHDRAWAL_SECOND_APPROVAL_FROM, two members of staff must approve."""

    list_display = (
        "id",
        "user",
        "identity_verified",
        "shown_amount",
        "destination_label",
        "status_shown",
        "created_at",
        "decided_by",
        "decided_at",
    )
    list_filter = ("status",)
    search_fields = ("user__username", "user__email", "idempotency_key")
    list_select_related = ("user", "decided_by", "first_approved_by")
    fields = (
        "user",
        "identity_verified",
        "wallet_now",
        "shown_amount",
        "destination_label",
        "status_shown",
        "reason_shown",
        "created_at",
        "first_approved_by",
        "first_approved_at",
        "decided_by",
        "decided_at",
        "provider_ref",
        "attempts",
    )
    readonly_fields = fields
    change_form_template = "admin/cashier/withdrawal/change_form.html"
    actions = ["retry_payout"]

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.currency)

    @admin.display(description=gettext_lazy("identity verified"), boolean=True)
    def identity_verified(self, obj):
        return obj.user.identity_verified_at is not None

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_shown(self, obj):
        if obj.status == Withdrawal.Status.PENDING and obj.first_approved_by_id:
            return _("Approved once, waiting for a second approver")
        return obj.get_status_display()

    @admin.display(description=gettext_lazy("reason"))
    def reason_shown(self, obj):
        return obj.reason_shown or "-"

    @admin.display(description=gettext_lazy("player's wallet now"))
    def wallet_now(self, obj):
        return format_amount(wallet_balances(user=obj.user)[obj.currency], obj.currency)

    def has_change_permission(self, request, obj=None):
        return obj is None and request.user.has_perm("cashier.change_withdrawal")  # lets the action run

    def may_decide(self, request) -> bool:
        return request.user.has_perm("cashier.change_withdrawal")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        withdrawal = self.get_object(request, object_id)
        extra = {}
        if withdrawal is not None:
            extra = {
                "may_decide": self.may_decide(request) and withdrawal.status == Withdrawal.Status.PENDING,
                "second_approval_needed": services.withdrawal_second_approval_needed(withdrawal),
                "holds": hooks.withdrawal_holds(withdrawal)
                if withdrawal.status == Withdrawal.Status.PENDING
                else [],
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/approve/", view(self.approve_view), name="cashier_withdrawal_approve"),
            path("<int:pk>/reject/", view(self.reject_view), name="cashier_withdrawal_reject"),
            *super().get_urls(),
        ]

    def _pending(self, request, pk) -> Withdrawal:
        withdrawal = get_object_or_404(Withdrawal.objects.select_related("user", "first_approved_by"), pk=pk)
        if not self.may_decide(request):
            raise PermissionDenied
        return withdrawal

    def _decided(self, request, withdrawal, done_message):
        self.message_user(request, done_message)
        return redirect("admin:cashier_withdrawal_change", withdrawal.pk)

    def approve_view(self, request, pk):
        withdrawal = self._pending(request, pk)
        if request.method == "POST" and request.POST.get("confirm"):
            try:
                result = services.withdrawal_approve(withdrawal=withdrawal, staff_user=request.user)
            except CashierError as refused:
                self.message_user(request, str(refused), level=messages.ERROR)
                return redirect("admin:cashier_withdrawal_change", withdrawal.pk)
            if result.status == Withdrawal.Status.PENDING:
                return self._decided(
                    request,
                    result,
                    _(
                        "Your approval is recorded: a second member of staff must "
                        "approve this withdrawal too."
                    ),
                )
            return self._decided(
                request,
                result,
                _("Withdrawal #%(id)s approved: %(status)s.")
                % {"id": result.pk, "status": result.get_status_display().lower()},
            )
        return self._decision_page(
            request, withdrawal, _("Approve withdrawal #%(id)s") % {"id": withdrawal.pk}
        )

    def reject_view(self, request, pk):
        withdrawal = self._pending(request, pk)
        form = RejectForm(request.POST or None)
        if request.method == "POST" and request.POST.get("confirm") and form.is_valid():
            try:
                services.withdrawal_reject(
                    withdrawal=withdrawal,
                    staff_user=request.user,
                    reason_code=form.cleaned_data["reason_code"],
                    reason=form.cleaned_data["reason"],
                )
            except CashierError as refused:
                self.message_user(request, str(refused), level=messages.ERROR)
                return redirect("admin:cashier_withdrawal_change", withdrawal.pk)
            return self._decided(
                request,
                withdrawal,
                _("Withdrawal #%(id)s rejected; the money is back in the player's wallet.")
                % {"id": withdrawal.pk},
            )
        return self._decision_page(
            request, withdrawal, _("Reject withdrawal #%(id)s") % {"id": withdrawal.pk}, form=form
        )

    def _decision_page(self, request, withdrawal, title, form=None):
        return TemplateResponse(
            request,
            "admin/cashier/withdrawal/decide.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "original": withdrawal,
                "title": title,
                "form": form,
                "amount": format_amount(withdrawal.amount, withdrawal.currency),
                "second_approval_needed": services.withdrawal_second_approval_needed(withdrawal),
                "holds": hooks.withdrawal_holds(withdrawal),
            },
        )

    @admin.action(description=gettext_lazy("Ask the payment provider again about approved withdrawals"))
    def retry_payout(self, request, queryset):
        done = 0
        for withdrawal in queryset.filter(status=Withdrawal.Status.PROCESSING):
            services.withdrawal_payout_retry(withdrawal=withdrawal)
            done += 1
        if done:
            self.message_user(request, _("%(n)d withdrawal(s) asked again.") % {"n": done})


def ledger_check_url() -> str:
    return reverse("admin:cashier_ledger_check")


# Responsible gaming (SPEC 2): staff see every limit and self-exclusion, record an exclusion a player asks for
# by phone or email, and lift a permanent one once the rules allow (the models are the accounts app's).


@admin.register(DepositLimit)
class DepositLimitAdmin(admin.ModelAdmin):
    list_display = ("user", "period", "shown_amount", "shown_pending_amount", "pending_from", "updated_at")
    list_filter = ("period",)
    search_fields = ("user__username", "user__email")
    fields = ("user", "period", "shown_amount", "shown_pending_amount", "pending_from", "updated_at")
    readonly_fields = fields

    @admin.display(description=gettext_lazy("limit"), ordering="amount")
    def shown_amount(self, obj):
        return _("none") if obj.amount is None else format_amount(obj.amount)

    @admin.display(description=gettext_lazy("new limit"))
    def shown_pending_amount(self, obj):
        if obj.pending_from is None:
            return "-"
        return _("none") if obj.pending_amount is None else format_amount(obj.pending_amount)

    def has_add_permission(self, request, obj=None):
        return False  # limits are the player's own, set on the account page

    def has_delete_permission(self, request, obj=None):
        return False


class SelfExclusionAddForm(forms.ModelForm):
    class Meta:
        model = SelfExclusion
        fields = ("user", "period")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        name = self.add_prefix("user")
        if self.is_bound and name in self.data:
            try:
                SelfExclusion._meta.get_field("user").target_field.to_python(self.data[name])
            except (
                ValidationError
            ):  # not an id: "required", not the autocomplete widget's 500 re-rendering it
                self.data = self.data.copy()
                self.data[name] = ""

    def clean(self):
        data = super().clean()
        user, period = data.get("user"), data.get("period")
        current = user and self_exclusion_active(user=user)
        if current and period:
            ends = (
                None
                if period == SelfExclusion.Period.PERMANENT
                else timezone.now() + timedelta(days=EXCLUSION_DAYS[period])
            )
            if current.ends_at is None or (ends is not None and ends <= current.ends_at):
                raise forms.ValidationError(
                    _("This player is already excluded for longer; a new self-exclusion must end later.")
                )
        return data


@admin.register(SelfExclusion)
class SelfExclusionAdmin(admin.ModelAdmin):
    form = SelfExclusionAddForm
    list_display = ("user", "period", "starts_at", "ends_at", "lifted_at", "lifted_by", "created_by")
    list_filter = ("period",)
    search_fields = ("user__username", "user__email")
    fields = ("user", "period")
    autocomplete_fields = ("user",)
    actions = ["lift"]

    def get_readonly_fields(self, request, obj=None):
        return (
            ("user", "period", "starts_at", "ends_at", "lifted_at", "lifted_by", "created_by") if obj else ()
        )

    def get_fields(self, request, obj=None):
        return self.get_readonly_fields(request, obj) if obj else self.fields

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        if change:
            return
        created = services.player_self_exclude(user=obj.user, period=obj.period, recorded_by=request.user)
        obj.pk = created.pk
        obj.__dict__.update(created.__dict__)

    @admin.action(
        description=gettext_lazy("Lift the selected self-exclusions (for good only, after 6 months)")
    )
    def lift(self, request, queryset):
        for exclusion in queryset:
            try:
                services.self_exclusion_lift(exclusion=exclusion, lifted_by=request.user)
            except CashierError as error:
                self.message_user(request, f"{exclusion}: {error}", level=messages.ERROR)
            else:
                self.message_user(request, _("%(exclusion)s lifted.") % {"exclusion": exclusion})


from cashier import admin_adjustments  # noqa: E402, F401 - registers the balance adjustments' admin
