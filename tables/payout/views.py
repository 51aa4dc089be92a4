"""The public payout page and `GET /api/payout/`: the last 30 days' figures per game type, from the daily rows."""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from tables.models import Currency
from tables.payout.chart import payout_chart
from tables.payout.selectors import PayoutLine, PayoutSummary, payout_summary, payout_window

SECTION_TITLES = {
    Currency.EUR.value: _("Real money (EUR): the published figures"),
    Currency.PLAY.value: _("Practice (play chips)"),
}


@require_GET
def payout_page(request):
    first, last = payout_window()
    summary = payout_summary(first=first, last=last)
    sections = [
        {
            "currency": currency,
            "title": SECTION_TITLES[currency],
            "lines": lines,
            "chart": payout_chart(lines=lines, first=first, last=last),
        }
        for currency, lines in summary.lines.items()
    ]
    return render(request, "tables/payout.html", {"summary": summary, "sections": sections})


@require_GET
def api_payout(request):
    first, last = payout_window()
    return JsonResponse(payout_summary_as_json(payout_summary(first=first, last=last)))


def payout_summary_as_json(summary: PayoutSummary) -> dict:
    """docs/payout.md's format: percentages as strings with two decimals (exact), amounts as integers."""
    return {
        "from": summary.first.isoformat(),
        "to": summary.last.isoformat(),
        "published": Currency.EUR.value,
        "currencies": {
            currency: [_line_as_json(line) for line in lines] for currency, lines in summary.lines.items()
        },
    }


def _line_as_json(line: PayoutLine) -> dict:
    return {
        "game": line.game,
        "payout": _percent(line.percent),
        "put_in": line.put_in,
        "paid_back": line.paid_back,
        "count": line.count,
        "daily": [
            {
                "day": d.day.isoformat(),
                "payout": _percent(d.percent),
                "put_in": d.put_in,
                "paid_back": d.paid_back,
                "count": d.count,
            }
            for d in line.days
        ],
    }


def _percent(value) -> str | None:
    return None if value is None else str(value)
