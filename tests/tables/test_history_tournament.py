"""Tournament hands and tournament summaries as PokerStars writes them, and as a maintained importer reads them.

A sit-and-go of three is played to its winner in two hands from stacked decks, at level IV (25/50, a big-blind
ante of 50) of the default turbo structure: in the first the button's aces beat the big blind's kings (out in
3rd), in the second the same aces beat the small blind's kings heads-up (out in 2nd; the tournament is over).

The importer is pokerdf (PyPI, MIT licence, a dev requirement), a PokerStars tournament hand-history reader: it
must read the hands as tournament hands with the tournament's number, level, blinds, ante, stacks, pots, the
winners' amounts and the places and prize, all matching the room's own records (the prize: the ledger's).
fpdb's readers are AGPL and are not copied here; the texts are written to the lines they parse (checked by hand
against fpdb-3's PokerStarsToFpdb.py and PokerStarsSummary.py, commit 73e75ffe).
"""

from __future__ import annotations

import io
import random
import tomllib
from dataclasses import dataclass, replace
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from pokerdf.core.read_and_convert import apply_regex
from pokerkit import HandHistory

from cashier.models import AccountKind, TransferKind
from cashier.models import Entry as LedgerEntry
from cashier.selectors import ledger_check, wallet_balances
from tables import services as table_services
from tables.engine import fairness
from tables.history.pokerstars import moment_text, pokerstars_text, tournament_buy_in
from tables.history.selectors import hand_phh, hand_tournament, hands_export_text, hands_for_export
from tables.history.story import story_from_hand
from tables.history.tournament import (
    LevelFacts,
    TournamentFacts,
    place_words,
    prize_text,
    roman,
    tournament_summaries,
)
from tables.models import Hand
from tests.factories import eur_player, player_create, tournament_create
from tests.tables.history_helpers import stack_next_deck
from tests.tournaments.play_helpers import play_to_the_end, pool_balance
from tournaments import play, services
from tournaments.models import Entry, Tournament, TournamentTable

pytestmark = pytest.mark.django_db(transaction=True)

LEVEL_IV_STARTED = 3 * 300 + 5  # the turbo levels last 300 s: the clock is 5 s into level IV (25/50, ante 50)


@pytest.fixture(autouse=True)
def no_pause_between_hands(monkeypatch):
    monkeypatch.setattr(table_services, "DEAL_PAUSE_SECONDS", 0)


@dataclass
class Played:
    tournament: Tournament
    hands: list[Hand]
    names: dict[int, str]
    """Engine seat -> player name."""
    users: dict[int, object]
    wallets_before: dict[int, int]


def _act(hand: Hand, action: str) -> Hand:
    hand.refresh_from_db()
    user = get_user_model().objects.get(pk=hand.players[str(hand.to_act)]["user"])
    table_services.table_act(
        table_id=hand.table_id,
        user=user,
        hand_id=hand.id,
        action_no=hand.action_no,
        action=action,
        amount=None,
    )
    return Hand.objects.select_related("table").get(pk=hand.pk)


