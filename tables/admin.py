"""Tables, rake schedules and hands in the admin. Amounts are typed and shown in units with two decimals
(tables.forms); what a live table cannot take is refused there. Hands are read-only; their hidden cards are
shown only on request, and each request is written to the audit log (tables.hand_view)."""

import logging

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.audit import staff_action_record
from accounts.models import User
from cashier.templatetags.money import format_amount
from tables.forms import RakeCapForm, RakeCapFormSet, RakeScheduleAdminForm, TableAdminForm
from tables.hand_view import hand_cards_reveal, hand_history_public
from tables.history.selectors import hands_played_by
from tables.models import ChatLine, ChatMute, Hand, RakeCap, RakeSchedule, Table
from tables.payout import admin as payout_admin  # noqa: F401 - registers the payout statistics' admin
from tables.selectors import seat_stacks, table_faults, table_seats
from tables.services import bots_seat

log = logging.getLogger(__name__)


class RakeCapInline(admin.TabularInline):
    model = RakeCap
    form = RakeCapForm
    formset = RakeCapFormSet
    extra = 0


def _copy_name(name: str) -> str:
    for number in range(1, 1000):
        label = _("copy") if number == 1 else _("copy %(number)d") % {"number": number}
        candidate = f"{name[:60]} ({label})"
        if not RakeSchedule.objects.filter(name=candidate).exists():
            return candidate
    raise ValueError("no free name for a copy")


