"""Payout statistics (SPEC 3) from hands played through the table's services and settled in the ledger, each
worked out by hand: what people put into the pots (uncalled bets excluded), the rake, house bots kept out,
play chips apart from EUR; the daily rows, the page, the API, the admin's CSV, and the figure the page shows
equal to the one worked out from the ledger itself."""

import random
import re
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from cashier.models import Transfer, TransferKind
from cashier.selectors import ledger_check
from tables import services
from tables.bots import bot_choose
from tables.models import Currency, Game, Hand, PayoutDay, Structure
from tables.payout.selectors import payout_summary, payout_window
from tables.payout.services import payout_days_compute
from tables.tasks import payout_days_refresh_task
from tests.factories import act, eur_fund, passive, play_out, player_create, sit, table_create, to_act_user
from tests.tables.payout_helpers import ledger_figure

pytestmark = pytest.mark.django_db


def today_rows() -> dict[tuple[str, str], PayoutDay]:
    payout_days_compute(first=timezone.localdate(), last=timezone.localdate())
    return {(row.currency, row.game): row for row in PayoutDay.objects.filter(day=timezone.localdate())}


def play_hand(table, seated, hand, decide) -> Hand:
    """Play `hand` out, each decision `decide(state) -> (action, amount)` on the engine's state of the hand."""
    while True:
        hand.refresh_from_db()
        if hand.status != "running":
            return hand
        state = services.hand_engine(hand=hand, table=table)
        services.hand_engine_keep(hand.id, state)
        action, amount = decide(state)
        act(table, to_act_user(table, seated), action, amount)


def line(currency: str, game: str):
    first, last = payout_window()
    return next(x for x in payout_summary(first=first, last=last).lines[currency] if x.game == game)


def test_an_uncalled_bet_is_not_counted_as_put_in(players):
    """Heads-up at 1/2: the button (seat 1, 200) goes all in, the big blind (100) calls all in: 100 is
    uncalled and goes back. The pots hold 200; the board is run out, so the rake is 200 // 18 = 11 chips.
    Payout (200 - 11) / 200 = 94.50 %."""
    table = table_create()
    alice, bob = players[:2]
    sit(table, alice, 1, buy_in=200)
    sit(table, bob, 2, buy_in=100)
    hand = services.hand_deal(table_id=table.id)
    assert hand.config["button"] == 0, "a new table's first button is its first seat"
    act(table, alice, "all_in")
    act(table, bob, "all_in")
    hand.refresh_from_db()
    assert hand.status == "complete" and hand.result["returned"] == {"0": 100} and hand.result["rake"] == 11
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    assert (transfer.pot, transfer.pot_people) == (200, 200)
    row = today_rows()[("play", "holdem")]
    assert (row.put_in, row.paid_back, row.count) == (200, 189, 1)
    assert line("play", "holdem").percent == Decimal("94.50")
    assert ledger_check().ok


def test_a_hand_that_ends_before_the_flop_pays_everything_back(players):
    table = table_create()
    alice, bob = players[:2]
    sit(table, alice, 1)
    sit(table, bob, 2)
    hand = services.hand_deal(table_id=table.id)
    act(table, alice, "fold")  # the button's small blind: no flop, no drop
    hand.refresh_from_db()
    assert hand.result["rake"] == 0
    # the small blind's 1 and the 1 of the big blind it matched; the big blind's other 1 was never called
    assert [pot["amount"] for pot in hand.result["pots"]] == [2] and hand.result["returned"] == {"1": 1}
    row = today_rows()[("play", "holdem")]
    assert (row.put_in, row.paid_back) == (2, 2)
    assert line("play", "holdem").percent == Decimal("100.00")


def test_the_seeds_raise_folded_to_counts_the_matched_part_of_the_raise(players):
    """SPEC 1.2 / seed 001: 3 players at 1/2 NL, the button raises to 6, both blinds fold: 4 is uncalled and
    returned, the pots hold 5 (the big blind's 2 matched by 2 of the raise, and the small blind), no rake."""
    table = table_create()
    for number, user in enumerate(players[:3], start=1):
        sit(table, user, number)
    hand = services.hand_deal(table_id=table.id)
    act(table, to_act_user(table, players), "raise", 6)
    act(table, to_act_user(table, players), "fold")
    act(table, to_act_user(table, players), "fold")
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    assert (transfer.pot, transfer.pot_people) == (5, 5)
    row = today_rows()[("play", "holdem")]
    assert (row.put_in, row.paid_back) == (5, 5)


