"""Tables, rake schedules and hands in the admin. Amounts are typed and shown in units with two decimals
(tables.forms); what a live table cannot take is refused there. Hands are read-only; their hidden cards are
shown only on request, and each request is written to the audit log (tables.hand_view)."""

import logging
import re

from django import forms
from django.contrib import admin, messages
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
from tables import closing, services
from tables.forms import RakeCapForm, RakeCapFormSet, RakeScheduleAdminForm, TableAdminForm
from tables.hand_view import hand_cards_reveal, hand_history_public
from tables.history.selectors import hands_played_by
from tables.models import (
    ChatLine,
    ChatMute,
    Hand,
    RakeCap,
    RakeSchedule,
    RemoveReason,
    Seat,
    Table,
    WaitingEntry,
)
from tables.payout import admin as payout_admin  # noqa: F401 - registers the payout statistics' admin
from tables.selectors import seat_stacks, table_faults, table_seats

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
    delete_refused_hint = gettext_lazy(
        "Close it instead: untick Open, or use Close the table… on its page; its players are cashed out."
    )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_open" in form.changed_data and not obj.is_open and not obj.is_tournament:
            # Closed from the form: its players go as with "Close the table…" (the admin's record stands).
            closed = closing.table_close(table_id=obj.pk, staff_user=request.user, record=False)
            self.message_user(request, _closed_text(closed))
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

    # --- table controls (pause, message, remove a player, cancel the hand): tables.services, audited there ---

    change_form_template = "admin/tables/table/change_form.html"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        table = self.get_object(request, object_id)
        extra = {}
        if table is not None:
            stacks = seat_stacks(table=table)
            extra["controls"] = {
                "hand": services.hand_running(table=table),
                "seated": [
                    {"seat": seat, "stack": stacks.get(seat.number, 0)}
                    for seat in table_seats(table=table)
                    if seat.user_id is not None
                ],
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/pause/", view(self.pause_view), name="tables_table_pause"),
            path("<int:pk>/resume/", view(self.resume_view), name="tables_table_resume"),
            path("<int:pk>/message/", view(self.message_view), name="tables_table_message"),
            path("<int:pk>/remove/<int:seat>/", view(self.remove_view), name="tables_table_remove"),
            path("<int:pk>/cancel-hand/", view(self.cancel_hand_view), name="tables_table_cancel_hand"),
            path("<int:pk>/close/", view(self.close_view), name="tables_table_close"),
            *super().get_urls(),
        ]

    def _table_for_change(self, request, pk) -> Table:
        table = get_object_or_404(Table, pk=pk)
        if not self.has_change_permission(request, table):
            raise PermissionDenied
        return table

    def _control(self, request, table, *, title, explanation, form, run):
        """A control's confirmation page (GET) and, confirmed with a valid form (POST), `run(cleaned_data)`:
        a refusal from the table is shown as an error and nothing changes."""
        if request.method == "POST" and request.POST.get("confirm") and form.is_valid():
            try:
                done = run(form.cleaned_data)
            except services.TableError as refused:
                self.message_user(request, refused.message, level=messages.ERROR)
            else:
                self.message_user(request, done)
            return redirect("admin:tables_table_change", table.pk)
        return TemplateResponse(
            request,
            "admin/tables/table/confirm.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "original": table,
                "title": title,
                "explanation": explanation,
                "form": form,
            },
        )

    def pause_view(self, request, pk):
        table = self._table_for_change(request, pk)
        return self._control(
            request,
            table,
            title=_("Pause %(table)s") % {"table": table.name},
            explanation=_(
                "The hand in play finishes; no new hand is dealt until you resume. The players read "
                "your notice."
            ),
            form=NoticeForm(request.POST or None, required=False),
            run=lambda data: (
                services.table_pause(table_id=table.pk, staff_user=request.user, notice=data["text"]),
                _("The table is paused."),
            )[1],
        )

    def resume_view(self, request, pk):
        table = self._table_for_change(request, pk)
        return self._control(
            request,
            table,
            title=_("Resume %(table)s") % {"table": table.name},
            explanation=_("Hands are dealt again as soon as players are ready."),
            form=forms.Form(request.POST or None),
            run=lambda data: (
                services.table_resume(table_id=table.pk, staff_user=request.user),
                _("The table deals again."),
            )[1],
        )

    def message_view(self, request, pk):
        table = self._table_for_change(request, pk)
        return self._control(
            request,
            table,
            title=_("Message %(table)s") % {"table": table.name},
            explanation=_("Everyone at the table and watching it reads this in the table's log."),
            form=NoticeForm(request.POST or None, required=True),
            run=lambda data: (
                services.table_message(table_id=table.pk, staff_user=request.user, text=data["text"]),
                _("Message sent."),
            )[1],
        )

    def remove_view(self, request, pk, seat):
        table = self._table_for_change(request, pk)
        row = Seat.objects.filter(table=table, number=seat, user__isnull=False).select_related("user").first()
        if row is None:
            self.message_user(
                request, _("Nobody sits at seat %(seat)d.") % {"seat": seat}, level=messages.WARNING
            )
            return redirect("admin:tables_table_change", table.pk)

        def run(data):
            when = services.seat_remove(
                table_id=table.pk,
                seat_number=seat,
                reason=RemoveReason.STAFF,
                user_id=row.user_id,
                staff_user=request.user,
                note=data["note"],
            )
            if when == "after_hand":
                return _(
                    "%(name)s leaves the table when the hand in play ends; the stack then goes back to the "
                    "wallet."
                ) % {"name": row.user.username}
            if when == "now":
                return _("%(name)s is removed; the stack is back in the wallet.") % {
                    "name": row.user.username
                }
            return _("Nothing to do: the seat changed meanwhile.")

        return self._control(
            request,
            table,
            title=_("Remove %(name)s from seat %(seat)d") % {"name": row.user.username, "seat": seat},
            explanation=_(
                "The player is cashed out to the wallet: at once if not in the hand in play, else when "
                "it ends. They are told, and the seat is offered to the waiting list."
            ),
            form=ReasonForm(request.POST or None),
            run=run,
        )

    def cancel_hand_view(self, request, pk):
        table = self._table_for_change(request, pk)
        hand = services.hand_running(table=table)
        if hand is None:
            self.message_user(request, _("No hand is in play at this table."), level=messages.WARNING)
            return redirect("admin:tables_table_change", table.pk)
        return self._control(
            request,
            table,
            title=_("Cancel hand #%(number)d") % {"number": hand.pk},
            explanation=_(
                "Every chip put into this hand goes back to the player who put it in, no rake is taken, "
                "and the hand is recorded as cancelled."
            ),
            form=ReasonForm(request.POST or None),
            run=lambda data: (
                services.hand_cancel(table_id=table.pk, staff_user=request.user, note=data["note"]),
                _("The hand is cancelled; every bet went back."),
            )[1],
        )

    def close_view(self, request, pk):
        table = self._table_for_change(request, pk)
        return self._control(
            request,
            table,
            title=_("Close %(table)s") % {"table": table.name},
            explanation=_(
                "The table leaves the lobby and deals no new hand; the hand in play finishes. Every player "
                "is cashed out to the wallet (at once if not in the hand in play, else when it ends) and "
                "told that the staff closed the table; your notice, if any, is announced first."
            ),
            form=NoticeForm(request.POST or None, required=False),
            run=lambda data: _closed_text(
                closing.table_close(table_id=table.pk, staff_user=request.user, notice=data["text"])
            ),
        )


