"""The admin's forms for tournaments: the buy-in and the fee are money in the tournament's currency, typed in units
with two decimals in the staff member's locale ("2.50", "0,25") and stored in cents (play chips count like
cents), as the table and cashier admins take them (cashier.forms.MoneyField). Tournament chips (starting stacks,
blinds, antes) are not money: whole counts, typed and shown as such."""

from django import forms
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext, gettext_lazy, ngettext

from cashier.forms import MoneyField
from tournaments.models import BlindLevel, Tournament, percent_to_shares
from tournaments.rules.payouts import PayoutBand, PayoutError, PayoutSchedule
from tournaments.rules.structures import Level, StructureError, levels_check

MONEY_HELP = gettext_lazy(
    "In the tournament's currency, with two decimals: 0.25 is EUR 0.25 (25 cents), or 0.25 play chips."
)
CHIPS_HELP = gettext_lazy("Tournament chips, a whole number: 1500 is 1,500 chips.")


def chip_count(count: int) -> str:
    """Tournament chips as a plain count with the unit: "1,500 chips" ("1.500 chips" in Italian)."""
    shown = number_format(int(count), decimal_pos=0, use_l10n=True, force_grouping=True)
    return ngettext("%(count)s chip", "%(count)s chips", int(count)) % {"count": shown}


class TournamentAdminForm(forms.ModelForm):
    buy_in = MoneyField(label=capfirst(gettext_lazy("buy-in")), allow_zero=True, help_text=MONEY_HELP)
    fee = MoneyField(label=capfirst(gettext_lazy("fee")), allow_zero=True, help_text=MONEY_HELP)

    class Meta:
        model = Tournament
        fields = (
            "name",
            "kind",
            "game",
            "structure",
            "currency",
            "buy_in",
            "fee",
            "starting_stack",
            "seats_per_table",
            "blind_structure",
            "payout_table",
            "min_entrants",
            "max_entrants",
            "starts_at",
            "late_registration_levels",
            "practice",
            "action_seconds",
            "time_bank_seconds",
        )
        help_texts = {"starting_stack": CHIPS_HELP}


class BlindLevelForm(forms.ModelForm):
    class Meta:
        model = BlindLevel
        fields = ("number", "small_blind", "big_blind", "ante", "seconds")
        help_texts = {"small_blind": CHIPS_HELP, "big_blind": CHIPS_HELP}


# --- blind structures and payout tables: what tournaments registering or running use cannot change ----------


def in_use_refusal(*, blind_structure=None, payout_table=None) -> str | None:
    """Why a blind structure's levels or a payout table's bands cannot change now: tournaments registering or
    running use them (their clock and prizes are read from these rows as they play). None when free."""
    uses = Tournament.objects.filter(status__in=(Tournament.Status.REGISTERING, Tournament.Status.RUNNING))
    if blind_structure is not None:
        uses = uses.filter(blind_structure=blind_structure)
    else:
        uses = uses.filter(payout_table=payout_table)
    names = list(uses.order_by("name").values_list("name", flat=True)[:6])
    if not names:
        return None
    shown = ", ".join(names[:5]) + (" …" if len(names) > 5 else "")
    return gettext(
        "Tournaments registering or running use this (%(names)s): it cannot change while they play. Copy it "
        "with the list's Copy action, edit the copy and choose it for new tournaments."
    ) % {"names": shown}


def _kept_forms(formset) -> list:
    """The forms of an inline formset that stay when it is saved (filled in, not marked for deletion)."""
    return [
        form
        for form in formset.forms
        if form.cleaned_data and not (formset.can_delete and formset._should_delete_form(form))
    ]


class BlindLevelFormSet(BaseInlineFormSet):
    """A structure's levels, refused as a whole while tournaments registering or running use it, or when the
    levels as edited could not be played (none, a small blind above its big blind, blinds going down)."""

    def clean(self):
        super().clean()
        if any(form.errors for form in self.forms):
            return
        changed = any(form.has_changed() for form in self.forms) or any(
            self._should_delete_form(form) for form in self.forms if self.can_delete
        )
        if self.instance.pk is not None and changed:
            refusal = in_use_refusal(blind_structure=self.instance)
            if refusal is not None:
                raise ValidationError(refusal)
        rows = sorted((form.cleaned_data for form in _kept_forms(self)), key=lambda row: row["number"])
        if not rows:
            raise ValidationError(gettext("A blind structure needs at least one level."))
        numbers = [row["number"] for row in rows]
        if len(set(numbers)) != len(numbers):
            raise ValidationError(gettext("Two levels have the same number."))
        for before, after in zip(rows, rows[1:], strict=False):
            if after["small_blind"] < before["small_blind"] or after["big_blind"] < before["big_blind"]:
                raise ValidationError(
                    gettext("Level %(after)d has lower blinds than level %(before)d: blinds never go down.")
                    % {"after": after["number"], "before": before["number"]}
                )
        try:
            levels_check([Level(r["small_blind"], r["big_blind"], r["ante"], r["seconds"]) for r in rows])
        except StructureError:
            raise ValidationError(gettext("These levels cannot be played.")) from None


class PayoutBandFormSet(BaseInlineFormSet):
    """A payout table's bands, refused as a whole while tournaments registering or running use it, or when the
    bands as edited leave a gap or overlap."""

    def clean(self):
        super().clean()
        if any(form.errors for form in self.forms):
            return
        changed = any(form.has_changed() for form in self.forms) or any(
            self._should_delete_form(form) for form in self.forms if self.can_delete
        )
        if self.instance.pk is not None and changed:
            refusal = in_use_refusal(payout_table=self.instance)
            if refusal is not None:
                raise ValidationError(refusal)
        rows = sorted((form.cleaned_data for form in _kept_forms(self)), key=lambda row: row["entrants_min"])
        if not rows:
            raise ValidationError(gettext("A payout table needs at least one band."))
        try:
            PayoutSchedule(
                bands=tuple(
                    PayoutBand(r["entrants_min"], r["entrants_max"], percent_to_shares(r["percentages"]))
                    for r in rows
                )
            )
        except PayoutError:
            raise ValidationError(
                gettext(
                    "The bands must follow each other without a gap or an overlap (e.g. 2-9, then 10-18)."
                )
            ) from None
