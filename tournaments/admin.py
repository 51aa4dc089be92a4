"""Staff edit tournaments, blind structures and payout tables as data; entries are read-only (money moved
through the ledger); a tournament that has not started can be cancelled with refunds. The buy-in, the fee and the
prizes are money in the tournament's currency ("€ 2.50", typed "2.50" or "2,50"); chips are plain counts
(tournaments.forms)."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.audit import staff_action_record
from cashier.errors import CashierError
from cashier.templatetags.money import format_amount
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.forms import (
    BlindLevelForm,
    BlindLevelFormSet,
    PayoutBandFormSet,
    TournamentAdminForm,
    chip_count,
)
from tournaments.models import (
    BlindLevel,
    BlindStructure,
    Entry,
    PayoutBand,
    PayoutTable,
    Tournament,
    TournamentTable,
)


def _copy_name(model, name: str) -> str:
    for number in range(1, 1000):
        label = _("copy") if number == 1 else _("copy %(number)d") % {"number": number}
        candidate = f"{name[:60]} ({label})"
        if not model.objects.filter(name=candidate).exists():
            return candidate
    raise ValueError("no free name for a copy")


class _CopyAdmin(admin.ModelAdmin):
    """Blind structures and payout tables: what tournaments registering or running use cannot change (their
    inline formsets refuse it with the reason), so staff copy one, edit the copy and choose it for new
    tournaments. A row any tournament ever used cannot be deleted (the delete button is not offered)."""

    actions = ["copy"]
    rows_name = ""  # the related name of the rows copied with it
    parent_field = ""  # their foreign key to it
    audit_action = ""

    def has_delete_permission(self, request, obj=None):
        if obj is not None and self._used(obj):
            return False
        return super().has_delete_permission(request, obj)

    def _used(self, obj) -> bool:
        raise NotImplementedError

    @admin.action(description=gettext_lazy("Copy the selected rows with their levels or bands"))
    def copy(self, request, queryset):
        with transaction.atomic():
            for original in queryset:
                rows = list(getattr(original, self.rows_name).all())
                name = original.name
                original.pk, original.name = None, _copy_name(type(original), name)
                original.save()
                for row in rows:
                    row.pk = None
                    setattr(row, row._meta.get_field(self.parent_field).name, original)
                if rows:
                    type(rows[0]).objects.bulk_create(rows)
                staff_action_record(
                    actor=request.user,
                    action=self.audit_action,
                    target=original,
                    after={"name": original.name},
                    note=name,
                )
                self.message_user(request, _("Copied as “%(name)s”.") % {"name": original.name})


class BlindLevelInline(admin.TabularInline):
    model = BlindLevel
    form = BlindLevelForm
    formset = BlindLevelFormSet
    extra = 0


@admin.register(BlindStructure)
class BlindStructureAdmin(_CopyAdmin):
    list_display = ("name", "speed", "shown_starting_stack")
    inlines = [BlindLevelInline]
    rows_name, parent_field, audit_action = "levels", "structure", "blind_structure.copy"

    @admin.display(description=gettext_lazy("starting stack"), ordering="starting_stack")
    def shown_starting_stack(self, obj):
        return chip_count(obj.starting_stack)

    def _used(self, obj) -> bool:
        return Tournament.objects.filter(blind_structure=obj).exists()


class PayoutBandInline(admin.TabularInline):
    model = PayoutBand
    formset = PayoutBandFormSet
    extra = 0


@admin.register(PayoutTable)
class PayoutTableAdmin(_CopyAdmin):
    list_display = ("name",)
    inlines = [PayoutBandInline]
    rows_name, parent_field, audit_action = "bands", "payout_table", "payout_table.copy"

    def _used(self, obj) -> bool:
        return Tournament.objects.filter(payout_table=obj).exists()


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("user", "status", "shown_chips", "place", "shown_prize", "table", "seat", "registered_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("chips"))
    def shown_chips(self, obj):
        return chip_count(obj.chips)

    @admin.display(description=gettext_lazy("prize"))
    def shown_prize(self, obj):
        return "" if obj.prize is None else format_amount(obj.prize, obj.tournament.currency)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    """Entries, read-only, found by tournament or player; one not started can be removed with its refund."""

    list_display = ("tournament", "user", "status", "place", "shown_prize", "registered_at")
    list_filter = ("status", ("tournament", admin.RelatedOnlyFieldListFilter))
    search_fields = ("user__username", "user__email", "tournament__name")
    list_select_related = ("tournament", "user")
    actions = ["remove_with_refund"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("prize"))
    def shown_prize(self, obj):
        return "" if obj.prize is None else format_amount(obj.prize, obj.tournament.currency)

    def has_remove_permission(self, request) -> bool:
        """Removing an entry moves money: staff who may change tournaments."""
        return request.user.has_perm("tournaments.change_tournament")

    @admin.action(
        description=gettext_lazy("Remove the selected entries and refund them (tournaments not started)"),
        permissions=["remove"],
    )
    def remove_with_refund(self, request, queryset):
        for entry in queryset:
            try:
                services.entry_remove(entry_id=entry.pk, staff_user=request.user)
            except (TournamentError, CashierError) as error:
                self.message_user(request, f"{entry}: {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(entry)s removed; buy-in and fee refunded.") % {"entry": entry},
                    messages.SUCCESS,
                )


class TournamentTableInline(admin.TabularInline):
    """The tournament's tables (room tables dealt by its floor): read-only."""

    model = TournamentTable
    fields = ("number", "table", "round", "broken")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = (
        "name",
        "kind",
        "status",
        "currency",
        "shown_buy_in",
        "shown_fee",
        "shown_starting_stack",
        "max_entrants",
        "starts_at",
        "practice",
    )
    list_filter = ("status", "kind", "currency", "practice")
    search_fields = ("name",)
    readonly_fields = ("status", "level", "level_started_at", "started_at", "finished_at", "cancelled_reason")
    inlines = [TournamentTableInline, EntryInline]
    actions = ["cancel_with_refunds"]

    @admin.display(description=gettext_lazy("buy-in"), ordering="buy_in")
    def shown_buy_in(self, obj):
        return format_amount(obj.buy_in, obj.currency)

    @admin.display(description=gettext_lazy("fee"), ordering="fee")
    def shown_fee(self, obj):
        return format_amount(obj.fee, obj.currency)

    @admin.display(description=gettext_lazy("starting stack"), ordering="starting_stack")
    def shown_starting_stack(self, obj):
        return chip_count(obj.starting_stack)

    @admin.action(
        description=gettext_lazy(
            "Cancel the selected tournaments: not started, every entry refunded; running, the pool left shared "
            "by chip counts and every fee refunded"
        )
    )
    def cancel_with_refunds(self, request, queryset):
        for tournament in queryset:
            try:
                services.tournament_cancel(
                    tournament_id=tournament.pk, reason=_("Cancelled by staff"), staff_user=request.user
                )
            except (TournamentError, CashierError) as error:
                self.message_user(request, f"{tournament}: {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(name)s cancelled; every entry refunded.") % {"name": tournament},
                    messages.SUCCESS,
                )
