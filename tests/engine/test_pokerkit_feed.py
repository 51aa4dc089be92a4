"""Where the engine does what pokerkit does, it must do it exactly as pokerkit's public methods would.

* The phevaluator-backed hand types order hands exactly like pokerkit's own.
* ``tables.engine.betting`` (the posts, folds, checks and calls, bets and raises, the end of each round and
  the collection of the bets) leaves stacks, bets, statuses, the players still to act and the all-in status
  exactly where pokerkit's ``State`` driven by ``fold``/``check_or_call``/``complete_bet_or_raise_to`` and
  ``deal_hole``/``burn_card``/``deal_board`` leaves them, checked after every step of random hands with
  blinds, straddles, entry and dead blinds, antes, bomb pots and blinds posted short.
* pokerkit itself, given the drop-in hand types, settles random hands exactly as with its own.
"""

from __future__ import annotations

import random
import warnings
from itertools import pairwise

import pytest
from engine_helpers import make_config
from pokerkit import (
    Automation,
    BettingStructure,
    Card,
    Deck,
    Mode,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    Opening,
    StandardHighHand,
    State,
    Street,
)

from tables.engine import Action, HandConfig, PostKind, start_hand
from tables.engine.cards import FULL_DECK
from tables.engine.pkhands import FastOmahaEightOrBetterLowHand, FastOmahaHoldemHand, FastStandardHighHand

PK = dict(zip(FULL_DECK, Card.parse("".join(FULL_DECK)), strict=True))


def _sign(a, b) -> int:
    return (a > b) - (a < b)


@pytest.mark.parametrize(
    ("ours", "theirs", "hole", "board"),
    [
        (FastStandardHighHand, StandardHighHand, 2, 5),
        (FastStandardHighHand, StandardHighHand, 2, 3),
        (FastOmahaHoldemHand, OmahaHoldemHand, 4, 5),
        (FastOmahaHoldemHand, OmahaHoldemHand, 4, 3),
        (FastOmahaEightOrBetterLowHand, OmahaEightOrBetterLowHand, 4, 5),
    ],
)
def test_drop_in_hand_types_order_hands_like_pokerkit(ours, theirs, hole, board):
    rng = random.Random(hole * 10 + board)
    samples = 400 if hole == 4 else 1500
    results = []
    for _ in range(samples):
        cards = rng.sample(FULL_DECK, hole + board)
        holes, boards = [PK[c] for c in cards[:hole]], [PK[c] for c in cards[hole:]]
        mine = ours.from_game_or_none(holes, boards)
        reference = theirs.from_game_or_none(holes, boards)
        assert (mine is None) == (reference is None)
        if mine is not None:
            assert ours.from_game(holes, boards).cards and len(mine.cards) == 5
            # The five cards we report make the same hand for pokerkit.
            assert theirs(mine.cards) == reference
        results.append((mine, reference))
    compared = 0
    for (a, ra), (b, rb) in pairwise(results):
        if a is not None and b is not None:
            assert _sign(a, b) == _sign(ra, rb)
            assert (a == b) == (ra == rb)
            compared += 1
    assert compared >= 20


def _pokerkit_state(config: HandConfig) -> State:
    """The room's hand as a pokerkit State (a permissive no-limit game with the room's posts), to be driven
    through its public methods only. Heads-up pokerkit reads blinds and antes in reverse order."""
    order = config.order
    n = len(order)
    blinds, antes = [0] * n, [config.bomb_pot] * n
    amounts = {
        PostKind.SMALL_BLIND: config.small_blind,
        PostKind.BIG_BLIND: config.big_blind,
        PostKind.STRADDLE: 2 * config.big_blind,
        PostKind.ENTRY_BIG_BLIND: -config.big_blind,  # live, but does not decide who opens
    }
    for seat, kind in config.posts:
        if kind is PostKind.DEAD_SMALL_BLIND:
            antes[order.index(seat)] += config.small_blind
        else:
            blinds[order.index(seat)] = amounts[kind]
    for seat, ante in config.antes.items():
        antes[order.index(seat)] += ante
    if n == 2:
        blinds.reverse()
        antes.reverse()
    holes = (False,) * config.variant.hole_cards
    board_streets = [Street(True, (), count, False, Opening.POSITION, 1, None) for count in (3, 1, 1)]
    if config.bomb_pot:
        streets = [Street(True, holes, 3, False, Opening.POSITION, 1, None), *board_streets[1:]]
    else:
        streets = [Street(False, holes, 0, False, Opening.POSITION, 1, None), *board_streets]
    automations = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING)
    return State(
        automations,
        tuple(PK[card] for card in config.deck),
        (StandardHighHand,),
        tuple(streets),
        BettingStructure.NO_LIMIT,
        False,
        antes,
        blinds,
        0,
        [config.stacks[seat] for seat in order],
        n,
        mode=Mode.CASH_GAME,
    )


def _ours(hand) -> dict:
    betting = hand._betting
    return {
        "stacks": list(betting.stacks),
        "bets": list(betting.bets),
        "statuses": list(betting.statuses),
        "actors": list(betting.actor_indices),
        "all_in": betting.all_in_status,
        "board": hand.board,
        "holes": [hand.hole_cards(seat) if seat not in hand.folded else [] for seat in hand.order],  # mucked
    }


def _theirs(state: State) -> dict:
    return {
        "stacks": list(state.stacks),
        "bets": list(state.bets),
        "statuses": list(state.statuses),
        "actors": list(state.actor_indices),
        "all_in": state.all_in_status,
        "board": [repr(card) for cards in state.board_cards for card in cards],
        "holes": [[repr(card) for card in cards] for cards in state.hole_cards],
    }


