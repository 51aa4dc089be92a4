"""Balance adjustments in the admin (Cashier → Balance adjustments): **Propose an adjustment…** (a player, a
currency, credit or debit, an amount, a reason, a note); from ADJUSTMENT_SECOND_APPROVAL_FROM another member
of staff approves or rejects it from its page, each after a confirmation. The services are
cashier.adjustments'; every refusal is shown with its reason and changes nothing."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from cashier import adjustments
from cashier.errors import CashierError
from cashier.forms import IdempotentForm, MoneyField
from cashier.models import Adjustment, AdjustmentReason, Currency
from cashier.templatetags.money import format_amount, signed_money


def signed_amount(adjustment: Adjustment) -> str:
    """ "+€ 25.00" credited, "-€ 25.00" taken."""
    return signed_money(adjustment.amount, adjustment.currency)


class ProposeForm(IdempotentForm):
    player = forms.CharField(label=gettext_lazy("player (user name or email)"), max_length=254)
    currency = forms.ChoiceField(label=gettext_lazy("currency"), choices=Currency.choices)
    direction = forms.ChoiceField(
        label=gettext_lazy("credit or debit"),
        choices=(
            ("credit", gettext_lazy("Credit the wallet")),
            ("debit", gettext_lazy("Take from the wallet")),
        ),
    )
    amount = MoneyField(label=gettext_lazy("amount"))
    reason_code = forms.ChoiceField(
        label=gettext_lazy("reason"), choices=[("", "---------"), *AdjustmentReason.choices]
    )
    note = forms.CharField(
        label=gettext_lazy("note"),
        max_length=adjustments.MAX_NOTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("What it corrects, and where staff can check it."),
    )

    def clean_player(self) -> User:
        text = self.cleaned_data["player"].strip()
        found = list(User.objects.filter(Q(username__iexact=text) | Q(email__iexact=text), is_bot=False)[:2])
        if len(found) != 1:
            raise forms.ValidationError(_("No player has this user name or email."))
        return found[0]


@admin.register(Adjustment)
class AdjustmentAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "user",
        "shown_amount",
        "reason_code",
        "status",
        "proposed_by",
        "proposed_at",
        "decided_by",
    )
    list_filter = ("status", "reason_code", "currency")
    search_fields = ("user__username", "user__email", "note")
    list_select_related = ("user", "proposed_by", "decided_by")
    fields = (
        "user",
        "shown_amount",
        "reason_code",
        "note",
        "status",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
        "transfer",
    )
    readonly_fields = fields
    change_list_template = "admin/cashier/adjustment/change_list.html"
    change_form_template = "admin/cashier/adjustment/change_form.html"

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def shown_amount(self, obj):
        return signed_amount(obj)

    def has_add_permission(self, request):
        return False  # proposed through "Propose an adjustment…" (the service), never a bare row

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def may_propose(self, request) -> bool:
        return request.user.has_perm("cashier.add_adjustment")

    def may_decide(self, request) -> bool:
        return request.user.has_perm("cashier.change_adjustment")

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(
            request, {"may_propose": self.may_propose(request), **(extra_context or {})}
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        adjustment = self.get_object(request, object_id)
        extra = {}
        if adjustment is not None:
            extra = {
                "may_decide": self.may_decide(request) and adjustment.status == Adjustment.Status.PENDING,
                "threshold": format_amount(adjustments.second_approval_from(), adjustment.currency),
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("propose/", view(self.propose_view), name="cashier_adjustment_propose"),
            path("<int:pk>/approve/", view(self.approve_view), name="cashier_adjustment_approve"),
            path("<int:pk>/reject/", view(self.reject_view), name="cashier_adjustment_reject"),
            *super().get_urls(),
        ]

    def _page(self, request, title, **context):
        return TemplateResponse(
            request,
            "admin/cashier/adjustment/form.html",
            {**self.admin_site.each_context(request), "opts": self.model._meta, "title": title, **context},
        )

    def propose_view(self, request):
        if not self.may_propose(request):
            raise PermissionDenied
        initial = {}
        if request.method == "GET" and (user := User.objects.filter(pk=request.GET.get("user") or 0).first()):
            initial["player"] = user.username
        form = ProposeForm(request.POST or None, initial=initial)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            amount = data["amount"] if data["direction"] == "credit" else -data["amount"]
            try:
                adjustment = adjustments.adjustment_propose(
                    user=data["player"],
                    currency=data["currency"],
                    amount=amount,
                    reason_code=data["reason_code"],
                    note=data["note"],
                    staff_user=request.user,
                    idempotency_key=data["idempotency_key"],
                )
            except CashierError as refused:
                form.add_error(None, str(refused))
            else:
                if adjustment.status == Adjustment.Status.DONE:
                    self.message_user(request, _("Adjustment booked: %(what)s.") % {"what": str(adjustment)})
                else:
                    self.message_user(
                        request,
                        _("Adjustment proposed: another member of staff must approve it (%(what)s).")
                        % {"what": str(adjustment)},
                    )
                return redirect("admin:cashier_adjustment_change", adjustment.pk)
        return self._page(
            request,
            _("Propose a balance adjustment"),
            form=form,
            threshold=format_amount(adjustments.second_approval_from(), Currency.EUR),
        )

    def _decision(self, request, pk, *, approve: bool):
        adjustment = get_object_or_404(Adjustment.objects.select_related("user", "proposed_by"), pk=pk)
        if not self.may_decide(request):
            raise PermissionDenied
        if request.method == "POST" and request.POST.get("confirm"):
            try:
                if approve:
                    adjustments.adjustment_approve(adjustment=adjustment, staff_user=request.user)
                else:
                    adjustments.adjustment_reject(
                        adjustment=adjustment, staff_user=request.user, note=request.POST.get("note", "")
                    )
            except CashierError as refused:
                self.message_user(request, str(refused), level=messages.ERROR)
            else:
                self.message_user(request, _("Adjustment booked.") if approve else _("Adjustment rejected."))
            return redirect("admin:cashier_adjustment_change", adjustment.pk)
        title = _("Approve adjustment #%(id)s") if approve else _("Reject adjustment #%(id)s")
        return self._page(
            request, title % {"id": adjustment.pk}, original=adjustment, amount=signed_amount(adjustment)
        )

    def approve_view(self, request, pk):
        return self._decision(request, pk, approve=True)

    def reject_view(self, request, pk):
        return self._decision(request, pk, approve=False)
