"""`{% two_factor_enabled user as on %}`: whether the account page says two-factor sign-in is on."""

from django import template

from accounts import two_factor

register = template.Library()


@register.simple_tag
def two_factor_enabled(user) -> bool:
    return two_factor.is_enabled(user)
