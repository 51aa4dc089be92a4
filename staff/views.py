"""Views of the staff site that are no model's page: thin, each reads one selector."""

import csv
from datetime import timedelta

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseBadRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.days import DayField
from staff.selectors import rake_by_day_and_table

RAKE_CSV_MAX_DAYS = 366


class RakePeriodForm(forms.Form):
    since = DayField(label=gettext_lazy("from"), required=False)
    until = DayField(label=gettext_lazy("to"), required=False)

    def clean(self):
        data = super().clean()
        until = data.get("until") or timezone.localdate()
        since = data.get("since") or until - timedelta(days=29)
        if since > until:
            raise forms.ValidationError(_("The first day comes after the last."))
        if (until - since).days >= RAKE_CSV_MAX_DAYS:
            raise forms.ValidationError(_("At most %(days)d days at a time.") % {"days": RAKE_CSV_MAX_DAYS})
        data["since"], data["until"] = since, until
        return data


def _units(amount: int) -> str:
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount) // 100}.{abs(amount) % 100:02d}"


def rake_csv(request):
    """The rake per day and per table as CSV (`?since=YYYY-MM-DD&until=YYYY-MM-DD`; the last 30 days when
    not given): amounts in units with two decimals and in cents."""
    if not request.user.has_perm("cashier.view_transfer"):
        raise PermissionDenied
    form = RakePeriodForm(request.GET)
    if not form.is_valid():
        errors = "; ".join(str(e) for messages in form.errors.values() for e in messages)
        return HttpResponseBadRequest(errors, content_type="text/plain; charset=utf-8")
    since, until = form.cleaned_data["since"], form.cleaned_data["until"]
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="rake-{since}-{until}.csv"'
    writer = csv.writer(response)
    writer.writerow(["day", "table_id", "table", "currency", "rake", "rake_cents", "hands_raked"])
    for row in rake_by_day_and_table(since=since, until=until):
        writer.writerow(
            [
                row["day"].isoformat(),
                row["table_id"],
                row["table"],
                row["currency"],
                _units(row["rake"]),
                row["rake"],
                row["hands"],
            ]
        )
    return response
