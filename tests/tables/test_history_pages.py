"""My hands, the replayer's data, share links, downloads, the table's last hands and the deck check, as a
player (and a stranger) gets them over HTTP; and the stand-alone verifier run as a player runs it."""

import copy
import json
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tables.engine import fairness
from tables.history.selectors import HISTORY_KEPT, hand_share_token
from tests.factories import table_create
from tests.tables.history_helpers import copies_of, person, play, seat_all, stack_next_deck

pytestmark = pytest.mark.django_db

SCRIPT = Path(settings.BASE_DIR) / "static" / "verify_hand.py"
ROME = ZoneInfo(settings.TIME_ZONE)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def played(monkeypatch):
    """A finished hand at a play table: ada (button) calls, ben (small blind) calls, cleo (big blind) folds;
    checked down, ben shows aces and ada mucks."""
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
        (2, "fold"),
        *[m for _ in range(3) for m in ((1, "check"), (0, "check"))],
    )
    return table, hand, users


def test_my_hands_lists_the_players_hands_with_filters_and_refuses_bad_input(played):
    table, hand, (ada, ben, cleo) = played
    page = logged_in(cleo).get("/hands/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-hand-id="{hand.id}"' in html and 'data-card="9s"' in html and 'data-card="Ah"' not in html
    assert (
        f'data-hand-id="{hand.id}"'
        not in logged_in(cleo).get(f"/hands/?table={table.id + 1}").content.decode()
    )
    assert f'data-hand-id="{hand.id}"' not in logged_in(cleo).get("/hands/?game=omaha").content.decode()
    bad = logged_in(cleo).get("/hands/?since=yesterday&table=-3")
    assert bad.status_code == 400 and "errorlist" in bad.content.decode()
    assert Client().get("/hands/").status_code == 302  # to the login page

    data = logged_in(ada).get("/api/hands/mine/").json()
    assert data["count"] == 1
    row = data["hands"][0]
    assert row["hand_id"] == hand.id and row["cards"] == ["7c", "2d"] and row["seat"] == 1
    assert (
        row["net"] == -100 and row["pot"] == hand.pot_total and row["board"] == ["Kd", "Qh", "5c", "4s", "3d"]
    )
    assert row["replay_url"] == f"/hands/{hand.id}/" and row["verify_url"] == f"/hands/{hand.id}/verify/"
    refused = logged_in(ada).get("/api/hands/mine/?per_page=7&until=2020-13-01")
    assert refused.status_code == 400 and set(refused.json()["fields"]) == {"per_page", "until"}
    assert Client().get("/api/hands/mine/").status_code == 403


def test_the_replayer_data_is_for_the_hands_players_and_a_share_link_shows_public_cards_only(played):
    table, hand, (ada, ben, cleo) = played
    stranger = person("dora")
    assert logged_in(stranger).get(f"/hands/{hand.id}/").status_code == 404
    assert logged_in(stranger).get(f"/api/hands/{hand.id}/replay/").status_code == 404
    page = logged_in(cleo).get(f"/hands/{hand.id}/")
    assert page.status_code == 200
    token = hand_share_token(hand_id=hand.id)
    assert f"/hands/shared/{token}/" in page.content.decode()

    mine = logged_in(cleo).get(f"/api/hands/{hand.id}/replay/").json()
    by_seat = {p["seat"]: p["cards"] for p in mine["players"]}
    assert by_seat == {1: None, 2: ["Ah", "Ac"], 3: ["9s", "8s"]}
    assert [f["step"]["kind"] for f in mine["frames"]][:4] == ["start", "post", "post", "deal"]
    last = mine["frames"][-1]
    assert last["pots"][0]["net"] + last["pots"][0]["rake"] == last["pots"][0]["amount"] == hand.pot_total

    shared = Client().get(f"/api/hands/shared/{token}/").json()
    assert {p["seat"]: p["cards"] for p in shared["players"]} == {1: None, 2: ["Ah", "Ac"], 3: None}
    assert all(f["seats"][2]["cards"] is None for f in shared["frames"]), "the folded hand stays face down"
    assert {o["card"] for o in shared["openings"]} == {"Ah", "Ac", "Kd", "Qh", "5c", "4s", "3d"}
    assert Client().get(f"/hands/shared/{token}/").status_code == 200
    assert Client().get(f"/api/hands/shared/{token}x/").status_code == 404
    assert Client().get(f"/api/hands/shared/{hand.id}/").status_code == 404


def test_downloads_of_one_hand_and_of_a_range(played):
    table, hand, (ada, ben, cleo) = played
    one = logged_in(ada).get(f"/hands/{hand.id}/download/?format=pokerstars")
    assert one["Content-Disposition"] == f'attachment; filename="hand-{hand.id}.txt"'
    text = one.content.decode()
    assert f"Dealt to {ada.username} [7c 2d]" in text and "9s" not in text
    assert logged_in(ada).get(f"/hands/{hand.id}/download/?format=doc").status_code == 400
    assert logged_in(person("eve")).get(f"/hands/{hand.id}/download/").status_code == 404
    phh = logged_in(cleo).get(f"/hands/{hand.id}/download/?format=phh").content.decode()
    # Ada's cards are nowhere but in the hashes of the deck's proofs (64 hex digits, where "7c2d" may occur)
    assert "_deck_commitment" in phh and "9s8s" in phh and "7c2d" not in re.sub(r"[0-9a-f]{64}", "", phh)
    both = logged_in(ada).get(f"/hands/download/?format=pokerstars&table={table.id}")
    assert both.status_code == 200 and b"".join(both.streaming_content).decode().startswith(
        "PokerStars Hand #"
    )
    assert logged_in(ada).get("/hands/download/?format=pokerstars&since=2024-02-30").status_code == 400


def test_the_tables_last_hands_are_public_and_a_players_own_come_with_the_replayer(played):
    table, hand, (ada, ben, cleo) = played
    public = Client().get(f"/api/tables/{table.id}/last-hands/").json()["hands"]
    assert [row["hand_id"] for row in public] == [hand.id]
    assert public[0]["cards"] is None and "replay_url" not in public[0]
    assert public[0]["winners"] == [{"name": ben.username, "amount": hand.result["pots"][0]["net"]}]
    own = logged_in(ada).get(f"/api/tables/{table.id}/last-hands/").json()["hands"][0]
    assert own["cards"] == ["7c", "2d"] and own["replay_url"] == f"/hands/{hand.id}/"
    assert Client().get("/api/tables/999999/last-hands/").status_code == 404


def test_fairness_pages_and_the_verifier_download(played):
    table, hand, users = played
    assert Client().get("/fairness/").status_code == 200
    assert Client().get(f"/hands/{hand.id}/verify/").status_code == 200
    assert Client().get("/hands/999999/verify/").status_code == 404
    script = Client().get("/fairness/verify_hand.py")
    assert b"".join(script.streaming_content) == SCRIPT.read_bytes()


FAIRNESS_HEADINGS = (
    "Fair decks you can check",
    "Before the first card: a sealed deck",
    "After the hand: the cards opened to you",
    "Checking a hand",
    "The exact rules, for programmers",
)


@pytest.mark.parametrize(
    ("client", "language"),
    [
        (lambda: Client(), "en"),
        (lambda: Client(HTTP_ACCEPT_LANGUAGE="it"), "it"),
        (lambda: _with_language_cookie("it"), "it"),
    ],
)
def test_the_fairness_page_explains_the_scheme_in_the_visitors_language(client, language):
    """The public fairness page in English and in Italian (asked by the browser, or chosen on the site): its
    headings and explanations in that language, none left in English on the Italian page."""
    from django.utils import translation

    page = client().get("/fairness/").content.decode()
    translation.activate(settings.LANGUAGE_CODE)
    assert f'<html lang="{language}">' in page
    with translation.override(language):
        expected = [translation.gettext(heading) for heading in FAIRNESS_HEADINGS]
    assert all(heading in page for heading in expected), expected
    if language == "it":
        assert expected[0] == "Mazzi equi che puoi verificare"
        assert not [heading for heading in FAIRNESS_HEADINGS if heading in page], "English left on the page"
        assert "Every deck is shuffled" not in page and "verify_hand.py" in page


def _with_language_cookie(language: str) -> Client:
    client = Client()
    client.cookies["django_language"] = language
    return client


def run_verifier(tmp_path, data) -> subprocess.CompletedProcess:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(data))
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_stand_alone_verifier_checks_a_hands_json_and_fails_on_any_tampering(played, tmp_path):
    table, hand, (ada, ben, cleo) = played
    data = logged_in(cleo).get(f"/api/hands/{hand.id}/").json()
    good = run_verifier(tmp_path, data)
    assert good.returncode == 0, good.stdout
    assert "VERIFIED: 9 cards" in good.stdout and "position" in good.stdout  # the public 7 and cleo's 2

    card = copy.deepcopy(data)
    card["openings"][0]["card"] = "As" if card["openings"][0]["card"] != "As" else "Ks"
    salt = copy.deepcopy(data)
    salt["openings"][1]["salt"] = ("0" if salt["openings"][1]["salt"][0] != "0" else "1") + salt["openings"][
        1
    ]["salt"][1:]
    path = copy.deepcopy(data)
    path["openings"][2]["proof"][0] = "f" * 64
    short = copy.deepcopy(data)
    short["openings"][3]["proof"].pop()
    for tampered, reason in (
        (card, "not to the commitment"),
        (salt, "not to the commitment"),
        (path, "not to the commitment"),
        (short, "too short"),
    ):
        result = run_verifier(tmp_path, tampered)
        assert result.returncode == 1, result.stdout
        assert "FAILED" in result.stdout and reason in result.stdout
    swapped = copy.deepcopy(data)
    swapped["board"] = ["2c", *swapped["board"][1:]]  # a board card no opening proves
    assert run_verifier(tmp_path, swapped).returncode == 1
    assert run_verifier(tmp_path, {"deck_commitment": "zz"}).returncode == 1


