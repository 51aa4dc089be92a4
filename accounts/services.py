"""What happens around a player's account. Other apps hook in here rather than into signals, so the
order of things is written down in one place."""

from django.db import transaction


def user_signed_up(*, user) -> None:
    """Called once, right after a player's account is created (in the sign-up view's request)."""
    from cashier.services import play_chips_welcome

    with transaction.atomic():
        play_chips_welcome(user=user)