def _closed_text(closed: closing.TableClosed) -> str:
    """What staff read once a table is closed: who was cashed out now, who will be when the hand ends."""
    text = _("The table is closed.")
    if closed.now:
        text += " " + _("Cashed out now: %(names)s.") % {"names": ", ".join(closed.now)}
    if closed.after_hand:
        text += " " + _("Cashed out when the hand in play ends: %(names)s.") % {
            "names": ", ".join(closed.after_hand)
        }
    return text


def hand_cancelled_record(*, hand: Hand) -> dict:
    """What a cancelled hand's page shows: who cancelled it and why, the actions taken before, and what went
    back to each player (seats from 1, as the table shows them)."""
    result = hand.result or {}
    names = {str(int(seat) + 1): player["name"] for seat, player in hand.players.items()}
    actions = []
    for action in hand.actions:
        seat = str(action["seat"] + 1)
        amount = action.get("amount")
        shown = format_amount(amount, hand.table.currency) if amount else ""
        actions.append(f"{names.get(seat, seat)}: {action['action']} {shown}".strip())
    return {
        "by": result.get("cancelled_by", ""),
        "note": result.get("note", ""),
        "board": " ".join(result.get("board", [])),
        "actions": actions,
        "returned": [
            (seat, names.get(seat, seat), format_amount(amount, hand.table.currency))
            for seat, amount in sorted(result.get("returned", {}).items(), key=lambda i: int(i[0]))
        ],
    }


class NoticeForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Message to the players"),
        max_length=services.MAX_NOTICE_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args, required: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["text"].required = required


class ReasonForm(forms.Form):
    note = forms.CharField(
        label=gettext_lazy("Reason (for the audit log)"),
        max_length=500,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


@admin.register(WaitingEntry)
class WaitingEntryAdmin(admin.ModelAdmin):
    """The waiting lists, read-only (players join and leave them; offers run by themselves)."""

    list_display = ("table", "user", "joined_at", "offered_seat", "offer_expires_at")
    list_filter = (("table", admin.RelatedOnlyFieldListFilter),)
    search_fields = ("table__name", "user__username", "user__email")
    list_select_related = ("table", "user")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _bots_seat_now(table_id: int) -> None:
    try:
        services.bots_seat(table_id=table_id)
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


class HandTableFilter(admin.RelatedOnlyFieldListFilter):
    """The tables that have hands, under a translated title (Hand.table has no verbose name of its own)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("table")


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    """Hands, read-only: found by player (name or email in the search box), table and date."""

    list_display = (
        "hand_shown",
        "table_shown",
        "number_at_table",
        "status",
        "started_at",
        "players_shown",
        "pot",
        "rake",
    )
    list_filter = ("status", ("table", HandTableFilter))
    date_hierarchy = "started_at"
    search_fields = ("table__name",)
    search_help_text = gettext_lazy(
        "A hand's number as players see it (324 or #324), a player's name or email, or a table's name."
    )
    list_select_related = ("table",)
    fields = (
        "hand_shown",
        "table_shown",
        "number_at_table",
        "status",
        "started_at",
        "ended_at",
        "commitment",
    )
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
        if re.fullmatch(r"#?\d{1,18}", term):  # the number players see ("Hand #324") is the hand's id
            found = found | queryset.filter(pk=int(term.lstrip("#")))
        users = list(
            User.objects.filter(Q(username__icontains=term) | Q(email__iexact=term)).values_list(
                "pk", flat=True
            )[:50]
        )
        if users:
            found = found | queryset.filter(pk__in=hands_played_by(user_ids=users).values("pk"))
        return found, duplicates

    @admin.display(description=gettext_lazy("hand"), ordering="id")
    def hand_shown(self, obj):
        """The number players see at the table, in their history, the replayer and the downloads."""
        return f"#{obj.pk}"

    @admin.display(description=gettext_lazy("table"), ordering="table__name")
    def table_shown(self, obj):
        return obj.table.name

    @admin.display(description=gettext_lazy("the table's own count"), ordering="number")
    def number_at_table(self, obj):
        """How many hands the table had dealt with this one (not the number players see)."""
        return obj.number

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
        if hand is not None and hand.status == Hand.Status.CANCELLED:
            extra["cancelled"] = hand_cancelled_record(hand=hand)
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
                "title": _("Every card of hand %(number)d") % {"number": hand.pk},
                "history": history,
                "deck": deck,
            },
        )
