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
        label=_("Date of birth"),
        required=True,
        widget=forms.DateInput(attrs={"type": "date"}),
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
