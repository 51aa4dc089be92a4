"""The room's admin site: Django's, with every ModelAdmin audited (staff.audit), the dashboard on its front
page and the rake as CSV. It is the default site (staff.apps.StaffAdminConfig), so every app's
`@admin.register` lands here."""

from django.contrib import admin
from django.urls import path
from django.utils.translation import gettext_lazy as _

from staff.audit import audited


class StaffAdminSite(admin.AdminSite):
    site_header = _("Poker room: staff")
    site_title = _("Poker room staff")
    index_title = _("The room now")
    index_template = "staff/dashboard.html"

    def register(self, model_or_iterable, admin_class=None, **options):
        super().register(model_or_iterable, audited(admin_class or admin.ModelAdmin), **options)

    def index(self, request, extra_context=None):
        from staff.selectors import dashboard_figures

        return super().index(request, {"dashboard": dashboard_figures(), **(extra_context or {})})

    def get_urls(self):
        from staff import views

        return [
            path("rake.csv", self.admin_view(views.rake_csv), name="staff_rake_csv"),
            *super().get_urls(),
        ]
