from datetime import date

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

ADULT_AGE = 18  # Italian law: nobody younger may play for money or for play chips in a licensed room


def age_on(birth: date, today: date) -> int:
    return today.year - birth.year - ((today.month, today.day) < (birth.month, birth.day))


class SignUpForm(UserCreationForm):
    """Whether the email already has an account is never said here (the view answers alike, and tells the
    owner of the address by email): only the username, a public name at the tables, must be free."""

    email = forms.EmailField(label=_("Email"), required=True, max_length=254)
    date_of_birth = forms.DateField(
        label=_("Date of birth"), required=True, widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("You must be 18 or older to play."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email", "date_of_birth")

    def clean_email(self):
        return self.cleaned_data["email"].strip().lower()

    def clean_date_of_birth(self):
        from django.utils import timezone

        birth = self.cleaned_data["date_of_birth"]
        today = timezone.localdate()
        if birth > today or birth.year < 1900:
            raise forms.ValidationError(_("Enter your real date of birth."))
        if age_on(birth, today) < ADULT_AGE:
            raise forms.ValidationError(_("You must be 18 or older to sign up."))
        return birth


class LanguageForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)


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
