"""Hand histories in the PokerStars text format, as PokerStars writes them (what HUDs and trackers import).

Checked line by line against the regular expressions of open-source importers (fpdb's PokerStarsToFpdb,
pokerkit's PokerStarsParser) and real PokerStars histories:

    PokerStars Hand #412:  Hold'em No Limit (€0.05/€0.10 EUR) - 2024/05/01 21:03:07 CEST [2024/05/01 15:03:07 ET]
    Table 'Venezia NL10' 6-max Seat #3 is the button
    Seat 1: alice (€10 in chips)
    alice: posts small blind €0.05
    ...
    *** HOLE CARDS ***
    Dealt to alice [Ah Kd]
    bruno: raises €0.20 to €0.30
    ...
    *** SUMMARY ***
    Total pot €3.93 Main pot €2.50. Side pot €1.30. | Rake €0.13

Amounts: EUR with the euro sign and "EUR" in the header, play chips as plain numbers with "(Play Money)" on
the table line, both in the units the site shows (cents / 100), whole amounts without decimals as PokerStars
writes them. Fixed-Limit headers name the small and big bet, as PokerStars' do. Main and side pots in the
summary are what their winners got (after the rake); "Total pot" is the gross.

A tournament table's hand (``story.tournament`` set) is in PokerStars' tournament form instead:

    PokerStars Hand #812: Tournament #12, €10+€1 EUR Hold'em No Limit - Level IV (25/50) - 2026/12/06 ...
    Table '12 1' 9-max Seat #3 is the button
    Seat 1: alice (1500 in chips)

every amount in the tournament's whole chips, and the players out in the hand named before the summary
(``finished the tournament in 3rd place``, ``wins the tournament and receives €30.00 - congratulations!``).

Cards: ``Dealt to`` only for the viewer (every player for staff's full view); hands shown at the showdown
for everyone; a mucked or folded hand of someone else never.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from tables.history.story import FULL_VIEW, HandStory, Step, story_steps
from tables.history.tournament import TournamentFacts, place_words, prize_text, roman

GAMES = {"holdem": "Hold'em", "omaha": "Omaha", "omaha_hilo": "Omaha Hi/Lo"}
LIMITS = {"nl": "No Limit", "pl": "Pot Limit", "fl": "Limit"}
_EASTERN = ZoneInfo("America/New_York")
_STREET_WORDS = {
    "preflop": "before Flop",
    "flop": "on the Flop",
    "turn": "on the Turn",
    "river": "on the River",
}
HAND_SEPARATOR = "\n\n\n"
DOESNT_SHOW = "doesn't show hand"


def money(amount: int, currency: str) -> str:
    """1234 -> "€12.34" (EUR) or "12.34" (play); 1200 -> "€12"; as PokerStars writes amounts."""
    value = Decimal(amount) / 100
    text = f"{value:.0f}" if amount % 100 == 0 else f"{value:.2f}"
    return f"€{text}" if currency == "eur" else text


def cards_text(cards: Iterable[str]) -> str:
    return "[" + " ".join(cards) + "]"


def moment_text(moment: datetime, local_zone: str) -> str:
    """``2026/12/01 9:05:03 CET [2026/12/01 3:05:03 ET]``: the hours without a leading zero, both, as in
    PokerStars' own histories and summaries."""
    local = moment.astimezone(ZoneInfo(local_zone))
    eastern = moment.astimezone(_EASTERN)
    return (
        f"{local:%Y/%m/%d} {local.hour}:{local:%M:%S} {local:%Z} "
        f"[{eastern:%Y/%m/%d} {eastern.hour}:{eastern:%M:%S} ET]"
    )


def tournament_buy_in(facts: TournamentFacts) -> str:
    """The buy-in and fee as a tournament hand's header names them: ``€10+€1 EUR``, play chips whole
    (``300+20``), ``Freeroll`` when both are nothing."""
    if facts.buy_in + facts.fee == 0:
        return "Freeroll "  # PokerStars leaves two spaces before the game of a freeroll
    text = f"{money(facts.buy_in, facts.currency)}+{money(facts.fee, facts.currency)}"
    return text + (" EUR" if facts.currency == "eur" else "")


