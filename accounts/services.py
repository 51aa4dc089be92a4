"""What happens around a player's account. Other apps hook in here rather than into signals, so the
order of things is written down in one place."""

from django.db import transaction


def user_signed_up(*, user) -> None:
    """Called once, right after a player's account is created (in the sign-up view's request)."""
    from cashier.services import play_chips_welcome

    with transaction.atomic():
        play_chips_welcome(user=user)


def identity_verify(*, user, staff_user) -> bool:
    """Staff checked the player's identity documents (what withdrawals need). False when there was nothing
    to do: already verified, or a house bot, which has no identity."""
    from django.utils import timezone

    from accounts.audit import staff_action_record
    from accounts.models import User

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


def player_deactivate(*, user, staff_user, note: str = "") -> int:
    """Close a player's account: no more logging in, deposits or sitting down; every seat is cashed out now,
    or when the hand in play there ends (the cashier's path for seats, as for a self-exclusion). Returns the
    number of seats cashed out now. Lock: the caller holds no table or ledger lock."""
    from accounts.audit import staff_action_record
    from accounts.models import User
    from cashier.ledger import accounts_lock, wallet_get
    from cashier.services import player_seats_cash_out

    with transaction.atomic():
        # The wallets' locks: a buy-in or deposit in flight finishes first, any later one sees the account closed.
        currencies = ("play",) if user.is_bot else ("play", "eur")
        accounts_lock(accounts=[wallet_get(user=user, currency=currency) for currency in currencies])
        if User.objects.filter(pk=user.pk, is_active=True).update(is_active=False):
            staff_action_record(actor=staff_user, action="player.deactivate", target=user,
                                before={"is_active": True}, after={"is_active": False}, note=note)
    user.is_active = False
    return len(player_seats_cash_out(user=user))


def player_reactivate(*, user, staff_user, note: str = "") -> None:
    from accounts.audit import staff_action_record
    from accounts.models import User

    with transaction.atomic():
        if User.objects.filter(pk=user.pk, is_active=False).update(is_active=True):
            staff_action_record(actor=staff_user, action="player.reactivate", target=user,
                                before={"is_active": False}, after={"is_active": True}, note=note)
    user.is_active = True
