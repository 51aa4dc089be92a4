"""Hands played through the services come out as PokerStars text and PHH exactly as they happened, and as
each viewer may see them: their own cards, the hands shown, never a folded or mucked hand of someone else."""

import io
import re
import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from tables.engine import fairness
from tables.history.selectors import (
    hand_phh,
    hand_pokerstars,
    hand_replay,
    hands_export_text,
    hands_for_export,
)
from tables.history.story import FULL_VIEW, story_check, story_from_hand
from tables.models import Game, Hand, Structure
from tests.factories import eur_table_create, table_create
from tests.tables.history_helpers import copies_of, person, play, seat_all, stack_next_deck

pytestmark = pytest.mark.django_db

CARD_GROUPS = re.compile(r"\[([2-9TJQKA][cdhs](?: [2-9TJQKA][cdhs])*)\]")


def cards_in(text: str) -> set[str]:
    """Every card the text shows, in PokerStars' brackets."""
    return {card for group in CARD_GROUPS.findall(text) for card in group.split()}


def cards_in_json(value) -> set[str]:
    """Every card a JSON answer carries: under "cards" (lists) and "card" keys, at any depth."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "cards" and isinstance(item, list):
                found.update(item)
            elif key == "card" and isinstance(item, str):
                found.add(item)
            else:
                found |= cards_in_json(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in_json(item)
    return found


def cards_in_phh(text: str) -> set[str]:
    data = tomllib.loads(text)
    found = {o["card"] for o in data["_deck_openings"]}
    for line in data["actions"]:
        words = line.split()
        cards = (
            words[3] if words[:2] == ["d", "dh"] else words[2] if len(words) > 2 and words[1] == "sm" else ""
        )
        found.update(cards[i : i + 2] for i in range(0, len(cards), 2) if cards[i : i + 2] != "??")
    return found


def eur_table(**options):
    from tables.management.commands.seed_demo import rake_schedules_seed

    schedule, _nickel = rake_schedules_seed()
    return eur_table_create(small_blind=5, big_blind=10, seats=6, rake_schedule=schedule, **options)


def three_way_all_in(monkeypatch):
    """Seat 1 (button) all-in for 3.00, seat 2 (small blind) all-in for 10.00, seat 3 (big blind) calls
    all-in for 6.00: 4.00 uncalled back to seat 2, a main pot of 9.00 to seat 1's aces and a side pot of 6.00
    to seat 3's kings, raked 0.83 on 15.00 (one cent per whole 0.18)."""
    table = eur_table()
    alice, bruno, carla = (person(name, eur=20_000) for name in ("alice", "bruno", "carla"))
    seat_all(table, [alice, bruno, carla], {1: 300, 2: 1_000, 3: 600})
    stack_next_deck(monkeypatch, order=[1, 2, 0], holes={0: "AsAd", 1: "QsQd", 2: "KsKd"}, board="2c7h9dJc3s")
    from tables import services

    services.hand_deal(table_id=table.id)
    hand = play(table, (0, "all_in"), (1, "all_in"), (2, "call"))
    return table, hand, (alice, bruno, carla)


def test_a_three_way_all_in_is_written_as_pokerstars_writes_it(monkeypatch):
    table, hand, (alice, bruno, carla) = three_way_all_in(monkeypatch)
    a, b, c = alice.username, bruno.username, carla.username
    text = hand_pokerstars(hand=hand, viewer=1)
    lines = text.splitlines()
    assert re.fullmatch(
        rf"PokerStars Hand #{hand.id}:  Hold'em No Limit \(€0\.05/€0\.10 EUR\) - "
        r"\d{4}/\d\d/\d\d [1-9]?\d:\d\d:\d\d CES?T \[\d{4}/\d\d/\d\d [1-9]?\d:\d\d:\d\d ET\]",
        lines[0],
    ), lines[0]
    assert lines[1:] == [
        f"Table '{table.name}' 6-max Seat #1 is the button",
        f"Seat 1: {a} (€3 in chips)",
        f"Seat 2: {b} (€10 in chips)",
        f"Seat 3: {c} (€6 in chips)",
        f"{b}: posts small blind €0.05",
        f"{c}: posts big blind €0.10",
        "*** HOLE CARDS ***",
        f"Dealt to {b} [Qs Qd]",
        f"{a}: raises €2.90 to €3 and is all-in",
        f"{b}: raises €7 to €10 and is all-in",
        f"{c}: calls €5.90 and is all-in",
        f"Uncalled bet (€4) returned to {b}",
        "*** FLOP *** [2c 7h 9d]",
        "*** TURN *** [2c 7h 9d] [Jc]",
        "*** RIVER *** [2c 7h 9d Jc] [3s]",
        "*** SHOW DOWN ***",
        f"{b}: shows [Qs Qd] (a pair of Queens)",
        f"{c}: shows [Ks Kd] (a pair of Kings)",
        f"{a}: shows [As Ad] (a pair of Aces)",
        f"{c} collected €5.67 from side pot",
        f"{a} collected €8.50 from main pot",
        "*** SUMMARY ***",
        "Total pot €15 Main pot €8.50. Side pot €5.67. | Rake €0.83",
        "Board [2c 7h 9d Jc 3s]",
        f"Seat 1: {a} (button) showed [As Ad] and won (€8.50) with a pair of Aces",
        f"Seat 2: {b} (small blind) showed [Qs Qd] and lost with a pair of Queens",
        f"Seat 3: {c} (big blind) showed [Ks Kd] and won (€5.67) with a pair of Kings",
    ]
    assert story_check(story_from_hand(hand=hand)) == []


