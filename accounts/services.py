"""What happens around a player's account. Accounts import no other app of the room: the apps that must act
when something happens here (the cashier gives a new player their welcome chips) register a function, once,
in their `AppConfig.ready()`, rather than listening to signals, so the order of things is written down.

Closing an account takes the player's money off the tables: that is the cashier's `player_deactivate`."""

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from accounts.audit import staff_action_record
from accounts.models import User

_signed_up: list[Callable] = []


def user_signed_up_register(func: Callable) -> None:
    """`func(*, user)`: called inside the transaction of `user_signed_up`, in the order registered."""
    if func not in _signed_up:
        _signed_up.append(func)


def user_signed_up(*, user) -> None:
    """Called once, right after a player's account is created (in the sign-up view's request)."""
    with transaction.atomic():
        for func in _signed_up:
            func(user=user)


def identity_verify(*, user, staff_user) -> bool:
    """Staff checked the player's identity documents (what withdrawals need). False when there was nothing
    to do: already verified, or a house bot, which has no identity."""
    now = timezone.now()
    with transaction.atomic():
        done = User.objects.filter(pk=user.pk, identity_verified_at__isnull=True, is_bot=False).update(
            identity_verified_at=now, identity_verified_by=staff_user
        )
        if done:
            staff_action_record(actor=staff_user, action="identity.verify", target=user,
                                before={"identity_verified_at": None},
                                after={"identity_verified_at": now, "identity_verified_by": staff_user.pk})
    if done:
        user.identity_verified_at, user.identity_verified_by = now, staff_user
    return bool(done)


def player_reactivate(*, user, staff_user, note: str = "") -> None:
    with transaction.atomic():
        if User.objects.filter(pk=user.pk, is_active=False).update(is_active=True):
            staff_action_record(actor=staff_user, action="player.reactivate", target=user,
                                before={"is_active": False}, after={"is_active": True}, note=note)
    user.is_active = True
