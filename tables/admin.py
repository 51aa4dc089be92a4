from django.contrib import admin
from django.db import transaction
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tables.forms import RakeCapFormSet, RakeScheduleAdminForm, TableAdminForm
from tables.models import RakeCap, RakeSchedule, Table
from tables.selectors import seat_stacks, table_faults, table_seats


class RakeCapInline(admin.TabularInline):
    model = RakeCap
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
    list_display = ("name", "method", "unit", "per_mille", "no_flop_no_drop")
    inlines = [RakeCapInline]
    actions = ["copy"]

    @admin.action(description=gettext_lazy("Copy the selected rake schedules (with their caps)"))
    def copy(self, request, queryset):
        with transaction.atomic():
            for schedule in queryset.prefetch_related("caps"):
                caps = list(schedule.caps.all())
                schedule.pk, schedule.name = None, _copy_name(schedule.name)
                schedule.save()
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
    list_display = (
        "name",
        "game",
        "structure",
        "currency",
        "small_blind",
        "big_blind",
        "min_buy_in",
        "max_buy_in",
        "seats",
        "is_open",
    )
    list_filter = ("currency", "game", "structure", "is_open")
    search_fields = ("name",)
    readonly_fields = ("seated_now", "faults")

    def get_fields(self, request, obj=None):
        fields = [f for f in super().get_fields(request, obj) if f not in self.readonly_fields]
        return [*fields, *self.readonly_fields] if obj is not None else fields

    @admin.display(description=gettext_lazy("seated now"))
    def seated_now(self, obj):
        from cashier.templatetags.money import format_amount

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