@pytest.mark.parametrize(
    ("started", "written"),
    [
        (datetime(2026, 12, 1, 8, 5, 3, tzinfo=UTC), "2026/12/01 9:05:03 CET [2026/12/01 3:05:03 ET]"),
        (datetime(2026, 7, 1, 7, 5, 3, tzinfo=UTC), "2026/07/01 9:05:03 CEST [2026/07/01 3:05:03 ET]"),
        (datetime(2026, 12, 1, 23, 30, 0, tzinfo=UTC), "2026/12/02 0:30:00 CET [2026/12/01 18:30:00 ET]"),
    ],
)
def test_the_header_writes_the_hour_as_pokerstars_does_without_a_leading_zero(monkeypatch, started, written):
    table, hand, _players = three_way_all_in(monkeypatch)
    Hand.objects.filter(pk=hand.pk).update(started_at=started)
    hand = Hand.objects.select_related("table").get(pk=hand.pk)
    header = hand_pokerstars(hand=hand, viewer=0).splitlines()[0]
    assert header == f"PokerStars Hand #{hand.id}:  Hold'em No Limit (€0.05/€0.10 EUR) - {written}"


def test_phh_carries_the_commitment_and_openings_that_check_and_hides_what_the_viewer_may_not_see(
    monkeypatch,
):
    table, hand, _players = three_way_all_in(monkeypatch)
    data = tomllib.loads(hand_phh(hand=hand, viewer=1))
    assert data["variant"] == "NT"
    assert data["starting_stacks"] == [1_000, 600, 300]  # dealing order: small blind first, the button last
    assert data["finishing_stacks"] == [400, 567, 850] and data["_rake"] == 83
    assert data["_deck_commitment"] == hand.commitment
    openings = data["_deck_openings"]
    assert openings and all(fairness.verify_opening(root_hex=hand.commitment, opening=o) for o in openings)
    # Everyone showed (all-in): every hole card is public, and the board; never a burn or an undealt card.
    opened = {o["card"] for o in openings}
    assert opened == {"As", "Ad", "Qs", "Qd", "Ks", "Kd", "2c", "7h", "9d", "Jc", "3s"}


def test_a_hand_with_a_fold_and_a_muck_never_shows_those_cards_to_anyone_else(monkeypatch):
    """Seat 3 folds pre-flop; seats 1 and 2 check it down; seat 2 shows the winning hand first and seat 1,
    beaten, mucks (auto-muck). Seat 3's and seat 1's cards reach nobody but their owners and staff."""
    table = table_create(small_blind=50, big_blind=100)
    users = [person(name) for name in ("ada", "ben", "cleo")]
    seat_all(table, users, 10_000)
    stack_next_deck(monkeypatch, order=[1, 2, 0], holes={0: "7c2d", 1: "AhAc", 2: "9s8s"}, board="KdQh5c4s3d")
    from tables import services

    services.hand_deal(table_id=table.id)
    hand = play(
        table,
        (0, "call"),
        (1, "call"),
        (2, "fold"),  # the button calls, small blind calls, BB folds
        *[move for _ in range(3) for move in ((1, "check"), (0, "check"))],
    )
    folded, mucked = {"9s", "8s"}, {"7c", "2d"}
    assert hand.result["shown"] == {"2": ["Ah", "Ac"]}
    for viewer, own in ((None, set()), (1, {"Ah", "Ac"}), (2, folded), (0, mucked)):
        text = hand_pokerstars(hand=hand, viewer=viewer)
        seen = cards_in(text)
        assert seen - own <= {"Ah", "Ac", "Kd", "Qh", "5c", "4s", "3d"}, (viewer, seen)
        assert own <= seen, "a player's own cards are always in their history"
        hidden = (folded | mucked) - own
        assert not hidden & cards_in_phh(hand_phh(hand=hand, viewer=viewer)), viewer
        assert not hidden & cards_in_json(hand_replay(hand=hand, viewer=viewer)), viewer
    everyone = cards_in(hand_pokerstars(hand=hand, viewer=FULL_VIEW))
    assert folded | mucked <= everyone, "staff's full history has every card dealt"
    assert f"Seat 1: {users[0].username} (button) mucked [7c 2d]" in hand_pokerstars(hand=hand, viewer=0)
    assert f"Seat 1: {users[0].username} (button) mucked\n" in hand_pokerstars(hand=hand, viewer=None)
    assert f"Seat 3: {users[2].username} (big blind) folded before Flop\n" in hand_pokerstars(
        hand=hand, viewer=2
    )


