"""A hypothesis state machine over the cashier's operations. Invariants after every step: per currency all
accounts sum to zero, every stored balance equals its entries, no player account is negative (ledger_check);
and an operation the cashier refused moved nothing at all."""

from collections import Counter

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from cashier import services
from cashier.errors import CashierError
from cashier.models import Deposit, SeatSession, Withdrawal
from cashier.selectors import ledger_check
from tests.factories import CARD_DECLINED, CARD_OK, CARD_TIMEOUT, new_key, player_create
from tests.factories import eur_table_create as table_create

HANDS_SETTLED: list[int] = []  # rakes of the hands settled, over all examples: the machine did play hands
CARDS = st.sampled_from([CARD_OK, CARD_OK, CARD_DECLINED, CARD_TIMEOUT])
AMOUNTS = st.one_of(
    st.integers(min_value=1, max_value=60_000),
    st.integers(min_value=-5, max_value=0),
    st.just(2**60),
    st.floats(allow_nan=False, allow_infinity=False, min_value=0, max_value=1e6),
)


def balances() -> list[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, balance FROM cashier_account ORDER BY id")
        return cursor.fetchall()


class CashierMachine(RuleBasedStateMachine):
    @initialize()
    def world(self):
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.players = [player_create(verified=True) for _ in range(3)]
        self.staff = player_create()
        self.tables = [
            table_create(),
            table_create(currency="play"),
            table_create(small_blind=500, big_blind=1000),
        ]
        self.hands = 0
        self.done = Counter()
        for player in self.players:  # a start, so that tables fill up
            services.deposit_create(
                user=player, amount=150_000, card_number=CARD_OK, idempotency_key=new_key()
            )
        for n, player in enumerate(self.players, start=1):  # seated from the start, so hands get played
            services.seat_buy_in(user=player, table=self.tables[0], seat_number=n, amount=5_000)
            services.seat_buy_in(user=player, table=self.tables[1], seat_number=n, amount=5_000)

    def teardown(self):
        if hasattr(self, "atomic"):
            transaction.set_rollback(True)
            self.atomic.__exit__(None, None, None)

    def attempt(self, func, **kwargs):
        before = balances()
        try:
            return func(**kwargs)
        except CashierError as refusal:
            assert str(refusal)
            assert balances() == before, f"{func.__name__} refused but moved money"
            return None

    @rule(p=st.integers(0, 2), amount=AMOUNTS, card=CARDS)
    def deposit(self, p, amount, card):
        self.attempt(
            services.deposit_create,
            user=self.players[p],
            amount=amount,
            card_number=card,
            idempotency_key=new_key(),
        )

    @rule()
    def retry_pending(self):
        for deposit in Deposit.objects.filter(status=Deposit.Status.PENDING):
            services.deposit_retry(deposit=deposit)
        for withdrawal in Withdrawal.objects.filter(status=Withdrawal.Status.PROCESSING):
            services.withdrawal_payout_retry(withdrawal=withdrawal)

    @rule(p=st.integers(0, 2), amount=AMOUNTS, card=CARDS)
    def withdraw(self, p, amount, card):
        self.attempt(
            services.withdrawal_request,
            user=self.players[p],
            amount=amount,
            card_number=card,
            idempotency_key=new_key(),
        )

    @rule(approve=st.booleans())
    def review(self, approve):
        withdrawal = Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).first()
        if withdrawal is None:
            return
        if approve:  # refused while a deposit of the player is flagged and not reviewed (docs/staff.md)
            self.attempt(services.withdrawal_approve, withdrawal=withdrawal, staff_user=self.staff)
        else:
            services.withdrawal_reject(withdrawal=withdrawal, staff_user=self.staff)

    @rule(
        p=st.integers(0, 2), t=st.integers(0, 2), seat=st.integers(0, 7) | st.integers(1, 6), data=st.data()
    )
    def buy_in(self, p, t, seat, data):
        table = self.tables[t]
        amount = data.draw(
            st.one_of(
                st.integers(table.min_buy_in, table.effective_max_buy_in),
                st.integers(table.min_buy_in, table.effective_max_buy_in),
                AMOUNTS,
            )
        )
        if self.attempt(
            services.seat_buy_in, user=self.players[p], table=table, seat_number=seat, amount=amount
        ):
            self.done["buy_in"] += 1

    @rule(p=st.integers(0, 2), t=st.integers(0, 2), amount=AMOUNTS)
    def top_up(self, p, t, amount):
        self.attempt(services.seat_top_up, user=self.players[p], table=self.tables[t], amount=amount)

    @rule(p=st.integers(0, 2), t=st.integers(0, 2))
    def cash_out(self, p, t):
        self.attempt(services.seat_cash_out, user=self.players[p], table=self.tables[t])

    @rule(t=st.integers(0, 2), data=st.data())
    def hand(self, t, data):
        table = self.tables[t]
        sessions = list(
            SeatSession.objects.filter(table=table, closed_at__isnull=True).select_related("account")
        )
        if len(sessions) < 2:
            return
        winner = data.draw(st.sampled_from(sessions))
        deltas, pot = {}, 0
        for s in sessions:
            if s.pk != winner.pk:
                lost = data.draw(st.integers(0, s.account.balance))
                deltas[s.pk] = -lost
                pot += lost
        rake = data.draw(st.integers(0, min(pot, 300)))
        deltas[winner.pk] = pot - rake
        put_in = {s: -d for s, d in deltas.items() if s != winner.pk}
        put_in[winner.pk] = max(put_in.values(), default=0)  # the winner matched the biggest loser
        self.hands += 1
        if self.attempt(
            services.hand_settle,
            table=table,
            hand_ref=f"h{self.hands}",
            deltas=deltas,
            put_in=put_in,
            rake=rake,
        ):
            self.done["hand"] += 1
            HANDS_SETTLED.append(rake)
        if data.draw(st.booleans()):  # the table code retries the same settlement: nothing moves twice
            before = balances()
            services.hand_settle(
                table=table, hand_ref=f"h{self.hands}", deltas=deltas, put_in=put_in, rake=rake
            )
            assert balances() == before

    @rule(p=st.integers(0, 2))
    def refill(self, p):
        self.attempt(services.play_chips_refill, user=self.players[p])

    @rule(
        p=st.integers(0, 2),
        period=st.sampled_from(["day", "week", "month"]),
        amount=st.one_of(st.none(), st.integers(0, 100_000)),
    )
    def limit(self, p, period, amount):
        self.attempt(services.deposit_limit_set, user=self.players[p], period=period, amount=amount)

    @invariant()
    def ledger_is_sound(self):
        if hasattr(self, "atomic"):
            report = ledger_check()
            assert report.ok, report.violations


@pytest.mark.django_db
def test_cashier_state_machine_conserves_money():
    run_state_machine_as_test(
        CashierMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
    assert len(HANDS_SETTLED) >= 5 and sum(HANDS_SETTLED) > 0
