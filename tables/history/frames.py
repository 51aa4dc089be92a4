"""The replayer's frames: the table as it stood after each step of a hand, as one viewer may see it.

The browser (static/js/replayer.js) only draws frames; every amount is worked out here from the story's
steps, so what the replayer shows is what the PokerStars text says. Seats are numbered from 1, as on the
table page; amounts are integers of the smallest unit.
"""

from __future__ import annotations

from typing import Any

from tables.history.story import FULL_VIEW, HandStory, Step, story_steps


def replay_frames(story: HandStory, *, viewer: int | str | None) -> dict[str, Any]:
    """The hand for the replayer: the table, the seats, and one frame per step (posts, the deal, each
    action, each street, hands shown, uncalled chips returned, each pot collected)."""
    visible = story.cards_for(viewer)
    # Before the showdown a viewer sees their own cards only (staff: everyone's); shown hands turn up as shown.
    own = {seat: cards for seat, cards in visible.items() if viewer in (seat, FULL_VIEW)}
    board: tuple[str, ...] = ()
    second: tuple[str, ...] = ()  # the second run's board, when the board was run twice
    stacks = {s.seat: s.stack for s in story.seats}
    bets = dict.fromkeys(stacks, 0)
    middle = 0
    status = dict.fromkeys(stacks, "active")
    face_up: dict[int, tuple[str, ...]] = {}
    dealt = False
    last: dict[int, str] = {}
    frames = [_frame("start", None, stacks, bets, status, face_up, board, [{"amount": 0}], last, dealt, own)]
    for step in story_steps(story):
        seat = step.seat
        pots: list[dict[str, Any]] | None = None
        if step.kind in ("post", "action"):
            stacks[seat] -= step.amount
            bets[seat] += step.amount
            last[seat] = step.verb
            if step.verb == "fold":
                status[seat] = "folded"
            elif step.all_in:
                status[seat] = "all_in"
            if step.kind == "post" and step.verb in ("ante", "dead_small_blind"):
                bets[seat] -= step.amount  # dead money goes straight to the middle
                middle += step.amount
        elif step.kind == "deal":
            dealt = True
        elif step.kind == "street":
            middle += sum(bets.values())
            bets = dict.fromkeys(stacks, 0)
            if step.run == 2:
                second = step.board
            else:
                board = step.board
            last = {}
        elif step.kind == "return":
            stacks[seat] += step.amount
            bets[seat] -= step.amount
        elif step.kind == "show":
            face_up[seat] = step.cards
        elif step.kind == "muck":
            if not step.after_end:
                status[seat] = "mucked"
        elif step.kind == "collect":
            middle += sum(bets.values())
            bets = dict.fromkeys(stacks, 0)
            stacks[seat] += step.amount
            pots = _settled_pots(story)
        elif step.kind == "end":
            continue
        pots = pots or [{"amount": middle}]
        frame = _frame(step.kind, step, stacks, bets, status, face_up, board, pots, last, dealt, own)
        if second:
            frame["boards"] = [list(board), list(second)]
        frames.append(frame)
    return {
        "hand": {
            "id": story.hand_id,
            "number": story.number,
            "button": story.button + 1,
            "started_at": story.started_at.isoformat(),
            "deck_commitment": story.commitment,
            "board": list(story.board),
            "boards": [list(b) for b in story.boards] if story.run_twice else [list(story.board)],
            "rake": story.rake,
            "pots": _settled_pots(story),
        },
        "table": {
            "id": story.table_id,
            "name": story.table_name,
            "game": story.game,
            "structure": story.structure,
            "currency": "tournament" if story.tournament is not None else story.currency,
            "chip": story.chip,
            "small_blind": story.small_blind,
            "big_blind": story.big_blind,
            "seats": story.seat_count,
            "stakes": story.stakes_label,
        },
        "players": [
            {
                "seat": s.number,
                "name": s.name,
                "bot": s.bot,
                "you": s.seat == viewer,
                "net": story.net(s.seat),
                "cards": list(visible[s.seat]) if s.seat in visible else None,
            }
            for s in story.seats
        ],
        "frames": frames,
    }


def _settled_pots(story: HandStory) -> list[dict[str, Any]]:
    return [
        {
            "amount": pot["amount"],
            "rake": pot["rake"],
            "net": pot["net"],
            "winners": {str(seat + 1): amount for seat, amount in pot["winners"].items() if amount},
            **(
                {
                    "runs": [
                        {
                            "run": run["run"],
                            "board": run["board"],
                            "amount": run["amount"],
                            "winners": {
                                str(seat + 1): amount for seat, amount in run["winners"].items() if amount
                            },
                        }
                        for run in pot["runs"]
                    ]
                }
                if pot.get("runs")
                else {}
            ),
        }
        for pot in story.pots
    ]


def _frame(
    kind: str,
    step: Step | None,
    stacks: dict,
    bets: dict,
    status: dict,
    face_up: dict,
    board: tuple,
    pots: list,
    last: dict,
    dealt: bool,
    own: dict,
) -> dict[str, Any]:
    """One picture of the table. A seat's cards are face up once shown, or for the viewer who may see them
    (their own, or staff); the others hold cards face down once dealt and until they fold or muck."""
    seats = []
    for seat in stacks:
        cards = face_up.get(seat) or (own.get(seat) if dealt else None)  # shown, or theirs to see
        seats.append(
            {
                "seat": seat + 1,
                "stack": stacks[seat],
                "bet": bets[seat],
                "status": status[seat],
                "cards": list(cards) if cards else None,
                "has_cards": dealt and status[seat] not in ("folded", "mucked"),
                "last": last.get(seat),
            }
        )
    step_json: dict[str, Any] = {"kind": kind}
    if step is not None:
        step_json.update(
            {
                key: value
                for key, value in {
                    "seat": None if step.seat is None else step.seat + 1,
                    "verb": step.verb or None,
                    "amount": step.amount,
                    "to": step.to,
                    "raise_by": step.raise_by,
                    "all_in": step.all_in,
                    "street": step.street if kind == "street" else None,
                    "cards": list(step.cards) or None,
                    "pot": step.pot,
                    "run": step.run or None,
                }.items()
                if value not in (None, False)
            }
        )
    return {"step": step_json, "seats": seats, "board": list(board), "pots": pots}
