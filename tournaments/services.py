"""Writes of tournaments: registering, unregistering, cancelling, starting, and the places and prizes of
players who bust.

Conventions (HackSoft, as in `cashier.services`): keyword-only, typed, `<noun>_<verb>`; each takes the
tournament's row lock first (then the cashier takes the ledger's: tournament first, then ledger) and does
its checks and writes in one transaction. A refusal raises a `TournamentError` or a `CashierError` whose
message a player can read, and nothing has changed. Money moves only through the cashier's tournament
services, each idempotent by the entry (`tournament-entry:<id>`, `tournament-refund:<id>`,
`tournament-prize:<id>`)."""

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.audit import staff_action_record
from cashier import services as cashier
from tables import broadcast
from tournaments import play
from tournaments.errors import (
    AlreadyRegistered,
    NotAllowed,
    NotRegistered,
    RegistrationClosed,
    TournamentError,
    TournamentFull,
    WrongStatus,
)
from tournaments.finishes import provisional_places_shift, tournament_busts_record
from tournaments.models import Entry, Tournament
from tournaments.selectors import late_registration_open

Status = Tournament.Status
__all__ = [
    "tournament_busts_record"
]  # a service of this module, written in tournaments.finishes (play uses it)


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError(_("There is no such tournament."))
    return tournament


def _registration_check(tournament: Tournament) -> None:
    if tournament.status == Status.REGISTERING:
        return
    if tournament.status == Status.RUNNING and tournament.kind == Tournament.Kind.SIT_AND_GO:
        raise TournamentFull(_("This tournament is full."))  # it started when its last seat was taken
    if not late_registration_open(tournament=tournament):
        raise RegistrationClosed(_("Registration for this tournament is closed."))


def tournament_register(
    *, tournament_id: int, user, now: datetime | None = None, fill_with_bots: bool = True
) -> Entry:
    """Enter `user` in the tournament: the buy-in to its prize pool and the fee to the room, in one transfer.

    Refused (nothing moved): registration closed (started, past late registration, finished, cancelled), the
    player already in it, the tournament full, a deactivated account, a house bot outside practice
    tournaments, a self-excluded player, a wallet short of buy-in + fee. A person registering for a practice
    sit-and-go brings house bots to fill it (unless `fill_with_bots` is False); a sit-and-go starts when full.
    An entry made in late registration (a multi-table in its late-registration levels, until the field
    reaches the money) comes in above the players already out, whose provisional places move down one; the
    floor seats it with the starting stack at the emptiest table (`tournaments.play`).

    Lock: none held by the caller (takes the tournament's row, then the ledger's)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _registration_check(tournament)
        if not user.is_active:
            raise NotAllowed(_("This account is closed."))
        if user.is_bot and not tournament.practice:
            raise NotAllowed(_("House bots play only practice tournaments."))
        if tournament.entries.filter(user=user, status__in=Entry.IN_TOURNAMENT).exists():
            raise AlreadyRegistered(_("You are already registered for this tournament."))
        if tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count() >= tournament.max_entrants:
            raise TournamentFull(_("This tournament is full."))
        try:
            with transaction.atomic():
                entry = Entry.objects.create(
                    tournament=tournament,
                    user=user,
                    buy_in=tournament.buy_in,
                    fee=tournament.fee,
                    registered_at=now,
                )
        except IntegrityError:
            raise AlreadyRegistered(_("You are already registered for this tournament.")) from None
        if tournament.status == Status.RUNNING:
            provisional_places_shift(tournament=tournament)
        cashier.tournament_entry_pay(
            user=user,
            currency=tournament.currency,
            pool_ref=tournament.pool_ref,
            buy_in=entry.buy_in,
            fee=entry.fee,
            idempotency_key=f"tournament-entry:{entry.pk}",
            memo=tournament.name,
            now=now,
        )
        sit_and_go = tournament.kind == Tournament.Kind.SIT_AND_GO
        if tournament.practice and sit_and_go and not user.is_bot and fill_with_bots:
            _bots_register(tournament=tournament, now=now)  # a multi-table's bots come at its start
        full = tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).count() >= tournament.max_entrants
        if tournament.kind == Tournament.Kind.SIT_AND_GO and tournament.status == Status.REGISTERING and full:
            tournament_start(tournament_id=tournament.pk, now=now)  # a sit-and-go starts when full
        transaction.on_commit(broadcast.lobby_mark_stale)
        return entry


def _bots_register(*, tournament: Tournament, now: datetime) -> int:
    """A practice tournament: house bots (labelled) take the places left (a sit-and-go when a person registers,
    so a newcomer plays at once; a multi-table at its start), each paying its buy-in from its play wallet
    (funded from the issuer when short). Caller holds the lock."""
    from cashier.selectors import wallet_balances
    from tables.bots import bot_users

    if not tournament.practice:
        return 0
    taken = set(tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).values_list("user_id", flat=True))
    free = tournament.max_entrants - len(taken)
    added = 0
    for bot in bot_users():
        if added >= free:
            break
        if bot.id in taken:
            continue
        cost = tournament.buy_in + tournament.fee
        if wallet_balances(user=bot).get("play", 0) < cost:
            cashier.bot_wallet_fund(bot=bot, amount=max(10 * cost, 100_000))
        entry = Entry.objects.create(
            tournament=tournament, user=bot, buy_in=tournament.buy_in, fee=tournament.fee, registered_at=now
        )
        cashier.tournament_entry_pay(
            user=bot,
            currency=tournament.currency,
            pool_ref=tournament.pool_ref,
            buy_in=entry.buy_in,
            fee=entry.fee,
            idempotency_key=f"tournament-entry:{entry.pk}",
            memo=tournament.name,
            now=now,
        )
        added += 1
    return added


def tournament_unregister(*, tournament_id: int, user) -> Entry:
    """Take `user` out of a tournament that has not started: buy-in and fee back to the wallet.

    Lock: none held by the caller."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Status.REGISTERING:
            raise RegistrationClosed(_("The tournament has started: you can no longer unregister."))
        entry = tournament.entries.filter(user=user, status=Entry.Status.REGISTERED).first()
        if entry is None:
            raise NotRegistered(_("You are not registered for this tournament."))
        _entry_refund(tournament, entry, Entry.Status.UNREGISTERED)
        return entry


