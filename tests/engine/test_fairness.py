"""The shuffle and the deck commitment players can check (SPEC 1.1 dealing, SPEC 3 fairness)."""

from __future__ import annotations

import hashlib
import inspect
import json
import random
import secrets
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine import fairness
from tables.engine.fairness import (
    DECK_SIZE,
    FULL_DECK,
    DeckSecret,
    Opening,
    commit_deck,
    leaf_digest,
    open_positions,
    openings_for_viewer,
    shuffle,
    shuffled_deck,
    verify_opening,
    viewer_positions,
)

FIXED_SALTS = [hashlib.sha256(bytes([i])).digest() for i in range(DECK_SIZE)]


def reference_root(cards: list[str], salts: list[bytes]) -> str:
    """The tree written again from the module docstring alone, without any of the module's code."""

    def leaf(i: int) -> bytes:
        return hashlib.sha256(b"\x00" + i.to_bytes(1, "big") + cards[i].encode() + salts[i]).digest()

    level = [leaf(i) for i in range(len(cards))]
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            pair = level[i : i + 2]
            nxt.append(pair[0] if len(pair) == 1 else hashlib.sha256(b"\x01" + pair[0] + pair[1]).digest())
        level = nxt
    return level[0].hex()


# --- the shuffle -----------------------------------------------------------------------------------


def test_full_deck_is_52_distinct_cards() -> None:
    assert len(FULL_DECK) == len(set(FULL_DECK)) == 52
    assert {card[0] for card in FULL_DECK} == set("23456789TJQKA")
    assert {card[1] for card in FULL_DECK} == set("cdhs")
    assert "As" in FULL_DECK and "Td" in FULL_DECK and "2c" in FULL_DECK


def test_shuffle_is_a_permutation_and_leaves_the_input_alone() -> None:
    deck = list(FULL_DECK)
    for _ in range(50):
        shuffled = shuffled_deck()
        assert sorted(shuffled) == sorted(FULL_DECK)
    assert deck == list(FULL_DECK)
    assert shuffle(items=[1, 2, 3]) in ([1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1])
    assert shuffle(items=[]) == []


def test_shuffle_uses_system_random_by_default_and_a_test_source_only_when_passed() -> None:
    assert isinstance(fairness._SYSTEM_RANDOM, secrets.SystemRandom)
    calls: list[int] = []

    class Spy(secrets.SystemRandom):
        def randrange(self, *args: int, **kwargs: int) -> int:  # type: ignore[override]
            calls.append(args[0])
            return super().randrange(*args, **kwargs)

    original = fairness._SYSTEM_RANDOM
    fairness._SYSTEM_RANDOM = Spy()
    try:
        shuffled_deck()
    finally:
        fairness._SYSTEM_RANDOM = original
    assert calls == list(range(52, 1, -1))  # Fisher-Yates: one draw below i + 1 for i = 51 .. 1
    assert shuffled_deck(rng=random.Random(7)) == shuffled_deck(rng=random.Random(7))


def test_shuffle_is_uniform_enough() -> None:
    """Chi-square over 5,200 shuffles for the first card dealt and for where the deck's first card
    ends up (a classic off-by-one, Sattolo's algorithm, never leaves a card in place). 51 degrees of
    freedom: mean 51, standard deviation about 10; 120 is beyond p = 1e-7."""
    rounds = 5200
    first_cards: Counter[str] = Counter()
    landing: Counter[int] = Counter()
    for _ in range(rounds):
        deck = shuffled_deck()
        first_cards[deck[0]] += 1
        landing[deck.index(FULL_DECK[0])] += 1
    expected = rounds / 52
    for counts in (first_cards, landing):
        assert len(counts) == 52
        chi_square = sum((counts[key] - expected) ** 2 / expected for key in counts)
        assert chi_square < 120, chi_square


# --- commitment and openings -----------------------------------------------------------------------


