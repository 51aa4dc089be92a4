"""Read-only queries about tables, for the lobby page, the API and the lobby's live updates."""

from django.db.models import Count, Q

from tables.models import Seat, Table


def _annotated(queryset):
    return queryset.annotate(
        players=Count("seat_set", filter=Q(seat_set__user__isnull=False) & ~Q(seat_set__status=Seat.Status.EMPTY)),
        bots=Count("seat_set", filter=Q(seat_set__user__is_bot=True) & ~Q(seat_set__status=Seat.Status.EMPTY)),
    )


def table_list_open() -> list[dict]:
    """Every open table as PROTOCOL.md's `/api/tables/` entry, in one query."""
    return [table_as_json(table=t, players=t.players, bots=t.bots) for t in _annotated(Table.objects.filter(is_open=True))]


def table_get(*, table_id: int) -> dict | None:
    table = _annotated(Table.objects.filter(pk=table_id)).first()
    return None if table is None else table_as_json(table=table, players=table.players, bots=table.bots)


def table_as_json(*, table: Table, players: int, bots: int) -> dict:
    return {
        "id": table.id,
        "name": table.name,
        "game": table.game,
        "structure": table.structure,
        "currency": table.currency,
        "chip": table.chip,
        "small_blind": table.small_blind,
        "big_blind": table.big_blind,
        "min_buy_in": table.min_buy_in,
        "max_buy_in": table.effective_max_buy_in,
        "seats": table.seats,
        "players": players,
        "bots": bots,
        "stakes": table.stakes_label,
    }