def entry_remove(*, entry_id: int, staff_user, note: str = "") -> Entry:
    """Staff take one entry out of a tournament that has not started: buy-in and fee back to the player's
    wallet, as an unregistration, recorded in the audit log. After the start an entry is not removed (the
    prize pool and the places are the field's): staff close the account, and the player is dealt in as an
    away player until out and paid what their place earns (`hook_player_barred`).

    Lock: none held by the caller."""
    with transaction.atomic():
        tournament_id = Entry.objects.filter(pk=entry_id).values_list("tournament_id", flat=True).first()
        if tournament_id is None:
            raise NotRegistered(_("There is no such entry."))
        tournament = _locked(tournament_id)
        entry = Entry.objects.select_related("user").get(pk=entry_id)
        if tournament.status != Status.REGISTERING:
            raise RegistrationClosed(
                _(
                    "The tournament has started: an entry can no longer be removed and refunded. Close the "
                    "player's account instead: they are then dealt in as an away player until they are out."
                )
            )
        if entry.status != Entry.Status.REGISTERED:
            raise NotRegistered(_("This entry is not registered (already refunded)."))
        _entry_refund(tournament, entry, Entry.Status.UNREGISTERED)
        staff_action_record(
            actor=staff_user,
            action="tournament_entry.remove",
            target=entry,
            before={"status": Entry.Status.REGISTERED},
            after={"status": entry.status, "refunded": entry.buy_in + entry.fee},
            note=note,
        )
        transaction.on_commit(broadcast.lobby_mark_stale)
        return entry


