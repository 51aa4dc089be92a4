"""Tournament money through the real ledger (SPEC 1.3, 2): registering moves the buy-in to the pool and the fee
to the room in one transfer; unregistering and cancelling give both back; prizes go from the pool to the
winners, which ends at zero; refusals say why and move nothing; two players racing for the last seat."""

import threading

import pytest
from django.db import connection

from cashier import services as cashier
from cashier.errors import CashierError, InsufficientFunds, SelfExcluded
from cashier.ledger import system_account_get
from cashier.models import AccountKind, Transfer, TransferKind
from cashier.selectors import ledger_check, wallet_balances
from tests.factories import eur_player, player_create, tournament_create
from tournaments import services
from tournaments.errors import AlreadyRegistered, NotAllowed, RegistrationClosed, TournamentFull
from tournaments.models import Entry, Tournament
from tournaments.rules.payouts import Bust


def pool_of(tournament: Tournament) -> int:
    return system_account_get(
        kind=AccountKind.PRIZE_POOL, currency=tournament.currency, ref=tournament.pool_ref
    ).balance


def fees(currency: str = "eur") -> int:
    return system_account_get(kind=AccountKind.FEES, currency=currency).balance


def test_registering_moves_buy_in_to_the_pool_and_fee_to_the_room_in_one_transfer(sit_and_go):
    player = eur_player(5_000)
    fees_before = fees()
    entry = services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    assert (entry.status, entry.buy_in, entry.fee) == (Entry.Status.REGISTERED, 1_000, 100)
    assert wallet_balances(user=player)["eur"] == 3_900
    assert pool_of(sit_and_go) == 1_000 and fees() - fees_before == 100
    (transfer,) = Transfer.objects.filter(kind=TransferKind.TOURNAMENT_ENTRY, user=player)
    assert sorted(transfer.entries.values_list("amount", flat=True)) == [-1_100, 100, 1_000]
    assert ledger_check().ok


def refused(tournament, player, error):
    """Registering is refused with `error`, a readable reason, and moves nothing."""
    balances, transfers = wallet_balances(user=player), Transfer.objects.count()
    with pytest.raises(error) as raised:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    assert (
        str(raised.value)
        and wallet_balances(user=player) == balances
        and Transfer.objects.count() == transfers
    )
    return str(raised.value)


def test_refusals_say_why_and_move_nothing(sit_and_go):
    broke = player_create()  # play chips only: no euros
    assert "costs" in refused(sit_and_go, broke, InsufficientFunds)
    excluded = eur_player()
    cashier.player_self_exclude(user=excluded, period="30d")
    assert "excluded" in refused(sit_and_go, excluded, SelfExcluded)
    closed = eur_player()
    closed.is_active = False
    closed.save()
    refused(sit_and_go, closed, NotAllowed)
    bot = player_create(bot=True)
    assert "practice" in refused(sit_and_go, bot, NotAllowed)
    player = eur_player()
    services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    refused(sit_and_go, player, AlreadyRegistered)
    assert Entry.objects.filter(tournament=sit_and_go).count() == 1
    assert ledger_check().ok


def test_a_full_or_started_tournament_takes_nobody(db):
    tournament = tournament_create(seats=2)
    players = [eur_player() for _ in range(3)]
    for player in players[:2]:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    assert "full" in refused(tournament, players[2], TournamentFull)
    services.tournament_start(tournament_id=tournament.pk)
    with pytest.raises(RegistrationClosed):
        services.tournament_unregister(tournament_id=tournament.pk, user=players[0])
    refused(tournament, players[2], RegistrationClosed)


def test_unregistering_before_the_start_gives_both_back(sit_and_go):
    player = eur_player(5_000)
    fees_before = fees()
    services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    entry = services.tournament_unregister(tournament_id=sit_and_go.pk, user=player)
    assert entry.status == Entry.Status.UNREGISTERED
    assert wallet_balances(user=player)["eur"] == 5_000 and pool_of(sit_and_go) == 0 and fees() == fees_before
    # And may register again, a new entry with its own transfer.
    services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    assert wallet_balances(user=player)["eur"] == 3_900
    assert ledger_check().ok