def test_root_matches_an_independent_implementation_and_a_pinned_vector() -> None:
    secret = commit_deck(deck=FULL_DECK, salts=FIXED_SALTS)
    assert secret.root_hex == reference_root(list(FULL_DECK), FIXED_SALTS)
    assert len(secret.root_hex) == 64 and secret.root_hex == secret.root_hex.lower()
    assert secret.root_hex == PINNED_ROOT
    first = leaf_digest(position=0, card="2c", salt=FIXED_SALTS[0])
    assert first == hashlib.sha256(b"\x00\x00" + b"2c" + FIXED_SALTS[0]).digest()


PINNED_ROOT = "70cd11ad420b24b45189f39eee9563c8f9044b25ca2c325d0fcf1c2652c38512"


def test_fresh_salts_every_commitment_and_the_root_hides_nothing_in_repr() -> None:
    deck = shuffled_deck()
    one, two = commit_deck(deck=deck), commit_deck(deck=deck)
    assert one.root_hex != two.root_hex
    assert len(set(one.salts)) == 52 and all(len(salt) == 32 for salt in one.salts)
    # the repr names the root alone (a card like "7d" could appear inside any hex digest by chance)
    assert repr(one) == f"DeckSecret(root_hex={one.root_hex!r})"


def test_every_position_opens_and_verifies() -> None:
    secret = commit_deck(deck=shuffled_deck())
    openings = open_positions(secret=secret, positions=range(52))
    assert [opening.position for opening in openings] == list(range(52))
    for opening in openings:
        assert opening.card == secret.cards[opening.position]
        assert verify_opening(root_hex=secret.root_hex, opening=opening)
        assert verify_opening(root_hex=secret.root_hex.upper(), opening=opening.to_json())
        assert 4 <= len(opening.proof) <= 6
    # Positions 48..51 sit in the 13th node of level 2, carried up, so their proofs are shorter.
    assert len(openings[0].proof) == 6 and len(openings[51].proof) == 4


def test_tampered_openings_fail() -> None:
    secret = commit_deck(deck=shuffled_deck())
    opening = open_positions(secret=secret, positions=[9])[0]
    other = open_positions(secret=secret, positions=[10])[0]
    root = secret.root_hex
    wrong_card = next(card for card in FULL_DECK if card != opening.card)
    flipped_salt = ("0" if opening.salt_hex[0] != "0" else "1") + opening.salt_hex[1:]
    bad = [
        opening._replace(card=wrong_card),
        opening._replace(salt_hex=flipped_salt),
        opening._replace(position=10),
        opening._replace(position=8),
        other._replace(card=opening.card, salt_hex=opening.salt_hex),  # the card moved to another place
        opening._replace(proof=opening.proof[:-1]),
        opening._replace(proof=(*opening.proof, opening.proof[0])),
        opening._replace(proof=(opening.proof[1], opening.proof[0], *opening.proof[2:])),
        opening._replace(proof=(("f" * 64), *opening.proof[1:])),
        opening._replace(proof=()),
    ]
    assert verify_opening(root_hex=root, opening=opening)
    for tampered in bad:
        assert not verify_opening(root_hex=root, opening=tampered), tampered
    assert not verify_opening(root_hex=commit_deck(deck=shuffled_deck()).root_hex, opening=opening)


