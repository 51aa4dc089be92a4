"""Run it twice at the tables (issue 16): a seat option; when everyone still in is all in before the river and
each of them turned it on, the rest of the board is dealt twice and each pot's net (rake taken once) is halved,
each half settled on its own board. Fixed decks, real PostgreSQL and ledger."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from cashier.selectors import ledger_check
from tables import presenters, services
from tables.engine.fairness import FULL_DECK, verify_opening
from tables.history.pokerstars import pokerstars_text
from tables.history.story import story_check, story_from_hand
from tables.models import Hand, Seat
from tables.selectors import seat_stacks
from tables.state import table_snapshot
from tests.factories import act, sit, table_create, to_act_user

pytestmark = pytest.mark.django_db

HOLE = {"A": ("As", "Ad"), "B": ("Ks", "Kd"), "C": ("Qs", "Qd")}
# Run 1 helps nobody (aces beat kings beat queens); run 2 gives the queens a set.
RUN_ONE = ("2c", "7h", "9s", "3d", "4c")
RUN_TWO = ("Qh", "8c", "2d", "5h", "Jc")


def run_verifier(tmp_path, data) -> subprocess.CompletedProcess:
    """static/verify_hand.py, as a player runs it, on a hand's JSON."""
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(data))
    script = Path(settings.BASE_DIR) / "static" / "verify_hand.py"
    return subprocess.run(
        [sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=60, check=False
    )


def deck_for(order_names: list[str]) -> list[str]:
    """The deck for three players dealt in `order_names` order (one card each, twice), a burn before each
    street of each run, every other card after."""
    n = len(order_names)
    top: list[str | None] = [None] * (2 * n)
    for i, name in enumerate(order_names):
        top[i], top[i + n] = HOLE[name]
    burns = iter(("Tc", "Th", "Td", "6c", "6d", "6h"))
    runs = []
    for board in (RUN_ONE, RUN_TWO):
        runs += [next(burns), *board[:3], next(burns), board[3], next(burns), board[4]]
    used = [*top, *runs]
    return used + [card for card in FULL_DECK if card not in used]


def three_all_in(players, monkeypatch, *, run_twice=("A", "B", "C")):
    """Seats 1, 2, 3 (A 60, B 120, C 200 at 1/2), the run-it-twice option as asked, a deck that gives A aces,
    B kings, C queens; everyone goes all in before the flop. Returns the table, the finished hand and who is
    who."""
    table = table_create(seats=3)
    a, b, c = players[:3]
    who = {"A": a, "B": b, "C": c}
    for number, (name, buy_in) in enumerate((("A", 60), ("B", 120), ("C", 200)), start=1):
        sit(table, who[name], number, buy_in=buy_in, post="now")
        if name in run_twice:
            services.seat_options(
                table_id=table.id, user=who[name], auto_muck=None, straddle=None, run_twice=True
            )
    # The first hand's button is seat 1: the deal goes seat 2, seat 3, seat 1.
    monkeypatch.setattr(services.fairness, "shuffled_deck", lambda: deck_for(["B", "C", "A"]))
    hand = services.hand_deal(table_id=table.id)
    assert hand.config["button"] == 0 and hand.hole_cards["0"] == list(HOLE["A"]), (
        "the deck is dealt as planned"
    )
    while True:
        hand.refresh_from_db()
        if hand.status != "running":
            return table, hand, who
        state = services.hand_engine(hand=hand, table=table)
        legal = {item["action"] for item in state.legal_actions()}
        act(table, to_act_user(table, players), "all_in" if "all_in" in legal else "call")


def test_everyone_all_in_with_run_twice_on_deals_two_boards_and_halves_each_pot(players, monkeypatch):
    table, hand, who = three_all_in(players, monkeypatch)
    result = hand.result
    assert result["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    main, side = result["pots"]
    assert (main["amount"], side["amount"]) == (180, 120), (
        "A's 60 from each of three, then B's and C's next 60"
    )
    assert result["rake"] == main["rake"] + side["rake"] > 0, "the rake is taken once, over both pots"
    for pot in (main, side):
        first, second = pot["runs"]
        assert (first["run"], second["run"]) == (1, 2)
        assert first["amount"] + second["amount"] == pot["net"] == pot["amount"] - pot["rake"]
        assert first["amount"] - second["amount"] == pot["net"] % 2, "an odd chip goes to the first run"
    # Engine seats: A 0, B 1, C 2. Run 1: aces win the main pot's half, kings the side pot's; run 2: the set
    # of queens wins both halves.
    assert main["runs"][0]["winners"] == {"0": main["runs"][0]["amount"]}
    assert side["runs"][0]["winners"] == {"1": side["runs"][0]["amount"]}
    assert main["runs"][1]["winners"] == {"2": main["runs"][1]["amount"]}
    assert side["runs"][1]["winners"] == {"2": side["runs"][1]["amount"]}
    stacks = seat_stacks(table=table)
    assert stacks[1] == main["runs"][0]["amount"]
    assert stacks[2] == side["runs"][0]["amount"]
    assert stacks[3] == 200 - 120 + main["runs"][1]["amount"] + side["runs"][1]["amount"]
    assert sum(stacks.values()) + result["rake"] == 380, "nothing created or lost"
    assert ledger_check().ok


def test_one_player_without_the_option_means_one_board(players, monkeypatch):
    table, hand, who = three_all_in(players, monkeypatch, run_twice=("A", "B"))
    assert hand.result["boards"] == [list(RUN_ONE)]
    assert all("runs" not in pot for pot in hand.result["pots"])
    # One board: the aces take the main pot, the kings the side pot.
    main, side = hand.result["pots"]
    assert main["winners"] == {"0": main["net"]} and side["winners"] == {"1": side["net"]}


def test_the_summary_carries_both_boards_and_opens_every_card_of_both_runs_but_no_burn(players, monkeypatch):
    table, hand, who = three_all_in(players, monkeypatch)
    summary = presenters.hand_summary(hand=hand)
    assert summary["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    assert [run["winners"] for run in summary["pots"][1]["runs"]] == [
        {"2": summary["pots"][1]["runs"][0]["amount"]},
        {"3": summary["pots"][1]["runs"][1]["amount"]},
    ], "each run's winners by table seat (from 1)"
    names = summary["hands_by_board"]
    assert names[0]["3"]["high"]["category"] == "pair" and names[1]["3"]["high"]["category"] == "trips"
    opened = {o["card"]: o["position"] for o in summary["openings"]}
    every_card = set(RUN_ONE) | set(RUN_TWO) | {card for cards in HOLE.values() for card in cards}
    assert set(opened) == every_card, "both boards and the hands shown, nothing else"
    assert not {"Tc", "Th", "Td", "6c", "6d", "6h"} & set(opened), "burns stay closed"
    assert all(verify_opening(root_hex=hand.commitment, opening=o) for o in summary["openings"])


def test_the_state_after_the_hand_shows_both_boards_and_the_option_is_the_players_own(players, monkeypatch):
    table, hand, who = three_all_in(players, monkeypatch)
    snapshot = table_snapshot(table=table, hand=None, state=None)
    assert snapshot["boards"] == []
    state = services.hand_engine(hand=hand, table=table)
    during = table_snapshot(table=table, hand=hand, state=state)
    assert during["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    assert {row["seat"]: row["_options"]["run_twice"] for row in during["seats"]} == {
        1: True,
        2: True,
        3: True,
    }
    services.seat_options(table_id=table.id, user=who["A"], auto_muck=None, straddle=None, run_twice=False)
    assert Seat.objects.get(table=table, number=1).run_twice is False


def test_the_pokerstars_history_names_each_runs_hands_on_its_own_board_and_says_who_won_each(
    players, monkeypatch
):
    """As PokerStars writes a hand run twice: the first board's streets, then the second's; a showdown per
    board with the hands named on that board (the queens are a pair on the first board, a set on the
    second) and that board's halves of the pots; in the summary each seat's result on each board."""
    table, hand, who = three_all_in(players, monkeypatch)
    hand = Hand.objects.select_related("table").get(pk=hand.pk)
    text = pokerstars_text(story_from_hand(hand=hand), viewer=None)
    a, b, c = (who[key].username for key in "ABC")
    lines = text.splitlines()
    assert lines[lines.index("*** HOLE CARDS ***") :] == [
        "*** HOLE CARDS ***",
        f"{a}: raises 0.58 to 0.60 and is all-in",
        f"{b}: raises 0.60 to 1.20 and is all-in",
        f"{c}: calls 1.18",
        "*** FIRST FLOP *** [2c 7h 9s]",
        "*** FIRST TURN *** [2c 7h 9s] [3d]",
        "*** FIRST RIVER *** [2c 7h 9s 3d] [4c]",
        "*** SECOND FLOP *** [Qh 8c 2d]",
        "*** SECOND TURN *** [Qh 8c 2d] [5h]",
        "*** SECOND RIVER *** [Qh 8c 2d 5h] [Jc]",
        "*** FIRST SHOW DOWN ***",
        f"{b}: shows [Ks Kd] (a pair of Kings)",
        f"{c}: shows [Qs Qd] (a pair of Queens)",
        f"{a}: shows [As Ad] (a pair of Aces)",
        f"{b} collected 0.57 from side pot",
        f"{a} collected 0.85 from main pot",
        "*** SECOND SHOW DOWN ***",
        f"{b}: shows [Ks Kd] (a pair of Kings)",
        f"{c}: shows [Qs Qd] (three of a kind, Queens)",
        f"{a}: shows [As Ad] (a pair of Aces)",
        f"{c} collected 0.57 from side pot",
        f"{c} collected 0.85 from main pot",
        "*** SUMMARY ***",
        "Total pot 3 Main pot 1.70. Side pot 1.14. | Rake 0.16",
        "Hand was run twice",
        "FIRST Board [2c 7h 9s 3d 4c]",
        "SECOND Board [Qh 8c 2d 5h Jc]",
        f"Seat 1: {a} (button) showed [As Ad] and won (0.85) with a pair of Aces, and lost with a pair of Aces",
        f"Seat 2: {b} (small blind) showed [Ks Kd] and won (0.57) with a pair of Kings, and lost with a pair "
        "of Kings",
        f"Seat 3: {c} (big blind) showed [Qs Qd] and lost with a pair of Queens, and won (1.42) with three of "
        "a kind, Queens",
    ]
    assert story_check(story_from_hand(hand=hand)) == []


def test_the_replayer_and_phh_show_both_runs(players, monkeypatch):
    from tables.history.frames import replay_frames
    from tables.history.phh import phh_text

    table, hand, who = three_all_in(players, monkeypatch)
    hand = Hand.objects.select_related("table").get(pk=hand.pk)
    story = story_from_hand(hand=hand)
    frames = replay_frames(story, viewer=None)
    assert frames["hand"]["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    assert frames["frames"][-1]["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    assert [run["run"] for run in frames["hand"]["pots"][0]["runs"]] == [1, 2]
    collects = [f["step"] for f in frames["frames"] if f["step"]["kind"] == "collect"]
    assert [step.get("run") for step in collects] == [1, 1, 2, 2]
    text = phh_text(story, config=hand.config, actions=hand.actions, viewer=None, openings=[])
    dealt = [line for line in text.split("actions = ")[1].split("\n")[0].split('", "') if "d db" in line]
    assert len(dealt) == 6 and "# run 2" in dealt[-1], dealt


def test_the_stand_alone_verifier_proves_both_boards_and_refuses_a_second_board_card_never_opened(
    players, monkeypatch, tmp_path
):
    from django.test import Client

    table, hand, who = three_all_in(players, monkeypatch)
    client = Client()
    client.force_login(who["A"])
    data = client.get(f"/api/hands/{hand.id}/").json()
    assert data["boards"] == [list(RUN_ONE), list(RUN_TWO)]
    good = run_verifier(tmp_path, data)
    assert good.returncode == 0, good.stdout
    assert "VERIFIED: 16 cards" in good.stdout, "ten board cards and six shown"
    data["boards"][1] = ["Tc", *data["boards"][1][1:]]  # a burn passed off as the second run's flop
    assert run_verifier(tmp_path, data).returncode == 1


def test_my_hands_lists_both_boards_of_a_hand_run_twice(players, monkeypatch):
    from django.test import Client

    table, hand, who = three_all_in(players, monkeypatch)
    client = Client()
    client.force_login(who["B"])
    rows = client.get("/api/hands/mine/").json()["hands"]
    assert rows[0]["boards"] == [list(RUN_ONE), list(RUN_TWO)] and rows[0]["board"] == list(RUN_ONE)
    page = client.get("/hands/").content.decode()
    assert all(f'data-card="{card}"' in page for card in RUN_ONE + RUN_TWO)
