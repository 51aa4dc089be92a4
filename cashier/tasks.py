"""Periodic chores of the cashier. Schedule `cashier.tasks.payments_chase` every few minutes in
CELERY_BEAT_SCHEDULE: deposits and approved withdrawals whose provider did not answer are asked again (same
idempotency key), so a timeout never leaves money in limbo for long."""

from celery import shared_task

from cashier import services
from cashier.models import Deposit, Withdrawal


@shared_task(name="cashier.payments_chase")
def payments_chase() -> dict:
    settled = {"deposits": 0, "withdrawals": 0}
    for deposit in Deposit.objects.filter(status=Deposit.Status.PENDING).order_by("id")[:200]:
        settled["deposits"] += services.deposit_retry(deposit=deposit).status != Deposit.Status.PENDING
    for withdrawal in Withdrawal.objects.filter(status=Withdrawal.Status.PROCESSING).order_by("id")[:200]:
        result = services.withdrawal_payout_retry(withdrawal=withdrawal)
        settled["withdrawals"] += result.status != Withdrawal.Status.PROCESSING
    return settled