def hook_player_barred(*, user) -> list[Entry]:
    """For the cashier: `user` may no longer play (self-excluded, or the account closed). Each registration for
    a tournament that has not started is cancelled, buy-in and fee back to the wallet, as an unregistration;
    an entry in a running tournament stays (its chips are the player's), dealt in as an away player whose
    hands the clock checks or folds (`tables.services.hook_player_barred`) until they are out, paid what their
    place earns. Returns the entries refunded. Lock: none held by the caller (each tournament's row in turn)."""
    refunded = []
    waiting = Entry.objects.filter(
        user=user, status=Entry.Status.REGISTERED, tournament__status=Status.REGISTERING
    ).values_list("tournament_id", flat=True)
    for tournament_id in list(waiting):
        with transaction.atomic():
            tournament = _locked(tournament_id)
            entry = tournament.entries.filter(user=user, status=Entry.Status.REGISTERED).first()
            if tournament.status != Status.REGISTERING or entry is None:
                continue  # started (or left) meanwhile: played as an away player, as above
            _entry_refund(tournament, entry, Entry.Status.UNREGISTERED)
            transaction.on_commit(broadcast.lobby_mark_stale)
            refunded.append(entry)
    return refunded


def _entry_refund(tournament: Tournament, entry: Entry, status: str) -> None:
    cashier.tournament_entry_refund(
        user=entry.user,
        currency=tournament.currency,
        pool_ref=tournament.pool_ref,
        buy_in=entry.buy_in,
        fee=entry.fee,
        idempotency_key=f"tournament-refund:{entry.pk}",
        memo=tournament.name,
    )
    entry.status = status
    entry.save(update_fields=["status"])


def tournament_cancel(
    *, tournament_id: int, reason: str, now: datetime | None = None, staff_user=None
) -> Tournament:
    """Cancel a tournament that has not started (too few entrants, or staff): every entry's buy-in and fee
    go back to its player. A running one only by staff (`staff_user`), under the room's policy
    (`_running_cancel`).

    Lock: none held by the caller."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status == Status.RUNNING and staff_user is not None:
            return _running_cancel(
                tournament, reason=reason, staff_user=staff_user, now=now or timezone.now()
            )
        if tournament.status != Status.REGISTERING:
            raise WrongStatus(
                _("Only a tournament that has not started can be cancelled; this one is %(status)s.")
                % {"status": tournament.get_status_display().lower()}
            )
        for entry in tournament.entries.filter(status=Entry.Status.REGISTERED).select_related("user"):
            _entry_refund(tournament, entry, Entry.Status.REFUNDED)
        tournament.status = Status.CANCELLED
        tournament.cancelled_reason = str(reason)[:200]
        tournament.finished_at = now or timezone.now()
        tournament.save(update_fields=["status", "cancelled_reason", "finished_at"])
        return tournament


def tournament_start(*, tournament_id: int, now: datetime | None = None) -> Tournament:
    """Start a tournament: with fewer than its minimum entrants it is cancelled and everyone refunded;
    otherwise every entrant gets the starting stack, the draw seats them at the tournament's new tables, the
    first level begins and (after commit) the floor deals (`tournaments.play`).

    Lock: none held by the caller."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Status.REGISTERING:
            raise WrongStatus(_("This tournament has already started or ended."))
        people = tournament.entries.filter(status=Entry.Status.REGISTERED, user__is_bot=False).exists()
        if tournament.practice and people:  # a practice multi-table: house bots fill the field at the start
            _bots_register(tournament=tournament, now=now)
        entrants = tournament.entries.filter(status=Entry.Status.REGISTERED).count()
        if tournament.practice:
            practice_reopen(tournament=tournament, now=now)
        if entrants < tournament.min_entrants:
            reason = _("Too few entrants: %(entrants)s of the %(minimum)s needed.") % {
                "entrants": entrants,
                "minimum": tournament.min_entrants,
            }
            return tournament_cancel(tournament_id=tournament_id, reason=reason, now=now)
        tournament.entries.filter(status=Entry.Status.REGISTERED).update(
            status=Entry.Status.PLAYING, chips=tournament.starting_stack
        )
        tournament.status, tournament.started_at = Status.RUNNING, now
        tournament.level, tournament.level_started_at = 1, now
        tournament.save(update_fields=["status", "started_at", "level", "level_started_at"])
        play.tournament_tables_seat(tournament=tournament, now=now)
        tournament_id = tournament.pk
        transaction.on_commit(lambda: play.floor_later(tournament_id, delay=0))
        broadcast.lobby_send_on_commit()
        return tournament


