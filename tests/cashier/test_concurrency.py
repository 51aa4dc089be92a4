"""Many players at once on shared wallets: 20 threads, 1,000 mixed operations, real PostgreSQL connections.

Every operation that succeeded is recorded with what it did to the wallet; at the end each wallet holds
exactly what the successful operations say, each open seat holds what was moved in, nothing deadlocked, and
the ledger check is clean."""

import random
import threading
from collections import defaultdict

import pytest
from django.core.management import call_command
from django.db import connection

from cashier import services
from cashier.errors import CashierError
from cashier.models import Account, AccountKind, SeatSession, Withdrawal
from cashier.selectors import ledger_check, wallet_balances
from tests.factories import CARD_OK, new_key, player_create
from tests.factories import eur_table_create as table_create

THREADS = 20
OPERATIONS_PER_THREAD = 50  # 1,000 in all


@pytest.mark.django_db(transaction=True)
def test_twenty_threads_of_mixed_operations_on_shared_wallets():
    players = [player_create(verified=True) for _ in range(6)]
    for p in players:
        services.deposit_create(user=p, amount=50_000, card_number=CARD_OK, idempotency_key=new_key())
    tables = [
        table_create(),
        table_create(small_blind=25, big_blind=50),
        table_create(),
        table_create(seats=9),
    ]
    deltas: dict[int, int] = defaultdict(int)  # wallet change per player, from the successful operations
    counts: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    failures: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def record(player, amount, op):
        with lock:
            deltas[player.pk] += amount
            counts[op] += 1

    def worker(seed: int):
        rng = random.Random(seed)
        try:
            barrier.wait()
            for _ in range(OPERATIONS_PER_THREAD):
                player = rng.choice(players)
                table = rng.choice(tables)
                op = rng.choice(["deposit", "buy_in", "buy_in", "top_up", "top_up", "cash_out", "withdraw"])
                try:
                    if op == "deposit":
                        amount = rng.randrange(100, 20_000)
                        d = services.deposit_create(
                            user=player, amount=amount, card_number=CARD_OK, idempotency_key=new_key()
                        )
                        assert d.status == "succeeded"
                        record(player, amount, op)
                    elif op == "buy_in":
                        low, high = table.min_buy_in, table.effective_max_buy_in
                        amount = rng.randrange(low, high + 1)
                        services.seat_buy_in(
                            user=player,
                            table=table,
                            seat_number=rng.randrange(1, table.seats + 1),
                            amount=amount,
                        )
                        record(player, -amount, op)
                    elif op == "top_up":
                        amount = rng.randrange(1, 2_000)
                        services.seat_top_up(user=player, table=table, amount=amount)
                        record(player, -amount, op)
                    elif op == "cash_out":
                        session = services.seat_cash_out(user=player, table=table)
                        record(player, session.left_with, op)
                    else:
                        amount = rng.randrange(100, 10_000)
                        services.withdrawal_request(
                            user=player, amount=amount, card_number=CARD_OK, idempotency_key=new_key()
                        )
                        record(player, -amount, op)
                except CashierError:
                    with lock:
                        counts["refused"] += 1
        except BaseException as error:  # noqa: BLE001 - reported below, in the test's thread
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads), "a worker is stuck"
    assert not failures, failures[:3]
    assert sum(counts.values()) == THREADS * OPERATIONS_PER_THREAD
    assert counts["buy_in"] > 10 and counts["cash_out"] > 10 and counts["top_up"] > 0, dict(counts)
    assert counts["deposit"] > 50 and counts["withdraw"] > 20, dict(counts)

    for p in players:
        assert wallet_balances(user=p)["eur"] == 50_000 + deltas[p.pk], p
    for session in SeatSession.objects.filter(closed_at__isnull=True).select_related("account"):
        assert session.account.balance == session.moved_in  # no hands were played
    held = Account.objects.get(kind=AccountKind.WITHDRAWAL_HOLD, currency="eur").balance
    assert held == sum(w.amount for w in Withdrawal.objects.all())
    report = ledger_check()
    assert report.ok, report.violations
    call_command("ledger_check")
