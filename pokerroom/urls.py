from django.contrib import admin
from django.urls import include, path

from pokerroom import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("accounts.urls")),
    path("cashier/", include("cashier.urls")),
    path("", include("tournaments.urls")),
    path("", include("tables.urls")),
]
