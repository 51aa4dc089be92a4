"""The admin's forms for tournaments: the buy-in and the fee are money in the tournament's currency, typed in units
with two decimals in the staff member's locale ("2.50", "0,25") and stored in cents (play chips count like
cents), as the table and cashier admins take them (cashier.forms.MoneyField). Tournament chips (starting stacks,
blinds, antes) are not money: whole counts, typed and shown as such."""

from django import forms
from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy, ngettext

from cashier.forms import MoneyField
from tournaments.models import BlindLevel, Tournament

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
