"""Playing tournaments to the end at the services level, with the real database, as the workers would: a
random running hand takes one action at a time (tables interleave), and the floor runs after every hand.
Every hand is checked as it ends: chips conserved, table sizes, who posts the big blind."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cashier.ledger import system_account_get
from cashier.models import AccountKind
from tables import services as table_services
from tables.bots import bot_choose
from tables.engine.positions import MissedBlinds, Positions, SeatState
from tables.models import Hand, Seat, Table
from tournaments import play
from tournaments.models import Entry, Tournament, TournamentTable
from tournaments.rules.seating import TableSeats, seat_for_moved_player


def pool_balance(tournament: Tournament) -> int:
    return system_account_get(
        kind=AccountKind.PRIZE_POOL, currency=tournament.currency, ref=tournament.pool_ref
    ).balance


def choose(legal: list[dict], pot: int, stack: int, rng: random.Random) -> tuple[str, int | None]:
    """A tight-aggressive caricature: folds most of the time to a bet of a third of its stack or more, goes
    all in now and then, otherwise plays as the house bot does."""
    by_action = {item["action"]: item for item in legal}
    call = by_action.get("call")
    if call and call["min"] * 3 >= stack and rng.random() < 0.75:
        return "fold", None
    if "all_in" in by_action and not call and rng.random() < 0.04:
        return "all_in", None
    return bot_choose(legal=legal, pot=pot, stack=stack, rng=rng)


@dataclass
class Record:
    hands: int = 0
    moves: int = 0
    hand_for_hand_seen: bool = False
    bubbles: int = 0  # floors run with the field one bust from the money on several tables
    deals_checked: int = 0
    problems: list[str] = field(default_factory=list)
    last_big_blind_of: dict[int, tuple[int, int]] = field(
        default_factory=dict
    )  # user -> (hands dealt, hand) at BB
    dealt_counter: dict[int, int] = field(default_factory=dict)  # user -> hands dealt to them so far
    seen_hands: set[int] = field(default_factory=set)
    arrived: dict[int, int] = field(
        default_factory=dict
    )  # user -> table they were moved to, until dealt there
    moves_checked: int = 0  # balance moves checked against the rules on the tables as the database had them
    hand_for_hand_deals: set[tuple[int, int]] = field(default_factory=set)  # (round, table) dealt
    hand_for_hand_waits: int = 0  # floor runs where a table that had dealt the round waited for another
    together_checked: int = 0  # groups of players out in one hand (or round) whose places were checked


def tournament_tables(tournament: Tournament) -> list[Table]:
    return list(Table.objects.filter(tournament_table__tournament=tournament).order_by("id"))


def check_chips(tournament: Tournament, entrants: int | None = None) -> None:
    """The chips of the players still in add up to the starting stacks of everyone seated so far (late
    entries included)."""
    total = play.chips_in_play(tournament=tournament)
    seated = tournament.entries.filter(status__in=(Entry.Status.PLAYING, Entry.Status.FINISHED)).count()
    assert entrants is None or seated == entrants
    assert total == seated * tournament.starting_stack, (
        f"chips {total} != {seated} x {tournament.starting_stack}"
    )


def _sizes(tournament: Tournament) -> dict[int, int]:
    """Players at each table as the floor counted them when it last dealt: everyone still playing, those whose
    chips ran out in a hand the floor has not recorded yet included (a hand the blinds put all in, settled at
    its deal in the same floor run as another table's deal; a bust waiting for its hand-for-hand round)."""
    links = TournamentTable.objects.filter(tournament=tournament, broken=False)
    sizes = {link.table_id: 0 for link in links}
    for table_id in Entry.objects.filter(
        tournament=tournament, status=Entry.Status.PLAYING, table__isnull=False
    ).values_list("table_id", flat=True):
        sizes[table_id] = sizes.get(table_id, 0) + 1
    return sizes


def _check_new_deals(tournament: Tournament, record: Record) -> None:
    """Each hand dealt since the last look: the dealing table within one player of every table; nobody posts the
    big blind in two hands in a row (heads-up excepted); a moved player's first hand at the new table is not
    a small blind."""
    sizes = _sizes(tournament)
    for hand in (
        Hand.objects.filter(table__tournament_table__tournament=tournament)
        .exclude(pk__in=record.seen_hands)
        .order_by("id")
    ):
        record.seen_hands.add(hand.pk)
        dealt = len(hand.players)
        size = sizes.get(hand.table_id, 0)
        round_now = Tournament.objects.get(pk=tournament.pk).hand_for_hand_round
        if hand.status == Hand.Status.RUNNING and round_now:  # dealt in this hand-for-hand round
            if (round_now, hand.table_id) in record.hand_for_hand_deals:
                record.problems.append(
                    f"table {hand.table_id} dealt twice in hand-for-hand round {round_now}"
                )
            record.hand_for_hand_deals.add((round_now, hand.table_id))
        if hand.status == Hand.Status.RUNNING and len(sizes) > 1:
            if any(abs(other - size) > 1 for other in sizes.values()):
                record.problems.append(
                    f"hand {hand.pk} dealt at a table of {size} with sizes {sorted(sizes.values())}"
                )
            record.deals_checked += 1
        # A hand waited out counts as a hand between two big blinds. Every hand is first seen here right after
        # the floor run that dealt it (seats as they were at the deal), running or, when the blinds put
        # everyone all in, already settled: it counts for those who waited it out either way.
        dealt_users = {player["user"] for player in hand.players.values()}
        for waiting in (
            Seat.objects.filter(table_id=hand.table_id, user__isnull=False)
            .exclude(user_id__in=dealt_users)
            .values_list("user_id", flat=True)
        ):
            record.dealt_counter[waiting] = record.dealt_counter.get(waiting, 0) + 1
        posts = {int(seat): kind for seat, kind in hand.config.get("posts", [])}
        for seat, player in hand.players.items():
            user = player["user"]
            record.dealt_counter[user] = record.dealt_counter.get(user, 0) + 1
            kind = posts.get(int(seat))
            if record.arrived.get(user) == hand.table_id:
                del record.arrived[user]
                if kind == "small_blind" and dealt > 2:
                    record.problems.append(
                        f"moved player {user} posted the small blind first (hand {hand.pk})"
                    )
            if kind == "big_blind":
                last = record.last_big_blind_of.get(user)
                if last is not None and last[0] == record.dealt_counter[user] - 1 and dealt > 2:
                    record.problems.append(
                        f"player {user} posted the big blind in hands {last[1]} and {hand.pk} "
                        f"(tables {Hand.objects.get(pk=last[1]).table_id}, {hand.table_id})"
                    )
                record.last_big_blind_of[user] = (record.dealt_counter[user], hand.pk)


def play_to_the_end(
    tournament: Tournament,
    *,
    rng: random.Random,
    max_actions: int = 200_000,
    until=None,
    record: Record | None = None,
) -> Record:
    """Play the running tournament to its winner (or, with `until`, to the first moment between actions when
    `until()` is true); returns what was seen. Fails on a stall."""
    tournament.refresh_from_db()
    entrants = None  # late entries may join: counted at each check
    record = record or Record()
    _floor(tournament, record)
    for _ in range(max_actions):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED or (until is not None and until()):
            return record
        _check_new_deals(tournament, record)
        running = list(
            Hand.objects.filter(table__tournament_table__tournament=tournament, status=Hand.Status.RUNNING)
        )
        if not running:
            done = _floor(tournament, record)
            _note_arrivals(tournament, record)
            tournament.refresh_from_db()
            if tournament.status != Tournament.Status.FINISHED and not done["dealt"]:
                raise AssertionError(f"stalled: nothing running and nothing dealt ({done})")
            continue
        hand = rng.choice(running)
        table = Table.objects.get(pk=hand.table_id)
        state = table_services.hand_engine(hand=hand, table=table)
        seat = state.to_act
        legal = state.legal_actions()
        pot = sum(p.amount for p in state.pots()) + sum(state.bets.values())
        table_services.hand_engine_keep(hand.id, state)
        user_id = hand.players[str(seat)]["user"]
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.get(pk=user_id)
        kind, amount = choose(legal, pot, state.stacks.get(seat, 0) + state.bets.get(seat, 0), rng)
        table_services.table_act(
            table_id=table.id,
            user=user,
            hand_id=hand.id,
            action_no=hand.action_no,
            action=kind,
            amount=amount,
        )
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            record.hands += 1
            check_chips(tournament, entrants)
            done = _floor(tournament, record)
            _note_arrivals(tournament, record)
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.RUNNING:
                check_chips(tournament, entrants)
    raise AssertionError("the tournament did not finish")


def _tables_as_stored(tournament: Tournament) -> dict[int, TableSeats]:
    """Each table of the tournament as its rows say (seats, their states, the last hand's positions), players
    with chips only (those without are out when the floor runs)."""
    result = {}
    for link in TournamentTable.objects.filter(tournament=tournament, broken=False).select_related("table"):
        table = link.table
        players = dict(
            Entry.objects.filter(table=table, status=Entry.Status.PLAYING, chips__gt=0).values_list(
                "seat", "pk"
            )
        )
        states = {
            seat.number - 1: SeatState(
                new=seat.is_new,
                just_posted_big_blind=seat.just_posted_big_blind,
                missed=MissedBlinds(small=seat.missed_small, big=seat.missed_big),
            )
            for seat in Seat.objects.filter(table=table, number__in=players)
        }
        result[link.table_id] = TableSeats(
            table=link.number,
            seat_count=table.seats,
            players={seat - 1: entry for seat, entry in players.items()},
            previous=Positions(**table.positions) if table.positions else None,
            states=states,
            first_button=link.first_button,
            round=link.round,
        )
    return result


def _out_waiting(tournament: Tournament) -> dict[int, tuple[object, int]]:
    """Players whose chips ran out, not yet recorded: entry -> (the hand or round they went out in, their stack
    when it began)."""
    round_now = Tournament.objects.get(pk=tournament.pk).hand_for_hand_round
    out = {}
    for entry in Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING, chips=0):
        hand = Hand.objects.filter(table_id=entry.table_id).order_by("-number").first()
        key = ("round", round_now) if round_now else ("hand", hand.pk)
        out[entry.pk] = (key, int(hand.config["stacks"][str(entry.seat - 1)]))
    return out


