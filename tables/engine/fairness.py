"""The shuffle, and a commitment to the deck that players can check (SPEC 1.1 dealing, SPEC 3 fairness).

Before the first card the room publishes one hex string, the Merkle root of the shuffled deck. When the
hand is over it opens the positions whose cards became public (the board, hands shown) to everyone and
each player's own hole-card positions to that player; with :func:`verify_opening` anyone can check that
each opened card sat at that position before anyone acted. Nothing else is ever opened: each position
has its own random salt, so an unopened digest says nothing about its card.

The commitment, exactly (so that an outside player can reimplement it):

* Deck positions are ``0 .. 51`` in the order the cards leave the deck (position 0 is the first card
  dealt; burns and board cards take their places in that same order, as the dealing code assigns them).
* Cards are two ASCII characters: a rank from ``23456789TJQKA`` and a suit from ``cdhs`` ("As", "Td").
* Salts are 32 random bytes per position, from :func:`secrets.token_bytes`.
* Leaf ``i`` = ``SHA-256(0x00 || i as one byte || card as 2 ASCII bytes || salt as 32 bytes)``, 36 bytes
  hashed. This is ``H(position, card, salt)`` of SPEC 3; the leading ``0x00`` separates leaves from inner
  nodes, so no inner node can pass for a leaf.
* Inner node = ``SHA-256(0x01 || left child || right child)`` (the children as 32 raw bytes each).
* The tree is built level by level from the 52 leaves in position order: nodes ``2k`` and ``2k + 1`` of
  a level make node ``k`` of the next. A level with an odd number of nodes carries its last node up
  unchanged (it is not duplicated, so no two different leaf lists share a root). Level sizes for 52
  leaves: 52, 26, 13, 7, 4, 2, 1.
* The root is published as 64 lowercase hex characters.
* An opening is ``{"position": int, "card": str, "salt": 64 hex chars, "proof": [64 hex chars, ...]}``:
  the siblings met going up from the leaf to the root, lowest level first, skipping the levels where
  the node is carried up. Which side each sibling is on follows from the position, so a proof cannot
  claim a card for a position other than the one it was committed at.

Pure: stdlib only; the only randomness is :class:`secrets.SystemRandom` and :func:`secrets.token_bytes`
unless a test passes its own source explicitly.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

RANKS = "23456789TJQKA"
SUITS = "cdhs"
FULL_DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)
DECK_SIZE = 52
SALT_BYTES = 32
COMMITMENT_VERSION = 1
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"

_CARDS = frozenset(FULL_DECK)
_SYSTEM_RANDOM = secrets.SystemRandom()
# What each leaf hashes before the salt: 0x00, the position as one byte, the card's two ASCII bytes.
_LEAF_HEAD = {
    (position, card): LEAF_PREFIX + bytes([position]) + card.encode("ascii")
    for position in range(DECK_SIZE)
    for card in FULL_DECK
}
_sha256 = hashlib.sha256
_POSITIONS = frozenset(range(DECK_SIZE))
_PROOF_PATHS: tuple[tuple[tuple[int, int], ...], ...]
"""For each position, the (level, index) of each sibling its proof lists, lowest level first."""

T = TypeVar("T")


# --- the shuffle -----------------------------------------------------------------------------------


def shuffle(*, items: Sequence[T], rng: random.Random | None = None) -> list[T]:
    """A uniformly shuffled copy of ``items``.

    Fisher-Yates where each index comes from ``rng.randrange(i + 1)``, which CPython draws by rejection
    from ``getrandbits`` (``_randbelow``): no modulo bias. ``rng`` is :class:`secrets.SystemRandom`
    (the operating system's CSPRNG) unless a test passes its own; a seeded generator would let anyone
    who learns the seed predict every deck, so production never passes one.
    """
    source = _SYSTEM_RANDOM if rng is None else rng
    shuffled = list(items)
    for i in range(len(shuffled) - 1, 0, -1):
        j = source.randrange(i + 1)
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    return shuffled


def shuffled_deck(*, deck: Sequence[str] = FULL_DECK, rng: random.Random | None = None) -> list[str]:
    """The 52 cards (or the ``deck`` given) in a fresh random order, position 0 first dealt."""
    return shuffle(items=deck, rng=rng)


# --- commitment ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckSecret:
    """What the room keeps private until the hand is over: the deck in order and each position's salt.

    Store it with the hand (:meth:`to_json`) to rebuild openings later; publish only ``root_hex``.
    The repr shows the root only, so a log line never leaks a deck still in play.
    """

    cards: tuple[str, ...] = field(repr=False)
    salts: tuple[bytes, ...] = field(repr=False)
    root_hex: str
    levels: tuple[tuple[bytes, ...], ...] = field(default=(), repr=False, compare=False)
    """The Merkle tree, kept from the commitment so that opening positions hashes nothing again."""

    def to_json(self) -> dict[str, Any]:
        return {
            "version": COMMITMENT_VERSION,
            "cards": list(self.cards),
            "salts": [salt.hex() for salt in self.salts],
            "root": self.root_hex,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DeckSecret:
        """Rebuild a stored secret; the root is recomputed and must match the stored one, so a damaged
        or edited record is refused rather than producing openings that fail for players."""
        if data.get("version") != COMMITMENT_VERSION:
            raise ValueError(f"unknown deck commitment version {data.get('version')!r}")
        try:
            salts = [bytes.fromhex(salt) for salt in data["salts"]]
            cards = list(data["cards"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a stored deck secret: {error!r}") from None
        secret = commit_deck(deck=cards, salts=salts)
        if secret.root_hex != data.get("root"):
            raise ValueError("the stored root does not match the stored cards and salts")
        return secret


class Opening(NamedTuple):
    """One deck position opened: enough for :func:`verify_opening` to check it against the root. (A named
    tuple: a hand's end opens a dozen of them.)"""

    position: int
    card: str
    salt_hex: str
    proof: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "card": self.card,
            "salt": self.salt_hex,
            "proof": list(self.proof),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Opening:
        return cls(
            position=data["position"], card=data["card"], salt_hex=data["salt"], proof=tuple(data["proof"])
        )


def commit_deck(*, deck: Sequence[str], salts: Sequence[bytes] | None = None) -> DeckSecret:
    """Salt every position and build the Merkle tree; publish ``root_hex`` before the first card.

    ``salts`` is for reproducible test vectors only: production draws 32 fresh bytes per position.
    """
    cards = tuple(deck)
    _check_deck(cards)
    if salts is None:
        pool = secrets.token_bytes(SALT_BYTES * DECK_SIZE)
        salts = [pool[i : i + SALT_BYTES] for i in range(0, SALT_BYTES * DECK_SIZE, SALT_BYTES)]
    elif len(salts) != DECK_SIZE or any(not isinstance(s, bytes) or len(s) != SALT_BYTES for s in salts):
        raise ValueError(f"need {DECK_SIZE} salts of {SALT_BYTES} bytes")
    sha256 = _sha256
    heads = map(_LEAF_HEAD.__getitem__, zip(range(DECK_SIZE), cards, strict=True))
    levels = _levels([sha256(head + salt).digest() for head, salt in zip(heads, salts, strict=True)])
    return DeckSecret(cards=cards, salts=tuple(salts), root_hex=levels[-1][0].hex(), levels=levels)


def leaf_digest(*, position: int, card: str, salt: bytes) -> bytes:
    """``H(position, card, salt)``: SHA-256 of 0x00, the position as one byte, the card's two ASCII
    bytes and the 32-byte salt."""
    return _sha256(_LEAF_HEAD[position, card] + salt).digest()


def open_positions(*, secret: DeckSecret, positions: Collection[int]) -> tuple[Opening, ...]:
    """Openings for ``positions`` (sorted, each once). Which positions a viewer may get is
    :func:`viewer_positions`' business; this only builds the proofs."""
    wanted = sorted(set(positions))
    if not (_POSITIONS.issuperset(wanted) and {type(position) for position in wanted} <= {int}):
        bad = next(p for p in wanted if isinstance(p, bool) or not isinstance(p, int) or p not in _POSITIONS)
        raise ValueError(f"not a deck position: {bad!r}")
    levels = secret.levels or commit_deck(deck=secret.cards, salts=secret.salts).levels
    hexes = [list(map(bytes.hex, level)) for level in levels[:-1]]
    cards, salts = secret.cards, secret.salts
    return tuple(
        Opening(
            position,
            cards[position],
            salts[position].hex(),
            tuple(hexes[depth][index] for depth, index in _PROOF_PATHS[position]),
        )
        for position in wanted
    )


def _levels(leaves: list[bytes]) -> tuple[tuple[bytes, ...], ...]:
    sha256 = _sha256
    levels = [leaves]
    level = leaves
    while len(level) > 1:
        pairs = zip(level[0:-1:2], level[1::2], strict=True)
        parents = [sha256(NODE_PREFIX + left + right).digest() for left, right in pairs]
        if len(level) % 2:
            parents.append(level[-1])
        levels.append(parents)
        level = parents
    return tuple(map(tuple, levels))


def _proof_path(position: int) -> tuple[tuple[int, int], ...]:
    """The (level, index) of the siblings met going up from a leaf, skipping the levels where the node is
    carried up (the last node of a level with an odd number of nodes)."""
    path = []
    index, width, level = position, DECK_SIZE, 0
    while width > 1:
        if not (index == width - 1 and width % 2 == 1):
            path.append((level, index ^ 1))
        index, width, level = index // 2, (width + 1) // 2, level + 1
    return tuple(path)


_PROOF_PATHS = tuple(_proof_path(position) for position in range(DECK_SIZE))


def _check_deck(cards: Sequence[str]) -> None:
    if len(cards) == DECK_SIZE and _CARDS.issuperset(cards) and len(set(cards)) == DECK_SIZE:
        return
    if len(cards) != DECK_SIZE:
        raise ValueError(f"a deck has {DECK_SIZE} cards, not {len(cards)}")
    if any(card not in _CARDS for card in cards):
        raise ValueError(f"not cards: {sorted({repr(c) for c in cards if c not in _CARDS})}")
    if len(set(cards)) != DECK_SIZE:
        raise ValueError("a card appears twice in the deck")


# --- the player's check ----------------------------------------------------------------------------


def verify_opening(*, root_hex: str, opening: Opening | Mapping[str, Any]) -> bool:
    """True when ``opening`` proves that ``opening.card`` was at ``opening.position`` in the deck whose
    commitment is ``root_hex``; False for anything else, malformed input included (never raises).

    Self-contained on purpose: it uses nothing but :mod:`hashlib` and can be copied as it is into a
    script for players (``inspect.getsource(verify_opening)``), taking the JSON form of an opening (a
    dict) as input. Hex may be in either case.
    """
    import hashlib

    if not isinstance(opening, dict):
        if hasattr(opening, "salt_hex"):  # an Opening
            opening = {
                "position": getattr(opening, "position", None),
                "card": getattr(opening, "card", None),
                "salt": getattr(opening, "salt_hex", None),
                "proof": list(getattr(opening, "proof", ())),
            }
        else:
            try:
                opening = dict(opening)
            except (TypeError, ValueError):
                return False
    if isinstance(root_hex, str):
        root_hex = root_hex.lower()
    deck_size = 52
    hex_digits = "0123456789abcdef"

    def is_hex(text: object, length: int) -> bool:
        return isinstance(text, str) and len(text) == length and all(c in hex_digits for c in text.lower())

    position, card, salt, proof = (opening.get(k) for k in ("position", "card", "salt", "proof"))
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < deck_size:
        return False
    if not (isinstance(card, str) and len(card) == 2 and card[0] in "23456789TJQKA" and card[1] in "cdhs"):
        return False
    if not is_hex(salt, 64) or not is_hex(root_hex, 64) or not isinstance(proof, list | tuple):
        return False
    if not all(is_hex(sibling, 64) for sibling in proof):
        return False
    node = hashlib.sha256(
        b"\x00" + bytes([position]) + card.encode("ascii") + bytes.fromhex(str(salt))
    ).digest()
    siblings = iter(proof)
    index, width, used = position, deck_size, 0
    while width > 1:
        if not (index == width - 1 and width % 2 == 1):  # else this node is carried up unchanged
            sibling = next(siblings, None)
            if sibling is None:
                return False
            used += 1
            pair = (node, bytes.fromhex(sibling)) if index % 2 == 0 else (bytes.fromhex(sibling), node)
            node = hashlib.sha256(b"\x01" + pair[0] + pair[1]).digest()
        index, width = index // 2, (width + 1) // 2
    return used == len(proof) and node.hex() == root_hex


# --- who sees what ---------------------------------------------------------------------------------


def viewer_positions(
    *,
    hole_positions: Mapping[int, Sequence[int]],
    board_positions: Sequence[int],
    shown_seats: Collection[int],
    viewer_seat: int | None,
    burn_positions: Sequence[int] = (),
) -> tuple[int, ...]:
    """The deck positions a viewer may see opened once the hand is over (SPEC 3).

    Everyone: the board cards dealt and the hole cards of the seats that showed. The viewer alone: their
    own hole cards (also when they folded: they saw them, and checking one's own cards is the point).
    Nobody: another seat's hole cards that were not shown (folded, mucked, won uncontested and not
    shown), burns, and positions never dealt. ``viewer_seat`` is ``None`` for a spectator or a public
    page. The caller must not list a folded or mucked seat in ``shown_seats``.

    ``hole_positions`` maps each seat dealt in to its hole-card positions; ``burn_positions`` is only
    used to refuse a map in which a burn also appears as a board or hole card.
    """
    claimed: dict[int, str] = {}
    for what, positions in [
        *((f"seat {seat}", cards) for seat, cards in hole_positions.items()),
        ("board", board_positions),
        ("burn", burn_positions),
    ]:
        for position in positions:
            if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < DECK_SIZE:
                raise ValueError(f"{what}: not a deck position: {position!r}")
            if position in claimed:
                raise ValueError(f"deck position {position} is both {claimed[position]} and {what}")
            claimed[position] = what
    unknown = set(shown_seats) - set(hole_positions)
    if unknown:
        raise ValueError(f"seats {sorted(unknown)} showed but were not dealt in")
    visible = set(board_positions)
    for seat in shown_seats:
        visible.update(hole_positions[seat])
    if viewer_seat is not None and viewer_seat in hole_positions:
        visible.update(hole_positions[viewer_seat])
    return tuple(sorted(visible))


def openings_for_viewer(
    *,
    secret: DeckSecret,
    hole_positions: Mapping[int, Sequence[int]],
    board_positions: Sequence[int],
    shown_seats: Collection[int],
    viewer_seat: int | None,
    burn_positions: Sequence[int] = (),
) -> tuple[Opening, ...]:
    """:func:`open_positions` for exactly the positions :func:`viewer_positions` allows."""
    positions = viewer_positions(
        hole_positions=hole_positions,
        board_positions=board_positions,
        shown_seats=shown_seats,
        viewer_seat=viewer_seat,
        burn_positions=burn_positions,
    )
    return open_positions(secret=secret, positions=positions)