def test_the_verifier_agrees_with_the_engine_on_every_opening_and_its_tamperings():
    """The script is its own implementation (a player may read it without the room's code): it accepts what
    the engine's verify_opening accepts and refuses what it refuses."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import verify_hand
    finally:
        sys.path.pop(0)
    secret = fairness.commit_deck(deck=fairness.shuffled_deck())
    for opening in fairness.open_positions(secret=secret, positions=range(52)):
        good = opening.to_json()
        variants = [
            good,
            {**good, "position": (good["position"] + 1) % 52},
            {**good, "proof": good["proof"][:-1]},
            {**good, "salt": good["salt"][::-1]},
            {**good, "proof": [*good["proof"], good["proof"][0]]},
        ]
        for variant in variants:
            expected = fairness.verify_opening(root_hex=secret.root_hex, opening=variant)
            assert (verify_hand.check_opening(secret.root_hex, variant) is None) == expected, variant


def test_my_hands_dates_read_from_and_to_in_italian(played):
    """The filter's end date is "Al" (until), not the withdrawal form's "Destinazione" (where money goes)."""
    from django.utils import translation

    _table, _hand, (_ada, _ben, cleo) = played
    client = logged_in(cleo)
    client.cookies["django_language"] = "it"
    page = client.get("/hands/").content.decode()
    translation.activate(settings.LANGUAGE_CODE)
    assert "Dal <input" in page and "Al <input" in page
    assert "Destinazione" not in page


def listed(response) -> list[int]:
    """The hands a "My hands" page lists, in its order."""
    return [int(hand_id) for hand_id in re.findall(r'data-hand-id="(\d+)"', response.content.decode())]


def downloaded(response) -> list[int]:
    """The hands of a PokerStars download, in its order."""
    text = b"".join(response.streaming_content).decode()
    return [int(hand_id) for hand_id in re.findall(r"^PokerStars Hand #(\d+):", text, re.MULTILINE)]


def test_my_hands_are_paged_newest_first_and_a_bad_page_is_a_clear_answer(played):
    """27 hands, 25 a page: the first hand dealt ended last, so newest first is by the end, not the id."""
    _table, hand, (ada, _ben, _cleo) = played
    older = copies_of(hand, [hand.ended_at - timedelta(minutes=m) for m in range(1, 27)])
    newest_first = [hand.id] + [h.id for h in older]
    client = logged_in(ada)

    first = client.get("/hands/")
    assert first.status_code == 200 and listed(first) == newest_first[:25]
    assert "Page 1 of 2" in first.content.decode() and "?page=2" in first.content.decode()
    second = client.get("/hands/?page=2")
    assert second.status_code == 200 and listed(second) == newest_first[25:]
    assert "Page 2 of 2" in second.content.decode() and "?page=1" in second.content.decode()
    assert listed(client.get("/hands/?per_page=10&page=3")) == newest_first[20:]
    data = client.get("/api/hands/mine/?page=2").json()
    assert [row["hand_id"] for row in data["hands"]] == newest_first[25:]
    assert (data["page"], data["pages"], data["count"]) == (2, 2, 27)

    beyond = client.get("/hands/?page=9")  # past the end: the last page, saying so
    assert beyond.status_code == 200 and listed(beyond) == newest_first[25:]
    assert "Page 2 of 2" in beyond.content.decode()
    assert client.get("/api/hands/mine/?page=9").json()["page"] == 2
    for bad in ("two", "0", "-1", "1.5", "99999999999"):
        refused = client.get(f"/hands/?page={bad}")
        html = refused.content.decode()
        assert refused.status_code == 400 and listed(refused) == [], bad
        assert "Page: " in html and 'class="errorlist"' in html, bad
        api = client.get(f"/api/hands/mine/?page={bad}")
        assert api.status_code == 400 and set(api.json()["fields"]) == {"page"}, bad
    refused = client.get("/hands/?per_page=7")
    assert refused.status_code == 400 and "Hands a page" in refused.content.decode()


def test_my_hands_dates_pick_the_hands_of_those_local_days(played):
    """Days are Rome's: a hand ended at 00:30 on the 11th (23:30 UTC on the 10th) is the 11th's."""
    table, hand, (ada, _ben, _cleo) = played
    tenth, eleventh_early, eleventh_late, twelfth = copies_of(
        hand,
        [
            datetime(2025, 3, 10, 12, 0, tzinfo=ROME),
            datetime(2025, 3, 11, 0, 30, tzinfo=ROME),
            datetime(2025, 3, 11, 23, 59, tzinfo=ROME),
            datetime(2025, 3, 12, 0, 0, tzinfo=ROME),
        ],
    )
    client = logged_in(ada)

    def shown(query: str) -> list[int]:
        page = client.get(f"/hands/?{query}")
        assert page.status_code == 200, query
        return listed(page)

    assert shown("since=2025-03-11&until=2025-03-11") == [eleventh_late.id, eleventh_early.id]
    assert shown("until=2025-03-10") == [tenth.id]
    assert shown("since=2025-03-12") == [hand.id, twelfth.id]
    assert shown(f"since=2025-03-10&until=2025-03-11&table={table.id}") == [
        eleventh_late.id,
        eleventh_early.id,
        tenth.id,
    ]
    api = client.get("/api/hands/mine/?since=2025-03-11&until=2025-03-11").json()
    assert [row["hand_id"] for row in api["hands"]] == [eleventh_late.id, eleventh_early.id]
    file = client.get("/hands/download/?format=pokerstars&since=2025-03-11&until=2025-03-11")
    assert file.status_code == 200 and downloaded(file) == [eleventh_early.id, eleventh_late.id]

    for query, message in (
        ("since=2025-02-30", "Enter a valid date."),
        ("until=yesterday", "Enter a valid date."),
        ("since=2025-03-12&until=2025-03-11", "The first day comes after the last."),
    ):
        refused = client.get(f"/hands/?{query}")
        assert refused.status_code == 400 and listed(refused) == [], query
        assert message in refused.content.decode(), query
        assert client.get(f"/hands/download/?format=pokerstars&{query}").status_code == 400, query
        assert client.get(f"/api/hands/mine/?{query}").status_code == 400, query


def test_my_hands_keep_at_least_three_months(played):
    """What the page promises (HISTORY_KEPT, three months at least) holds: a hand of 80 days ago, one of the
    promise's last day and an older one are all listed and downloadable."""
    _table, hand, (ada, _ben, _cleo) = played
    assert HISTORY_KEPT >= timedelta(days=92)  # three months are never more than 92 days
    now = timezone.now()
    eighty, kept, older = copies_of(
        hand, [now - timedelta(days=80), now - HISTORY_KEPT + timedelta(minutes=5), now - timedelta(days=400)]
    )
    client = logged_in(ada)
    page = client.get("/hands/")
    assert f"at least the last {HISTORY_KEPT.days} days are kept" in page.content.decode()
    assert listed(page) == [hand.id, eighty.id, kept.id, older.id]
    day = timezone.localtime(eighty.ended_at).date().isoformat()
    assert listed(client.get(f"/hands/?since={day}&until={day}")) == [eighty.id]
    one = client.get(f"/hands/{eighty.id}/download/?format=pokerstars")
    assert one.status_code == 200 and one.content.decode().startswith(f"PokerStars Hand #{eighty.id}:")
    assert client.get(f"/hands/{eighty.id}/").status_code == 200
    every = client.get("/hands/download/?format=pokerstars")
    assert downloaded(every) == [older.id, kept.id, eighty.id, hand.id]


