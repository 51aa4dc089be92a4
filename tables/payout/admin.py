"""The payout statistics in the admin: the daily rows (read-only), the last 30 days' figures above them, and a
CSV download of any range of days."""

from __future__ import annotations

import csv

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.days import DayOutOfRange, day_from_text
from cashier.templatetags.money import format_amount
from tables.models import PayoutDay
from tables.payout.selectors import payout_days, payout_percent, payout_summary, payout_window

CSV_HEADER = ("day", "game", "currency", "put_in", "paid_back", "payout_percent", "count")


@admin.register(PayoutDay)
class PayoutDayAdmin(admin.ModelAdmin):
    list_display = (
        "day",
        "currency",
        "game",
        "payout",
        "put_in_amount",
        "paid_back_amount",
        "count",
        "computed_at",
    )
    list_filter = ("currency", "game")
    date_hierarchy = "day"
    change_list_template = "admin/tables/payoutday/change_list.html"

    def has_add_permission(self, request) -> bool:
        return False  # rows come from the ledger (payout_days_compute), never by hand

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=gettext_lazy("payout"))
    def payout(self, row: PayoutDay) -> str:
        percent = payout_percent(put_in=row.put_in, paid_back=row.paid_back)
        return "-" if percent is None else f"{percent} %"

    @admin.display(description=gettext_lazy("put in by players"), ordering="put_in")
    def put_in_amount(self, row: PayoutDay) -> str:
        return format_amount(row.put_in, row.currency)

    @admin.display(description=gettext_lazy("paid back to players"), ordering="paid_back")
    def paid_back_amount(self, row: PayoutDay) -> str:
        return format_amount(row.paid_back, row.currency)

    def get_urls(self):
        csv_view = self.admin_site.admin_view(self.csv_view)
        return [path("csv/", csv_view, name="tables_payoutday_csv"), *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        first, last = payout_window()
        extra = {"payout_summary": payout_summary(first=first, last=last), **(extra_context or {})}
        return super().changelist_view(request, extra_context=extra)

    def csv_view(self, request):
        """The daily rows from `?from=` to `?to=` (YYYY-MM-DD; default the last 30 days), amounts in the
        smallest unit (cents, play chips)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        first, last = payout_window()
        try:
            first = day_from_text(request.GET["from"]) if request.GET.get("from") else first
            last = day_from_text(request.GET["to"]) if request.GET.get("to") else last
        except DayOutOfRange as error:
            messages.error(request, str(error))
            return HttpResponseRedirect(reverse("admin:tables_payoutday_changelist"))
        except ValueError:
            messages.error(request, _("Give the days of the CSV as YYYY-MM-DD."))
            return HttpResponseRedirect(reverse("admin:tables_payoutday_changelist"))
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="payout-{first}-{last}.csv"'
        writer = csv.writer(response)
        writer.writerow(CSV_HEADER)
        for row in payout_days(first=first, last=last):
            percent = payout_percent(put_in=row.put_in, paid_back=row.paid_back)
            writer.writerow(
                (
                    row.day.isoformat(),
                    row.game,
                    row.currency,
                    row.put_in,
                    row.paid_back,
                    "" if percent is None else str(percent),
                    row.count,
                )
            )
        return response
