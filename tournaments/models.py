"""Tournaments as data (SPEC 1.3): blind structures and payout tables that staff edit in the admin, the
tournaments themselves and their entries.

The rules these rows feed are pure code in `tournaments.rules`; each model below turns its rows into the
rules' frozen objects (`schedule()`), so a row that cannot be played is refused in the admin with the rules'
own reason. Money (buy-ins, fees, prizes) is in the cashier's ledger: an entry records what its player paid,
so a refund returns exactly that. Chips are not money: an entry's `chips` are the tournament's own counts."""

from decimal import Decimal

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tables.models import Currency, Game, Structure
from tournaments.rules.payouts import SHARE_TOTAL, PayoutError, PayoutSchedule
from tournaments.rules.payouts import PayoutBand as RulesPayoutBand
from tournaments.rules.structures import BlindSchedule, Level, Speed, StructureError


class BlindStructure(models.Model):
    """Levels of blinds and antes with their lengths; `speed` names the family (regular 10 minutes a level,
    turbo 5, hyper-turbo 2-3) and `starting_stack` is the stack a tournament on it starts with by default."""

    class Speed(models.TextChoices):
        REGULAR = Speed.REGULAR.value, _("Regular")
        TURBO = Speed.TURBO.value, _("Turbo")
        HYPER = Speed.HYPER.value, _("Hyper-turbo")

    name = models.CharField(_("name"), max_length=80, unique=True)
    speed = models.CharField(_("speed"), max_length=8, choices=Speed.choices, default=Speed.REGULAR)
    starting_stack = models.PositiveIntegerField(
        _("starting stack"), default=3_000, validators=[MinValueValidator(1)]
    )

    class Meta:
        verbose_name = _("blind structure")
        verbose_name_plural = _("blind structures")
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def schedule(self) -> BlindSchedule:
        return BlindSchedule(levels=tuple(level.rules() for level in self.levels.order_by("number")))