@admin.register(RakeSchedule)
class RakeScheduleAdmin(admin.ModelAdmin):
    form = RakeScheduleAdminForm
    list_display = ("name", "method", "unit_shown", "per_mille", "no_flop_no_drop")
    inlines = [RakeCapInline]
    actions = ["copy"]

    @admin.display(description=gettext_lazy("unit"), ordering="unit")
    def unit_shown(self, obj):
        return format_amount(obj.unit, "eur") if obj.method == RakeSchedule.Method.PER_UNIT else "-"

    @admin.action(description=gettext_lazy("Copy the selected rake schedules (with their caps)"))
    def copy(self, request, queryset):
        with transaction.atomic():
            for schedule in queryset.prefetch_related("caps"):
                caps = list(schedule.caps.all())
                original = schedule.name
                schedule.pk, schedule.name = None, _copy_name(schedule.name)
                schedule.save()
                staff_action_record(
                    actor=request.user,
                    action="rake_schedule.copy",
                    target=schedule,
                    after={"name": schedule.name},
                    note=original,
                )
                RakeCap.objects.bulk_create(
                    [
                        RakeCap(
                            schedule=schedule,
                            players_min=c.players_min,
                            big_blind_min=c.big_blind_min,
                            cap=c.cap,
                        )
                        for c in caps
                    ]
                )
                self.message_user(request, _("Copied as “%(name)s”.") % {"name": schedule.name})


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    form = TableAdminForm
    list_display = ("name", "game", "structure", "currency", "blinds", "buy_in", "seats", "is_open")
    list_filter = ("currency", "game", "structure", "is_open")
    search_fields = ("name",)
    readonly_fields = ("seated_now", "faults")

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if obj.bots_allowed and obj.is_open and obj.currency == "play":
            # House bots sit down as soon as the table is saved: the room need not be restarted for them.
            table_id = obj.pk
            transaction.on_commit(lambda: _bots_seat_now(table_id))

    def get_fields(self, request, obj=None):
        fields = [f for f in super().get_fields(request, obj) if f not in self.readonly_fields]
        return [*fields, *self.readonly_fields] if obj is not None else fields

    @admin.display(description=gettext_lazy("blinds"), ordering="big_blind")
    def blinds(self, obj):
        return (
            f"{format_amount(obj.small_blind, obj.currency)} / {format_amount(obj.big_blind, obj.currency)}"
        )

    @admin.display(description=gettext_lazy("buy-in"))
    def buy_in(self, obj):
        return f"{format_amount(obj.min_buy_in, obj.currency)} – {format_amount(obj.effective_max_buy_in, obj.currency)}"

    @admin.display(description=gettext_lazy("seated now"))
    def seated_now(self, obj):
        stacks = seat_stacks(table=obj)
        rows = [
            (
                seat.number,
                seat.user.username,
                seat.get_status_display(),
                format_amount(stacks.get(seat.number, 0), obj.currency),
            )
            for seat in table_seats(table=obj)
            if seat.user_id is not None
        ]
        if not rows:
            return _("Nobody: every setting can change.")
        return format_html(
            "<table><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>{}</table>",
            _("seat"),
            _("player"),
            _("status"),
            _("stack"),
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    @admin.display(description=gettext_lazy("problems"))
    def faults(self, obj):
        return " ".join(table_faults(table=obj)) or _("None")


def _bots_seat_now(table_id: int) -> None:
    try:
        bots_seat(table_id=table_id)
    except Exception:  # noqa: BLE001 - the table is saved; a bot that cannot sit is logged, never a 500
        log.exception("house bots could not sit at table %s", table_id)


# --- chat -----------------------------------------------------------------------------------------------------


@admin.register(ChatMute)
class ChatMuteAdmin(admin.ModelAdmin):
    """Players muted in the chat: adding one mutes them at every table (their lines are refused with the
    reason why), deleting it lets them chat again."""

    list_display = ("user", "reason", "muted_by", "created_at")
    search_fields = ("user__username", "user__email")
    raw_id_fields = ("user",)
    fields = ("user", "reason")

    def save_model(self, request, obj, form, change):
        if not change:
            obj.muted_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    """What was said at the tables, read-only, found by player, table or words."""

    list_display = ("created_at", "table", "name", "text")
    list_filter = (("table", admin.RelatedOnlyFieldListFilter),)
    search_fields = ("name", "text", "table__name")
    list_select_related = ("table",)
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


# --- hands ---------------------------------------------------------------------------------------------------


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    """Hands, read-only: found by player (name or email in the search box), table and date."""

    list_display = ("number", "table", "status", "started_at", "players_shown", "pot", "rake")
    list_filter = ("status", ("table", admin.RelatedOnlyFieldListFilter))
    date_hierarchy = "started_at"
    search_fields = ("table__name",)
    search_help_text = gettext_lazy("A player's name or email, or a table's name.")
    list_select_related = ("table",)
    fields = ("table", "number", "status", "started_at", "ended_at", "commitment")
    readonly_fields = fields
    change_form_template = "admin/tables/hand/change_form.html"
    show_full_result_count = False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_search_results(self, request, queryset, search_term):
        found, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if not term:
            return found, duplicates
        users = list(
            User.objects.filter(Q(username__icontains=term) | Q(email__iexact=term)).values_list(
                "pk", flat=True
            )[:50]
        )
        if users:
            found = found | queryset.filter(pk__in=hands_played_by(user_ids=users).values("pk"))
        return found, duplicates

    @admin.display(description=gettext_lazy("players"))
    def players_shown(self, obj):
        return ", ".join(
            player["name"] for _seat, player in sorted(obj.players.items(), key=lambda i: int(i[0]))
        )

    @admin.display(description=gettext_lazy("pots"), ordering="pot_total")
    def pot(self, obj):
        return format_amount(obj.pot_total, obj.table.currency)

    @admin.display(description=gettext_lazy("rake"))
    def rake(self, obj):
        return format_amount((obj.result or {}).get("rake", 0), obj.table.currency)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        hand = self.get_object(request, object_id)
        extra = {"history": hand_history_public(hand=hand)} if hand is not None else {}
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        return [
            path("<int:pk>/cards/", self.admin_site.admin_view(self.cards_view), name="tables_hand_cards"),
            *super().get_urls(),
        ]

    def cards_view(self, request, pk):
        """Every card of a finished hand: only by POST (a deliberate request), each written to the audit log."""
        hand = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
        if not self.has_view_permission(request, hand):
            raise PermissionDenied
        if request.method != "POST" or hand.status != Hand.Status.COMPLETE:
            return redirect("admin:tables_hand_change", hand.pk)
        history, deck = hand_cards_reveal(hand=hand, staff_user=request.user)
        return TemplateResponse(
            request,
            "admin/tables/hand/cards.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "original": hand,
                "title": _("Every card of hand %(number)d") % {"number": hand.number},
                "history": history,
                "deck": deck,
            },
        )