def test_a_house_bot_in_the_hand_counts_only_what_people_put_in_and_their_share_of_the_rake(players):
    """Three at 1/2 (a bot in the big blind): the button raises to 24, both call, all check down. The pots
    hold 72, the rake is 72 // 18 = 4 chips; people put in 48, so their share of the rake is 4 x 48 / 72 =
    2.67, rounded to 3. Payout (48 - 3) / 48 = 93.75 %."""
    table = table_create()
    bot = player_create(bot=True)
    seated = [players[0], players[1], bot]
    for number, user in enumerate(seated, start=1):
        sit(table, user, number)
    hand = services.hand_deal(table_id=table.id)
    assert to_act_user(table, seated) == players[0], "three-handed, the button acts first"

    def decide(state):
        legal = {item["action"] for item in state.legal_actions()}
        return ("raise", 24) if state.action_no == 0 else (passive(legal), None)

    hand = play_hand(table, seated, hand, decide)
    assert hand.result["rake"] == 4 and sum(p["amount"] for p in hand.result["pots"]) == 72
    transfer = Transfer.objects.get(kind=TransferKind.HAND, hand_ref=f"hand:{hand.id}")
    assert (transfer.pot, transfer.pot_people) == (72, 48)
    row = today_rows()[("play", "holdem")]
    assert (row.put_in, row.paid_back) == (48, 45)
    assert line("play", "holdem").percent == Decimal("93.75")


def _play_a_eur_hand(*, game=Game.HOLDEM, structure=Structure.NO_LIMIT):
    """Two funded players at a EUR 0.50/1.00 table call and check down: pots of 2.00, rake 0.11 (one cent per
    whole 0.18: 200 // 18), payout (200 - 11) / 200 = 94.50 %."""
    table = table_create(currency=Currency.EUR, small_blind=50, big_blind=100, game=game, structure=structure)
    people = [player_create(), player_create()]
    for number, user in enumerate(people, start=1):
        eur_fund(user, 10_000)
        sit(table, user, number, buy_in=5_000)
    return play_out(table, people, services.hand_deal(table_id=table.id))


def test_play_chips_and_euros_are_figures_apart_and_euros_are_the_published_ones(players):
    table = table_create()
    sit(table, players[0], 1)
    sit(table, players[1], 2)
    play_out(table, players, services.hand_deal(table_id=table.id))  # pots of 4: no rake at 1/2
    hand = _play_a_eur_hand()
    assert hand.result["rake"] == 11
    rows = today_rows()
    assert (rows[("eur", "holdem")].put_in, rows[("eur", "holdem")].paid_back) == (200, 189)
    assert (rows[("play", "holdem")].put_in, rows[("play", "holdem")].paid_back) == (4, 4)
    data = Client().get("/api/payout/").json()
    assert data["published"] == "eur" and list(data["currencies"]) == ["eur", "play"]
    eur = {entry["game"]: entry for entry in data["currencies"]["eur"]}
    play = {entry["game"]: entry for entry in data["currencies"]["play"]}
    assert eur["holdem"]["payout"] == "94.50" and play["holdem"]["payout"] == "100.00"
    assert eur["omaha"]["payout"] is None and eur["tournament"]["payout"] is None
    assert eur["holdem"]["daily"] == [
        {
            "day": timezone.localdate().isoformat(),
            "payout": "94.50",
            "put_in": 200,
            "paid_back": 189,
            "count": 1,
        }
    ]
    page = Client(headers={"accept-language": "en"}).get("/payout/").content.decode()
    assert page.index('id="payout-eur"') < page.index('id="payout-play"'), "the published figures come first"


# --- the page's figure is the ledger's ------------------------------------------------------------------


