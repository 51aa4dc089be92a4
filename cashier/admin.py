"""Staff's view of the money: the ledger read-only, withdrawals to review, deposits to chase, the audit."""

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cashier import services
from cashier.errors import CashierError
from cashier.management.commands.ledger_check import report_lines
from cashier.models import Account, Deposit, Entry, SeatSession, Transfer, Withdrawal
from cashier.selectors import ledger_check
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
    fields = ("account", "amount", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "user", "table", "ref", "shown_balance", "created_at")
    list_filter = ("kind", "currency")
    search_fields = ("user__username", "ref")
    list_select_related = ("user", "table")
    change_list_template = "admin/cashier/account/change_list.html"

    @admin.display(description=gettext_lazy("balance"), ordering="balance")
    def shown_balance(self, obj):
        return format_amount(obj.balance, obj.currency)

    def get_urls(self):
        return [
            path("ledger-check/", self.admin_site.admin_view(self.ledger_check_view), name="cashier_ledger_check"),
            *super().get_urls(),
        ]

    def ledger_check_view(self, request):
        report = ledger_check()
        return TemplateResponse(request, "cashier/admin_ledger_check.html", {
            **self.admin_site.each_context(request),
            "title": _("Ledger check"),
            "report": report,
            "lines": report_lines(report),
            "opts": self.model._meta,
        })


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "user", "table", "hand_ref", "created_at", "memo")
    list_filter = ("kind", "currency")
    search_fields = ("idempotency_key", "hand_ref", "user__username")
    date_hierarchy = "created_at"
    inlines = [EntryInline]
    list_select_related = ("user", "table")


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transfer", "account", "amount", "balance_after")
    list_filter = ("account__kind", "account__currency")
    search_fields = ("account__user__username",)
    list_select_related = ("transfer", "account", "account__user")


@admin.register(SeatSession)
class SeatSessionAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "seat_number", "user", "opened_at", "moved_in", "closed_at", "left_with",
                    "cash_out_after_hand")
    list_filter = ("currency", "closed_at")
    search_fields = ("user__username", "table__name")
    list_select_related = ("table", "user")


@admin.register(Deposit)
class DepositAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "shown_amount", "card_label", "status", "attempts", "message", "created_at")
    list_filter = ("status",)
    search_fields = ("user__username", "idempotency_key", "provider_ref")
    actions = ["retry_with_provider"]

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.currency)

    def has_change_permission(self, request, obj=None):
        return obj is None and request.user.has_perm("cashier.change_deposit")  # lets the action run

    @admin.action(description=gettext_lazy("Ask the payment provider again about the selected pending deposits"))
    def retry_with_provider(self, request, queryset):
        done = 0
        for deposit in queryset.filter(status=Deposit.Status.PENDING):
            done += services.deposit_retry(deposit=deposit).status != Deposit.Status.PENDING
        self.message_user(request, _("%(n)d deposit(s) settled.") % {"n": done})


@admin.register(Withdrawal)
class WithdrawalAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "identity_verified", "shown_amount", "destination_label", "status", "reason",
                    "created_at", "decided_by", "decided_at")
    list_filter = ("status",)
    search_fields = ("user__username", "idempotency_key")
    list_select_related = ("user", "decided_by")
    actions = ["approve", "reject", "retry_payout"]

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return format_amount(obj.amount, obj.currency)

    @admin.display(description=gettext_lazy("identity verified"), boolean=True)
    def identity_verified(self, obj):
        return obj.user.identity_verified_at is not None

    def has_change_permission(self, request, obj=None):
        return obj is None and request.user.has_perm("cashier.change_withdrawal")  # lets the actions run

    def _each(self, request, queryset, func, done_message):
        done = 0
        for withdrawal in queryset:
            try:
                func(withdrawal)
                done += 1
            except CashierError as error:
                self.message_user(request, f"#{withdrawal.pk}: {error}", level=messages.ERROR)
        if done:
            self.message_user(request, done_message % {"n": done})

    @admin.action(description=gettext_lazy("Approve and pay the selected withdrawals"))
    def approve(self, request, queryset):
        def approve_one(withdrawal):
            if withdrawal.user.identity_verified_at is None:
                raise CashierError(_("The player's identity is not verified."))
            result = services.withdrawal_approve(withdrawal=withdrawal, staff_user=request.user)
            if result.status != Withdrawal.Status.PAID:
                self.message_user(request, f"#{result.pk}: {result.get_status_display()}", level=messages.WARNING)

        self._each(request, queryset, approve_one, _("%(n)d withdrawal(s) approved."))

    @admin.action(description=gettext_lazy("Reject the selected withdrawals (the money goes back to the wallet)"))
    def reject(self, request, queryset):
        self._each(request, queryset,
                   lambda w: services.withdrawal_reject(withdrawal=w, staff_user=request.user,
                                                        reason=_("Rejected by staff")),
                   _("%(n)d withdrawal(s) rejected, money returned."))

    @admin.action(description=gettext_lazy("Ask the payment provider again about approved withdrawals"))
    def retry_payout(self, request, queryset):
        self._each(request, queryset.filter(status=Withdrawal.Status.PROCESSING),
                   lambda w: services.withdrawal_payout_retry(withdrawal=w), _("%(n)d withdrawal(s) asked again."))


def ledger_check_url() -> str:
    return reverse("admin:cashier_ledger_check")
