"""The cashier's pieces of other pages: `{% account_money %}` on the account page."""

from django import template
from django.conf import settings

from cashier.selectors import (
    deposit_limits_for,
    seat_sessions_open,
    self_exclusion_active,
    self_exclusion_liftable_from,
    wallet_balances,
)

register = template.Library()


@register.inclusion_tag("cashier/_account_money.html", takes_context=True)
def account_money(context):
    user = context["request"].user
    balances = wallet_balances(user=user)
    exclusion = self_exclusion_active(user=user)
    return {
        "request": context["request"],
        "csrf_token": context.get("csrf_token"),
        "user": user,
        "balances": balances,
        "refill_below": getattr(settings, "PLAY_CHIPS_REFILL_BELOW", 100_000),
        "can_refill": balances["play"] < getattr(settings, "PLAY_CHIPS_REFILL_BELOW", 100_000),
        "sessions": seat_sessions_open(user=user),
        "exclusion": exclusion,
        "liftable_from": exclusion and self_exclusion_liftable_from(exclusion),
        "limits": deposit_limits_for(user=user),
    }
