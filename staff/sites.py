"""The room's admin site: Django's, with every ModelAdmin audited (staff.audit), the dashboard on its front
page and the rake as CSV. It is the default site (staff.apps.StaffAdminConfig), so every app's
`@admin.register` lands here."""

from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache

from accounts import two_factor
from accounts.days import DAY_FIRST, DAY_LAST
from staff.audit import audited


class DayBoundChangeList(ChangeList):
    """A list's date drill-down (`date_hierarchy`) refuses a year the room cannot work with (outside
    accounts.days' range: `?at__year=9999&at__month=12&at__day=31` was a 500, OverflowError working out the
    next day): the admin's "bad filter" answer instead, as for any bad lookup."""

    def get_filters(self, request):
        if self.date_hierarchy:
            year = request.GET.get(f"{self.date_hierarchy}__year")
            if year is not None and not (
                year.strip().isdigit() and DAY_FIRST.year < int(year) < DAY_LAST.year
            ):
                raise IncorrectLookupParameters(f"year out of range: {year[:20]!r}")
        return super().get_filters(request)


class DayBoundAdmin(admin.ModelAdmin):
    def get_changelist(self, request, **kwargs):
        return DayBoundChangeList


def day_bound(admin_class: type) -> type:
    """`admin_class` with DayBoundChangeList (the same class if it has it already)."""
    if issubclass(admin_class, DayBoundAdmin):
        return admin_class
    return type(
        admin_class.__name__,
        (DayBoundAdmin, admin_class),
        {"__module__": admin_class.__module__, "__qualname__": admin_class.__qualname__},
    )


class StaffAdminSite(admin.AdminSite):
    site_header = _("Poker room: staff")
    site_title = _("Poker room staff")
    index_title = _("The room now")
    index_template = "staff/dashboard.html"

    def register(self, model_or_iterable, admin_class=None, **options):
        super().register(model_or_iterable, day_bound(audited(admin_class or admin.ModelAdmin)), **options)

    def has_permission(self, request) -> bool:
        """Active staff whose session entered a two-factor code (or turned it on): every admin page and the
        staff app's pages go through this (admin_view)."""
        return super().has_permission(request) and two_factor.is_verified(request)

    @method_decorator(never_cache)
    def login(self, request, extra_context=None):
        """Django's admin login, except that a right password for an account with two-factor on leads to the
        code step (accounts.two_factor_views), and staff already logged in without a code this session are
        sent to enter one, or to set up their app first when they have none."""
        from django.contrib.admin.forms import AdminAuthenticationForm

        from accounts.two_factor_views import TwoFactorLoginView

        user = request.user
        index = reverse("admin:index", current_app=self.name)
        if user.is_active and user.is_staff:
            if two_factor.is_verified(request):
                return redirect(index)
            step = "two_factor_code" if two_factor.is_enabled(user) else "two_factor"
            target = request.GET.get(REDIRECT_FIELD_NAME) or index
            return redirect(f"{reverse(step)}?{urlencode({REDIRECT_FIELD_NAME: target})}")
        context = {
            **self.each_context(request),
            "title": _("Log in"),
            "subtitle": None,
            "app_path": request.get_full_path(),
            "username": user.get_username(),
        }
        if REDIRECT_FIELD_NAME not in request.GET and REDIRECT_FIELD_NAME not in request.POST:
            context[REDIRECT_FIELD_NAME] = index
        context.update(extra_context or {})
        request.current_app = self.name
        return TwoFactorLoginView.as_view(
            extra_context=context,
            authentication_form=self.login_form or AdminAuthenticationForm,
            template_name=self.login_template or "admin/login.html",
        )(request)

    def index(self, request, extra_context=None):
        from staff.selectors import dashboard_figures

        return super().index(request, {"dashboard": dashboard_figures(), **(extra_context or {})})

    def get_urls(self):
        from staff import views

        return [
            path("rake.csv", self.admin_view(views.rake_csv), name="staff_rake_csv"),
            *super().get_urls(),
        ]
