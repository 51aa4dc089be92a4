from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label=_("Email"), required=True)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this email already exists."))
        return email


# Responsible gaming (the rules are in cashier.services).


class DepositLimitForm(forms.Form):
    from accounts.models import DepositLimit as _DepositLimit

    period = forms.ChoiceField(label=_("Period"), choices=_DepositLimit.Period.choices)
    amount = forms.CharField(
        label=_("Limit (EUR)"), required=False, max_length=40,
        help_text=_("Leave empty for no limit. A lower limit applies at once; a higher one after a waiting period."),
    )

    def clean_amount(self):
        from cashier.amounts import amount_parse
        from cashier.errors import InvalidAmount

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
    from accounts.models import SelfExclusion as _SelfExclusion

    period = forms.ChoiceField(label=_("Exclude me for"), choices=_SelfExclusion.Period.choices,
                               widget=forms.RadioSelect)
    confirm = forms.BooleanField(
        label=_("I understand that this cannot be undone early: I will be cashed out of every table and cannot "
                "deposit or play until it ends."),
        required=True,
    )