@pytest.mark.parametrize(
    "junk",
    [
        {},
        {"position": "3", "card": "As", "salt": "00" * 32, "proof": []},
        {"position": True, "card": "As", "salt": "00" * 32, "proof": []},
        {"position": 52, "card": "As", "salt": "00" * 32, "proof": []},
        {"position": -1, "card": "As", "salt": "00" * 32, "proof": []},
        {"position": 3, "card": "A", "salt": "00" * 32, "proof": []},
        {"position": 3, "card": "1s", "salt": "00" * 32, "proof": []},
        {"position": 3, "card": "Aé", "salt": "00" * 32, "proof": []},
        {"position": 3, "card": "As", "salt": "zz" * 32, "proof": []},
        {"position": 3, "card": "As", "salt": "00" * 31, "proof": []},
        {"position": 3, "card": "As", "salt": "00" * 32, "proof": "ab" * 32},
        {"position": 3, "card": "As", "salt": "00" * 32, "proof": [None]},
        None,
        42,
        [("position", 3)],
    ],
)
def test_verifier_says_no_to_junk_and_never_raises(junk: object) -> None:
    assert verify_opening(root_hex="00" * 32, opening=junk) is False  # type: ignore[arg-type]
    assert verify_opening(root_hex=None, opening={}) is False  # type: ignore[arg-type]


def test_verifier_runs_copied_on_its_own() -> None:
    """A player can copy the function's source into a script with nothing else of the room."""
    source = inspect.getsource(verify_opening)
    namespace: dict[str, object] = {}
    exec(compile("from __future__ import annotations\n" + source, "player_script.py", "exec"), namespace)
    copied = namespace["verify_opening"]
    secret = commit_deck(deck=shuffled_deck())
    opening = json.loads(json.dumps(open_positions(secret=secret, positions=[17])[0].to_json()))
    assert copied(root_hex=secret.root_hex, opening=opening) is True  # type: ignore[operator]
    opening["card"] = next(card for card in FULL_DECK if card != opening["card"])
    assert copied(root_hex=secret.root_hex, opening=opening) is False  # type: ignore[operator]


def test_secret_and_openings_survive_json() -> None:
    secret = commit_deck(deck=shuffled_deck())
    stored = json.loads(json.dumps(secret.to_json()))
    rebuilt = DeckSecret.from_json(stored)
    assert rebuilt == secret
    opening = open_positions(secret=rebuilt, positions=[5])[0]
    again = Opening.from_json(json.loads(json.dumps(opening.to_json())))
    assert again == opening and verify_opening(root_hex=secret.root_hex, opening=again)

    edited = dict(stored, cards=[stored["cards"][1], stored["cards"][0], *stored["cards"][2:]])
    with pytest.raises(ValueError, match="root"):
        DeckSecret.from_json(edited)
    for broken in (
        dict(stored, version=2),
        dict(stored, salts=stored["salts"][:-1]),
        dict(stored, salts=["xx"] * 52),
        dict(stored, cards=["As"] * 52),
        {k: v for k, v in stored.items() if k != "cards"},
    ):
        with pytest.raises(ValueError):
            DeckSecret.from_json(broken)


def test_bad_decks_and_positions_are_refused() -> None:
    with pytest.raises(ValueError):
        commit_deck(deck=FULL_DECK[:51])
    with pytest.raises(ValueError):
        commit_deck(deck=["As", *FULL_DECK[1:]] if FULL_DECK[0] != "As" else ["Ks", *FULL_DECK[1:]])
    with pytest.raises(ValueError):
        commit_deck(deck=FULL_DECK, salts=[b"\x00" * 31] * 52)
    secret = commit_deck(deck=FULL_DECK)
    for position in (52, -1, True, "3"):
        with pytest.raises(ValueError):
            open_positions(secret=secret, positions=[position])  # type: ignore[list-item]


# --- who sees which openings -----------------------------------------------------------------------

# Three players, Hold'em, dealt from position 0: one card each round, then burn-flop-burn-turn-burn-river.
HOLE = {1: [0, 3], 4: [1, 4], 7: [2, 5]}
BURNS = [6, 10, 12]
BOARD = [7, 8, 9, 11, 13]


