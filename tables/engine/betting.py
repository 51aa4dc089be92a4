"""The chips of a hand in play: stacks, bets, who is still in, whose turn it is, and the end of each round.

This is the bookkeeping pokerkit's ``State`` keeps for a hold'em hand (blinds or straddles, antes, the
position opening, cash-game mode), moved exactly the way its operations move it: the posts, ``fold``,
``check_or_call``, ``complete_bet_or_raise_to``, the end of a betting round and the collection of the bets
with the over-bets handed back. pokerkit builds and drives a general state machine (stud, draws, bring-ins,
run-out counts, every phase checked on every step) that made most of the cost of a hand; the rules of the
room are checked before anything here is called (``tables.engine.hand``), so this only moves chips.
``tests/engine/test_pokerkit_feed.py`` plays random hands through pokerkit's public methods beside it and
compares stacks, bets, statuses, the players still to act and the all-in status after every step.

Players are numbered by their position in the dealing order (``HandConfig.order``), as pokerkit numbers
them, and that is the only order this module knows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

# For each number of players and each player, everyone else in order from the next one.
_AFTER = {n: tuple(tuple((i + k) % n for k in range(1, n)) for i in range(n)) for n in range(2, 11)}


@dataclass(slots=True)
class Betting:
    """Stacks, the bets of the round in play, who is still in (``statuses``) and who is still to act."""

    stacks: list[int]
    bets: list[int]
    statuses: list[bool]
    opening: tuple[int, ...]
    """+1 for a blind or straddle that decides who opens pre-flop, -1 for one that does not (an entry big
    blind), 0 for none: the first to act is the one after the biggest such bet (pokerkit's opening rule)."""
    actor_indices: deque[int] = field(default_factory=deque)
    after: tuple[tuple[int, ...], ...] = ()
    """For each player, everyone else in order from the next one (who acts again after a raise)."""
    in_hand: int = 0
    """How many players have not folded (``sum(statuses)``, kept as they fold)."""
    all_in_status: bool = False
    """No more betting is possible: the hand goes to a showdown with the rest of the board run out."""
    last_round: bool = False
    """The round in play is the river's."""

    @classmethod
    def posted(cls, *, stacks: Sequence[int], dead: Sequence[int], live: Sequence[int]) -> Betting:
        """The chips after the forced posts: ``dead`` (antes, a dead small blind) straight into the pot first,
        then the ``live`` blinds (negative: a live post that does not open, an entry big blind) as bets, each
        as far as the stack covers it."""
        after_dead = [stack - min(ante, stack) for stack, ante in zip(stacks, dead, strict=True)]
        bets = [min(abs(blind), stack) for blind, stack in zip(live, after_dead, strict=True)]
        return cls(
            after=_AFTER[len(stacks)],
            stacks=[stack - bet for stack, bet in zip(after_dead, bets, strict=True)],
            bets=bets,
            statuses=[True] * len(stacks),
            in_hand=len(stacks),
            opening=tuple([(blind > 0) - (blind < 0) for blind in live]),
        )

    def begin_round(self) -> None:
        """A betting round starts: everyone still in with chips that can still be lost acts, in order from
        the player after the biggest opening bet (after the flop, bets being nothing, from the first)."""
        bets, stacks, statuses, opening = self.bets, self.stacks, self.statuses, self.opening
        n = len(bets)
        if any(bets):
            top = max(range(n), key=lambda i: (bets[i] * opening[i], i))
        else:  # after the flop: the first player opens
            top = n - 1
        covered = sorted([bets[i] + stacks[i] for i in range(n) if statuses[i]])[-2]
        self.actor_indices = deque(
            [
                i
                for i in (*self.after[top], top)
                if statuses[i] and stacks[i] and covered > bets[i]  # covered - bet: what i can still lose
            ]
        )
        actors = self.actor_indices
        if not actors or (len(actors) == 1 and bets[actors[0]] >= max(bets)):
            self._end_round()

    # Each action: the player's turn is taken (the caller checked it is theirs), the chips move, and the
    # round ends when nobody is left to act or one player is left.

    def fold(self, index: int) -> None:
        self.actor_indices.popleft()
        self.statuses[index] = False
        self.in_hand -= 1
        if not self.actor_indices or self.in_hand <= 1:
            self._end_round()

    def call(self, index: int, amount: int) -> None:
        """Check (``amount`` 0) or call: ``amount`` is what the call adds to the player's bet."""
        self.actor_indices.popleft()
        self.bets[index] += amount
        self.stacks[index] -= amount
        if not self.actor_indices:
            self._end_round()

    def raise_to(self, index: int, amount: int) -> None:
        """Bet or raise to ``amount`` in all on the round: everyone else still in with chips acts again."""
        statuses, stacks = self.statuses, self.stacks
        stacks[index] -= amount - self.bets[index]
        self.bets[index] = amount
        self.actor_indices = deque([i for i in self.after[index] if statuses[i] and stacks[i]])
        if not self.actor_indices:
            self._end_round()

    def _end_round(self) -> None:
        """Nobody is left to act: note whether more betting is possible, and collect the bets."""
        self.actor_indices.clear()
        statuses, stacks, in_hand = self.statuses, self.stacks, self.in_hand
        if in_hand > 1 and len([i for i, live in enumerate(statuses) if live and stacks[i]]) <= 1:
            self.all_in_status = True
        if self.last_round and not all(stacks):
            self.all_in_status = True
        self._collect(uncontested=in_hand == 1)

    def _collect(self, *, uncontested: bool) -> None:
        """The bets go to the pot, what exceeds the second biggest bet back to its owner; a player left
        alone keeps their bet where it is (it is theirs either way)."""
        bets, stacks = self.bets, self.stacks
        if not any(bets):
            return
        players = list(range(len(bets)))
        if uncontested:
            players.remove(self.statuses.index(True))
        cutoff = sorted(bets)[-2]
        for i in players:
            if bets[i] > cutoff:
                stacks[i] += bets[i] - cutoff
            bets[i] = 0
