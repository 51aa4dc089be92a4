"""Staff edit tournaments, blind structures and payout tables as data; entries are read-only (money moved
through the ledger); a tournament that has not started can be cancelled with refunds. The buy-in, the fee and the
prizes are money in the tournament's currency ("€ 2.50", typed "2.50" or "2,50"); chips are plain counts
(tournaments.forms)."""

from django.contrib import admin, messages
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cashier.errors import CashierError
from cashier.templatetags.money import format_amount
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.forms import BlindLevelForm, TournamentAdminForm, chip_count
from tournaments.models import (
    BlindLevel,
    BlindStructure,
    Entry,
    PayoutBand,
    PayoutTable,
    Tournament,
    TournamentTable,
)


class BlindLevelInline(admin.TabularInline):
    model = BlindLevel
    form = BlindLevelForm
    extra = 0


@admin.register(BlindStructure)
class BlindStructureAdmin(admin.ModelAdmin):
    list_display = ("name", "speed", "shown_starting_stack")
    inlines = [BlindLevelInline]

    @admin.display(description=gettext_lazy("starting stack"), ordering="starting_stack")
    def shown_starting_stack(self, obj):
        return chip_count(obj.starting_stack)


class PayoutBandInline(admin.TabularInline):
    model = PayoutBand
    extra = 0


@admin.register(PayoutTable)
class PayoutTableAdmin(admin.ModelAdmin):
    list_display = ("name",)
    inlines = [PayoutBandInline]


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

    @admin.action(description=gettext_lazy("Cancel the selected tournaments and refund every entry"))
    def cancel_with_refunds(self, request, queryset):
        for tournament in queryset:
            try:
                services.tournament_cancel(tournament_id=tournament.pk, reason=_("Cancelled by staff"))
            except (TournamentError, CashierError) as error:
                self.message_user(request, f"{tournament}: {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(name)s cancelled; every entry refunded.") % {"name": tournament},
                    messages.SUCCESS,
                )