def test_fixed_limit_omaha_hi_lo_names_the_bets_and_splits_the_pot(monkeypatch):
    table = table_create(
        small_blind=100, big_blind=200, structure=Structure.FIXED_LIMIT, game=Game.OMAHA_HILO
    )
    users = [person(name) for name in ("hi", "lo")]
    seat_all(table, users, 20_000)
    # Heads-up: the button (seat 1) posts the small blind; seat 2 is dealt first.
    stack_next_deck(
        monkeypatch, order=[1, 0], holes={0: "KhKdQsJs", 1: "As2d9c9h"}, board="3c4h8sKcTd", hole_count=4
    )
    from tables import services

    services.hand_deal(table_id=table.id)
    hand = play(
        table, (0, "call"), (1, "check"), *[m for _ in range(3) for m in ((1, "check"), (0, "check"))]
    )
    text = hand_pokerstars(hand=hand, viewer=0)
    assert re.match(rf"PokerStars Hand #{hand.id}:  Omaha Hi/Lo Limit \(2/4\) - ", text)
    assert f"Table '{table.name}' 6-max (Play Money) Seat #1 is the button" in text
    hi, lo = users[0].username, users[1].username
    assert f"{hi}: shows [Kh Kd Qs Js] (HI: three of a kind, Kings)" in text
    assert f"{lo}: shows [As 2d 9c 9h] (HI: a pair of Nines; LO: 8,4,3,2,A)" in text
    # 4.00 raked 0.22 (one chip per whole 0.18, play chips too): 1.89 each to the high and the low.
    assert {f"{hi} collected 1.89 from pot", f"{lo} collected 1.89 from pot"} <= set(text.splitlines())
    assert "Total pot 4 | Rake 0.22" in text


def test_the_staff_command_with_a_player_writes_exactly_that_players_download(monkeypatch):
    table, hand, (alice, bruno, carla) = three_way_all_in(monkeypatch)
    for fmt in ("pokerstars", "phh"):
        out = io.StringIO()
        call_command("hand_history", "--format", fmt, "--player", bruno.username, stdout=out)
        download = "".join(hands_export_text(hands=hands_for_export(user=bruno), fmt=fmt, user=bruno))
        assert out.getvalue() == download
    full = io.StringIO()
    call_command("hand_history", "--table", str(table.id), stdout=full)
    assert "Dealt to" in full.getvalue() and full.getvalue().count("Dealt to") == 3


def command_hands(*args: str) -> list[int]:
    """The hands ``hand_history`` writes (PokerStars text), in its order."""
    out = io.StringIO()
    call_command("hand_history", *args, stdout=out)
    return [int(hand_id) for hand_id in re.findall(r"^PokerStars Hand #(\d+):", out.getvalue(), re.MULTILINE)]


def test_the_staff_command_writes_the_hands_of_the_days_asked(monkeypatch):
    """``--since`` and ``--until`` are Rome's days, both included: a hand ended at 00:30 on the 11th (23:30
    UTC on the 10th) is the 11th's."""
    table, hand, (_alice, bruno, _carla) = three_way_all_in(monkeypatch)
    rome = ZoneInfo(settings.TIME_ZONE)
    tenth, eleventh, twelfth = copies_of(
        hand,
        [
            datetime(2025, 3, 10, 23, 59, tzinfo=rome),
            datetime(2025, 3, 11, 0, 30, tzinfo=rome),
            datetime(2025, 3, 12, 9, 0, tzinfo=rome),
        ],
    )
    assert command_hands() == [tenth.id, eleventh.id, twelfth.id, hand.id]
    assert command_hands("--since", "2025-03-11") == [eleventh.id, twelfth.id, hand.id]
    assert command_hands("--until", "2025-03-10") == [tenth.id]
    assert command_hands("--since", "2025-03-11", "--until", "2025-03-11") == [eleventh.id]
    assert command_hands("--since", "2025-03-11", "--player", bruno.username) == [
        eleventh.id,
        twelfth.id,
        hand.id,
    ]
    assert command_hands("--since", "2025-03-13", "--table", str(table.id)) == [hand.id]
    with pytest.raises(CommandError, match="--since comes after --until"):
        command_hands("--since", "2025-03-12", "--until", "2025-03-11")


@pytest.mark.parametrize("flag", ["--since", "--until"])
def test_the_staff_command_refuses_a_malformed_date_with_a_message_and_no_traceback(flag):
    """Run as staff run it: a usage error on standard error, a non-zero exit, nothing written, no traceback."""
    run = subprocess.run(
        [sys.executable, "manage.py", "hand_history", flag, "2025-02-30"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and run.stdout == ""
    assert f"argument {flag}: not a date (YYYY-MM-DD): '2025-02-30'" in run.stderr
    assert "Traceback" not in run.stderr
