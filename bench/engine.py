"""Hands per second: our engine against bare pokerkit, on the same deals and the same actions.

    python bench/engine.py [--hands N] [--seed S]

Random-action 6-max No-Limit Hold'em at 1/2 with stacks of 50 to 400 big blinds. Our engine chooses
every action from its own ``legal`` list (that choosing is timed too, the seeding of each hand's random
generator is not: it is the bench's, not the engine's) and settles with the room's rake; the deck
commitment and the end-of-hand openings of ``tables.engine.fairness`` are included (their share is
timed in a pass of their own, so that no clock is read inside the timed hands). Bare pokerkit then plays the very same actions on the very same cards with its own
evaluator and settlement, and with pokerkit's ``StandardHighHand`` swapped for our phevaluator-backed
drop-in. The script asserts that the settlements agree: pokerkit with the drop-in exactly as bare
pokerkit, and our engine (replayed without rake) as bare pokerkit except where pokerkit splits pots its
own way (it merges pots before splitting and rounds odd chips differently), which may only move chips
between the players who tied.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pokerkit import (  # noqa: E402
    Automation,
    BettingStructure,
    Card,
    Deck,
    Mode,
    Opening,
    StandardHighHand,
    State,
    Street,
)

from tables.engine import Action, HandConfig, PostKind, fairness, replay, room_schedule, start_hand  # noqa: E402
from tables.engine.cards import FULL_DECK  # noqa: E402
from tables.engine.pkhands import FastStandardHighHand  # noqa: E402

PLAYERS = 6
SB, BB = 1, 2
_PK_CARD = dict(zip(FULL_DECK, Card.parse("".join(FULL_DECK)), strict=True))
_BARE_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def make_deals(count: int, seed: int) -> list[tuple[list[str], list[int]]]:
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        deals.append((deck, [BB * rng.randint(50, 400) for _ in range(PLAYERS)]))
    return deals


def config_for(deck: list[str], stacks: list[int], *, rake: bool) -> HandConfig:
    # Seats 0..5, button on seat 5: seat 0 posts the small blind, seat 1 the big blind.
    return HandConfig(
        variant="holdem",
        structure="nl",
        seat_count=PLAYERS,
        stacks=dict(enumerate(stacks)),
        button=PLAYERS - 1,
        small_blind=SB,
        big_blind=BB,
        deck=tuple(deck),
        posts=((0, PostKind.SMALL_BLIND), (1, PostKind.BIG_BLIND)),
        rake=room_schedule(1) if rake else None,
    )


def loose_passive(legal: list[dict], rng: random.Random, seat: int) -> Action:
    """The target's table: players check when they can (now and then bet the minimum); facing a bet
    they call 85 %, raise the minimum 10 % and fold 5 %. Most hands reach a many-way showdown, the
    kind of hand where bare pokerkit spends nearly all its time in its own evaluator."""
    kinds = {entry["action"]: entry for entry in legal}
    roll = rng.random()
    if "check" in kinds:
        if roll < 0.8 or "bet" not in kinds:
            return Action(seat, "check")
        return Action(seat, "bet", kinds["bet"]["min"])
    if roll < 0.05:
        return Action(seat, "fold")
    if roll < 0.9 or "raise" not in kinds:
        return Action(seat, "call")
    return Action(seat, "raise", kinds["raise"]["min"])


def aggressive(legal: list[dict], rng: random.Random, seat: int) -> Action:
    """A rougher table: a fifth of the players facing a bet fold, raises of up to three times the
    minimum and the odd all-in; fewer and smaller showdowns, so bare pokerkit is relatively faster."""
    kinds = {entry["action"]: entry for entry in legal}
    roll = rng.random()
    if "check" in kinds:
        if roll < 0.7 or not ({"bet", "raise", "all_in"} & kinds.keys()):
            return Action(seat, "check")
    elif roll < 0.2:
        return Action(seat, "fold")
    elif roll < 0.8:
        return Action(seat, "call")
    if rng.random() < 0.1 and "all_in" in kinds:
        return Action(seat, "all_in")
    for kind in ("bet", "raise"):
        if kind in kinds:
            low, high = kinds[kind]["min"], kinds[kind]["max"]
            return Action(seat, kind, rng.randint(low, min(high, low * 3)))
    return Action(seat, "call") if "call" in kinds else Action(seat, "check")


POLICIES: dict[str, Callable[[list[dict], random.Random, int], Action]] = {
    "loose-passive": loose_passive,
    "aggressive": aggressive,
}


def play_ours(
    deck: list[str], starting: list[int], rng: random.Random, choose: Callable
) -> tuple[list[Action], dict[int, int], int, list[int]]:
    """One hand through our engine, actions chosen from its legal list, deck committed before the
    first card and the public positions opened at the end (returned too)."""
    secret = fairness.commit_deck(deck=deck)
    hand = start_hand(config=config_for(deck, starting, rake=True))
    while not hand.is_over:
        hand.act(choose(hand.legal_actions(), rng, hand.to_act))
    public = hand.public_positions()
    fairness.open_positions(secret=secret, positions=public)
    settlement = hand.settlement
    return hand.log, dict(settlement.finishing_stacks), settlement.rake, public


def _pokerkit_state(starting: list[int], hand_type: type) -> State:
    preflop = Street(False, (False, False), 0, False, Opening.POSITION, BB, None)
    streets = (preflop, *(Street(True, (), n, False, Opening.POSITION, BB, None) for n in (3, 1, 1)))
    return State(
        _BARE_AUTOMATIONS,
        Deck.STANDARD,
        (hand_type,),
        streets,
        BettingStructure.NO_LIMIT,
        True,
        0,
        (SB, BB),
        0,
        starting,
        PLAYERS,
        mode=Mode.CASH_GAME,
    )


def play_pokerkit(
    deck: list[str], starting: list[int], log: list[Action], hand_type: type
) -> list[int] | None:
    """The same cards and actions through pokerkit alone; ``None`` if pokerkit refuses an action."""
    state = _pokerkit_state(starting, hand_type)
    cards = iter(deck)
    actions = iter(log)
    while state.status:
        if state.actor_index is not None:
            action = next(actions)
            try:
                if action.kind == "fold":
                    state.fold()
                elif action.kind in ("check", "call"):
                    state.check_or_call()
                elif (
                    action.kind == "all_in"
                    and state.checking_or_calling_amount == state.stacks[state.actor_index]
                ):
                    state.check_or_call()
                else:
                    amount = action.amount
                    if amount is None:
                        amount = state.stacks[state.actor_index] + state.bets[state.actor_index]
                    state.complete_bet_or_raise_to(amount)
            except (ValueError, AssertionError):
                # pokerkit refuses what the room allows (its short all-in rules) or trips over a
                # fold when checking was free (an assertion in its chip pushing): not comparable.
                return None
        elif state.can_deal_hole():  # one card at a time, as pokerkit's own automation deals
            state.deal_hole(_PK_CARD[next(cards)])
        elif state.can_burn_card():
            state.burn_card(_PK_CARD[next(cards)])
        elif state.can_deal_board():
            state.deal_board([_PK_CARD[next(cards)] for _ in range(state.board_dealing_count)])
        else:  # pragma: no cover
            raise AssertionError("pokerkit is stuck")
    return list(state.stacks)


def run_rounds(deals: list, seed: int, choose: Callable, rounds: int) -> dict:
    """All deals through our engine, then through bare pokerkit, then pokerkit with the drop-in hand
    type, ``rounds`` times over; each engine's best round counts (CPU time, so other load on the
    machine does not count against either side, and best-of-N as usual for benchmarks)."""
    clock = time.process_time
    names = ("ours", "bare", "fast", "commitment", "openings")
    best = dict.fromkeys(names, float("inf"))
    logs: list = []
    bare: list = []
    fast: list = []
    rake = 0
    for _ in range(rounds):
        rngs = [random.Random(seed * 1_000_003 + number) for number in range(len(deals))]
        t0 = clock()
        results = [
            play_ours(deck, starting, rng, choose) for (deck, starting), rng in zip(deals, rngs, strict=True)
        ]
        best["ours"] = min(best["ours"], clock() - t0)
        t0 = clock()
        secrets = [fairness.commit_deck(deck=deck) for deck, _ in deals]
        t1 = clock()
        for secret, result in zip(secrets, results, strict=True):
            fairness.open_positions(secret=secret, positions=result[3])
        best["commitment"] = min(best["commitment"], t1 - t0)
        best["openings"] = min(best["openings"], clock() - t1)
        logs = [result[0] for result in results]
        rake = sum(result[2] for result in results)
        for starting, result in zip((d[1] for d in deals), results, strict=True):
            assert sum(result[1].values()) + result[2] == sum(starting)
        for name, hand_type, out in (("bare", StandardHighHand, bare), ("fast", FastStandardHighHand, fast)):
            t0 = clock()
            outcome = [
                play_pokerkit(deck, starting, log, hand_type)
                for (deck, starting), log in zip(deals, logs, strict=True)
            ]
            best[name] = min(best[name], clock() - t0)
            out[:] = outcome
    return {"times": best, "logs": logs, "bare": bare, "fast": fast, "rake": rake}


def compare(deals: list, run: dict) -> tuple[int, int, int]:
    """Assert the settlements agree; returns (split pots pokerkit divides its own way, hands pokerkit
    refused or crashed on, hands where pokerkit lost chips)."""
    assert run["fast"] == run["bare"], "pokerkit with the phevaluator hand type settled differently"
    differ = refused = lost = 0
    for (deck, starting), log, theirs in zip(deals, run["logs"], run["bare"], strict=True):
        if theirs is None:
            refused += 1
            continue
        if sum(theirs) != sum(starting):  # pokerkit loses chips when all who can bet fold to all-ins
            lost += 1
            continue
        hand = replay(config=config_for(deck, starting, rake=False), actions=log)
        ours = [hand.settlement.finishing_stacks[seat] for seat in range(PLAYERS)]
        if ours != theirs:
            differ += 1
            moved = [seat for seat in range(PLAYERS) if ours[seat] != theirs[seat]]
            tied = {seat for pot in hand.settlement.pots if len(pot.winners) > 1 for seat in pot.winners}
            assert set(moved) <= tied and sum(ours[s] for s in moved) == sum(theirs[s] for s in moved), (
                f"settlements differ beyond pokerkit's odd-chip split: {ours} vs {theirs}"
            )
    return differ, refused, lost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=500, help="hands per policy")
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--policy", choices=[*POLICIES, "all"], default="all")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds; the best counts")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # pokerkit warns about folds when a check is free
    deals = make_deals(args.hands, args.seed)
    names = list(POLICIES) if args.policy == "all" else [args.policy]
    print(
        f"{args.hands} hands of 6-max No-Limit Hold'em at 1/2 per policy, the same deals and actions for all;"
    )
    print(f"hands/s in CPU time, best of {args.rounds} rounds per engine")
    extra = " + deck commitment and openings"
    for name in names:
        run = run_rounds(deals, args.seed, POLICIES[name], args.rounds)
        differ, refused, lost = compare(deals, run)
        times = run["times"]
        rate: Callable[[float], float] = lambda seconds: args.hands / seconds  # noqa: E731
        showdowns = sum(1 for log in run["logs"] if log and log[-1].kind in ("check", "call", "all_in"))
        print(f"\n[{name}] {showdowns} of {args.hands} hands ended on a check or call")
        print(f"  ours (engine + room rake{extra}): {rate(times['ours']):8.1f} hands/s")
        print(f"  bare pokerkit 0.7.7:               {rate(times['bare']):8.1f} hands/s")
        print(f"  pokerkit + phevaluator hand type:  {rate(times['fast']):8.1f} hands/s")
        print(f"  ours / bare pokerkit:              {times['bare'] / times['ours']:8.1f} x")
        print(f"  pokerkit+phevaluator / bare:       {times['bare'] / times['fast']:8.1f} x")
        commitment, openings = times["commitment"], times["openings"]
        print(
            f"  of our time: deck commitment {commitment / times['ours']:.0%}, openings "
            f"{openings / times['ours']:.0%}; ours without the openings "
            f"{times['bare'] / (times['ours'] - openings):.1f} x, the engine alone "
            f"{times['bare'] / (times['ours'] - openings - commitment):.1f} x"
        )
        print(
            f"  settlements identical except {differ} split pot(s) pokerkit divides its own way; "
            f"{refused} hand(s) pokerkit refused or crashed on, {lost} where pokerkit lost chips; rake {run['rake']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