def play_sit_and_go(monkeypatch, *, currency: str, buy_in: int, fee: int) -> Played:
    """Three players, two hands: seat 1 (the first button) wins both; seat 3 goes out 3rd, seat 2 2nd."""
    tournament = tournament_create(seats=3, currency=currency, buy_in=buy_in, fee=fee)
    players = [eur_player(10_000) if currency == "eur" else player_create() for _ in range(3)]
    wallets = {p.pk: wallet_balances(user=p)[currency] for p in players}
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    start = timezone.now() - timedelta(seconds=LEVEL_IV_STARTED)
    Tournament.objects.filter(pk=tournament.pk).update(started_at=start, level_started_at=start)
    TournamentTable.objects.filter(tournament=tournament).update(first_button=0)
    seats = dict(Entry.objects.filter(tournament=tournament).values_list("seat", "user"))
    users = {seat - 1: get_user_model().objects.get(pk=user) for seat, user in seats.items()}

    stack_next_deck(monkeypatch, order=[1, 2, 0], holes={0: "AhAd", 1: "7c2d", 2: "KhKd"}, board="2s5c9dJhQc")
    play.tournament_floor(tournament_id=tournament.pk)
    first = Hand.objects.get(table__tournament_table__tournament=tournament)
    for action in ("all_in", "fold", "call"):  # the button shoves, the small blind folds, the big blind calls
        first = _act(first, action)
    stack_next_deck(monkeypatch, order=[0, 1], holes={0: "AsAc", 1: "KsKc"}, board="2h5d9cJdQs")
    play.tournament_floor(tournament_id=tournament.pk)
    second = Hand.objects.filter(table__tournament_table__tournament=tournament).exclude(pk=first.pk).get()
    for action in ("all_in", "call"):  # heads-up: the small blind (the button) shoves, the big blind calls
        second = _act(second, action)
    play.tournament_floor(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return Played(
        tournament=tournament,
        hands=[first, second],
        names={seat: user.username for seat, user in users.items()},
        users=users,
        wallets_before=wallets,
    )


def pokerstars_file(user) -> str:
    return "".join(hands_export_text(hands=hands_for_export(user=user), fmt="pokerstars", user=user))


def summaries_file(client, user) -> str:
    client.force_login(user)
    response = client.get(reverse("hands_download"), {"format": "summaries"})
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def when(hand: Hand) -> str:
    """The hand's start as PokerStars writes it (Rome's time, then New York's)."""
    return moment_text(hand.started_at, "Europe/Rome")


@pytest.mark.parametrize(
    ("currency", "buy_in", "fee", "header_buy_in", "prize", "summary_money"),
    [
        (
            "eur",
            1_000,
            100,
            "€10+€1 EUR",
            "€30.00",
            ["Buy-In: €10.00/€1.00 EUR", "Total Prize Pool: €30.00 EUR"],
        ),
        ("play", 30_000, 2_000, "300+20", "900", ["Buy-In: 300/20", "Total Prize Pool: 900"]),
    ],
)
def test_a_tournament_hand_is_written_as_pokerstars_writes_a_tournament_hand(
    monkeypatch, client, currency, buy_in, fee, header_buy_in, prize, summary_money
):
    """The finding: a tournament hand was written as a cash game of chips / 100 ("Hold'em No Limit
    (0.25/0.50)", "(15 in chips)", "Total pot 29.75") with no "Tournament #"."""
    played = play_sit_and_go(monkeypatch, currency=currency, buy_in=buy_in, fee=fee)
    t, (first, second) = played.tournament.pk, played.hands
    a, b, c = played.names[0], played.names[1], played.names[2]
    expected = f"""\
PokerStars Hand #{first.id}: Tournament #{t}, {header_buy_in} Hold'em No Limit - Level IV (25/50) - {when(first)}
Table '{t} 1' 3-max Seat #1 is the button
Seat 1: {a} (1500 in chips)
Seat 2: {b} (1500 in chips)
Seat 3: {c} (1500 in chips)
{c}: posts the ante 50
{b}: posts small blind 25
{c}: posts big blind 50
*** HOLE CARDS ***
Dealt to {b} [7c 2d]
{a}: raises 1450 to 1500 and is all-in
{b}: folds
{c}: calls 1400 and is all-in
Uncalled bet (50) returned to {a}
*** FLOP *** [2s 5c 9d]
*** TURN *** [2s 5c 9d] [Jh]
*** RIVER *** [2s 5c 9d Jh] [Qc]
*** SHOW DOWN ***
{c}: shows [Kh Kd] (a pair of Kings)
{a}: shows [Ah Ad] (a pair of Aces)
{a} collected 2975 from pot
{c} finished the tournament in 3rd place
*** SUMMARY ***
Total pot 2975 | Rake 0
Board [2s 5c 9d Jh Qc]
Seat 1: {a} (button) showed [Ah Ad] and won (2975) with a pair of Aces
Seat 2: {b} (small blind) folded before Flop
Seat 3: {c} (big blind) showed [Kh Kd] and lost with a pair of Kings


PokerStars Hand #{second.id}: Tournament #{t}, {header_buy_in} Hold'em No Limit - Level IV (25/50) - {when(second)}
Table '{t} 1' 3-max Seat #2 is the button
Seat 1: {a} (3025 in chips)
Seat 2: {b} (1475 in chips)
{a}: posts the ante 50
{b}: posts small blind 25
{a}: posts big blind 50
*** HOLE CARDS ***
Dealt to {b} [Ks Kc]
{b}: raises 1425 to 1475 and is all-in
{a}: calls 1425
*** FLOP *** [2h 5d 9c]
*** TURN *** [2h 5d 9c] [Jd]
*** RIVER *** [2h 5d 9c Jd] [Qs]
*** SHOW DOWN ***
{a}: shows [As Ac] (a pair of Aces)
{b}: shows [Ks Kc] (a pair of Kings)
{a} collected 3000 from pot
{b} finished the tournament in 2nd place
{a} wins the tournament and receives {prize} - congratulations!
*** SUMMARY ***
Total pot 3000 | Rake 0
Board [2h 5d 9c Jd Qs]
Seat 1: {a} (big blind) showed [As Ac] and won (3000) with a pair of Aces
Seat 2: {b} (button) (small blind) showed [Ks Kc] and lost with a pair of Kings


"""
    assert pokerstars_file(played.users[1]) == expected
    summary = summaries_file(client, played.users[1]).splitlines()
    assert [summary[1], summary[3], summary[7]] == [*summary_money, f"  1: {a} (), {prize} (100%)"]


def test_the_tournament_summary_is_written_as_pokerstars_sends_it_and_its_prize_is_the_ledgers(
    monkeypatch, client
):
    played = play_sit_and_go(monkeypatch, currency="eur", buy_in=1_000, fee=100)
    tournament, (first, second) = played.tournament, played.hands
    a, b, c = played.names[0], played.names[1], played.names[2]
    started = moment_text(tournament.started_at, "Europe/Rome")
    finished = moment_text(tournament.finished_at, "Europe/Rome")
    head = f"""\
PokerStars Tournament #{tournament.pk}, No Limit Hold'em
Buy-In: €10.00/€1.00 EUR
3 players
Total Prize Pool: €30.00 EUR
Tournament started {started}
Tournament finished {finished}

  1: {a} (), €30.00 (100%)
  2: {b} (),
  3: {c} (),
"""
    assert (
        summaries_file(client, played.users[1])
        == head + f"\nYou finished in 2nd place (eliminated at hand #{second.id}).\n\n\n"
    )
    assert (
        summaries_file(client, played.users[2])
        == head + f"\nYou finished in 3rd place (eliminated at hand #{first.id}).\n\n\n"
    )
    assert (
        summaries_file(client, played.users[0])
        == head + f"\nYou finished in 1st place (eliminated at hand #{second.id}).\n\n\n"
    )
    # The prize written is what the ledger paid: the winner's wallet, less buy-in and fee, plus €30.00.
    winner = played.users[0]
    paid = LedgerEntry.objects.filter(
        transfer__kind=TransferKind.TOURNAMENT_PRIZE,
        account__user=winner,
        account__kind=AccountKind.PLAYER_EUR,
    ).values_list("amount", flat=True)
    assert list(paid) == [3_000]
    assert wallet_balances(user=winner)["eur"] == played.wallets_before[winner.pk] - 1_100 + 3_000
    assert pool_balance(tournament) == 0 and ledger_check().ok
    # staff's command writes the same file for a player, and every tournament's without one (no "You" line).
    out = io.StringIO()
    call_command("hand_history", "--summaries", "--player", b, stdout=out)
    assert out.getvalue() == summaries_file(client, played.users[1])
    out = io.StringIO()
    call_command("hand_history", "--summaries", stdout=out)
    assert out.getvalue() == head + "\n\n"


def test_a_maintained_pokerstars_importer_reads_them_as_tournament_hands_matching_the_room(monkeypatch):
    """pokerdf reads the player's download as tournament hands: the tournament's number and buy-in, level IV
    at 25/50 with the ante of 50, each seat's stack, the pots, each winner's amount, the places and the
    prize, all as the room recorded them (stacks and pots: the hands' records; the prize: the ledger's)."""
    played = play_sit_and_go(monkeypatch, currency="eur", buy_in=1_000, fee=100)
    tournament, hands = played.tournament, played.hands
    viewer = played.users[1]
    frame = apply_regex(pokerstars_file(viewer))
    rows = {(int(row.HandID), row.Player): row for row in frame.itertuples()}
    assert len(rows) == 3 + 2
    entries = {e.user.username: e for e in Entry.objects.filter(tournament=tournament).select_related("user")}
    for hand in hands:
        players = {int(seat): p["name"] for seat, p in hand.players.items()}
        result = hand.result
        for seat, name in players.items():
            row = rows[(hand.id, name)]
            assert row.TournID == str(tournament.pk) and row.BuyIn == "€10+€1"
            assert row.TableID == "1" and row.TableSize == 3
            assert (row.Level, tuple(row.Blinds), row.Ante) == ("IV", (25.0, 50.0), 50.0)
            assert row.Stack == hand.config["stacks"][str(seat)], "the stack the hand started with"
            assert row.Seat == seat + 1
            assert row.TotalPotLog == hand.pot_total and row.Rake == 0 == result["rake"]
            won = sum(pot["winners"].get(str(seat), 0) for pot in result["pots"])
            assert (_number(row.Balance) or 0) == won, "what the seat collected, as settled"
            assert row.Owner == viewer.username
            entry = entries[name]
            out_here = result["finishing_stacks"][str(seat)] == 0 or (entry.place == 1 and hand == hands[-1])
            assert row.FinalRank == (entry.place if out_here else -1)
            assert _number(row.Prize) == (entry.prize / 100 if out_here and entry.prize else None)
    winner = played.users[0]
    paid = LedgerEntry.objects.get(
        transfer__kind=TransferKind.TOURNAMENT_PRIZE,
        account__user=winner,
        account__kind=AccountKind.PLAYER_EUR,
    ).amount
    assert rows[(hands[-1].id, winner.username)].Prize * 100 == paid == 3_000
    # A bust that is paid (a field where 3rd place pays €5.00) says so, and the importer reads it.
    facts = hand_tournament(hand=hands[0])
    out = played.users[2]
    paid_third = replace(facts, finishes={**facts.finishes, out.pk: (3, 500)})
    text = pokerstars_text(story_from_hand(hand=hands[0], tournament=paid_third), viewer=1)
    assert f"{out.username} finished the tournament in 3rd place and received €5.00.\n*** SUMMARY ***" in text
    third = apply_regex(text)
    assert list(third[third.Player == out.username][["FinalRank", "Prize"]].itertuples(index=False)) == [
        (3, 5.0)
    ]


def _number(value):
    """A number the importer read, ``None`` for what it did not find (pandas' NaN)."""
    return None if value is None or value != value else value


def test_a_tournament_hand_in_phh_carries_the_tournament_event_and_level(monkeypatch):
    played = play_sit_and_go(monkeypatch, currency="eur", buy_in=1_000, fee=100)
    first = played.hands[0]
    text = hand_phh(hand=first, viewer=1)
    data = tomllib.loads(text)
    t = played.tournament
    assert data["event"] == f"Tournament #{t.pk}: {t.name}" and data["level"] == 4
    assert data["currency"] == "tournament chips" and data["starting_stacks"] == [1500, 1500, 1500]
    assert (data["_tournament"], data["_tournament_table"]) == (t.pk, 1)
    assert (data["_buy_in"], data["_fee"], data["_buy_in_currency"]) == (1_000, 100, "EUR")
    history = HandHistory.loads(text)  # PHH's own reader takes the fields as PHH defines them
    assert history.event == data["event"] and history.level == 4


def test_my_hands_and_the_command_give_tournament_hands_in_the_tournament_form(monkeypatch, client):
    played = play_sit_and_go(monkeypatch, currency="eur", buy_in=1_000, fee=100)
    b = played.users[1]
    client.force_login(b)
    one = client.get(reverse("hand_download", args=[played.hands[0].id]), {"format": "pokerstars"})
    assert one.content.decode().startswith(
        f"PokerStars Hand #{played.hands[0].id}: Tournament #{played.tournament.pk}, €10+€1 EUR Hold'em No Limit"
        " - Level IV (25/50) - "
    )
    many = client.get(reverse("hands_download"), {"format": "pokerstars"})
    assert b"".join(many.streaming_content).decode() == pokerstars_file(b)
    page = client.get(reverse("my_hands")).content.decode()
    assert 'id="download-summaries"' in page
    # The list and the replayer count a tournament's chips whole: the first hand's pot of 2,975 and the small
    # blind's 25 lost (they read "29.75 chips" and "0.25 chips" before).
    assert "2,975 chips" in page and "3,000 chips" in page and "−25 chips" in page and "29.75" not in page
    replay = client.get(reverse("api_hand_replay", args=[played.hands[0].id])).json()
    assert replay["table"]["currency"] == "tournament"
    mine = client.get(reverse("api_my_hands")).json()["hands"]
    assert [(row["table"]["currency"], row["pot"]) for row in mine] == [
        ("tournament", 3_000),
        ("tournament", 2_975),
    ]
    out = io.StringIO()
    call_command("hand_history", "--player", b.username, stdout=out)
    assert out.getvalue() == pokerstars_file(b)
    staff = io.StringIO()
    call_command("hand_history", stdout=staff)  # every card: both hands, each in the tournament form
    assert staff.getvalue().count(f": Tournament #{played.tournament.pk}, ") == 2
    assert staff.getvalue().count("Dealt to") == 3 + 2
    with pytest.raises(CommandError):
        call_command("hand_history", "--summaries", "--table", "1", stdout=io.StringIO())


def test_levels_places_and_a_paid_bust_are_named_as_pokerstars_names_them():
    assert [roman(n) for n in (1, 4, 9, 14, 40, 47)] == ["I", "IV", "IX", "XIV", "XL", "XLVII"]
    assert [place_words(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "111th",
    ]  # fmt: skip
    assert (prize_text(1_050, "eur"), prize_text(90_000, "play"), prize_text(1_050, "play")) == (
        "€10.50",
        "900",
        "10.50",
    )
    # The header's buy-in: a practice tournament's play chips (500+0), a freeroll as PokerStars names it.
    practice = TournamentFacts(1, "Practice", "play", 50_000, 0, 1, ())
    assert (tournament_buy_in(practice), tournament_buy_in(replace(practice, buy_in=0))) == (
        "500+0",
        "Freeroll ",
    )
    start = timezone.now() - timedelta(minutes=30)
    facts = TournamentFacts(
        tournament_id=7,
        name="Sunday",
        currency="eur",
        buy_in=1_000,
        fee=100,
        table_number=2,
        levels=(
            LevelFacts(1, 10, 20, 0, start),
            LevelFacts(2, 10, 20, 20, start + timedelta(minutes=10)),
            LevelFacts(3, 10, 20, 20, start + timedelta(minutes=20)),
        ),
    )
    # The same blinds at several levels: the level of the blinds and ante that had begun at the deal.
    assert facts.level_of(small_blind=10, big_blind=20, ante=0, started_at=start + timedelta(minutes=25)) == 1
    assert (
        facts.level_of(small_blind=10, big_blind=20, ante=20, started_at=start + timedelta(minutes=15)) == 2
    )
    assert (
        facts.level_of(small_blind=10, big_blind=20, ante=20, started_at=start + timedelta(minutes=25)) == 3
    )


def test_a_whole_sit_and_go_reads_back_with_the_importer_as_the_room_recorded_it(monkeypatch):
    """Six players to the winner at random (the tournaments' test player): every player's download, read by
    pokerdf, has every hand they were dealt as a hand of this tournament, with each seat's stack, the pot, the
    rake (none) and what each seat collected as the hands recorded them; the places and the prizes it reads
    are the standings', the paid prizes the ledger's; each player's summary names their place."""
    decks = random.Random(35)  # the same draw and decks every run: the same hands, whatever the machine
    real_shuffle = fairness.shuffled_deck
    monkeypatch.setattr(fairness, "shuffled_deck", lambda **kwargs: real_shuffle(**{**kwargs, "rng": decks}))
    monkeypatch.setattr(play, "_rng", random.Random(35))
    tournament = tournament_create(seats=6, buy_in=1_000, fee=100)
    players = [eur_player(10_000) for _ in range(6)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    rng = random.Random(35)
    out = Entry.objects.filter(tournament=tournament, status=Entry.Status.FINISHED)
    record = play_to_the_end(tournament, rng=rng, until=lambda: out.count() >= 1)
    # While it runs: those still in are "still playing", the player out has their place, no end is written.
    first_out = out.first()
    lines = "".join(tournament_summaries(user=first_out.user)).rstrip("\n").splitlines()
    assert "Tournament finished" not in "".join(lines)
    assert sum(line.endswith("), still playing") for line in lines) == 6 - out.count()
    assert lines[-1].startswith(f"You finished in {place_words(first_out.place)} place (eliminated at hand #")
    record = play_to_the_end(tournament, rng=rng, record=record)
    assert not record.problems, record.problems
    tournament.refresh_from_db()
    entries = {e.user.username: e for e in tournament.entries.select_related("user")}
    hands = {h.id: h for h in Hand.objects.filter(table__tournament_table__tournament=tournament)}
    assert all(h.status == Hand.Status.COMPLETE for h in hands.values()) and len(hands) >= record.hands
    read_places, read_prizes = {}, {}
    for player in players:
        frame = apply_regex(pokerstars_file(player))
        mine = {h for h in hands.values() if any(p["user"] == player.pk for p in h.players.values())}
        assert set(frame.HandID.astype(int)) == {h.id for h in mine}
        for row in frame.itertuples():
            hand = hands[int(row.HandID)]
            seat = next(int(s) for s, p in hand.players.items() if p["name"] == row.Player)
            assert (row.TournID, row.BuyIn, row.Owner) == (str(tournament.pk), "€10+€1", player.username)
            assert tuple(row.Blinds) == (hand.config["small_blind"], hand.config["big_blind"])
            assert row.Stack == hand.config["stacks"][str(seat)]
            assert row.TotalPotLog == hand.pot_total and row.Rake == 0
            won = sum(pot["winners"].get(str(seat), 0) for pot in hand.result["pots"])
            assert (_number(row.Balance) or 0) == won
            if row.FinalRank != -1:
                read_places[row.Player] = row.FinalRank
                read_prizes[row.Player] = _number(row.Prize)
    assert read_places == {name: entry.place for name, entry in entries.items()}
    paid = dict(
        LedgerEntry.objects.filter(
            transfer__kind=TransferKind.TOURNAMENT_PRIZE, account__kind=AccountKind.PLAYER_EUR
        ).values_list("account__user__username", "amount")
    )
    assert paid == {name: e.prize for name, e in entries.items() if e.prize}
    assert {name: prize for name, prize in read_prizes.items() if prize} == {
        name: amount / 100 for name, amount in paid.items()
    }
    for player in players:
        summary = "".join(tournament_summaries(user=player))
        place = entries[player.username].place
        assert f"\nYou finished in {place_words(place)} place (eliminated at hand #" in summary
        assert summary.splitlines()[2] == "6 players"
