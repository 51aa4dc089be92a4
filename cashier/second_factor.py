"""EUR withdrawals and two-factor sign-in (accounts.two_factor): once a player turned it on, a withdrawal
needs the code their authenticator app shows now, typed into the withdrawal form."""

from django.utils.translation import gettext as _

from accounts import two_factor
from cashier.errors import SecondFactorRefused


def withdrawal_code_check(*, user, code: str) -> None:
    """Nothing for a player without two-factor; otherwise SecondFactorRefused unless `code` is the app's
    current code (recovery codes are for logging in only). Wrong codes count towards the same wait as the
    login's."""
    if not two_factor.is_enabled(user):
        return
    if not two_factor.code_normalize(code):
        raise SecondFactorRefused(
            _(
                "Enter the code your authenticator app shows now: with two-factor sign-in on, withdrawals need it."
            )
        )
    try:
        two_factor.code_check(user=user, code=code, recovery=False)
    except two_factor.TwoFactorError as error:
        raise SecondFactorRefused(str(error)) from None
