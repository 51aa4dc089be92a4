"""The filters of "My hands" and of the downloads: bad input gets a form error, never a 500."""

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.days import DayField
from tables.models import Game

PAGE_SIZES = (10, 25, 50, 100)


class HandFilterForm(forms.Form):
    table = forms.IntegerField(label=_("Table"), required=False, min_value=1, max_value=2**31 - 1)
    game = forms.ChoiceField(label=_("Game"), required=False, choices=[("", _("All games")), *Game.choices])
    since = DayField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = DayField(
        label=pgettext_lazy("until a date", "To"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The first day comes after the last."))
        return cleaned

    def filters(self) -> dict:
        data = self.cleaned_data
        return {
            "table_id": data.get("table"),
            "game": data.get("game") or None,
            "since": data.get("since"),
            "until": data.get("until"),
        }


class HandPageForm(HandFilterForm):
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1, max_value=10**6)
    per_page = forms.TypedChoiceField(
        label=_("Hands a page"),
        required=False,
        coerce=int,
        choices=[(n, n) for n in PAGE_SIZES],
        empty_value=25,
    )


class ExportForm(HandFilterForm):
    format = forms.ChoiceField(
        label=_("Format"),
        choices=[
            ("pokerstars", _("PokerStars text")),
            ("phh", "PHH"),
            ("summaries", _("Tournament summaries (PokerStars)")),
        ],
        initial="pokerstars",
    )