def _random_config(rng: random.Random, seed: int) -> HandConfig:
    players = rng.randint(2, 7)
    stacks = {seat: rng.randint(3, 300) for seat in range(players)}
    structure = rng.choice(["nl", "pl", "fl"])
    variant = rng.choice(["holdem", "omaha"]) if structure == "pl" else "holdem"
    if seed >= 40:  # blinds posted short by all-in players: a call of the full blind is a pokerkit raise
        blind_seats = (0, 1) if players > 2 else (0,)
        for seat in rng.sample(blind_seats, rng.randint(1, len(blind_seats))):
            stacks[seat] = rng.randint(1, 9)
    extra: dict = {}
    posts: list[tuple[int, PostKind]] = []
    roll = rng.random()
    if players > 3 and structure != "fl" and roll < 0.2:
        posts.append((2, PostKind.STRADDLE))
    elif players > 3 and roll < 0.4:
        posts.append((3, PostKind.ENTRY_BIG_BLIND))
        if rng.random() < 0.5:
            posts.append((3, PostKind.DEAD_SMALL_BLIND))
    elif players > 2 and roll < 0.5:
        extra = {"bomb_pot": 10, "sb": -1, "bb": -1}
    if rng.random() < 0.2:
        extra["antes"] = {seat: rng.randint(1, 5) for seat in range(players)}
    return make_config(
        stacks=stacks,
        button=players - 1,
        seat_count=players,
        structure=structure,
        variant=variant,
        blinds=(5, 10),
        small_bet=10 if structure == "fl" else None,
        extra_posts=posts,
        **extra,
    )


def _deal_reference(reference: State, hand, deck) -> None:
    """Give the reference the cards the engine dealt, through pokerkit's public dealing methods."""
    while reference.actor_index is None and reference.status and not reference.all_in_status:
        if reference.can_deal_hole():
            for i, seat in enumerate(hand.order):
                reference.deal_hole([PK[deck[p]] for p in hand.deck_map.hole[seat]], i)
        elif reference.can_burn_card():
            reference.burn_card(PK[deck[hand.deck_map.burn[len(reference.burn_cards)]]])
        elif reference.can_deal_board():
            dealt = sum(len(cards) for cards in reference.board_cards)
            count = reference.board_dealing_count
            reference.deal_board([PK[deck[p]] for p in hand.deck_map.board[dealt : dealt + count]])
        else:
            break


@pytest.mark.parametrize("seed", range(80))
def test_the_engine_moves_chips_as_pokerkits_public_methods_would(seed):
    rng = random.Random(seed)
    config = _random_config(rng, seed)
    hand = start_hand(config=config)
    reference = _pokerkit_state(config)
    _deal_reference(reference, hand, config.deck)
    _same(hand, reference)
    while not hand.is_over:
        legal = hand.legal_actions()
        calls = [entry for entry in legal if entry["action"] == "call"]
        entry = calls[0] if calls and seed >= 40 and rng.random() < 0.5 else rng.choice(legal)
        kind = entry["action"]
        amount = rng.randint(entry["min"], entry["max"]) if kind in ("bet", "raise") else None
        hand.act(Action(hand.to_act, kind, amount))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pokerkit warns of a fold when checking was free
            if kind == "fold":
                reference.fold()
            elif kind == "check" or (kind in ("call", "all_in") and entry["min"] <= max(reference.bets)):
                reference.check_or_call()
            else:  # the room's limits were checked; pokerkit is asked only to move the chips
                reference.completion_betting_or_raising_amount = 0
                reference.consecutive_short_all_in_amounts.clear()
                reference.complete_bet_or_raise_to(amount if amount is not None else entry["min"])
        _deal_reference(reference, hand, config.deck)
        _same(hand, reference)


def _same(hand, reference: State) -> None:
    ours, theirs = _ours(hand), _theirs(reference)
    if reference.all_in_status:  # the engine runs the board out (maybe twice), pokerkit waits for it
        ours["board"] = theirs["board"]
    assert ours == theirs


def _pokerkit_hand(deck, stacks, hand_type, rng):
    automations = tuple(
        a
        for a in Automation
        if a not in (Automation.HOLE_DEALING, Automation.BOARD_DEALING, Automation.CARD_BURNING)
    )
    streets = (
        Street(False, (False, False), 0, False, Opening.POSITION, 2, None),
        *(Street(True, (), n, False, Opening.POSITION, 2, None) for n in (3, 1, 1)),
    )
    state = State(
        automations,
        Deck.STANDARD,
        (hand_type,),
        streets,
        BettingStructure.NO_LIMIT,
        True,
        0,
        (1, 2),
        0,
        stacks,
        len(stacks),
        mode=Mode.CASH_GAME,
    )
    cards = iter(deck)
    while state.status:
        if state.actor_index is not None:
            if rng.random() < 0.1 and state.can_complete_bet_or_raise_to():
                state.complete_bet_or_raise_to(state.min_completion_betting_or_raising_to_amount)
            else:
                state.check_or_call()
        elif state.can_deal_hole():
            state.deal_hole([PK[next(cards)]])
        elif state.can_burn_card():
            state.burn_card(PK[next(cards)])
        else:
            state.deal_board([PK[next(cards)] for _ in range(state.board_dealing_count)])
    return state.stacks


def test_pokerkit_with_the_drop_in_settles_exactly_like_pokerkit():
    for seed in range(30):
        rng = random.Random(seed)
        deck = rng.sample(FULL_DECK, 52)
        stacks = [rng.randint(5, 60) for _ in range(rng.randint(2, 6))]
        theirs = _pokerkit_hand(deck, stacks, StandardHighHand, random.Random(seed))
        ours = _pokerkit_hand(deck, stacks, FastStandardHighHand, random.Random(seed))
        assert ours == theirs
