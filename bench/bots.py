"""The house bots playing poker, engine only (no database, no server): tables.botplay against itself and
against simple opponents. Seeded: the same figures on every run of the same code.

    .venv/bin/python bench/bots.py                      # everything below (a few minutes on one core)
    .venv/bin/python bench/bots.py --sngs 20 --hands 2000

1. `--sngs` (200) ten-player hyper-turbo sit-and-gos of house bots only: the room's hyper-turbo blinds
   (tournaments.rules.structures, 500 chips, 10/20 up, 3-minute levels, big-blind ante from level 4), the button
   and blinds moving round the players left; the clock of a level runs on the bots' practice-tournament think
   time per action (tables.botplay.think_seconds) plus the room's 3 s pause between hands. Printed: the median
   and quartiles of the hands to the winner (target 40-100), the share of hands with four or more players all
   in (target < 2 %), the bots' decision time per action (CPU time of the process: p50, p99, slowest; the wall
   time's p99 and slowest beside it) and decisions per second of one core.
2. The same tournament with seat 0 a person who only checks and calls ("Allenamento SNG 10 Hyper" as issue 34
   tried it): the hands the tournament lasts (target >= 20) and how long that person stays in.
3. `--game-hands` (1,000) six-bot cash hands of each game (No-Limit and Fixed-Limit Hold'em, Pot-Limit Omaha,
   Omaha Hi-Lo Pot-Limit and Fixed-Limit): the decision times of each.
4. `--hands` (20,000) heads-up No-Limit hands at 100 big blinds (stacks reset every hand, the button
   alternating) of a house bot against a calling station and against a random player (a legal action at random,
   a bet or raise of a random legal amount): the bot's winnings in big blinds per 100 hands with a 95 %
   interval.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BASE_DIR))

from tables.botplay import STYLES, decide, observe, think_seconds  # noqa: E402
from tables.engine import Action, Hand, HandConfig, PostKind, start_hand  # noqa: E402
from tables.engine.fairness import shuffled_deck  # noqa: E402
from tournaments.rules.structures import SPEED_STARTING_STACK, Speed, default_schedule  # noqa: E402

DEAL_PAUSE_SECONDS = 3.0  # tables.services.DEAL_PAUSE_SECONDS: the pause after a hand before the next deal
PLAYERS = 10


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def caller(hand: Hand, seat: int, rng: random.Random) -> tuple[str, int | None]:
    """A person who only checks and calls (and shows at the showdown)."""
    legal = {str(item["action"]) for item in hand.legal_actions()}
    for kind in ("show", "check", "call", "all_in", "fold"):
        if kind in legal:
            return kind, None
    raise AssertionError(legal)


def random_player(hand: Hand, seat: int, rng: random.Random) -> tuple[str, int | None]:
    """A legal action at random; a bet or raise of a random legal amount."""
    item = rng.choice(hand.legal_actions())
    kind = str(item["action"])
    if kind in ("bet", "raise"):
        return kind, rng.randint(int(item["min"]), int(item["max"]))
    return kind, None


class Timer:
    """The bots' decision times (observe + decide), in seconds of this process's CPU (`time.process_time`: the
    decision's cost on one core, whatever else the machine runs; the wall time is kept too)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.wall: list[float] = []

    def bot(self, hand: Hand, seat: int, rng: random.Random, style_index: int) -> tuple[str, int | None]:
        started, wall = time.process_time(), time.perf_counter()
        choice = decide(observe(hand, seat), STYLES[style_index % len(STYLES)], rng)
        self.times.append(time.process_time() - started)
        self.wall.append(time.perf_counter() - wall)
        return choice


def play_hand(hand: Hand, choose, rng: random.Random) -> tuple[float, int]:
    """Play ``hand`` out with ``choose(hand, seat)``; returns the think time the bots took and the most
    players all in at once."""
    thought, most_all_in = 0.0, 0
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        thought += think_seconds(hand, tournament=True, rng=rng)
        kind, amount = choose(hand, seat)
        hand.act(Action(seat, kind, amount))
        if not hand.is_over:
            stacks, folded = hand.stacks, hand.folded
            most_all_in = max(most_all_in, sum(1 for s in hand.order if s not in folded and stacks[s] == 0))
    return thought, most_all_in


def next_alive(seat: int, alive: list[int]) -> int:
    return min((s for s in alive if s > seat), default=alive[0])


def sit_and_go(seed: int, timer: Timer, *, person: bool = False) -> dict:
    """One ten-player hyper-turbo to its winner. Returns hands, hands with 4+ all in, the person's hands."""
    rng = random.Random(seed)
    deck_rng = random.Random(seed * 7919 + 1)
    schedule = default_schedule(Speed.HYPER)
    stacks = dict.fromkeys(range(PLAYERS), SPEED_STARTING_STACK[Speed.HYPER])
    styles = [rng.randrange(len(STYLES)) for _ in range(PLAYERS)]
    button, clock, hands, crowded, person_hands = rng.randrange(PLAYERS), 0.0, 0, 0, 0
    while sum(1 for chips in stacks.values() if chips) > 1:
        alive = sorted(s for s, chips in stacks.items() if chips)
        button = next_alive(button, alive)
        if len(alive) == 2:
            small, big = button, next_alive(button, alive)
        else:
            small = next_alive(button, alive)
            big = next_alive(small, alive)
        level = schedule.clock_at(elapsed_seconds=int(clock)).level
        hand = start_hand(
            config=HandConfig(
                variant="holdem",
                structure="nl",
                seat_count=PLAYERS,
                stacks={s: stacks[s] for s in alive},
                button=button,
                small_blind=level.small_blind,
                big_blind=level.big_blind,
                deck=tuple(shuffled_deck(rng=deck_rng)),
                posts=((small, PostKind.SMALL_BLIND), (big, PostKind.BIG_BLIND)),
                antes={big: level.ante} if level.ante else {},
            )
        )

        def choose(hand: Hand, seat: int) -> tuple[str, int | None]:
            if person and seat == 0:
                return caller(hand, seat, rng)
            return timer.bot(hand, seat, rng, styles[seat])

        thought, all_in = play_hand(hand, choose, rng)
        hands += 1
        crowded += all_in >= 4
        person_hands += person and stacks[0] > 0
        clock += thought + DEAL_PAUSE_SECONDS
        stacks.update(hand.stacks)
    return {"hands": hands, "crowded": crowded, "person_hands": person_hands, "seconds": clock}


def heads_up(hands: int, opponent, seed: int, timer: Timer) -> tuple[float, float]:
    """The bot's big blinds per 100 hands against ``opponent`` and the half-width of its 95 % interval."""
    rng = random.Random(seed)
    deck_rng = random.Random(seed + 1)
    big_blind, depth = 2, 200
    results = []
    for number in range(hands):
        bot_seat = number % 2  # the button alternates: seat 1 has it on even hands
        style = number // 2 % len(STYLES)
        hand = start_hand(
            config=HandConfig(
                variant="holdem",
                structure="nl",
                seat_count=2,
                stacks={0: depth, 1: depth},
                button=1,
                small_blind=1,
                big_blind=big_blind,
                deck=tuple(shuffled_deck(rng=deck_rng)),
                posts=((1, PostKind.SMALL_BLIND), (0, PostKind.BIG_BLIND)),
            )
        )

        def choose(
            hand: Hand, seat: int, bot_seat: int = bot_seat, style: int = style
        ) -> tuple[str, int | None]:
            if seat == bot_seat:
                return timer.bot(hand, seat, rng, style)
            return opponent(hand, seat, rng)

        play_hand(hand, choose, rng)
        results.append((hand.stacks[bot_seat] - depth) / big_blind)
    mean = statistics.fmean(results)
    half = 1.96 * statistics.stdev(results) / math.sqrt(len(results))
    return mean * 100, half * 100


GAMES = (("holdem", "nl"), ("holdem", "fl"), ("omaha", "pl"), ("omaha_hilo", "pl"), ("omaha_hilo", "fl"))


def cash_hands(variant: str, structure: str, hands: int, seed: int, timer: Timer) -> None:
    """Six bots at a 1/2 table of ``variant`` and ``structure``, 100 big blinds each every hand."""
    rng = random.Random(seed)
    deck_rng = random.Random(seed + 1)
    for number in range(hands):
        button = number % 6
        order = sorted(range(6), key=lambda seat: (seat - button - 1) % 6)
        hand = start_hand(
            config=HandConfig(
                variant=variant,
                structure=structure,
                seat_count=6,
                stacks=dict.fromkeys(range(6), 200),
                button=button,
                small_blind=1,
                big_blind=2,
                deck=tuple(shuffled_deck(rng=deck_rng)),
                posts=((order[0], PostKind.SMALL_BLIND), (order[1], PostKind.BIG_BLIND)),
            )
        )
        play_hand(hand, lambda hand, seat: timer.bot(hand, seat, rng, seat), rng)


def sngs_report(count: int, seed: int) -> None:
    """Part 1 and 2 of the module's docstring."""
    timer = Timer()
    started = time.perf_counter()
    runs = [sit_and_go(seed * 100_003 + n, timer) for n in range(count)]
    lengths = [run["hands"] for run in runs]
    total = sum(lengths)
    crowded = sum(run["crowded"] for run in runs)
    q = statistics.quantiles(lengths, n=4)
    print(f"{count} hyper-turbo SNGs of 10 house bots: hands to the winner median {statistics.median(lengths)}"
          f" (quartiles {q[0]:.0f}-{q[2]:.0f}, min {min(lengths)}, max {max(lengths)}); hands with 4+ all in"
          f" {crowded}/{total} = {100 * crowded / total:.2f} %; simulated length median"
          f" {statistics.median(run['seconds'] for run in runs) / 60:.1f} min")  # fmt: skip
    times = timer.times
    wall = timer.wall
    print(f"decisions {len(times)}, CPU: p50 {percentile(times, 0.5) * 1e3:.2f} ms, p99 {percentile(times, 0.99) * 1e3:.2f}"
          f" ms, slowest {max(times) * 1e3:.2f} ms; {len(times) / sum(times):.0f} decisions/s on one core; wall: p99"
          f" {percentile(wall, 0.99) * 1e3:.2f} ms, slowest {max(wall) * 1e3:.2f} ms ({time.perf_counter() - started:.0f} s)")  # fmt: skip
    people = [sit_and_go(seed * 200_003 + n, Timer(), person=True) for n in range(max(count // 4, 10))]
    print(f"{len(people)} SNGs with a person who only checks and calls: hands median"
          f" {statistics.median(r['hands'] for r in people)} (min {min(r['hands'] for r in people)}),"
          f" the person's hands median {statistics.median(r['person_hands'] for r in people)}"
          f" (min {min(r['person_hands'] for r in people)})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sngs", type=int, default=200)
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--game-hands", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.sngs:
        sngs_report(args.sngs, args.seed)
    for variant, structure in GAMES if args.game_hands else ():
        timer = Timer()
        cash_hands(variant, structure, args.game_hands, args.seed, timer)
        times = timer.times
        print(f"{variant} {structure}, six bots, {args.game_hands} hands: {len(times)} decisions, CPU p50"
              f" {percentile(times, 0.5) * 1e3:.2f} ms, p99 {percentile(times, 0.99) * 1e3:.2f} ms, slowest"
              f" {max(times) * 1e3:.2f} ms; {len(times) / sum(times):.0f} decisions/s")  # fmt: skip
    if args.hands:
        for name, opponent in (("a calling station", caller), ("a random player", random_player)):
            timer = Timer()
            bb100, half = heads_up(args.hands, opponent, args.seed, timer)
            print(f"heads-up against {name}, {args.hands} hands: {bb100:+.1f} bb/100 (95 % interval"
                  f" {bb100 - half:+.1f} to {bb100 + half:+.1f}); slowest decision {max(timer.times) * 1e3:.1f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    main()
