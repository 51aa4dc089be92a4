"""What a hand's settlement records of its pots (the payout statistics' source): the money put in, the part
people put in, the database's guard and what `ledger_check` verifies."""

import pytest
from django.db import IntegrityError, transaction

from cashier import services
from cashier.ledger import accounts_lock, transfer_post
from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tests.factories import player_create

pytestmark = pytest.mark.django_db


def seated(table, *, bots: int = 0, people: int = 2):
    """Sessions of `people` players and `bots` house bots at a play table, 100.00 chips each."""
    users = [player_create() for _ in range(people)] + [player_create(bot=True) for _ in range(bots)]
    for user in users[people:]:
        services.bot_wallet_fund(bot=user, amount=100_000)
    return [
        services.seat_buy_in(user=user, table=table, seat_number=number, amount=10_000)
        for number, user in enumerate(users, start=1)
    ]


def test_a_settlement_records_the_pot_and_the_part_people_put_in(play_table):
    alice, bruno, bot = seated(play_table, bots=1)
    # alice put in 300 and won the pot of 700 less 30 rake; bruno put in 300, the bot 100
    transfer = services.hand_settle(
        table=play_table,
        hand_ref="h1",
        deltas={alice: 370, bruno: -300, bot: -100},
        put_in={alice: 300, bruno: 300, bot: 100},
        rake=30,
    )
    transfer.refresh_from_db()
    assert (transfer.pot, transfer.pot_people) == (700, 600)
    assert ledger_check().ok


def test_a_seat_that_lost_more_than_it_put_in_is_refused(play_table):
    alice, bruno = seated(play_table)
    with pytest.raises(services.SettlementInvalid):
        services.hand_settle(
            table=play_table, hand_ref="h1", deltas={alice: 200, bruno: -200}, put_in={alice: 300, bruno: 100}
        )
    assert not Transfer.objects.filter(kind=TransferKind.HAND).exists()


def _post(*, sessions, amounts, pot, pot_people, kind=TransferKind.HAND):
    with transaction.atomic():
        locked = accounts_lock(accounts=[s.account_id for s in sessions])
        legs = [(locked[s.account_id], amount) for s, amount in zip(sessions, amounts, strict=True)]
        return transfer_post(kind=kind, currency="play", legs=legs, pot=pot, pot_people=pot_people)


@pytest.mark.parametrize(
    ("kind", "pot", "pot_people"),
    [
        (TransferKind.HAND, 100, 101),  # people cannot put in more than the pot
        (TransferKind.HAND, 100, -1),
        (TransferKind.HAND, 100, None),  # both or neither
        (TransferKind.TOP_UP, 100, 100),  # only a hand has pots
    ],
)
def test_the_database_refuses_a_pot_that_makes_no_sense(play_table, kind, pot, pot_people):
    alice, bruno = seated(play_table)
    with pytest.raises(IntegrityError, match="transfer_hand_pot"):
        _post(sessions=[alice, bruno], amounts=[50, -50], pot=pot, pot_people=pot_people, kind=kind)


def test_ledger_check_finds_a_hand_that_paid_out_more_than_its_pot(play_table):
    alice, bruno = seated(play_table)
    services.hand_settle(
        table=play_table, hand_ref="h1", deltas={alice: 50, bruno: -50}, put_in={alice: 50, bruno: 50}
    )
    assert ledger_check().ok
    bad = _post(sessions=[alice, bruno], amounts=[80, -80], pot=60, pot_people=60)
    report = ledger_check()
    assert (
        f"hand transfer {bad.pk} pays out 80 (net gains and rake) from pots of only 60" in report.violations
    )


def test_ledger_check_finds_a_hand_settled_without_its_pot_once_pots_are_recorded(play_table):
    alice, bruno = seated(play_table)
    services.hand_settle(
        table=play_table, hand_ref="h1", deltas={alice: 50, bruno: -50}, put_in={alice: 50, bruno: 50}
    )
    bare = _post(sessions=[alice, bruno], amounts=[20, -20], pot=None, pot_people=None)
    assert f"hand transfer {bare.pk} does not record what was put into its pots" in ledger_check().violations
