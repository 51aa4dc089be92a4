from django.contrib import admin
from django.urls import include, path

from cashier.urls import responsible_gaming_urlpatterns
from pokerroom import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include(responsible_gaming_urlpatterns)),
    path("cashier/", include("cashier.urls")),
    path("", include("tournaments.urls")),
    path("", include("tables.urls")),
]
