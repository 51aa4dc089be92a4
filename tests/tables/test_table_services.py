"""The table's services against PostgreSQL: sitting down, dealing, acting, refusals and the money after."""

import pytest

from cashier.selectors import ledger_check, wallet_balances
from tables import presenters, services
from tables.models import Hand, Seat
from tables.selectors import seat_stacks
from tables.state import for_viewer, table_snapshot
from tests.factories import act, heads_up, passive, play_out, sit, table_create, to_act_user

pytestmark = pytest.mark.django_db


def test_two_players_sit_a_hand_is_dealt_and_a_fold_settles_it(players):
    table = table_create()
    alice, bob = players[:2]
    sit(table, alice, 1)
    assert services.hand_deal(table_id=table.id) is None, "one player cannot be dealt a hand"
    sit(table, bob, 4)
    hand = services.hand_deal(table_id=table.id)
    assert hand is not None and hand.players_dealt == 2
    assert services.hand_deal(table_id=table.id) is None, "never two hands at once"
    # heads-up: the button posts the small blind and acts first before the flop
    first = to_act_user(table, players)
    other = bob if first == alice else alice
    with pytest.raises(services.TableError) as refused:
        act(table, other, "fold")
    assert refused.value.code == "not_your_turn"
    act(table, first, "fold")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.COMPLETE
    stacks = seat_stacks(table=table)
    seat_of = {u: Seat.objects.get(table=table, user=u).number for u in (alice, bob)}
    assert stacks[seat_of[first]] == 199 and stacks[seat_of[other]] == 201, (
        "the small blind went to the big blind"
    )
    assert hand.result["rake"] == 0, "no flop, no drop"
    assert ledger_check().ok


def test_a_stale_or_repeated_act_is_refused_and_changes_nothing(players):
    table, hand = heads_up(players)
    alice, bob = players[:2]
    first = to_act_user(table, players)
    services.table_act(
        table_id=table.id, user=first, hand_id=hand.id, action_no=0, action="call", amount=None
    )
    with pytest.raises(services.TableError) as refused:
        services.table_act(
            table_id=table.id, user=first, hand_id=hand.id, action_no=0, action="call", amount=None
        )
    assert refused.value.code == "stale"
    hand.refresh_from_db()
    assert hand.action_no == 1


def test_an_illegal_amount_is_refused_with_the_engines_reason(players):
    table, hand = heads_up(players)
    alice, bob = players[:2]
    first = to_act_user(table, players)
    for amount in (3, 10_000, 7 * 10**11):
        with pytest.raises(services.TableError) as refused:
            act(table, first, "raise", amount)
        assert refused.value.message
    hand.refresh_from_db()
    assert hand.action_no == 0


def test_a_hand_to_showdown_conserves_chips_and_takes_the_rake(players):
    table = table_create()
    for seat, user in enumerate(players[:3], start=1):
        sit(table, user, seat)
    hand = play_out(table, players, services.hand_deal(table_id=table.id))  # everyone calls and checks down
    assert hand.status == Hand.Status.COMPLETE
    assert hand.pot_total == 6 and hand.players_saw_flop == 3
    stacks = seat_stacks(table=table)
    assert sum(stacks.values()) + hand.result["rake"] == 600
    assert ledger_check().ok


def test_the_public_snapshot_carries_no_hole_card_and_each_viewer_gets_only_their_own(players):
    table = table_create()
    alice, bob, carol = players[:3]
    sit(table, alice, 1)
    sit(table, bob, 2)
    hand = services.hand_deal(table_id=table.id)
    state = services.hand_engine(hand=hand, table=table)
    snapshot = table_snapshot(table=table, hand=hand, state=state)
    assert all(row["cards"] is None for row in snapshot["seats"])
    assert {row["seat"] for row in snapshot["seats"] if row["has_cards"]} == {1, 2}
    alice_cards = hand.hole_cards["0"]
    mine = for_viewer(snapshot, seat_number=1, hole_cards=alice_cards)
    assert mine["seats"][0]["cards"] == alice_cards and mine["seats"][1]["cards"] is None
    spectator = for_viewer(snapshot, seat_number=None, hole_cards=None)
    text = repr(spectator)
    for card in hand.hole_cards["0"] + hand.hole_cards["1"]:
        assert f"'{card}'" not in text
    assert spectator["legal"] is None
    actor = snapshot["to_act"]
    assert for_viewer(snapshot, seat_number=actor, hole_cards=None)["legal"]
    assert for_viewer(snapshot, seat_number=3 - actor, hole_cards=None)["legal"] is None


