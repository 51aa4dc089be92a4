"""The admin's forms for tables and rake schedules.

Each checks what the engine and the ledger will need (the models' own `clean`, then a hand configured from
the settings, as the deal would configure it), and refuses, with the reason, a change that a table with
players cannot take: seats, currency, game, structure, blinds, the smallest chip and the rake schedule of
a table anyone sits at, and the rule or caps of a rake schedule such a table uses (docs/staff.md). Staff
change them once the table is empty. The table rows are locked while the form is checked and saved (the
admin saves in one transaction), so a player sitting down waits for the save and sees the new settings.

A table an older edit left unable to deal (tables.selectors.table_faults) may be repaired while its
players sit, as long as the repair seats them all in their own currency."""

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, Q
from django.forms.models import BaseInlineFormSet
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from cashier.forms import MoneyField
from cashier.models import SeatSession
from tables.engine.cards import FULL_DECK
from tables.engine.config import ConfigError, HandConfig, PostKind
from tables.models import RakeCap, RakeSchedule, Seat, Table
from tables.selectors import rake_schedule_for, table_faults, table_people_seated

LIVE_FIXED_FIELDS = (
    "seats",
    "currency",
    "game",
    "structure",
    "small_blind",
    "big_blind",
    "chip",
    "rake_schedule",
)
SCHEDULE_RULE_FIELDS = ("method", "unit", "per_mille", "no_flop_no_drop")
NAMES_SHOWN = 5


def names_listed(names: list[str]) -> str:
    if len(names) <= NAMES_SHOWN:
        return ", ".join(names)
    rest = len(names) - NAMES_SHOWN
    return ngettext("%(names)s and %(count)d more", "%(names)s and %(count)d more", rest) % {
        "names": ", ".join(names[:NAMES_SHOWN]),
        "count": rest,
    }


def table_engine_refusal(*, table: Table) -> str | None:
    """Why the engine would refuse to deal a hand with `table`'s settings (None: it would deal): a heads-up
    hand at the maximum buy-in, configured as the deal configures it."""
    stack = max(table.max_buy_in or 0, table.big_blind or 0, 1)
    fixed = table.structure == "fl"
    try:
        HandConfig(
            variant=table.game,
            structure=table.structure,
            seat_count=table.seats,
            stacks={0: stack, 1: stack},
            button=0,
            small_blind=table.small_blind,
            big_blind=table.big_blind,
            deck=FULL_DECK,
            posts=((0, PostKind.SMALL_BLIND), (1, PostKind.BIG_BLIND)),
            chip=table.chip,
            small_bet=table.big_blind if fixed else None,
            big_bet=2 * table.big_blind if fixed else None,
            rake=rake_schedule_for(table=table),
        )
    except (ConfigError, ValueError) as refused:
        return str(refused)
    return None


def money_field(label, *, required: bool = True, allow_zero: bool = False, help_text: str = "") -> MoneyField:
    return MoneyField(label=capfirst(label), required=required, allow_zero=allow_zero, help_text=help_text)


UNITS_HELP = gettext_lazy(
    "In euros or chips with two decimals: 0.50 is half a euro (50 cents), or 50 play chips."
)


