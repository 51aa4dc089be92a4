import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from cashier.amounts import amount_parse
from cashier.errors import InvalidAmount


class MoneyField(forms.Field):
    """An amount as a player types it, in their locale ("20.50", "20,50"); cleaned to integer cents."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "maxlength": "40"})

    def to_python(self, value):
        value = str(value).strip() if value is not None else ""
        if value in self.empty_values:
            return None
        try:
            return amount_parse(value)
        except InvalidAmount as error:
            raise forms.ValidationError(str(error), code="invalid") from None


class IdempotentForm(forms.Form):
    """Carries a key made when the form was shown: sending the same form twice never moves money twice."""

    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=150)

    id_prefix = "id"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("idempotency_key", uuid.uuid4().hex)
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)


class DepositForm(IdempotentForm):
    """Shown on one page with the withdrawal form: its own ids, so that each label focuses its own field."""

    id_prefix = "deposit"
    amount = MoneyField(label=_("Amount (EUR)"))
    card_number = forms.CharField(label=_("Card number"), max_length=30,
                                  widget=forms.TextInput(attrs={"autocomplete": "cc-number", "inputmode": "numeric"}))


class WithdrawalForm(IdempotentForm):
    id_prefix = "withdrawal"
    amount = MoneyField(label=_("Amount (EUR)"))
    card_number = forms.CharField(label=_("Card to pay to"), max_length=30,
                                  widget=forms.TextInput(attrs={"autocomplete": "cc-number", "inputmode": "numeric"}))
