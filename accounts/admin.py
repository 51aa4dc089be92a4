from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import User

SUPERUSER_ONLY_FIELDS = ("password", "is_superuser", "groups", "user_permissions")


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Accounts as logins: superusers manage staff, passwords and permissions here. Staff's page for a player
    is the player page (staff app), without password or permission widgets."""

    list_display = ("username", "email", "is_bot", "identity_verified_at", "is_staff", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_active")
    search_fields = ("username", "email", "first_name", "last_name")
    fieldsets = BaseUserAdmin.fieldsets + (
        (_("Room"), {"fields": ("is_bot", "identity_verified_at", "identity_verified_by", "preferred_language")}),
    )
    readonly_fields = ("identity_verified_at", "identity_verified_by")
    actions = ["identity_verify"]

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser or obj is None:
            return fieldsets
        return [(name, {**options, "fields": [f for f in options["fields"] if f not in SUPERUSER_ONLY_FIELDS]})
                for name, options in fieldsets]

    @admin.action(description=_("Mark the identity of the selected players as verified (documents checked)"))
    def identity_verify(self, request, queryset):
        from accounts.services import identity_verify

        count = sum(identity_verify(user=user, staff_user=request.user) for user in queryset)
        self.message_user(
            request,
            ngettext("%(count)d identity verified.", "%(count)d identities verified.", count) % {"count": count},
            messages.SUCCESS,
        )


# Responsible gaming (SPEC 2): staff see every limit and self-exclusion, record an exclusion a player asks for
# by phone or email, and lift a permanent one once the rules allow. The rules are cashier.services'.

from datetime import timedelta  # noqa: E402

from django import forms  # noqa: E402

from accounts.models import DepositLimit, SelfExclusion  # noqa: E402


@admin.register(DepositLimit)
class DepositLimitAdmin(admin.ModelAdmin):
    list_display = ("user", "period", "shown_amount", "shown_pending_amount", "pending_from", "updated_at")
    list_filter = ("period",)
    search_fields = ("user__username", "user__email")
    fields = ("user", "period", "shown_amount", "shown_pending_amount", "pending_from", "updated_at")
    readonly_fields = fields

    @admin.display(description=_("limit"), ordering="amount")
    def shown_amount(self, obj):
        from cashier.templatetags.money import format_amount

        return _("none") if obj.amount is None else format_amount(obj.amount)

    @admin.display(description=_("new limit"))
    def shown_pending_amount(self, obj):
        from cashier.templatetags.money import format_amount

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
                User._meta.pk.to_python(self.data[name])
            except ValidationError:  # not an id: "required", not the autocomplete widget's 500 re-rendering it
                self.data = self.data.copy()
                self.data[name] = ""

    def clean(self):
        from django.utils import timezone

        from cashier.selectors import EXCLUSION_DAYS, self_exclusion_active

        data = super().clean()
        user, period = data.get("user"), data.get("period")
        current = user and self_exclusion_active(user=user)
        if current and period:
            ends = None if period == SelfExclusion.Period.PERMANENT else timezone.now() + timedelta(
                days=EXCLUSION_DAYS[period])
            if current.ends_at is None or (ends is not None and ends <= current.ends_at):
                raise forms.ValidationError(_("This player is already excluded for longer; a new self-exclusion "
                                              "must end later."))
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
        return ("user", "period", "starts_at", "ends_at", "lifted_at", "lifted_by", "created_by") if obj else ()

    def get_fields(self, request, obj=None):
        return self.get_readonly_fields(request, obj) if obj else self.fields

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        from cashier.services import player_self_exclude

        if change:
            return
        created = player_self_exclude(user=obj.user, period=obj.period, recorded_by=request.user)
        obj.pk = created.pk
        obj.__dict__.update(created.__dict__)

    @admin.action(description=_("Lift the selected self-exclusions (for good only, after 6 months)"))
    def lift(self, request, queryset):
        from cashier.errors import CashierError
        from cashier.services import self_exclusion_lift

        for exclusion in queryset:
            try:
                self_exclusion_lift(exclusion=exclusion, lifted_by=request.user)
            except CashierError as error:
                self.message_user(request, f"{exclusion}: {error}", level=messages.ERROR)
            else:
                self.message_user(request, _("%(exclusion)s lifted.") % {"exclusion": exclusion})