def pokerstars_text(story: HandStory, *, viewer: int | str | None, local_zone: str = "Europe/Rome") -> str:
    """One hand as PokerStars text for ``viewer`` (an engine seat, :data:`FULL_VIEW` or ``None``)."""
    writer = _Writer(story, viewer, local_zone)
    return "\n".join(writer.lines()) + "\n"


class _Writer:
    def __init__(self, story: HandStory, viewer: int | str | None, local_zone: str) -> None:
        self.story = story
        self.viewer = viewer
        self.local_zone = local_zone
        self.tournament = story.tournament
        self.visible = story.cards_for(viewer)
        self.names = {s.seat: s.name for s in story.seats}
        self.steps = story_steps(story)

    def m(self, amount: int) -> str:
        """An amount: a tournament's chips whole as they are; money in the site's units."""
        if self.tournament is not None:
            return str(amount)
        return money(amount, self.story.currency)

    def lines(self) -> list[str]:
        story = self.story
        out = [self.header(), self.table_line()]
        out += [f"Seat {s.number}: {s.name} ({self.m(s.stack)} in chips)" for s in story.seats]
        out += self.post_lines()
        out.append("*** HOLE CARDS ***")
        dealt_to = (
            story.order if self.viewer == FULL_VIEW else [self.viewer] if isinstance(self.viewer, int) else []
        )
        out += [f"Dealt to {self.names[seat]} {cards_text(self.visible[seat])}" for seat in dealt_to]
        out += self.play_lines()
        out += self.summary_lines()
        return out

    def header(self) -> str:
        story = self.story
        low, high = (
            (story.small_bet, story.big_bet)
            if story.structure == "fl"
            else (story.small_blind, story.big_blind)
        )
        game = f"{GAMES[story.game]} {LIMITS[story.structure]}"
        when = moment_text(story.started_at, self.local_zone)
        facts = self.tournament
        if facts is not None:
            level = facts.level_of(
                small_blind=story.small_blind,
                big_blind=story.big_blind,
                ante=story.table_ante,
                started_at=story.started_at,
            )
            return (
                f"PokerStars Hand #{story.hand_id}: Tournament #{facts.tournament_id}, "
                f"{tournament_buy_in(facts)} {game} - Level {roman(level)} ({self.m(low)}/{self.m(high)}) - {when}"
            )
        stakes = f"{self.m(low)}/{self.m(high)}" + (" EUR" if story.currency == "eur" else "")
        return f"PokerStars Hand #{story.hand_id}:  {game} ({stakes}) - {when}"

    def table_line(self) -> str:
        story = self.story
        facts = self.tournament
        if facts is not None:  # a tournament's table is named by the tournament's number and the table's
            name = f"{facts.tournament_id} {facts.table_number}"
            return f"Table '{name}' {story.seat_count}-max Seat #{story.button + 1} is the button"
        play = "(Play Money) " if story.currency == "play" else ""
        return (
            f"Table '{story.table_name}' {story.seat_count}-max {play}Seat #{story.button + 1} is the button"
        )

    def post_lines(self) -> list[str]:
        """Antes first, then the small and big blinds, then the other posts in dealing order, in PokerStars'
        words: a dead small blind with a live big blind (back from missed blinds) is ``posts small & big
        blinds`` (both together), a dead small blind alone a second ``posts small blind``."""
        posts = [step for step in self.steps if step.kind == "post"]
        live = {step.seat for step in posts if step.verb == "big_blind"}
        dead = {step.seat: step.amount for step in posts if step.verb == "dead_small_blind"}
        lines = []
        big_blind = next((seat for seat, kind in self.story.posts if kind == "big_blind"), None)
        rank = {"ante": 0, "small_blind": 1}  # then the big blind, then other posts in dealing order

        for step in sorted(posts, key=lambda step: rank.get(step.verb, 2 if step.seat == big_blind else 3)):
            name, verb, amount = self.names[step.seat], step.verb, step.amount
            if verb == "dead_small_blind":
                if step.seat in live:
                    continue  # told with the big blind
                verb = "small_blind"
            if verb == "big_blind" and step.seat in dead:
                verb, amount = "both", amount + dead[step.seat]
            words = {
                "ante": "posts the ante",
                "small_blind": "posts small blind",
                "big_blind": "posts big blind",
                "both": "posts small & big blinds",
                "straddle": "posts straddle",
            }[verb]
            lines.append(f"{name}: {words} {self.m(amount)}{' and is all-in' if step.all_in else ''}")
        return lines

    def play_lines(self) -> list[str]:
        """Actions and streets in order; the hands shown or mucked at the showdown after the last street (an
        all-in hand's board is run out first, as PokerStars writes it), then the pots collected. A board run
        twice has a showdown per board, as PokerStars writes it: ``*** FIRST SHOW DOWN ***`` with the hands
        named on the first board and each pot's first half collected, then ``*** SECOND SHOW DOWN ***`` with
        the same hands named on the second board and the second halves."""
        story = self.story
        lines: list[str] = []
        at_showdown = [step for step in self.steps if step.kind in ("show", "muck") and not step.after_end]
        titles = (
            {1: "*** FIRST SHOW DOWN ***", 2: "*** SECOND SHOW DOWN ***"}
            if story.run_twice
            else {0: "*** SHOW DOWN ***"}
        )
        showdowns_said: set[int] = set()
        for step in self.steps:
            name = self.names.get(step.seat, "")
            if step.kind == "action":
                lines.append(f"{name}: {self.action_words(step)}")
            elif step.kind == "street":
                lines.append(self.street_line(step))
            elif step.kind == "return":
                lines.append(f"Uncalled bet ({self.m(step.amount)}) returned to {name}")
            elif step.kind == "show" and step.after_end:
                lines.append(self.show_line(step, story.board))
            elif step.kind == "muck" and step.after_end:
                lines.append(f"{name}: {DOESNT_SHOW}")
            elif step.kind == "collect":
                if story.went_to_showdown and step.run not in showdowns_said:
                    showdowns_said.add(step.run)
                    board = story.boards[step.run - 1] if step.run else story.board
                    lines.append(titles[step.run])
                    lines += [self.show_line(shown, board) for shown in at_showdown]
                lines.append(f"{name} collected {self.m(step.amount)} from {self.pot_name(step.pot)}")
            elif step.kind == "end" and not story.went_to_showdown and not self.winner_chose():
                winner = next(seat for seat in story.order if seat not in story.folded)
                lines.append(f"{self.names[winner]}: {DOESNT_SHOW}")
        return lines + self.finish_lines()

    def finish_lines(self) -> list[str]:
        """A tournament's players out in this hand, the last place first, as PokerStars writes them: ``carla
        finished the tournament in 3rd place`` (``and received €6.00.`` when it paid), then, when the hand
        ended the tournament, ``alice wins the tournament and receives €39.00 - congratulations!``."""
        facts, story = self.tournament, self.story
        if facts is None:
            return []
        users = {s.seat: s.user_id for s in story.seats}
        out = [
            seat for seat in story.order if story.finishing.get(seat) == 0 and users[seat] in facts.finishes
        ]
        out.sort(key=lambda seat: (-(facts.finishes[users[seat]][0] or 0), seat))
        lines = []
        for seat in out:
            place, prize = facts.finishes[users[seat]]
            words = f"{self.names[seat]} finished the tournament"
            if place is not None:
                words += f" in {place_words(place)} place"
            if prize:
                words += f" and received {prize_text(prize, facts.currency)}."
            lines.append(words)
        left = [seat for seat in story.order if story.finishing.get(seat)]
        if out and len(left) == 1 and facts.finishes.get(users[left[0]], (None, None))[0] == 1:
            prize = facts.finishes[users[left[0]]][1] or 0
            lines.append(
                f"{self.names[left[0]]} wins the tournament and receives "
                f"{prize_text(prize, facts.currency)} - congratulations!"
            )
        return lines

    def show_line(self, step: Step, board: tuple[str, ...]) -> str:
        """``name: shows [..] (the hand on this board)``, or ``name: mucks hand`` at a showdown."""
        name = self.names[step.seat]
        if step.kind == "muck":
            return f"{name}: mucks hand"
        description = self.story.description(step.seat, board)
        return f"{name}: shows {cards_text(step.cards)}" + (f" ({description})" if description else "")

    def winner_chose(self) -> bool:
        """Whether the uncontested winner showed or mucked once the hand was over (the default is mucking)."""
        return any(step.kind in ("show", "muck") and step.after_end for step in self.steps)

    def action_words(self, step: Step) -> str:
        m = self.m
        if step.verb in ("fold", "check"):
            return f"{step.verb}s"
        if step.verb == "call":
            words = f"calls {m(step.amount)}"
        elif step.verb == "bet":
            words = f"bets {m(step.amount)}"
        else:
            words = f"raises {m(step.raise_by)} to {m(step.to)}"
        return words + (" and is all-in" if step.all_in else "")

    def street_line(self, step: Step) -> str:
        """``*** TURN *** [flop] [turn]``; a board run twice says which run: ``*** SECOND RIVER ***``."""
        board = step.board
        run = {1: "FIRST ", 2: "SECOND "}.get(step.run, "")
        if step.street == "flop":
            return f"*** {run}FLOP *** {cards_text(board[:3])}"
        name = step.street.upper()
        return f"*** {run}{name} *** {cards_text(board[:-1])} {cards_text(board[-1:])}"

    def pot_name(self, index: int | None) -> str:
        pots = len(self.story.pots)
        if pots == 1:
            return "pot"
        if index == 0:
            return "main pot"
        return "side pot" if pots == 2 else f"side pot-{index}"

    def summary_lines(self) -> list[str]:
        story = self.story
        lines = ["*** SUMMARY ***", self.total_line()]
        if story.run_twice:
            lines.append("Hand was run twice")
            words = ("FIRST", "SECOND")
            lines += [
                f"{word} Board {cards_text(board)}" for word, board in zip(words, story.boards, strict=True)
            ]
        elif story.board:
            lines.append(f"Board {cards_text(story.board)}")
        lines += [self.seat_summary(seat.seat) for seat in story.seats]
        return lines

    def total_line(self) -> str:
        story = self.story
        pots = story.pots
        parts = [f"Total pot {self.m(story.pot_total)}"]
        if len(pots) > 1:
            parts.append(f"Main pot {self.m(pots[0]['net'])}.")
            for index, pot in enumerate(pots[1:], start=1):
                label = "Side pot" if len(pots) == 2 else f"Side pot-{index}"
                parts.append(f"{label} {self.m(pot['net'])}.")
        return " ".join(parts) + f" | Rake {self.m(story.rake)}"

    def seat_summary(self, seat: int) -> str:
        story = self.story
        marks = "".join(f"({mark}) " for mark in self.positions(seat))
        head = f"Seat {seat + 1}: {self.names[seat]} {marks}"
        won = story.won().get(seat, 0)
        if seat in story.folded:
            street = next(
                s.street for s in self.steps if s.kind == "action" and s.seat == seat and s.verb == "fold"
            )
            put_in = any(s.seat == seat and s.amount for s in self.steps if s.kind in ("post", "action"))
            return (
                head
                + f"folded {_STREET_WORDS[street]}"
                + ("" if put_in or street != "preflop" else " (didn't bet)")
            )
        if not story.went_to_showdown:
            return head + f"collected ({self.m(won)})"
        if seat in story.shown:
            cards = cards_text(story.by_seat[seat].cards)
            if story.run_twice:  # each board's result with the hand on that board, as PokerStars writes it
                results = [
                    self.result_words(runs.get(seat, 0), story.description(seat, board))
                    for runs, board in zip(story.won_by_run(), story.boards, strict=True)
                ]
                return head + f"showed {cards} and " + ", and ".join(results)
            return head + f"showed {cards} and " + self.result_words(won, story.description(seat))
        if seat in self.visible:
            return head + f"mucked {cards_text(self.visible[seat])}"
        return head + "mucked"

    def result_words(self, won: int, description: str) -> str:
        """``won (X) with a pair of Aces`` or ``lost with a pair of Aces``."""
        result = f"won ({self.m(won)})" if won else "lost"
        return result + (f" with {description}" if description else "")

    def positions(self, seat: int) -> list[str]:
        marks = ["button"] if seat == self.story.button else []
        for post_seat, kind in self.story.posts:
            if post_seat == seat and kind in ("small_blind", "big_blind"):
                marks.append(kind.replace("_", " "))
        return marks