def test_leaving_between_hands_returns_the_stack_to_the_wallet(players):
    from cashier.selectors import wallet_balances

    table = table_create()
    alice = players[0]
    before = wallet_balances(user=alice)["play"]
    sit(table, alice, 3)
    assert wallet_balances(user=alice)["play"] == before - 200
    services.seat_leave(table_id=table.id, user=alice)
    assert wallet_balances(user=alice)["play"] == before
    assert Seat.objects.get(table=table, number=3).user is None


def test_the_end_of_a_hand_opens_the_public_cards_against_the_commitment_and_each_player_their_own(players):
    from tables.engine.fairness import verify_opening

    table = table_create()
    for seat, user in enumerate(players[:3], start=1):
        sit(table, user, seat)
    hand = services.hand_deal(table_id=table.id)
    hand = play_out(table, players, hand)
    summary = presenters.hand_summary(hand=hand)
    assert len(summary["board"]) == 5
    opened = {o["card"] for o in summary["openings"]}
    shown = {card for cards in summary["shown"].values() for card in cards}
    assert opened == set(summary["board"]) | shown
    assert all(verify_opening(root_hex=hand.commitment, opening=o) for o in summary["openings"])
    # a player who mucked (or folded) gets their own cards opened, nobody else does
    for seat, info in hand.players.items():
        user = next(p for p in players if p.id == info["user"])
        mine = {o["card"] for o in presenters.hand_openings_for(hand=hand, user=user)}
        assert set(hand.hole_cards[seat]) <= mine
        others = {c for s, cards in hand.hole_cards.items() if s != seat for c in cards} - shown
        assert not mine & others
    assert {o["card"] for o in presenters.hand_openings_for(hand=hand, user=None)} == opened


def test_a_straddle_is_posted_by_the_first_player_after_the_big_blind_who_asked_for_it(players):
    table = table_create(allow_straddle=True)
    for seat, user in enumerate(players[:4], start=1):
        sit(table, user, seat, post="now")
    first = services.hand_deal(table_id=table.id)
    # play the first hand out by folding to the end, then ask the next hand's first-after-BB to straddle
    play_out(table, players, first, choose=lambda user, legal: "fold")
    with pytest.raises(services.TableError):
        services.seat_options(table_id=table_create().id, user=players[0], auto_muck=None, straddle=True)
    for user in players[:4]:
        services.seat_options(table_id=table.id, user=user, auto_muck=None, straddle=True)
    hand = services.hand_deal(table_id=table.id)
    straddles = [seat for seat, kind in hand.config["posts"] if kind == "straddle"]
    (big_blind,) = [seat for seat, kind in hand.config["posts"] if kind == "big_blind"]
    assert straddles == [(big_blind + 1) % 4], "only the first player after the big blind straddles"
    utg_engine = straddles[0]
    state = services.hand_engine(hand=hand, table=table)
    assert state.bets[utg_engine] == 4
    assert state.to_act == (utg_engine + 1) % 4, "the player after the straddle acts first"
    legal = {item["action"]: item for item in state.legal_actions()}
    assert legal["call"]["min"] == 4 and legal["raise"]["min"] == 8, (
        "the minimum raise is twice the big blind"
    )


def test_a_player_who_folds_and_leaves_is_cashed_out_only_when_the_hand_ends(players):
    from cashier.selectors import wallet_balances

    table = table_create()
    for seat, user in enumerate(players[:3], start=1):
        sit(table, user, seat, post="now")
    hand = services.hand_deal(table_id=table.id)
    quitter = to_act_user(table, players)
    before = wallet_balances(user=quitter)["play"]
    put_in = hand.config["stacks"][str(Seat.objects.get(table=table, user=quitter).number - 1)]
    act(table, quitter, "fold")
    services.seat_leave(table_id=table.id, user=quitter)
    seat = Seat.objects.get(table=table, user=quitter)
    assert seat.leave_after_hand, "still seated while the hand is played"
    hand = play_out(table, players, hand)
    assert not Seat.objects.filter(table=table, user=quitter).exists()
    assert wallet_balances(user=quitter)["play"] == before + put_in, (
        "a folded UTG loses nothing; all comes back"
    )