def page_figures(language: str) -> dict[tuple[str, str], str]:
    html = Client(headers={"accept-language": language}).get("/payout/").content.decode()
    figures = {}
    for currency, section in re.findall(r'id="payout-(\w+)"(.*?)</section>', html, re.S):
        for game, cell in re.findall(r'<tr data-game="(\w+)">(.*?)</tr>', section, re.S):
            found = re.search(r'payout-figure">([^<&]+)&nbsp;%', cell)
            figures[(currency, game)] = found.group(1) if found else None
    return figures


def test_the_page_and_the_api_show_the_ledgers_figure_to_the_last_digit(players):
    rng = random.Random(12)
    games = [
        (Game.HOLDEM, Structure.NO_LIMIT),
        (Game.OMAHA, Structure.POT_LIMIT),
        (Game.OMAHA_HILO, Structure.FIXED_LIMIT),
    ]
    for game, structure in games:
        table = table_create(small_blind=5, big_blind=10, game=game, structure=structure, seats=4)
        seated = [player_create() for _ in range(3)] + [player_create(bot=True)]
        for number, user in enumerate(seated, start=1):
            sit(table, user, number, buy_in=1_000)
        for _ in range(6):  # until players who lost their stacks leave too few to deal to
            hand = services.hand_deal(table_id=table.id)
            if hand is None:
                break

            def decide(state):
                pot = sum(p.amount for p in state.pots()) + sum(state.bets.values())
                return bot_choose(legal=state.legal_actions(), pot=pot, stack=0, rng=rng)

            play_hand(table, seated, hand, decide)
    payout_days_refresh_task(0)
    english, italian = page_figures("en"), page_figures("it")
    api = Client().get("/api/payout/").json()["currencies"]
    shown = 0
    for currency in ("eur", "play"):
        for entry in api[currency]:
            expected = (
                ledger_figure(currency=currency, game=entry["game"])
                if entry["game"] != "tournament"
                else None
            )
            assert entry["payout"] == (None if expected is None else str(expected)), (currency, entry)
            assert english[(currency, entry["game"])] == (None if expected is None else str(expected))
            assert italian[(currency, entry["game"])] == (
                None if expected is None else str(expected).replace(".", ",")
            )
            shown += expected is not None
    assert shown == 3, "a figure for each game played"
    assert ledger_check().ok


# --- tournaments --------------------------------------------------------------------------------------


def test_tournaments_are_prizes_paid_over_buy_ins_and_fees_less_refunds_from_the_ledgers_transfers():
    """A EUR sit-and-go of three at 10.00 + 1.00 (a fourth registered and unregistered): 33.00 in, the winner
    takes the 30.00 pool: 90.91 %. A practice one with a house bot: only people's entries and prizes count."""
    from cashier import services as cashier

    before = Client(headers={"accept-language": "en"}).get("/payout/").content.decode()
    assert before.count("No tournaments in the period") == 2
    people = [player_create() for _ in range(4)]
    for n, user in enumerate(people):
        eur_fund(user, 2_000)
        cashier.tournament_entry_pay(
            user=user, currency="eur", pool_ref="t:1", buy_in=1_000, fee=100, idempotency_key=f"entry:1:{n}"
        )
    cashier.tournament_entry_refund(
        user=people[3], currency="eur", pool_ref="t:1", buy_in=1_000, fee=100, idempotency_key="refund:1:3"
    )
    cashier.tournament_prize_pay(
        user=people[0], currency="eur", pool_ref="t:1", amount=3_000, idempotency_key="prize:1:0"
    )
    bot = player_create(bot=True)
    for n, user in enumerate((people[1], bot)):
        cashier.tournament_entry_pay(
            user=user,
            currency="play",
            pool_ref="t:2",
            buy_in=10_000,
            fee=1_000,
            idempotency_key=f"entry:2:{n}",
        )
    cashier.tournament_prize_pay(
        user=bot, currency="play", pool_ref="t:2", amount=20_000, idempotency_key="prize:2:bot"
    )  # the bot won: people got nothing back
    rows = today_rows()
    eur, play = rows[("eur", "tournament")], rows[("play", "tournament")]
    assert (eur.put_in, eur.paid_back, eur.count) == (3_300, 3_000, 3)
    assert (play.put_in, play.paid_back, play.count) == (11_000, 0, 1)
    assert line("eur", "tournament").percent == Decimal("90.91")
    assert page_figures("en")[("eur", "tournament")] == "90.91"
    assert ledger_check().ok