def practice_reopen(*, tournament: Tournament, now: datetime) -> Tournament:
    """A practice tournament starts (or is cancelled at its start): the same one opens again for the next
    players, a sit-and-go at once, a multi-table an hour after this one's start."""
    from datetime import timedelta

    fields = (
        "name",
        "kind",
        "game",
        "structure",
        "currency",
        "buy_in",
        "fee",
        "starting_stack",
        "seats_per_table",
        "blind_structure_id",
        "payout_table_id",
        "min_entrants",
        "max_entrants",
        "late_registration_levels",
        "practice",
        "action_seconds",
        "time_bank_seconds",
    )
    copy = Tournament(**{field: getattr(tournament, field) for field in fields})
    if tournament.kind == Tournament.Kind.MULTI_TABLE:
        copy.starts_at = max(tournament.starts_at or now, now) + timedelta(hours=1)
    copy.save()
    return copy


def _running_cancel(tournament: Tournament, *, reason: str, staff_user, now: datetime) -> Tournament:
    """Staff cancel a running tournament (docs/tournaments.md, "Cancelling a running tournament"): every hand
    in play at its tables is cancelled (the chips go back as they were dealt); players already out keep what
    they were paid; the prize pool left is shared among the players still in by their chips
    (`rules.payouts.chips_share`), their places by chips; every entrant's fee is refunded; the tables close,
    each told why. Every cent is a ledger transfer; recorded in the audit log. The caller holds the
    tournament's lock."""
    from cashier.ledger import system_account_get
    from cashier.models import AccountKind
    from tables import services as table_services
    from tournaments.rules.payouts import chips_share

    links = list(tournament.tables.select_related("table"))
    for link in links:
        if table_services.hand_running(table=link.table) is not None:
            table_services.hand_cancel(table_id=link.table_id, staff_user=staff_user, note=reason)
    still_in = list(tournament.entries.filter(status=Entry.Status.PLAYING).select_related("user"))
    pool = system_account_get(
        kind=AccountKind.PRIZE_POOL, currency=tournament.currency, ref=tournament.pool_ref
    )
    shares = chips_share(pool=pool.balance, chips=[(e.pk, e.chips) for e in still_in]) if still_in else {}
    ranked = sorted(still_in, key=lambda e: -e.chips)
    for entry in still_in:
        entry.place = 1 + sum(1 for other in ranked if other.chips > entry.chips)  # equal stacks tie
        entry.prize = shares[entry.pk]
        entry.status, entry.finished_at = Entry.Status.FINISHED, now
        cashier.tournament_prize_pay(
            user=entry.user,
            currency=tournament.currency,
            pool_ref=tournament.pool_ref,
            amount=entry.prize,
            idempotency_key=f"tournament-prize:{entry.pk}",
            memo=tournament.name,
        )
        if entry.table_id:
            play.seat_clear(table_id=entry.table_id, number=entry.seat)
        entry.table, entry.seat = None, None
        entry.save(update_fields=["place", "prize", "status", "finished_at", "table", "seat"])
    for entry in tournament.entries.filter(status__in=Entry.IN_TOURNAMENT).select_related("user"):
        cashier.tournament_entry_refund(
            user=entry.user,
            currency=tournament.currency,
            pool_ref=tournament.pool_ref,
            buy_in=0,
            fee=entry.fee,
            idempotency_key=f"tournament-refund:{entry.pk}",
            memo=tournament.name,
        )
    notice = _(
        "The tournament was cancelled by the staff: %(reason)s. The prize pool left is shared by chip "
        "counts and every fee refunded."
    ) % {"reason": reason}
    for link in links:
        link.table.is_open = False
        link.table.save(update_fields=["is_open"])
        table_services.table_message(table_id=link.table_id, staff_user=staff_user, text=notice)
        broadcast.table_send_state_on_commit(table_id=link.table_id)
    tournament.status, tournament.finished_at = Status.CANCELLED, now
    tournament.cancelled_reason = str(reason)[:200]
    tournament.save(update_fields=["status", "cancelled_reason", "finished_at"])
    staff_action_record(
        actor=staff_user,
        action="tournament.cancel_running",
        target=tournament,
        before={"status": Status.RUNNING},
        after={"status": Status.CANCELLED, "shares": {str(k): v for k, v in shares.items()}},
        note=reason,
    )
    transaction.on_commit(broadcast.lobby_mark_stale)
    return tournament