def test_self_exclusion_at_the_table_cashes_out_after_the_hand_and_blocks_sitting_down(players):
    from cashier import services as cashier
    from cashier.errors import CashierError

    table, hand = heads_up(players)
    alice, bob = players[:2]
    cashier.player_self_exclude(user=alice, period="30d")
    assert Seat.objects.filter(table=table, user=alice).exists(), "not during the hand in play"
    actor = to_act_user(table, players)
    if actor == alice:  # her actions are refused now: the clock folds for her
        with pytest.raises(services.TableError, match="may not play"):
            act(table, alice, "fold")
        assert services.hand_timeout(hand_id=hand.id, action_no=hand.action_no)
    else:
        act(table, actor, "fold")
    hand.refresh_from_db()
    assert hand.status == "complete"
    assert not Seat.objects.filter(table=table, user=alice).exists(), "cashed out once the hand ended"
    with pytest.raises(CashierError):
        sit(table, alice, 3)
    other = table_create()
    sit(other, bob, 1)
    cashier.player_self_exclude(user=bob, period="60d")
    assert not Seat.objects.filter(table=other, user=bob).exists(), "between hands: at once"


def test_house_bots_never_play_among_themselves(players):
    table = table_create()
    assert services.bots_seat(table_id=table.id) == 2
    assert services.hand_deal(table_id=table.id) is None, "bots alone"
    alice = players[0]
    sit(table, alice, 6, post="now")
    assert services.hand_deal(table_id=table.id) is not None, "a person sat down: the hand is dealt"
    hand = Hand.objects.get(table=table, status="running")
    while hand.status == "running":
        seat = hand.to_act
        info = hand.players[str(seat)]
        if info["bot"]:
            assert services.bot_act(hand_id=hand.id, action_no=hand.action_no)
        else:
            act(table, alice, "fold")
        hand.refresh_from_db()
    services.seat_sit_out(table_id=table.id, user=alice)
    assert services.hand_deal(table_id=table.id) is None, "the only person sits out: the bots wait"


def test_a_refusal_speaks_the_players_language_with_amounts_as_money(players):
    from django.utils import translation

    table = table_create(small_blind=50, big_blind=100)
    alice, bob = players[:2]
    sit(table, alice, 1, buy_in=10_000)
    sit(table, bob, 2, buy_in=10_000)
    services.hand_deal(table_id=table.id)
    first = to_act_user(table, players)
    with translation.override("it"), pytest.raises(services.TableError) as refused:
        act(table, first, "raise", 150)
    assert refused.value.code == "below_min"
    assert refused.value.message == "L'importo minimo consentito è 2,00 chip."
    with translation.override("en"), pytest.raises(services.TableError) as refused:
        act(table, first, "raise", 150)
    assert refused.value.message == "The smallest amount allowed is 2.00 chips."


def test_the_connections_language_comes_from_the_language_cookie_then_the_browser():
    from tables.consumers import language_of

    def scope(**headers):
        return {"headers": [(k.encode(), v.encode()) for k, v in headers.items()]}

    assert language_of(scope(cookie="django_language=it; sessionid=x", **{"accept-language": "en"})) == "it"
    assert language_of(scope(**{"accept-language": "it-IT,it;q=0.9,en;q=0.8"})) == "it"
    assert language_of(scope(**{"accept-language": "de-DE"})) == "en"
    assert language_of(scope(cookie="bad cookie ;;; =")) == "en"