# --- keeping the daily rows ---------------------------------------------------------------------------


def test_recomputing_is_idempotent_and_the_command_recomputes_any_range(players, capsys):
    _play_a_eur_hand()
    today = timezone.localdate()
    call_command("payout_stats", "--from", (today - timedelta(days=3)).isoformat(), "--to", today.isoformat())
    first = list(PayoutDay.objects.values_list("day", "game", "currency", "put_in", "paid_back", "count"))
    assert first == [(today, "holdem", "eur", 200, 189, 1)]
    assert "94.50 %" in capsys.readouterr().out
    payout_days_refresh_task(1)
    call_command("payout_stats")
    assert (
        list(PayoutDay.objects.values_list("day", "game", "currency", "put_in", "paid_back", "count"))
        == first
    )
    for bad in (
        ["--from", "yesterday"],
        ["--from", today.isoformat(), "--to", (today - timedelta(days=1)).isoformat()],
    ):
        with pytest.raises(CommandError):
            call_command("payout_stats", *bad)
    assert PayoutDay.objects.count() == 1


def test_a_day_is_a_day_in_italy(players, monkeypatch):
    """A hand settled at 00:30 in Rome counts on that day, though in UTC it is still the day before."""
    early = datetime(2026, 7, 15, 0, 30, tzinfo=ZoneInfo("Europe/Rome"))  # 22:30 UTC on the 14th
    monkeypatch.setattr(Transfer._meta.get_field("created_at"), "_get_default", lambda: early)
    _play_a_eur_hand()
    monkeypatch.undo()
    payout_days_compute(first=early.date() - timedelta(days=1), last=early.date())
    assert list(PayoutDay.objects.values_list("day", "put_in")) == [(early.date(), 200)]


def test_the_payout_page_is_linked_from_every_pages_footer_in_both_languages(db):
    for language, text in (("en", "Payout"), ("it", "Payout")):
        page = Client(headers={"accept-language": language}).get("/").content.decode()
        assert f'<a href="/payout/">{text}</a>' in page
    italian = Client(headers={"accept-language": "it"}).get("/payout/").content.decode()
    assert "Nessun torneo nel periodo" in italian and "Come si calcola il payout" in italian


# --- the admin -------------------------------------------------------------------------------------------


def test_staff_see_the_figures_and_download_them_as_csv(players, admin_client):
    _play_a_eur_hand()
    payout_days_refresh_task(0)
    page = admin_client.get("/admin/tables/payoutday/").content.decode()
    assert 'data-currency="eur" data-game="holdem"' in page and "94.50 %" in page
    response = admin_client.get("/admin/tables/payoutday/csv/")
    assert response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().strip().splitlines()
    assert lines == [
        "day,game,currency,put_in,paid_back,payout_percent,count",
        f"{timezone.localdate().isoformat()},holdem,eur,200,189,94.50,1",
    ]
    refused = admin_client.get("/admin/tables/payoutday/csv/?from=2026-13-01")
    assert refused.status_code == 302, "a bad date is a message on the list, not an error page"
    assert Client().get("/admin/tables/payoutday/csv/").status_code == 302, "staff only"
    assert admin_client.get("/admin/tables/payoutday/add/").status_code == 403, (
        "rows come from the ledger only"
    )


def test_the_beat_runs_the_refresh_every_minute_and_after_midnight(settings):
    from celery.schedules import crontab

    from pokerroom.celery import app

    app.loader.import_default_modules()
    entries = {
        name: entry for name, entry in settings.CELERY_BEAT_SCHEDULE.items() if name.startswith("payout")
    }
    assert {entry["task"] for entry in entries.values()} == {"tables.tasks.payout_days_refresh_task"}
    assert "tables.tasks.payout_days_refresh_task" in app.tasks
    assert entries["payout-today"]["schedule"] == 60.0
    midnight = entries["payout-after-midnight"]
    assert midnight["schedule"] == crontab(hour=0, minute=5) and midnight["args"] == (1,), "yesterday too"
