from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
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
        (
            _("Room"),
            {"fields": ("is_bot", "identity_verified_at", "identity_verified_by", "preferred_language")},
        ),
    )
    readonly_fields = ("identity_verified_at", "identity_verified_by")
    actions = ["identity_verify"]

    def save_model(self, request, obj, form, change):
        """Unticking Active closes the account as the player page does (seats cashed out, tournament
        registrations refunded, hands running no longer taking the player's actions); ticking it opens it
        again. Both through the service, with their audit entries."""
        switched = change and "is_active" in form.changed_data
        wanted = obj.is_active
        if switched:
            obj.is_active = not wanted  # the service changes it
        super().save_model(request, obj, form, change)
        if switched:
            from accounts.services import account_active_set

            account_active_set(user=obj, active=wanted, staff_user=request.user)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser or obj is None:
            return fieldsets
        return [
            (name, {**options, "fields": [f for f in options["fields"] if f not in SUPERUSER_ONLY_FIELDS]})
            for name, options in fieldsets
        ]

    @admin.action(description=_("Mark the identity of the selected players as verified (documents checked)"))
    def identity_verify(self, request, queryset):
        from accounts.services import identity_verify

        count = sum(identity_verify(user=user, staff_user=request.user) for user in queryset)
        self.message_user(
            request,
            ngettext("%(count)d identity verified.", "%(count)d identities verified.", count)
            % {"count": count},
            messages.SUCCESS,
        )
