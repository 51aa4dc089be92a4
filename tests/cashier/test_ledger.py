"""The ledger itself: balanced transfers, stored balances, the database's own guards, ledger_check."""

import os
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from django.test import override_settings

from cashier import services
from cashier.errors import LedgerUnbalanced
from cashier.ledger import accounts_lock, system_account_get, transfer_post, wallet_get
from cashier.models import Account, AccountKind, Entry, Transfer, TransferKind
from cashier.selectors import ledger_check, wallet_balances
from tests.factories import player_create

pytestmark = pytest.mark.django_db


def test_new_player_gets_the_welcome_play_chips_once(player):
    assert wallet_balances(user=player) == {"play": 1_000_000, "eur": 0}
    again = services.play_chips_welcome(user=player)
    assert again.replayed
    assert wallet_balances(user=player)["play"] == 1_000_000
    issuer = Account.objects.get(kind=AccountKind.PLAY_ISSUER, currency="play")
    assert issuer.balance <= -1_000_000  # negative by design
    assert ledger_check().ok


def test_signup_view_credits_the_welcome_chips(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.com",
            "password1": "A-long-Passw0rd!",
            "password2": "A-long-Passw0rd!",
            "date_of_birth": "1990-04-01",
        },
    )
    assert response.status_code == 200
    from accounts.models import User

    assert wallet_balances(user=User.objects.get(username="newbie"))["play"] == 1_000_000


@override_settings(PLAY_CHIPS_WELCOME=5_000)
def test_welcome_amount_is_a_setting(db):
    assert wallet_balances(user=player_create())["play"] == 5_000


def test_stored_balance_equals_entries_and_transfers_sum_to_zero(player):
    for transfer in Transfer.objects.all():
        assert sum(e.amount for e in transfer.entries.all()) == 0
    wallet = wallet_get(user=player, currency="play")
    assert wallet.balance == sum(wallet.entries.values_list("amount", flat=True))


def test_an_unbalanced_transfer_is_refused_by_the_service(player):
    with transaction.atomic():
        wallet = wallet_get(user=player, currency="play")
        issuer = system_account_get(kind=AccountKind.PLAY_ISSUER, currency="play")
        locked = accounts_lock(accounts=[wallet, issuer])
        with pytest.raises(LedgerUnbalanced):
            transfer_post(
                kind="refill", currency="play", legs=[(locked[issuer.pk], -5), (locked[wallet.pk], 6)]
            )
    assert wallet_balances(user=player)["play"] == 1_000_000


def test_transfer_post_refuses_accounts_not_locked(player):
    wallet = wallet_get(user=player, currency="play")
    issuer = system_account_get(kind=AccountKind.PLAY_ISSUER, currency="play")
    with transaction.atomic(), pytest.raises(RuntimeError):
        transfer_post(kind="refill", currency="play", legs=[(issuer, -5), (wallet, 5)])


def test_the_database_refuses_an_unbalanced_transfer_at_commit(player):
    wallet = wallet_get(user=player, currency="play")
    transfer = Transfer.objects.create(kind="refill", currency="play")
    with pytest.raises(DatabaseError, match="does not balance"), transaction.atomic():
        Entry.objects.create(transfer=transfer, account=wallet, amount=7, balance_after=0)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_the_database_refuses_to_mix_currencies_in_a_transfer(player):
    eur = wallet_get(user=player, currency="eur")
    play = wallet_get(user=player, currency="play")
    transfer = Transfer.objects.create(kind="refill", currency="play")
    with pytest.raises(DatabaseError, match="mixes currencies"), transaction.atomic():
        Entry.objects.create(transfer=transfer, account=play, amount=7, balance_after=0)
        Entry.objects.create(transfer=transfer, account=eur, amount=-7, balance_after=0)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE cashier_entry SET amount = amount + 1",
        "DELETE FROM cashier_entry",
        "UPDATE cashier_transfer SET kind = 'deposit'",
        "DELETE FROM cashier_transfer",
    ],
)
def test_entries_and_transfers_cannot_be_updated_or_deleted(player, sql):
    before = list(Entry.objects.values_list("id", "amount"))
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert list(Entry.objects.values_list("id", "amount")) == before


def test_orm_delete_of_an_entry_is_refused_too(player):
    entry = Entry.objects.filter(account__user=player).first()
    with pytest.raises(DatabaseError), transaction.atomic():
        entry.delete()
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_a_wallet_cannot_go_negative_even_by_hand(player):
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE cashier_account SET balance = -1 WHERE user_id = %s", [player.pk])


def test_ledger_check_command_is_clean_and_prints_totals(player, capsys):
    call_command("ledger_check")
    out = capsys.readouterr().out
    assert "ledger OK" in out
    assert "issuer" in out and "player_play" in out


def test_ledger_check_detects_a_corrupted_stored_balance(player, capsys):
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cashier_account SET balance = balance + 100 WHERE user_id = %s AND kind = 'player_play'",
            [player.pk],
        )
    with pytest.raises(CommandError):
        call_command("ledger_check")
    err = capsys.readouterr().err
    assert "stored balance 1000100 but its entries sum to 1000000" in err
    assert "play: the stored balances sum to 100, not zero" in err


@pytest.mark.django_db(transaction=True)
def test_ledger_check_exits_non_zero_as_a_process():
    player = player_create()
    env = {**os.environ, "DATABASE_URL": _url_of_test_database()}
    ok = subprocess.run(
        [sys.executable, "manage.py", "ledger_check"], env=env, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cashier_account SET balance = balance + 1 WHERE user_id = %s", [player.pk])
    bad = subprocess.run(
        [sys.executable, "manage.py", "ledger_check"], env=env, capture_output=True, text=True
    )
    assert bad.returncode != 0
    assert "VIOLATION" in bad.stderr


def _url_of_test_database() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgresql://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def test_a_transfer_replayed_by_its_key_after_its_money_moved_on_moves_nothing_again(player):
    """The same key and data return the first transfer even when the accounts could no longer afford it."""
    from cashier.errors import IdempotencyConflict, InsufficientFunds

    other = player_create()

    def send(amount, key, data):
        with transaction.atomic():
            sender, receiver = (
                wallet_get(user=player, currency="play"),
                wallet_get(user=other, currency="play"),
            )
            locked = accounts_lock(accounts=[sender, receiver])
            return transfer_post(
                kind=TransferKind.HAND,
                currency="play",
                legs=[(locked[sender.pk], -amount), (locked[receiver.pk], amount)],
                idempotency_key=key,
                request_hash=data,
            )

    first = send(1_000_000, "gift:1", "a")  # the player's whole wallet
    again = send(1_000_000, "gift:1", "a")
    assert again.pk == first.pk and again.replayed
    assert wallet_balances(user=player)["play"] == 0 and wallet_balances(user=other)["play"] == 2_000_000
    with pytest.raises(IdempotencyConflict):
        send(1_000_000, "gift:1", "b")
    with pytest.raises(InsufficientFunds):
        send(1_000_000, "gift:2", "a")
    assert ledger_check().ok
