import uuid
from decimal import Decimal

from django import forms
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from accounts.models import DepositLimit, SelfExclusion
from cashier.amounts import amount_parse
from cashier.errors import InvalidAmount


class MoneyField(forms.Field):
    """An amount as a player (or staff) types it, in units and their locale ("20.50", "20,50"); cleaned to
    integer cents (play chips count like cents). A stored amount is shown the same way ("20.50")."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "maxlength": "40"})

    def __init__(self, *args, allow_zero: bool = False, **kwargs):
        self.allow_zero = allow_zero
        super().__init__(*args, **kwargs)

    def to_python(self, value):
        value = str(value).strip() if value is not None else ""
        if value in self.empty_values:
            return None
        try:
            return amount_parse(value, allow_zero=self.allow_zero)
        except InvalidAmount as error:
            raise forms.ValidationError(str(error), code="invalid") from None

    def prepare_value(self, value):
        if isinstance(value, int) and not isinstance(value, bool):
            sign = "-" if value < 0 else ""
            return sign + number_format(Decimal(abs(value)) / 100, decimal_pos=2, use_l10n=True)
        return value


class IdempotentForm(forms.Form):
    """Carries a key made when the form was shown: sending the same form twice never moves money twice."""

    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=150)

    id_prefix = "id"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("idempotency_key", uuid.uuid4().hex)
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)


class CardNumberField(forms.CharField):
    """A card number as printed: the digits 0-9, in groups separated by spaces or dashes if one likes. Any
    other character (another script's digits, superscripts, letters) is a form error, never passed on."""

    widget = forms.TextInput(attrs={"autocomplete": "cc-number", "inputmode": "numeric"})

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 30)
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        digits = "".join(ch for ch in value if ch not in " -")
        if not (digits.isascii() and digits.isdigit() and 12 <= len(digits) <= 19):
            raise forms.ValidationError(
                _("Enter the card number as printed on the card: 12 to 19 digits 0-9."), code="invalid"
            )
        return digits


class DepositForm(IdempotentForm):
    """Shown on one page with the withdrawal form: its own ids, so that each label focuses its own field."""

    id_prefix = "deposit"
    amount = MoneyField(label=_("Amount (EUR)"))
    card_number = CardNumberField(label=_("Card number"))


class WithdrawalForm(IdempotentForm):
    """With `two_factor` (the player turned it on), a field for the code their app shows now."""

    id_prefix = "withdrawal"
    amount = MoneyField(label=_("Amount (EUR)"))
    card_number = CardNumberField(label=_("Card to pay to"))

    def __init__(self, *args, two_factor: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if two_factor:
            self.fields["otp_code"] = forms.CharField(
                label=_("Code from your authenticator app"),
                required=False,
                max_length=40,
                widget=forms.TextInput(
                    attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "maxlength": "40"}
                ),
            )


# Responsible gaming (SPEC 2): the player's deposit limits and self-exclusion.


class DepositLimitForm(forms.Form):
    period = forms.ChoiceField(label=_("Period"), choices=DepositLimit.Period.choices)
    amount = forms.CharField(
        label=_("Limit (EUR)"),
        required=False,
        max_length=40,
        help_text=_(
            "Leave empty for no limit. A lower limit applies at once; a higher one after a waiting period."
        ),
    )

    def clean_amount(self):
        value = (self.cleaned_data.get("amount") or "").strip()
        if not value:
            return None
        if value in {"0", "0,00", "0.00"}:
            return 0
        try:
            return amount_parse(value)
        except InvalidAmount as error:
            raise forms.ValidationError(str(error)) from None


class SelfExclusionForm(forms.Form):
    period = forms.ChoiceField(
        label=_("Exclude me for"), choices=SelfExclusion.Period.choices, widget=forms.RadioSelect
    )
    confirm = forms.BooleanField(
        label=_(
            "I understand that this cannot be undone early: I will be cashed out of every table and cannot "
            "deposit or play until it ends."
        ),
        required=True,
    )