def _moves_and_busts_check(tournament, record, before, seats_before, out_before, done) -> None:
    """What the floor just did, checked on the rows: the player moved for balance was the fuller table's next
    big blind, seated where the big blind comes soonest; players out together finish by their starting
    stacks, equal stacks sharing a place."""
    after = dict(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING).values_list("pk", "table_id")
    )
    moved = [pk for pk, table in after.items() if pk in seats_before and seats_before[pk][0] != table]
    broken = set(
        TournamentTable.objects.filter(tournament=tournament, broken=True).values_list("table_id", flat=True)
    )
    if (
        not done["busts"]
        and not done.get("seated_late")
        and len(moved) == 1
        and seats_before[moved[0]][0] not in broken
    ):
        entry = Entry.objects.get(pk=moved[0])
        source, old_seat = seats_before[entry.pk]
        if before[source].plan().big_blind != old_seat - 1:
            record.problems.append(f"entry {entry.pk} moved from seat {old_seat}, not the next big blind")
        landed = Seat.objects.get(table_id=entry.table_id, number=entry.seat)
        wanted = seat_for_moved_player(
            before[entry.table_id], just_posted_big_blind=landed.just_posted_big_blind
        )
        if entry.seat - 1 != wanted:
            record.problems.append(
                f"entry {entry.pk} seated at {entry.seat}, not {wanted + 1} (soonest big blind)"
            )
        record.moves_checked += 1
    groups: dict[object, list[tuple[int, int]]] = {}
    for pk, (key, stack) in out_before.items():
        groups.setdefault(key, []).append((pk, stack))
    places = dict(
        Entry.objects.filter(pk__in=out_before, status=Entry.Status.FINISHED).values_list("pk", "place")
    )
    for group in groups.values():
        if len(group) < 2 or any(pk not in places for pk, _stack in group):
            continue
        record.together_checked += 1
        for pk, stack in group:
            for other, other_stack in group:
                if stack > other_stack and not places[pk] < places[other]:
                    record.problems.append(
                        f"out together: {stack} chips placed {places[pk]}, {other_stack} {places[other]}"
                    )
                if stack == other_stack and places[pk] != places[other]:
                    record.problems.append(
                        f"out together on equal stacks, places {places[pk]} and {places[other]}"
                    )


