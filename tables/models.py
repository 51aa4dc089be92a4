from django.contrib.postgres.indexes import GinIndex
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cashier.models import EUR_SESSION_CAP, Currency  # the cashier's; the table code may name them from here


class Game(models.TextChoices):
    HOLDEM = "holdem", _("Texas Hold'em")
    OMAHA = "omaha", _("Omaha")
    OMAHA_HILO = "omaha_hilo", _("Omaha Hi-Lo 8 or better")


class Structure(models.TextChoices):
    NO_LIMIT = "nl", _("No-Limit")
    POT_LIMIT = "pl", _("Pot-Limit")
    FIXED_LIMIT = "fl", _("Fixed-Limit")


# SPEC 1: the structures each game is played in.
GAME_STRUCTURES = {
    Game.HOLDEM: (Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT),
    Game.OMAHA: (Structure.POT_LIMIT,),
    Game.OMAHA_HILO: (Structure.POT_LIMIT, Structure.FIXED_LIMIT),
}
BOMB_POT_MAX_ANTE_BB = 10


class RakeSchedule(models.Model):
    """The room's rake as data (SPEC 1.2): a rate and caps by players dealt in and big blind.

    `per_unit` tables (smallest chip 1) take one chip for each whole `unit` in the pots together;
    `percent` tables take `per_mille` thousandths of the pots, rounded down to a multiple of the table's chip.
    """

    class Method(models.TextChoices):
        PER_UNIT = "per_unit", _("One chip per whole unit of pot")
        PERCENT = "percent", _("Percentage, rounded down to the chip")

    name = models.CharField(_("name"), max_length=80, unique=True)
    method = models.CharField(_("method"), max_length=16, choices=Method.choices)
    unit = models.PositiveIntegerField(
        _("unit"),
        default=18,
        validators=[MinValueValidator(1)],
        help_text=_("per_unit: pot size per chip of rake"),
    )
    per_mille = models.PositiveIntegerField(
        _("rate (per mille)"),
        default=55,
        validators=[MaxValueValidator(1000)],
        help_text=_("percent: thousandths of the pots (55 = 5.5 %)"),
    )
    no_flop_no_drop = models.BooleanField(_("no flop, no drop"), default=True)

    class Meta:
        verbose_name = _("rake schedule")
        verbose_name_plural = _("rake schedules")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.method == self.Method.PER_UNIT and (self.unit or 0) < 1:
            raise ValidationError(
                {"unit": _("A rake of one chip per whole unit needs a unit of at least 1.")}
            )


