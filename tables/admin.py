from django.contrib import admin

from tables.models import RakeCap, RakeSchedule, Seat, Table


class RakeCapInline(admin.TabularInline):
    model = RakeCap
    extra = 0


@admin.register(RakeSchedule)
class RakeScheduleAdmin(admin.ModelAdmin):
    list_display = ("name", "method", "unit", "per_mille", "no_flop_no_drop")
    inlines = [RakeCapInline]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "user", "status", "auto_muck", "sat_down_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "structure", "currency", "small_blind", "big_blind", "min_buy_in",
                    "max_buy_in", "seats", "is_open")
    list_filter = ("currency", "game", "structure", "is_open")
    search_fields = ("name",)
    inlines = [SeatInline]