class BlindLevel(models.Model):
    structure = models.ForeignKey(
        BlindStructure, on_delete=models.CASCADE, related_name="levels", verbose_name=_("blind structure")
    )
    number = models.PositiveSmallIntegerField(_("level"), validators=[MinValueValidator(1)])
    small_blind = models.PositiveIntegerField(_("small blind"))
    big_blind = models.PositiveIntegerField(_("big blind"), validators=[MinValueValidator(1)])
    ante = models.PositiveIntegerField(
        _("big-blind ante"),
        default=0,
        help_text=_("Posted by the big blind for the whole table; 0 for none."),
    )
    seconds = models.PositiveIntegerField(_("length (seconds)"), validators=[MinValueValidator(1)])

    class Meta:
        verbose_name = _("blind level")
        verbose_name_plural = _("blind levels")
        ordering = ("structure", "number")
        constraints = [
            models.UniqueConstraint(fields=("structure", "number"), name="blind_level_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.number}: {self.small_blind}/{self.big_blind}"

    def rules(self) -> Level:
        return Level(self.small_blind, self.big_blind, self.ante, self.seconds)

    def clean(self) -> None:
        try:
            self.rules()
        except StructureError:
            raise ValidationError(_("The small blind cannot be larger than the big blind.")) from None


class PayoutTable(models.Model):
    """How a prize pool is paid, by number of entrants (bands of rows)."""

    name = models.CharField(_("name"), max_length=80, unique=True)

    class Meta:
        verbose_name = _("payout table")
        verbose_name_plural = _("payout tables")
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def schedule(self) -> PayoutSchedule:
        return PayoutSchedule(bands=tuple(band.rules() for band in self.bands.all()))


def percent_to_shares(percentages) -> tuple[int, ...]:
    """Percentages with up to three decimals (Decimal) as the rules' shares (thousandths of a percent)."""
    return tuple(int(Decimal(p) * (SHARE_TOTAL // 100)) for p in percentages)


class PayoutBand(models.Model):
    payout_table = models.ForeignKey(
        PayoutTable, on_delete=models.CASCADE, related_name="bands", verbose_name=_("payout table")
    )
    entrants_min = models.PositiveIntegerField(_("entrants from"), validators=[MinValueValidator(2)])
    entrants_max = models.PositiveIntegerField(_("entrants to"), validators=[MinValueValidator(2)])
    percentages = ArrayField(
        models.DecimalField(max_digits=6, decimal_places=3),
        verbose_name=_("percent of the pool, by place"),
        help_text=_("First place first, separated by commas, adding up to 100: e.g. 50,30,20."),
    )

    class Meta:
        verbose_name = _("payout band")
        verbose_name_plural = _("payout bands")
        ordering = ("payout_table", "entrants_min")

    def __str__(self) -> str:
        return f"{self.entrants_min}-{self.entrants_max}"

    def rules(self) -> RulesPayoutBand:
        return RulesPayoutBand(
            self.entrants_min, self.entrants_max, percent_to_shares(self.percentages or ())
        )

    def clean(self) -> None:
        if self.entrants_min and self.entrants_max and self.entrants_min > self.entrants_max:
            raise ValidationError(_("The band's first number of entrants is above its last."))
        if any(Decimal(p).as_tuple().exponent < -3 for p in self.percentages or ()):
            raise ValidationError({"percentages": _("Percentages have at most three decimals.")})
        try:
            self.rules()
        except PayoutError:
            raise ValidationError(
                {
                    "percentages": _(
                        "The percentages must be positive, never rise from one place to the next, add up to 100 and pay "
                        "no more places than there are entrants."
                    )
                }
            ) from None


class Tournament(models.Model):
    class Kind(models.TextChoices):
        SIT_AND_GO = "sng", _("Sit-and-go")
        MULTI_TABLE = "mtt", _("Multi-table")

    class Status(models.TextChoices):
        REGISTERING = "registering", _("Registering")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=3, choices=Kind.choices, default=Kind.SIT_AND_GO)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices, default=Game.HOLDEM)
    structure = models.CharField(
        _("structure"), max_length=2, choices=Structure.choices, default=Structure.NO_LIMIT
    )
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices, default=Currency.PLAY)
    buy_in = models.PositiveIntegerField(
        _("buy-in"), help_text=_("To the prize pool, in cents (play chips: hundredths).")
    )
    fee = models.PositiveIntegerField(
        _("fee"), default=0, help_text=_("To the room, in cents (play chips: hundredths).")
    )
    starting_stack = models.PositiveIntegerField(_("starting stack"), validators=[MinValueValidator(1)])
    seats_per_table = models.PositiveSmallIntegerField(
        _("seats per table"), default=9, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    blind_structure = models.ForeignKey(
        BlindStructure, on_delete=models.PROTECT, related_name="+", verbose_name=_("blind structure")
    )
    payout_table = models.ForeignKey(
        PayoutTable, on_delete=models.PROTECT, related_name="+", verbose_name=_("payout table")
    )
    min_entrants = models.PositiveIntegerField(
        _("minimum entrants"), default=2, validators=[MinValueValidator(2)]
    )
    max_entrants = models.PositiveIntegerField(_("maximum entrants"), validators=[MinValueValidator(2)])
    starts_at = models.DateTimeField(
        _("starts at"),
        null=True,
        blank=True,
        help_text=_("Multi-table only; a sit-and-go starts when it is full."),
    )
    late_registration_levels = models.PositiveSmallIntegerField(
        _("late registration until level"),
        default=0,
        help_text=_("Multi-table only; 0: none after the start."),
    )
    practice = models.BooleanField(_("practice (house bots fill it)"), default=False)
    action_seconds = models.PositiveSmallIntegerField(_("seconds to act"), default=15)
    time_bank_seconds = models.PositiveSmallIntegerField(_("time bank (seconds)"), default=30)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.REGISTERING, editable=False
    )
    level = models.PositiveSmallIntegerField(
        _("level"),
        default=0,
        editable=False,
        help_text="the blind level in force, from 1; 0 before the start",
    )
    level_started_at = models.DateTimeField(null=True, blank=True, editable=False)
    hand_for_hand_round = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="the hand-for-hand round the tables deal in; 0 when not hand-for-hand",
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True, editable=False)
    cancelled_reason = models.CharField(
        _("why cancelled"), max_length=200, blank=True, default="", editable=False
    )

    # Changing any of these would make the entries already paid wrong (refunds, the pool, the chips).
    FROZEN_ONCE_REGISTERED = (
        "kind",
        "currency",
        "buy_in",
        "fee",
        "starting_stack",
        "max_entrants",
        "payout_table",
    )

    # Changing any of these while the tables deal would change a tournament in play (its clock, its tables,
    # who may still enter); before the start they may change.
    FROZEN_ONCE_STARTED = ("blind_structure", "seats_per_table", "late_registration_levels")

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ("status", "starts_at", "id")
        constraints = [
            models.CheckConstraint(
                condition=Q(max_entrants__gte=models.F("min_entrants")), name="tournament_entrants_bounds"
            ),
            models.CheckConstraint(
                condition=Q(kind="sng") | Q(starts_at__isnull=False), name="tournament_mtt_scheduled"
            ),
            models.CheckConstraint(
                condition=Q(currency="play") | Q(practice=False), name="tournament_practice_play_chips"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def pool_ref(self) -> str:
        """The `ref` of the tournament's prize-pool account in the ledger."""
        return f"tournament:{self.pk}"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.kind == self.Kind.SIT_AND_GO:
            if self.seats_per_table and self.max_entrants != self.seats_per_table:
                errors["max_entrants"] = _("A sit-and-go is one table: its maximum entrants are its seats.")
            self.min_entrants = self.max_entrants or self.min_entrants
            if self.late_registration_levels:
                errors["late_registration_levels"] = _("A sit-and-go starts when full: no late registration.")
        else:
            if self.starts_at is None:
                errors["starts_at"] = _("A multi-table tournament needs a start time.")
            if self.seats_per_table is not None and self.seats_per_table < 3:
                errors["seats_per_table"] = _("Tables of a multi-table tournament seat at least three.")
        if self.min_entrants and self.max_entrants and self.min_entrants > self.max_entrants:
            errors["min_entrants"] = _("The minimum entrants cannot be above the maximum.")
        if self.practice and self.currency != Currency.PLAY:
            errors["practice"] = _("Practice tournaments are played for play chips.")
        errors.update(self._payouts_cover_errors())
        errors.update(self._frozen_errors())
        if errors:
            raise ValidationError(errors)

    def _payouts_cover_errors(self) -> dict[str, str]:
        if not self.payout_table_id or not self.min_entrants or not self.max_entrants:
            return {}
        try:
            schedule = self.payout_table.schedule()
        except PayoutError:
            return {"payout_table": _("This payout table's bands leave gaps or overlap.")}
        if schedule.entrants_min > self.min_entrants or schedule.entrants_max < self.max_entrants:
            return {
                "payout_table": _(
                    "This payout table pays %(low)s to %(high)s entrants, not %(min)s to %(max)s."
                )
                % {
                    "low": schedule.entrants_min,
                    "high": schedule.entrants_max,
                    "min": self.min_entrants,
                    "max": self.max_entrants,
                }
            }
        return {}

    def _frozen_errors(self) -> dict[str, str]:
        if self.pk is None:
            return {}
        stored = (
            Tournament.objects.filter(pk=self.pk)
            .values("status", *self.FROZEN_ONCE_REGISTERED, *self.FROZEN_ONCE_STARTED)
            .first()
            or {}
        )
        key = {"payout_table": "payout_table_id", "blind_structure": "blind_structure_id"}
        changed = {
            name
            for name in (*self.FROZEN_ONCE_REGISTERED, *self.FROZEN_ONCE_STARTED)
            if name in stored and stored[name] != getattr(self, key.get(name, name))
        }
        errors = {}
        if stored.get("status", self.Status.REGISTERING) != self.Status.REGISTERING:
            errors = {
                name: _("The tournament has started: this can no longer change.")
                for name in self.FROZEN_ONCE_STARTED
                if name in changed
            }
        if self.entries.exists():
            errors.update(
                {
                    name: _("Players have registered: this can no longer change.")
                    for name in self.FROZEN_ONCE_REGISTERED
                    if name in changed
                }
            )
        return errors

    def save(self, *args, **kwargs) -> None:
        if self.kind == self.Kind.SIT_AND_GO and self.max_entrants:
            self.min_entrants = self.max_entrants
        super().save(*args, **kwargs)


class Entry(models.Model):
    """One player's entry: what they paid, their chips, and where they finished and what they won."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        UNREGISTERED = "unregistered", _("Unregistered, refunded")
        REFUNDED = "refunded", _("Tournament cancelled, refunded")

    IN_TOURNAMENT = (Status.REGISTERED, Status.PLAYING, Status.FINISHED)

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="entries", verbose_name=_("tournament")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
        verbose_name=_("player"),
    )
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.REGISTERED)
    buy_in = models.PositiveIntegerField(_("buy-in paid"))
    fee = models.PositiveIntegerField(_("fee paid"))
    chips = models.BigIntegerField(_("chips"), default=0)
    place = models.PositiveIntegerField(_("finishing place"), null=True, blank=True)
    prize = models.BigIntegerField(_("prize"), null=True, blank=True)
    table = models.ForeignKey(
        "tables.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("table"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    registered_at = models.DateTimeField(_("registered at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ("tournament", "place", "-chips", "id")
        constraints = [
            models.UniqueConstraint(
                fields=("tournament", "user"),
                condition=Q(status__in=("registered", "playing", "finished")),
                name="entry_one_per_player",
            ),
            models.CheckConstraint(condition=Q(chips__gte=0), name="entry_chips_not_negative"),
            models.UniqueConstraint(
                fields=("table", "seat"),
                condition=Q(status="playing", table__isnull=False),
                name="entry_one_per_seat",
            ),
        ]
        indexes = [models.Index(fields=("tournament", "status"), name="entry_tournament_status")]

    def __str__(self) -> str:
        return f"{self.tournament} · {self.user}"


class TournamentTable(models.Model):
    """One of a tournament's tables: a room table (`Table.kind` tournament) dealt by the same services, its
    number in the tournament, the seat the draw gave its first button, the last hand-for-hand round it dealt
    in, and whether it was broken (its players moved to the others; the table is closed)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="tables", verbose_name=_("tournament")
    )
    table = models.OneToOneField(
        "tables.Table", on_delete=models.PROTECT, related_name="tournament_table", verbose_name=_("table")
    )
    number = models.PositiveSmallIntegerField(_("table number"))
    first_button = models.PositiveSmallIntegerField(null=True, blank=True, help_text="engine seat")
    round = models.PositiveIntegerField(default=0)
    broken = models.BooleanField(_("broken"), default=False)

    class Meta:
        verbose_name = _("tournament table")
        verbose_name_plural = _("tournament tables")
        ordering = ("tournament", "number")
        constraints = [
            models.UniqueConstraint(fields=("tournament", "number"), name="tournament_table_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · {self.number}"
