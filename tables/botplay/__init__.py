"""The house bots' poker: pure Python, no Django (an import contract in pyproject.toml says so), typed.

    from tables.botplay import observe, decide, style_for, think_seconds

    seen = observe(hand, seat)                  # what the seat may see: its cards, never another's
    kind, amount = decide(seen, style_for(user_id), rng)
    delay = think_seconds(hand, tournament=False, rng=rng)

``seen`` (what a seat sees), ``ranges`` (pre-flop charts as data), ``equity`` (Monte Carlo with the engine's
evaluator), ``strategy`` (the choice). Seeded by the ``random.Random`` passed in, so tests and benches repeat.
"""

from tables.botplay.seen import Legal, Move, Seen, observe
from tables.botplay.strategy import STYLE_BY_NAME, STYLES, Style, decide, style_for, think_seconds

__all__ = [
    "STYLES",
    "STYLE_BY_NAME",
    "Legal",
    "Move",
    "Seen",
    "Style",
    "decide",
    "observe",
    "style_for",
    "think_seconds",
]
