"""The payout figure worked out from the ledger alone, for the payout tests to hold the page and the API to."""

from datetime import datetime, time
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone

from cashier.models import Transfer, TransferKind
from tables.payout.selectors import payout_window


def ledger_figure(*, currency: str, game: str) -> Decimal | None:
    """The payout of the last 30 days worked out here from the ledger's transfers alone (the rule on the page:
    people's money only, the rake shared in proportion, rounded to the nearest chip)."""
    first, _last = payout_window()
    since = timezone.make_aware(datetime.combine(first, time.min))
    put_in = paid_back = 0
    for transfer in Transfer.objects.filter(
        kind=TransferKind.HAND, currency=currency, created_at__gte=since, table__game=game, pot_people__gt=0
    ):
        rake = sum(e.amount for e in transfer.entries.select_related("account") if e.account.kind == "rake")
        share = Decimal(rake * transfer.pot_people) / transfer.pot
        put_in += transfer.pot_people
        paid_back += transfer.pot_people - int(share + Decimal("0.5"))
    if not put_in:
        return None
    return (Decimal(100 * paid_back) / put_in).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