def test_board_and_shown_hands_to_everyone_own_cards_to_the_owner_alone() -> None:
    args = {"hole_positions": HOLE, "board_positions": BOARD, "shown_seats": {1}, "burn_positions": BURNS}
    public = viewer_positions(viewer_seat=None, **args)  # type: ignore[arg-type]
    assert public == (0, 3, 7, 8, 9, 11, 13)
    assert viewer_positions(viewer_seat=1, **args) == public  # type: ignore[arg-type]
    assert viewer_positions(viewer_seat=4, **args) == (0, 1, 3, 4, 7, 8, 9, 11, 13)  # type: ignore[arg-type]
    assert viewer_positions(viewer_seat=7, **args) == (0, 2, 3, 5, 7, 8, 9, 11, 13)  # type: ignore[arg-type]
    assert viewer_positions(viewer_seat=3, **args) == public  # type: ignore[arg-type]


def test_hand_over_before_the_flop_opens_no_board_and_no_burn() -> None:
    positions = viewer_positions(
        hole_positions=HOLE, board_positions=[], shown_seats=set(), viewer_seat=4, burn_positions=[]
    )
    assert positions == (1, 4)


def test_inconsistent_maps_are_refused() -> None:
    with pytest.raises(ValueError, match="both"):
        viewer_positions(
            hole_positions=HOLE, board_positions=[6], shown_seats=(), viewer_seat=None, burn_positions=[6]
        )
    with pytest.raises(ValueError, match="both"):
        viewer_positions(
            hole_positions={1: [0, 1], 2: [1, 2]}, board_positions=[], shown_seats=(), viewer_seat=None
        )
    with pytest.raises(ValueError, match="not dealt"):
        viewer_positions(hole_positions=HOLE, board_positions=[], shown_seats={2}, viewer_seat=None)
    with pytest.raises(ValueError, match="position"):
        viewer_positions(hole_positions={1: [52, 0]}, board_positions=[], shown_seats=(), viewer_seat=None)


@st.composite
def dealt_hands(draw: st.DrawFn) -> tuple[dict[int, list[int]], list[int], list[int], set[int], int | None]:
    seats = draw(st.lists(st.integers(0, 9), min_size=2, max_size=10, unique=True))
    per_player = draw(st.sampled_from([2, 4]))
    streets = draw(st.integers(0, 3))  # pre-flop only, flop, turn, river
    hole = {seat: [lap * len(seats) + i for lap in range(per_player)] for i, seat in enumerate(seats)}
    next_position = per_player * len(seats)
    burns, board = [], []
    for street in range(streets):
        burns.append(next_position)
        count = 3 if street == 0 else 1
        board.extend(range(next_position + 1, next_position + 1 + count))
        next_position += 1 + count
    shown = draw(st.sets(st.sampled_from(seats)))
    viewer = draw(st.one_of(st.none(), st.sampled_from(seats), st.integers(0, 9)))
    return hole, board, burns, shown, viewer


@settings(max_examples=150, deadline=None)
@given(hand=dealt_hands())
def test_viewer_openings_never_show_unshown_hands_burns_or_undealt_cards(
    hand: tuple[dict[int, list[int]], list[int], list[int], set[int], int | None],
) -> None:
    hole, board, burns, shown, viewer = hand
    secret = commit_deck(deck=shuffled_deck())
    openings = openings_for_viewer(
        secret=secret,
        hole_positions=hole,
        board_positions=board,
        shown_seats=shown,
        viewer_seat=viewer,
        burn_positions=burns,
    )
    allowed = (
        set(board)
        | {p for seat in shown for p in hole[seat]}
        | set(hole.get(viewer, []) if viewer is not None else [])
    )
    opened = {opening.position for opening in openings}
    assert opened == allowed
    for seat, positions in hole.items():
        if seat not in shown and seat != viewer:
            assert not opened & set(positions)
    assert not opened & set(burns)
    dealt = {p for positions in hole.values() for p in positions} | set(board) | set(burns)
    assert opened <= dealt
    for opening in openings:
        assert opening.card == secret.cards[opening.position]
        assert verify_opening(root_hex=secret.root_hex, opening=opening)