def test_a_player_with_auto_muck_off_chooses_to_show_or_muck_a_losing_hand(players, monkeypatch):
    from tables.engine.fairness import FULL_DECK

    # Heads-up the big blind is dealt first: it gets the aces; board 5d 9s Jh Qc 4h (burns between streets)
    top = ["As", "2c", "Ad", "7h", "Kc", "5d", "9s", "Jh", "Kd", "Qc", "Ks", "4h"]
    monkeypatch.setattr(
        services.fairness, "shuffled_deck", lambda: top + [c for c in FULL_DECK if c not in top]
    )
    table = table_create()
    alice, bob = players[:2]
    sit(table, alice, 1)
    sit(table, bob, 2)
    for user in (alice, bob):
        services.seat_options(table_id=table.id, user=user, auto_muck=False, straddle=None)
    hand = services.hand_deal(table_id=table.id)
    big_blind = next(seat for seat, kind in hand.config["posts"] if kind == "big_blind")
    assert hand.hole_cards[str(big_blind)] == ["As", "Ad"]
    choices = []

    def choose(user, legal):
        if legal == {"show", "muck"}:
            choices.append(Seat.objects.get(table=table, user=user).number - 1)
            return "muck"
        return passive(legal)

    hand = play_out(table, players, hand, choose=choose)
    button = 1 - big_blind
    assert choices == [button], "the player who cannot win is asked, and only them"
    assert list(hand.result["shown"]) == [str(big_blind + 1)], "the winner is shown, the mucked hand never"
    assert hand.result["won"] == {str(big_blind): 4}


def test_an_uncontested_winner_may_show_before_the_next_deal(players):
    table, hand = heads_up(players)
    alice, bob = players[:2]
    folder = to_act_user(table, players)
    winner = bob if folder == alice else alice
    act(table, folder, "fold")
    hand.refresh_from_db()
    assert hand.status == "complete" and hand.result["shown"] == {}
    state = services.hand_engine(hand=hand, table=table)
    snapshot = table_snapshot(table=table, hand=hand, state=state)
    winner_seat = Seat.objects.get(table=table, user=winner).number
    folder_seat = 3 - winner_seat
    offer = for_viewer(snapshot, seat_number=winner_seat, hole_cards=hand.hole_cards[str(winner_seat - 1)])
    assert offer["to_act"] == winner_seat and {a["action"] for a in offer["legal"]} == {"show", "muck"}
    assert for_viewer(snapshot, seat_number=folder_seat, hole_cards=None)["legal"] is None
    with pytest.raises(services.TableError):
        services.table_act(
            table_id=table.id,
            user=folder,
            hand_id=hand.id,
            action_no=hand.action_no,
            action="show",
            amount=None,
        )
    services.table_act(
        table_id=table.id, user=winner, hand_id=hand.id, action_no=hand.action_no, action="show", amount=None
    )
    hand.refresh_from_db()
    assert hand.result["shown"] == {str(winner_seat): hand.hole_cards[str(winner_seat - 1)]}
    assert hand.result["won"] and hand.status == "complete"
    with pytest.raises(services.TableError) as refused:
        services.table_act(
            table_id=table.id,
            user=winner,
            hand_id=hand.id,
            action_no=hand.action_no - 1,
            action="show",
            amount=None,
        )
    assert refused.value.code == "stale", "shown once"
    opened = {o["card"] for o in presenters.hand_openings_for(hand=hand, user=None)}
    assert set(hand.hole_cards[str(winner_seat - 1)]) <= opened, "a shown hand is opened to everyone"
    assert services.hand_deal(table_id=table.id) is not None, "the next hand deals as usual"


def test_a_top_up_waits_for_the_end_of_the_hand_the_player_is_in(players):
    alice, bob = players[:2]
    table = table_create()
    sit(table, alice, 1, buy_in=100)
    sit(table, bob, 2, buy_in=100)
    hand = services.hand_deal(table_id=table.id)
    before = (seat_stacks(table=table), wallet_balances(user=alice))
    with pytest.raises(services.TableError) as refused:
        services.seat_top_up(table_id=table.id, user=alice, amount=50)
    assert refused.value.code == "hand_in_progress"
    assert (seat_stacks(table=table), wallet_balances(user=alice)) == before, "nothing moved"
    play_out(table, players, hand, choose=lambda user, legal: "fold" if user == alice else passive(legal))
    stack, wallet = seat_stacks(table=table)[1], wallet_balances(user=alice)["play"]
    services.seat_top_up(table_id=table.id, user=alice, amount=50)
    assert seat_stacks(table=table)[1] == stack + 50
    assert wallet_balances(user=alice)["play"] == wallet - 50
    assert ledger_check().ok
