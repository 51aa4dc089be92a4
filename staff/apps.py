from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.utils.translation import gettext_lazy as _


class StaffConfig(AppConfig):
    name = "staff"
    verbose_name = _("Staff")
    default = True

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts import audit
        from cashier import hooks
        from staff import selectors, services

        audit.audit_writer_register(services.audit_entry_write)
        hooks.deposit_succeeded_register(services.deposit_flag_check)
        hooks.withdrawal_hold_register(selectors.withdrawal_hold_reasons)
        user_logged_in.connect(services.login_record, dispatch_uid="staff.login_record")


class StaffAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the room's site as the default one (INSTALLED_APPS names this class)."""

    default = False
    default_site = "staff.sites.StaffAdminSite"