class RakeCap(models.Model):
    """One cell of the cap table: hands with `players_min`+ players dealt in at a big blind >= `big_blind_min`.

    The cap applied is the row with the highest `players_min` and then the highest `big_blind_min` that the
    hand reaches."""

    schedule = models.ForeignKey(RakeSchedule, on_delete=models.CASCADE, related_name="caps")
    players_min = models.PositiveSmallIntegerField(
        _("players dealt in, from"), validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    big_blind_min = models.PositiveIntegerField(_("big blind, from"), default=0)
    cap = models.PositiveIntegerField(_("cap"))

    class Meta:
        verbose_name = _("rake cap")
        verbose_name_plural = _("rake caps")
        ordering = ("players_min", "big_blind_min")
        constraints = [
            models.UniqueConstraint(
                fields=("schedule", "players_min", "big_blind_min"), name="rake_cap_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.players_min}+ players, big blind {self.big_blind_min}+: {self.cap}"


class Table(models.Model):
    class Kind(models.TextChoices):
        CASH = "cash", _("Cash game")
        TOURNAMENT = "tournament", _("Tournament")

    name = models.CharField(_("name"), max_length=80, unique=True)
    kind = models.CharField(
        _("kind"),
        max_length=10,
        choices=Kind.choices,
        default=Kind.CASH,
        editable=False,
        help_text="cash: stacks are the ledger's seat accounts; tournament: a tournament's own chip counts "
        "(tables.chips), seated and dealt by the tournament",
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices, default=Game.HOLDEM)
    structure = models.CharField(
        _("structure"), max_length=2, choices=Structure.choices, default=Structure.NO_LIMIT
    )
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices, default=Currency.PLAY)
    chip = models.PositiveIntegerField(_("smallest chip"), default=1, validators=[MinValueValidator(1)])
    small_blind = models.PositiveIntegerField(_("small blind"), validators=[MinValueValidator(1)])
    big_blind = models.PositiveIntegerField(_("big blind"), validators=[MinValueValidator(1)])
    ante = models.PositiveIntegerField(
        _("big-blind ante"),
        default=0,
        editable=False,
        help_text="tournament tables: the level's big-blind ante (dead money the big blind posts); 0 for none",
    )
    min_buy_in = models.PositiveIntegerField(_("minimum buy-in"), blank=True)
    max_buy_in = models.PositiveIntegerField(_("maximum buy-in"), blank=True)
    seats = models.PositiveSmallIntegerField(
        _("seats"), default=6, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    allow_straddle = models.BooleanField(_("straddle allowed"), default=False)
    bomb_pot_every = models.PositiveSmallIntegerField(
        _("bomb pot every (hands)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Every this many hands, a bomb pot: every player posts the ante and the hand starts on the "
            "flop, without blinds. Empty: no bomb pots."
        ),
    )
    bomb_pot_ante_bb = models.PositiveSmallIntegerField(
        _("bomb pot ante (big blinds)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(BOMB_POT_MAX_ANTE_BB)],
        help_text=_("What every player posts in a bomb pot, in big blinds."),
    )
    rake_schedule = models.ForeignKey(
        RakeSchedule, on_delete=models.PROTECT, null=True, blank=True, verbose_name=_("rake schedule")
    )
    action_seconds = models.PositiveSmallIntegerField(
        _("seconds to act"), default=20, validators=[MinValueValidator(5), MaxValueValidator(600)]
    )
    time_bank_seconds = models.PositiveSmallIntegerField(
        _("time bank (seconds)"),
        default=30,
        validators=[MaxValueValidator(3600)],
        help_text=_("What a player's time bank holds when they sit down."),
    )
    time_bank_max_seconds = models.PositiveSmallIntegerField(
        _("time bank maximum (seconds)"),
        default=60,
        validators=[MaxValueValidator(3600)],
        help_text=_("The refills never take a time bank above this."),
    )
    time_bank_refill_seconds = models.PositiveSmallIntegerField(
        _("time bank refill (seconds)"),
        default=5,
        validators=[MaxValueValidator(600)],
        help_text=_("Added to the time bank of every player dealt in, every so many hands. 0: no refill."),
    )
    time_bank_refill_hands = models.PositiveSmallIntegerField(
        _("time bank refill every (hands)"),
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text=_(
            "Every this many hands the table deals, the time bank of each player dealt in is refilled."
        ),
    )
    sit_out_limit_seconds = models.PositiveIntegerField(
        _("sitting out at most (seconds)"),
        default=600,
        validators=[MinValueValidator(1), MaxValueValidator(86400)],
        help_text=_(
            "A player sitting out longer loses the seat (after the hand in play); the stack goes back to "
            "the wallet."
        ),
    )
    bust_limit_seconds = models.PositiveIntegerField(
        _("busted, buy back within (seconds)"),
        default=120,
        validators=[MinValueValidator(1), MaxValueValidator(86400)],
        help_text=_("A player left with no chips who does not buy back within this time loses the seat."),
    )
    bots_allowed = models.BooleanField(_("house bots may sit"), default=False)
    is_open = models.BooleanField(_("open"), default=True)
    paused = models.BooleanField(
        _("paused"),
        default=False,
        editable=False,
        help_text="no new hand is dealt (the hand in play finishes); staff pause and resume from the table's page",
    )
    pause_notice = models.CharField(_("pause notice"), max_length=300, blank=True, default="", editable=False)
    waiting_count = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="players on the waiting list (kept with the list, under the table's lock)",
    )
    bots_made_room = models.PositiveSmallIntegerField(
        default=0,
        editable=False,
        help_text="house bots that left to make room for people, who come back later",
    )
    seq = models.BigIntegerField(
        default=0, editable=False, help_text="number of the last message the table sent"
    )
    hands_dealt = models.PositiveIntegerField(default=0, editable=False)
    settling_hand = models.ForeignKey(
        "Hand",
        null=True,
        blank=True,
        editable=False,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the hand the last action ended, told to the players and not settled yet (moments)",
    )
    positions = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="button and blinds of the last hand played (engine seats)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ("currency", "big_blind", "name")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(big_blind__gte=models.F("small_blind")), name="table_blinds"
            ),
            models.CheckConstraint(
                condition=models.Q(max_buy_in__gte=models.F("min_buy_in")), name="table_buy_in"
            ),
            models.CheckConstraint(
                condition=~models.Q(currency="eur") | models.Q(min_buy_in__lte=EUR_SESSION_CAP),
                name="table_eur_min_buy_in_within_cap",
            ),
            models.CheckConstraint(  # whoever writes the row: the room deals no other game and structure
                condition=models.Q(
                    *[models.Q(game=game, structure__in=dealt) for game, dealt in GAME_STRUCTURES.items()],
                    _connector=models.Q.OR,
                ),
                name="table_game_structure_dealt",
            ),
            models.CheckConstraint(
                condition=models.Q(bomb_pot_every__isnull=True, bomb_pot_ante_bb__isnull=True)
                | models.Q(
                    bomb_pot_every__gte=1, bomb_pot_ante_bb__gte=1, bomb_pot_ante_bb__lte=BOMB_POT_MAX_ANTE_BB
                ),
                name="table_bomb_pot",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_tournament(self) -> bool:
        return self.kind == self.Kind.TOURNAMENT

    @property
    def stakes_label(self) -> str:
        """The seeds' name for the stakes: structure and the big blind in whole units ("NL20" = 0.20 BB)."""
        return f"{self.structure.upper()}{self.big_blind}"

    @property
    def effective_max_buy_in(self) -> int:
        if self.currency == Currency.EUR:
            return min(self.max_buy_in, EUR_SESSION_CAP)
        return self.max_buy_in

    @property
    def bomb_pot_next_in(self) -> int | None:
        """Hands until the next bomb pot, the next hand counting as 1 (None: the table deals none). Bomb pots
        are the hands whose number is a multiple of `bomb_pot_every`."""
        if not self.bomb_pot_every:
            return None
        return self.bomb_pot_every - self.hands_dealt % self.bomb_pot_every

    @property
    def bomb_pot_ante_amount(self) -> int:
        """What every player posts in a bomb pot, in the smallest unit (0: the table deals none)."""
        return (self.bomb_pot_ante_bb or 0) * self.big_blind if self.bomb_pot_every else 0

    def bomb_pot_ante(self, *, hand_number: int) -> int:
        """What every player posts if hand `hand_number` is a bomb pot; 0 if it is not."""
        if not self.bomb_pot_every or hand_number % self.bomb_pot_every:
            return 0
        return self.bomb_pot_ante_amount

    def default_buy_in_bounds(self) -> tuple[int, int]:
        """30 to 100 big blinds (FL: small bets, which are the big blind here)."""
        return 30 * self.big_blind, 100 * self.big_blind

    def clean(self) -> None:
        """What the engine (tables.engine.config.HandConfig) and the ledger need of the settings staff type."""
        errors: dict[str, str] = {}
        self._clean_blinds(errors)
        self._clean_buy_in(errors)
        self._clean_game(errors)
        self._clean_bomb_pot(errors)
        if self.time_bank_seconds is not None and self.time_bank_max_seconds is not None:
            if self.time_bank_seconds > self.time_bank_max_seconds:
                errors["time_bank_max_seconds"] = _(
                    "The maximum cannot be below what the time bank starts with."
                )
        if errors:
            raise ValidationError(errors)

    def _clean_blinds(self, errors: dict) -> None:
        if not (self.small_blind and self.big_blind):
            return
        if self.small_blind > self.big_blind:
            errors["small_blind"] = _("The small blind cannot be larger than the big blind.")
        for field in ("small_blind", "big_blind"):
            if getattr(self, field) % (self.chip or 1):
                errors.setdefault(field, _("Blinds must be a multiple of the smallest chip."))
        low, high = self.default_buy_in_bounds()
        if self.min_buy_in is None:
            self.min_buy_in = low
        if self.max_buy_in is None:
            self.max_buy_in = high

    def _clean_buy_in(self, errors: dict) -> None:
        if self.min_buy_in is None or self.max_buy_in is None:
            return
        if self.big_blind and self.min_buy_in < self.big_blind:
            errors["min_buy_in"] = _("The minimum buy-in must be at least one big blind.")
        for field in ("min_buy_in", "max_buy_in"):
            if getattr(self, field) % (self.chip or 1):
                errors.setdefault(field, _("Buy-ins must be a multiple of the smallest chip."))
        if self.min_buy_in > self.max_buy_in:
            errors.setdefault("max_buy_in", _("The maximum buy-in cannot be below the minimum."))
        if self.currency == Currency.EUR and self.min_buy_in > EUR_SESSION_CAP:
            errors.setdefault(
                "min_buy_in", _("A euro table's minimum buy-in cannot exceed EUR 1,000 (the session cap).")
            )

    def _clean_game(self, errors: dict) -> None:
        allowed = GAME_STRUCTURES.get(self.game, ())
        if self.structure not in allowed:
            errors["structure"] = _("%(game)s is played %(structures)s only.") % {
                "game": Game(self.game).label if self.game in Game.values else self.game,
                "structures": ", ".join(str(Structure(s).label) for s in allowed),
            }
        if self.allow_straddle and self.structure == Structure.FIXED_LIMIT:
            errors["allow_straddle"] = _("There is no straddle in Fixed-Limit.")
        if self.bots_allowed and self.currency != Currency.PLAY:
            errors["bots_allowed"] = _("House bots sit only at play-chip tables.")

    def _clean_bomb_pot(self, errors: dict) -> None:
        if (self.bomb_pot_every is None) != (self.bomb_pot_ante_bb is None):
            field = "bomb_pot_ante_bb" if self.bomb_pot_ante_bb is None else "bomb_pot_every"
            errors.setdefault(field, _("Set both how often a bomb pot is dealt and its ante, or neither."))

    def save(self, *args, **kwargs) -> None:
        low, high = self.default_buy_in_bounds()
        if self.min_buy_in is None:
            self.min_buy_in = low
        if self.max_buy_in is None:
            self.max_buy_in = high
        if self.positions and any(seat >= self.seats for seat in self.positions.values()):
            self.positions = (
                None  # the last hand's button is no seat of this table now: the next one starts afresh
            )
        super().save(*args, **kwargs)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "seats" not in update_fields:
            return  # the number of seats did not change: no chair to add or take away
        # Fewer seats: the chairs beyond them go (staff can lower the count only while nobody sits there).
        Seat.objects.filter(table=self, number__gt=self.seats, user__isnull=True).delete()
        existing = set(self.seat_set.values_list("number", flat=True))
        Seat.objects.bulk_create(
            [Seat(table=self, number=n) for n in range(1, self.seats + 1) if n not in existing]
        )


class Seat(models.Model):
    """A chair at a table. `user` is who sits there now; the money is in the cashier's seat account."""

    class Status(models.TextChoices):
        EMPTY = "empty", _("Empty")
        WAITING_BB = "waiting_bb", _("Waiting for the big blind")
        ACTIVE = "active", _("Playing")
        SITTING_OUT = "sitting_out", _("Sitting out")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seat_set")
    number = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        "accounts.User", on_delete=models.PROTECT, null=True, blank=True, related_name="seats"
    )
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.EMPTY)
    auto_muck = models.BooleanField(_("auto-muck"), default=True)
    straddle = models.BooleanField(_("straddle when first after the big blind"), default=False)
    run_twice = models.BooleanField(_("run it twice when all in"), default=False)
    disconnected = models.BooleanField(
        default=False, help_text="every connection of the seated player to this table has closed"
    )
    sat_down_at = models.DateTimeField(null=True, blank=True)
    # What the dead-button rule needs between hands (tables.engine.positions.SeatState).
    is_new = models.BooleanField(default=True, help_text="not dealt a hand since sitting down")
    post_now = models.BooleanField(default=False, help_text="posts a big blind to enter rather than wait")
    missed_small = models.BooleanField(default=False)
    missed_big = models.BooleanField(default=False)
    just_posted_big_blind = models.BooleanField(
        default=False, help_text="tournaments: moved here having just posted the big blind at another table"
    )
    # Between-hand requests, carried out when the hand in play ends.
    sit_out_next = models.BooleanField(default=False)
    leave_after_hand = models.BooleanField(default=False)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    time_bank_ms = models.PositiveIntegerField(default=0)
    # When the player last began sitting out (None while they play): the seat comes free after the table's
    # limits (tables.services.seats_expired_release).
    sat_out_at = models.DateTimeField(null=True, blank=True)
    # Why the seat is taken from its player when the hand in play ends (RemoveReason), "" if it is not.
    remove_reason = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ("table", "number")
        constraints = [
            models.UniqueConstraint(fields=("table", "number"), name="seat_unique_number"),
            models.UniqueConstraint(
                fields=("table", "user"), condition=models.Q(user__isnull=False), name="seat_one_per_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.number}"


class RemoveReason(models.TextChoices):
    """Why a player's seat was taken from them (they are told, in the table's log and by an event)."""

    SAT_OUT = "sat_out", _("sitting out too long")
    BUSTED = "busted", _("no chips and no buy-back")
    STAFF = "staff", _("removed by the staff")
    MAKE_ROOM = "make_room", _("a house bot making room")
    CLOSED = "closed", _("the table closed")


class WaitingEntry(models.Model):
    """A player on a full table's waiting list. When a seat comes free, the first entry not yet offered one
    gets `offered_seat` until `offer_expires_at`: only they may take that seat meanwhile. An offer not taken
    in time takes the player off the list and goes to the next."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="waiting")
    user = models.ForeignKey("accounts.User", on_delete=models.CASCADE, related_name="waiting_lists")
    joined_at = models.DateTimeField(default=timezone.now)
    offered_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    offer_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("waiting list entry")
        verbose_name_plural = _("waiting lists")
        ordering = ("table", "joined_at", "id")
        constraints = [
            models.UniqueConstraint(fields=("table", "user"), name="waiting_once_per_table"),
            models.UniqueConstraint(
                fields=("table", "offered_seat"),
                condition=models.Q(offered_seat__isnull=False),
                name="waiting_one_offer_per_seat",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} waiting: {self.user}"


class Hand(models.Model):
    """One hand: its configuration and its action log are the truth; everything else is derived.

    `config` holds the deck order and `deck_secret` the salts: both stay on the server until the hand is
    over, and even then only the positions a viewer may see are opened (tables.engine.fairness)."""

    class Status(models.TextChoices):
        RUNNING = "running", _("In play")
        SETTLING = "settling", _("Ended, being settled")
        COMPLETE = "complete", _("Complete")
        CANCELLED = "cancelled", _("Cancelled, bets returned")

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField(_("hand number"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.RUNNING)
    config = models.JSONField()
    actions = models.JSONField(default=list)
    players = models.JSONField(help_text="engine seat -> {user, name, bot, session}")
    deck_secret = models.JSONField()
    hole_cards = models.JSONField(default=dict, help_text="engine seat -> cards; each goes to its owner only")
    commitment = models.CharField(_("deck commitment"), max_length=64)
    to_act = models.SmallIntegerField(null=True, blank=True, help_text="engine seat")
    deadline = models.DateTimeField(null=True, blank=True)
    time_bank_used = models.BooleanField(default=False)
    result = models.JSONField(null=True, blank=True)
    # For the lobby's figures: the pots together (gross), players dealt in, players who saw the flop.
    pot_total = models.BigIntegerField(default=0)
    players_dealt = models.PositiveSmallIntegerField(default=0)
    players_saw_flop = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        ordering = ("-id",)
        constraints = [
            models.UniqueConstraint(fields=("table", "number"), name="hand_number_unique"),
            models.UniqueConstraint(
                fields=("table",), condition=models.Q(status="running"), name="hand_one_running_per_table"
            ),
        ]
        indexes = [
            models.Index(fields=("status", "deadline")),
            # "My hands": the hands whose players include a user (a jsonpath test, tables.history.selectors).
            GinIndex(fields=("players",), opclasses=("jsonb_path_ops",), name="hand_players_paths"),
        ]

    def __str__(self) -> str:
        # The number players see at the table, in their history and in the downloads is the hand's id
        # ("Hand #324"); `number` counts the table's own hands and is shown as such.
        return _("%(table)s, hand #%(number)d") % {"table": self.table, "number": self.pk}

    @property
    def action_no(self) -> int:
        return len(self.actions)


class ChatLine(models.Model):
    """A line of a table's chat, kept so that whoever joins or reloads sees the last lines."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_lines")
    user = models.ForeignKey(
        "accounts.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    name = models.CharField(_("player"), max_length=150)
    bot = models.BooleanField(default=False)
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    text = models.CharField(_("text"), max_length=300)
    created_at = models.DateTimeField(_("written at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat line")
        verbose_name_plural = _("chat lines")
        ordering = ("-id",)
        indexes = [models.Index(fields=("table", "-id"), name="chat_line_table_recent")]

    def __str__(self) -> str:
        return f"{self.name}: {self.text}"


class ChatMute(models.Model):
    """A player staff have muted: their chat lines are refused at every table until staff lift it."""

    user = models.OneToOneField(
        "accounts.User", on_delete=models.CASCADE, related_name="chat_mute", verbose_name=_("player")
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    muted_by = models.ForeignKey(
        "accounts.User",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("muted by"),
    )
    created_at = models.DateTimeField(_("muted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return str(self.user)


class PayoutGame(models.TextChoices):
    """The lines of the payout statistics: each cash game, and tournaments as a line of their own."""

    HOLDEM = Game.HOLDEM.value, Game.HOLDEM.label
    OMAHA = Game.OMAHA.value, Game.OMAHA.label
    OMAHA_HILO = Game.OMAHA_HILO.value, Game.OMAHA_HILO.label
    TOURNAMENT = "tournament", _("Tournaments")


class PayoutDay(models.Model):
    """One day's payout figures (SPEC 3) for one game type and currency, computed from the ledger by
    `tables.payout.services.payout_days_compute` (as often as wanted: it replaces the day's rows), so the
    public page reads a few rows instead of scanning hands. People only: house bots' money never counts.

    Cash games: `put_in` is what people put into pots (uncalled bets excluded) and `paid_back` that less the
    rake attributed to them; tournaments: buy-ins and fees, and prizes. Payout = paid_back / put_in."""

    day = models.DateField(_("day"))
    game = models.CharField(_("game"), max_length=16, choices=PayoutGame.choices)
    currency = models.CharField(_("currency"), max_length=4, choices=Currency.choices)
    put_in = models.BigIntegerField(_("put in by players"))
    paid_back = models.BigIntegerField(_("paid back to players"))
    count = models.PositiveIntegerField(_("hands or entries"))
    computed_at = models.DateTimeField(_("computed at"), auto_now=True)

    class Meta:
        verbose_name = _("payout statistics day")
        verbose_name_plural = _("payout statistics")
        ordering = ("-day", "currency", "game")
        constraints = [
            models.UniqueConstraint(fields=("day", "game", "currency"), name="payout_day_unique"),
            models.CheckConstraint(
                condition=models.Q(put_in__gte=0, paid_back__gte=0), name="payout_day_amounts"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.game} {self.currency}"
