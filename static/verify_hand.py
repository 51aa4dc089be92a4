#!/usr/bin/env python3
"""Check a hand's deck against the commitment the poker room published before the first card.

Usage:  python3 verify_hand.py hand.json        (or:  python3 verify_hand.py < hand.json)

hand.json is the hand as the room gives it (the "JSON" link of a hand, /api/hands/<id>/), an object with:

    "deck_commitment": "<64 hex digits>"      the Merkle root published before the first card
    "openings": [                             the deck positions opened to you when the hand ended
        {"position": 0..51, "card": "As", "salt": "<64 hex digits>", "proof": ["<64 hex digits>", ...]},
        ...
    ]
    "board": ["As", "Kd", ...]                optional: checked to be among the opened cards
    "boards": [["As", ...], ["As", ...]]      optional: every board (two when the board was run twice), likewise
    "shown": {"<seat>": ["Qh", "Qs"], ...}    optional: likewise

(The replayer's JSON, with "deck_commitment" under "hand", is read too.)

For each opening it recomputes the position's leaf, SHA-256(0x00 || position as one byte || the card's two
ASCII characters || the 32-byte salt), then climbs to the root with the proof: at each level the sibling is
on the right when the node's index is even and on the left when it is odd, and the parent is
SHA-256(0x01 || left || right); a level of odd width carries its last node up unchanged (no sibling used).
The 52 leaves make levels of 52, 26, 13, 7, 4, 2 and 1 nodes. If the result is the published root, that card
was at that position before anyone acted.

It prints one line per opening and "VERIFIED" or "FAILED", and exits with 0 only when everything checks.
Only Python's standard library is used: read it before you run it.
"""

from __future__ import annotations

import hashlib
import json
import sys

DECK_SIZE = 52
RANKS = "23456789TJQKA"
SUITS = "cdhs"
HEX = "0123456789abcdef"


def is_hex(text: object, length: int) -> bool:
    return isinstance(text, str) and len(text) == length and all(c in HEX for c in text.lower())


def check_opening(root_hex: str, opening: object) -> str | None:
    """None when the opening proves its card was at its position under ``root_hex``; else what fails."""
    if not isinstance(opening, dict):
        return "an opening must be an object with position, card, salt and proof"
    position, card = opening.get("position"), opening.get("card")
    salt, proof = opening.get("salt"), opening.get("proof")
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < DECK_SIZE:
        return f"the position {position!r} is not a number from 0 to 51"
    if not (isinstance(card, str) and len(card) == 2 and card[0] in RANKS and card[1] in SUITS):
        return f"{card!r} is not a card (a rank of {RANKS} and a suit of {SUITS}, like 'As')"
    if not is_hex(salt, 64):
        return "the salt is not 64 hexadecimal digits"
    if not isinstance(proof, list) or not all(is_hex(node, 64) for node in proof):
        return "the proof is not a list of 64-digit hexadecimal digests"
    node = hashlib.sha256(b"\x00" + bytes([position]) + card.encode("ascii") + bytes.fromhex(salt)).digest()
    index, width, used = position, DECK_SIZE, 0
    while width > 1:
        if not (index == width - 1 and width % 2 == 1):  # else the node is carried up unchanged
            if used == len(proof):
                return f"the proof is too short: {len(proof)} digests where the path needs more"
            sibling = bytes.fromhex(proof[used])
            used += 1
            left, right = (node, sibling) if index % 2 == 0 else (sibling, node)
            node = hashlib.sha256(b"\x01" + left + right).digest()
        index, width = index // 2, (width + 1) // 2
    if used != len(proof):
        return f"the proof is too long: {len(proof)} digests where the path uses {used}"
    if node.hex() != root_hex.lower():
        return f"the card, its salt and the proof lead to the root {node.hex()}, not to the commitment"
    return None


def verify(data: object) -> tuple[bool, list[str]]:
    """Check a hand's JSON; returns (everything checks, the lines to print)."""
    if not isinstance(data, dict):
        return False, ["FAILED: the file is not a hand's JSON object"]
    root = data.get("deck_commitment") or (data.get("hand") or {}).get("deck_commitment")
    openings = data.get("openings")
    if not is_hex(root, 64):
        return False, ["FAILED: no deck commitment (64 hexadecimal digits) in the file"]
    if not isinstance(openings, list) or not openings:
        return False, ["FAILED: no openings in the file: nothing to check"]
    lines, ok, opened = [f"commitment {root.lower()}"], True, set()
    for number, opening in enumerate(openings, start=1):
        problem = check_opening(root, opening)
        label = (
            f"position {opening.get('position')}: {opening.get('card')}"
            if isinstance(opening, dict)
            else f"opening {number}"
        )
        if problem is None:
            opened.add(opening["card"])
            lines.append(f"{label} verified")
        else:
            ok = False
            lines.append(f"{label} FAILED: {problem}")
    public = list(data.get("board") or [])
    for board in data.get("boards") or []:  # a board run twice: both boards' cards
        public += [card for card in board or [] if card not in public]
    shown = data.get("shown") or {}
    if isinstance(shown, dict):
        for cards in shown.values():
            public += list(cards or [])
    missing = [card for card in public if card not in opened]
    if missing:
        ok = False
        lines.append(f"FAILED: cards the hand shows were not proven: {' '.join(missing)}")
    lines.append(
        f"VERIFIED: {len(opened)} cards were in the deck committed to before the first card"
        if ok
        else "FAILED: this hand's deck does not check"
    )
    return ok, lines


def main(argv: list[str]) -> int:
    try:
        if len(argv) > 1:
            with open(argv[1], encoding="utf-8") as handle:
                data = json.load(handle)
        else:
            data = json.load(sys.stdin)
    except (OSError, ValueError) as error:
        print(f"FAILED: cannot read the hand's JSON: {error}")
        return 2
    ok, lines = verify(data)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