def test_every_answer_with_a_players_own_hands_or_wallet_is_never_cached(played):
    """Issue 32: My hands, its API, the downloads (one's own hole cards), the replayer and a hand's data, the
    table's last hands and the wallet at a table were sent without `Cache-Control: no-store`: a shared
    computer's back button or a proxy could show them to the next person. Public pages stay cacheable."""
    table, hand, (ada, _ben, _cleo) = played
    client = logged_in(ada)
    for url in (
        "/hands/",
        "/api/hands/mine/",
        "/hands/download/?format=pokerstars",
        "/hands/download/?format=phh",
        f"/hands/{hand.id}/",
        f"/hands/{hand.id}/download/?format=pokerstars",
        f"/hands/{hand.id}/download/?format=phh",
        f"/api/hands/{hand.id}/replay/",
        f"/api/hands/{hand.id}/",
        f"/api/tables/{table.id}/last-hands/",
        f"/api/tables/{table.id}/money/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Cache-Control"] == "no-store", url
    token = hand_share_token(hand_id=hand.id)
    for url in ("/", "/payout/", "/api/payout/", "/fairness/", "/api/tables/", f"/hands/shared/{token}/"):
        response = client.get(url)
        assert response.status_code == 200 and "no-store" not in response.get("Cache-Control", ""), url