def test_cancelling_refunds_every_entry(db):
    tournament = tournament_create(kind="mtt", min_entrants=5)
    players = [eur_player(2_000) for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    fees_before = fees()
    # The scheduled start with 3 of the 5 needed cancels it.
    tournament = services.tournament_start(tournament_id=tournament.pk)
    assert tournament.status == Tournament.Status.CANCELLED and "3" in tournament.cancelled_reason
    assert [wallet_balances(user=p)["eur"] for p in players] == [2_000] * 3
    assert pool_of(tournament) == 0 and fees_before - fees() == 300
    assert set(tournament.entries.values_list("status", flat=True)) == {Entry.Status.REFUNDED}
    with pytest.raises(RegistrationClosed):
        services.tournament_register(tournament_id=tournament.pk, user=eur_player())
    assert ledger_check().ok


def test_staff_cancel_a_tournament_that_has_not_started_only(sit_and_go):
    player = eur_player()
    services.tournament_register(tournament_id=sit_and_go.pk, user=player)
    services.tournament_cancel(tournament_id=sit_and_go.pk, reason="staff")
    assert wallet_balances(user=player)["eur"] == 10_000
    with pytest.raises(Exception, match="not started"):
        services.tournament_cancel(tournament_id=sit_and_go.pk, reason="again")


def test_a_sit_and_go_of_six_pays_65_35_to_the_cent_and_empties_the_pool(db):
    tournament = tournament_create(buy_in=1_001, fee=99)
    players = [eur_player(2_000) for _ in range(6)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.tournament_start(tournament_id=tournament.pk)
    entries = {e.user_id: e for e in tournament.entries.all()}
    assert {e.chips for e in entries.values()} == {1_500}
    assert pool_of(tournament) == 6_006

    def bust(*losers, to):
        """The losers' chips go to `to`, as a hand would; then the busts are recorded."""
        won = Entry.objects.filter(pk__in=[entries[p.pk].pk for p in losers]).values_list("chips", flat=True)
        Entry.objects.filter(pk=entries[to.pk].pk).update(chips=entries[to.pk].chips + sum(won))
        entries[to.pk].refresh_from_db()
        busts = [
            Bust(entries[p.pk].pk, stack_at_start=1_500, after_button=n) for n, p in enumerate(losers, 1)
        ]
        Entry.objects.filter(pk__in=[b.entry for b in busts]).update(chips=0)
        return services.tournament_busts_record(tournament_id=tournament.pk, busts=busts)

    a, b, c, d, e, f = players
    bust(f, to=a)
    bust(d, e, to=b)  # equal stacks: 4th and 5th shared, nothing paid
    bust(c, to=a)
    finishes = bust(b, to=a)  # heads-up: a wins
    assert [(x.place, x.prize) for x in finishes] == [(2, 2_102), (1, 3_904)]  # 6,006: 65 % + the cent, 35 %
    places = {p.pk: Entry.objects.get(pk=entries[p.pk].pk).place for p in players}
    assert places == {a.pk: 1, b.pk: 2, c.pk: 3, d.pk: 4, e.pk: 4, f.pk: 6}
    assert pool_of(tournament) == 0
    assert wallet_balances(user=a)["eur"] == 2_000 - 1_100 + 3_904
    assert sum(Entry.objects.filter(tournament=tournament).values_list("chips", flat=True)) == 6 * 1_500
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert ledger_check().ok


@pytest.mark.django_db(transaction=True)
def test_two_players_racing_for_the_last_seat_one_gets_it():
    tournament = tournament_create(seats=2)
    services.tournament_register(tournament_id=tournament.pk, user=eur_player())
    racers = [eur_player(1_100) for _ in range(2)]
    outcomes: dict[int, str] = {}
    barrier = threading.Barrier(2)

    def race(player):
        try:
            barrier.wait()
            services.tournament_register(tournament_id=tournament.pk, user=player)
            outcomes[player.pk] = "registered"
        except (TournamentFull, CashierError) as error:
            outcomes[player.pk] = type(error).__name__
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(p,)) for p in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes.values()) == ["TournamentFull", "registered"]
    assert tournament.entries.filter(status=Entry.Status.REGISTERED).count() == 2
    assert pool_of(tournament) == 2_000
    loser = next(p for p in racers if outcomes[p.pk] != "registered")
    assert wallet_balances(user=loser)["eur"] == 1_100
    assert ledger_check().ok


@pytest.mark.django_db(transaction=True)
def test_one_player_registering_twice_at_once_enters_once():
    tournament = tournament_create(seats=6)
    player = eur_player(5_000)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def race():
        try:
            barrier.wait()
            services.tournament_register(tournament_id=tournament.pk, user=player)
            outcomes.append("registered")
        except AlreadyRegistered:
            outcomes.append("already")
        finally:
            connection.close()

    threads = [threading.Thread(target=race) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes) == ["already", "registered"]
    assert wallet_balances(user=player)["eur"] == 3_900
    assert ledger_check().ok