class TableAdminForm(forms.ModelForm):
    chip = money_field(gettext_lazy("smallest chip"), help_text=UNITS_HELP)
    small_blind = money_field(gettext_lazy("small blind"), help_text=UNITS_HELP)
    big_blind = money_field(gettext_lazy("big blind"), help_text=UNITS_HELP)
    min_buy_in = money_field(
        gettext_lazy("minimum buy-in"), required=False, help_text=gettext_lazy("Empty: 30 big blinds.")
    )
    max_buy_in = money_field(
        gettext_lazy("maximum buy-in"),
        required=False,
        help_text=gettext_lazy("Empty: 100 big blinds (a euro table at most 1,000.00)."),
    )

    class Meta:
        model = Table
        fields = (
            "name",
            "game",
            "structure",
            "currency",
            "chip",
            "small_blind",
            "big_blind",
            "min_buy_in",
            "max_buy_in",
            "seats",
            "allow_straddle",
            "bomb_pot_every",
            "bomb_pot_ante_bb",
            "rake_schedule",
            "action_seconds",
            "time_bank_seconds",
            "time_bank_max_seconds",
            "time_bank_refill_seconds",
            "time_bank_refill_hands",
            "sit_out_limit_seconds",
            "bust_limit_seconds",
            "bots_allowed",
            "is_open",
        )

    # Left empty, the seat limits take their defaults (10 minutes sitting out, 2 minutes to buy back), and so
    # do the time bank's refill settings (the fields' help says them).
    SEAT_LIMITS = ("sit_out_limit_seconds", "bust_limit_seconds")
    TIME_BANK_REFILL_FIELDS = ("time_bank_max_seconds", "time_bank_refill_seconds", "time_bank_refill_hands")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in (*self.SEAT_LIMITS, *self.TIME_BANK_REFILL_FIELDS):
            if name in self.fields:
                self.fields[name].required = False

    def clean_sit_out_limit_seconds(self):
        return self._seat_limit("sit_out_limit_seconds")

    def clean_bust_limit_seconds(self):
        return self._seat_limit("bust_limit_seconds")

    def _seat_limit(self, name: str) -> int:
        value = self.cleaned_data.get(name)
        return Table._meta.get_field(name).default if value is None else value

    def clean(self):
        data = super().clean()
        for name in self.TIME_BANK_REFILL_FIELDS:
            if name in self.fields and data.get(name) is None and name not in self.errors:
                data[name] = Table._meta.get_field(name).default
                setattr(self.instance, name, data[name])
        changed = [field for field in LIVE_FIXED_FIELDS if field in self.changed_data]
        if self.instance.pk and changed:
            self._live_changes_check(changed, data)
        return data

    def _live_changes_check(self, changed: list[str], data: dict) -> None:
        table = (
            Table.objects.select_for_update(of=("self",))
            .select_related("rake_schedule")
            .get(pk=self.instance.pk)
        )
        people = table_people_seated(table=table)
        if not people:
            return
        if table_faults(table=table):
            self._repair_check(table, data)
            return
        reason = _(
            "This cannot change while players are seated (%(players)s). Close the table, and change it "
            "once everyone has left."
        ) % {"players": names_listed(people)}
        for field in changed:
            self.add_error(field, reason)

    def _repair_check(self, table: Table, data: dict) -> None:
        """A table an older edit broke is being repaired while players sit: it must seat them all, in the
        currency their chips are in."""
        highest = max(
            Seat.objects.filter(table=table, user__isnull=False).values_list("number", flat=True), default=0
        )
        if data.get("seats") is not None and data["seats"] < highest:
            self.add_error(
                "seats",
                _("Players sit at seat %(seat)s: the table needs at least %(seat)s seats.")
                % {"seat": highest},
            )
        currencies = set(
            SeatSession.objects.filter(table=table, closed_at__isnull=True).values_list("currency", flat=True)
        )
        if data.get("currency") and currencies - {data["currency"]}:
            self.add_error(
                "currency",
                _("The seated players' chips are in %(currency)s.")
                % {"currency": ", ".join(sorted(currencies))},
            )

    def _post_clean(self):
        super()._post_clean()
        if not self.errors:
            refusal = table_engine_refusal(table=self.instance)
            if refusal is not None:
                self.add_error(
                    None, _("No hand could be dealt with these settings: %(reason)s") % {"reason": refusal}
                )


def schedule_in_use_refusal(*, schedule: RakeSchedule) -> str | None:
    """Why `schedule`'s rule and caps cannot change now: tables that use it have players (their rows are
    locked until the caller's transaction ends). None when nobody sits at such a table, or when the schedule
    as stored cannot work out a rake anyway (a repair)."""
    stored = RakeSchedule.objects.get(pk=schedule.pk)
    try:
        stored.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError:
        return None
    seated = Seat.objects.filter(table=OuterRef("pk"), user__isnull=False)
    chips = SeatSession.objects.filter(table=OuterRef("pk"), closed_at__isnull=True)
    live = list(
        Table.objects.select_for_update(of=("self",))
        .filter(rake_schedule=schedule)
        .filter(Q(Exists(seated)) | Q(Exists(chips)))
        .order_by("name")
        .values_list("name", flat=True)
    )
    if not live:
        return None
    return _(
        "Tables with players seated use this schedule (%(tables)s): its rule and caps cannot change now. "
        'Copy it (the "Copy" action of the list), change the copy, and give it to each table once the table '
        "is empty."
    ) % {"tables": names_listed(live)}


class RakeScheduleAdminForm(forms.ModelForm):
    unit = money_field(
        gettext_lazy("unit"),
        help_text=gettext_lazy(
            "One chip of rake for each whole unit of the pots together: 0.18 takes 0.01 per whole 0.18."
        ),
    )

    class Meta:
        model = RakeSchedule
        fields = ("name", "method", "unit", "per_mille", "no_flop_no_drop")

    def clean(self):
        data = super().clean()
        changed = [field for field in SCHEDULE_RULE_FIELDS if field in self.changed_data]
        if self.instance.pk and changed:
            refusal = schedule_in_use_refusal(schedule=self.instance)
            if refusal is not None:
                for field in changed:
                    self.add_error(field, refusal)
        return data


class RakeCapForm(forms.ModelForm):
    big_blind_min = money_field(gettext_lazy("big blind, from"), allow_zero=True)
    cap = money_field(gettext_lazy("cap"), allow_zero=True)

    class Meta:
        model = RakeCap
        fields = ("players_min", "big_blind_min", "cap")


class RakeCapFormSet(BaseInlineFormSet):
    """The caps of a schedule: refused as a whole while tables with players use the schedule."""

    def clean(self):
        super().clean()
        if self.instance.pk is None or not any(form.has_changed() for form in self.forms):
            return
        refusal = schedule_in_use_refusal(schedule=self.instance)
        if refusal is not None:
            raise ValidationError(refusal)
