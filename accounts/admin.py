from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "is_bot", "identity_verified_at", "is_staff", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_active")
    fieldsets = BaseUserAdmin.fieldsets + (
        (_("Room"), {"fields": ("is_bot", "identity_verified_at", "preferred_language")}),
    )