def _floor(tournament: Tournament, record: Record) -> dict:
    """Run the floor; on the bubble (one bust from the money, several tables) it must play hand-for-hand."""
    before, out_before = _tables_as_stored(tournament), _out_waiting(tournament)
    seats_before = dict(
        (pk, (table, seat))
        for pk, table, seat in Entry.objects.filter(
            tournament=tournament, status=Entry.Status.PLAYING, chips__gt=0
        ).values_list("pk", "table_id", "seat")
    )
    done = play.tournament_floor(tournament_id=tournament.pk)
    _moves_and_busts_check(tournament, record, before, seats_before, out_before, done)
    record.moves += done["moves"]
    tournament.refresh_from_db()
    if tournament.status == Tournament.Status.RUNNING:
        entrants = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count()
        paid = len(tournament.payout_table.schedule().shares_for(entrants=entrants))
        left = tournament.entries.filter(status=Entry.Status.PLAYING).count()
        tables = TournamentTable.objects.filter(tournament=tournament, broken=False).count()
        if left == paid + 1 and tables > 1:
            record.bubbles += 1
            if done["hand_for_hand"] is None:
                record.problems.append(f"no hand-for-hand with {left} left on {tables} tables")
    record.hand_for_hand_seen |= done["hand_for_hand"] is not None
    if done["hand_for_hand"] is not None and tournament.status == Tournament.Status.RUNNING:
        links = TournamentTable.objects.filter(tournament=tournament, broken=False)
        busy = set(
            Hand.objects.filter(
                table__in=[link.table_id for link in links], status=Hand.Status.RUNNING
            ).values_list("table_id", flat=True)
        )
        idle_done = [
            link for link in links if link.table_id not in busy and link.round >= done["hand_for_hand"]
        ]
        if idle_done and busy:
            record.hand_for_hand_waits += 1
    return done


def _note_arrivals(tournament: Tournament, record: Record) -> None:
    for seat in Seat.objects.filter(
        table__tournament_table__tournament=tournament,
        user__isnull=False,
        is_new=True,
        table__hands_dealt__gt=0,
    ):
        record.arrived.setdefault(seat.user_id, seat.table_id)


def fold_to_act(table_id: int) -> None:
    """The player to act at the table's running hand folds (through the table's service, as their client would)."""
    from django.contrib.auth import get_user_model

    hand = Hand.objects.get(table_id=table_id, status=Hand.Status.RUNNING)
    seat = Seat.objects.get(table_id=table_id, number=hand.to_act + 1)
    table_services.table_act(
        table_id=table_id,
        user=get_user_model().objects.get(pk=seat.user_id),
        hand_id=hand.id,
        action_no=hand.action_no,
        action="fold",
        amount=None,
    )
