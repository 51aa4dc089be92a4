from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from cashier.selectors import seat_money_offer
from tables.models import Hand, Table
from tables.presenters import event_for_clients, hand_openings_for, hand_summary
from tables.selectors import table_get, table_list_open, table_players


@require_GET
def lobby(request):
    return render(request, "tables/lobby.html", {"tables": table_list_open()})


@require_GET
def api_tables(request):
    return JsonResponse(table_list_open(), safe=False)


@require_GET
def api_table_players(request, table_id: int):
    """Who sits at a table (names, stacks), for the lobby's preview."""
    players = table_players(table_id=table_id)
    if players is None:
        return JsonResponse({"error": "no_table", "message": _("This table does not exist.")}, status=404)
    return JsonResponse(players, safe=False)


@require_GET
def api_table_money(request, table_id: int):
    """The buy-in bounds, wallet and top-up room of the requesting player at a table (the buy-in box)."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "login_required", "message": _("Log in to play.")}, status=403)
    table = Table.objects.filter(pk=table_id, is_open=True).first()
    if table is None:
        return JsonResponse({"error": "no_table", "message": _("This table does not exist.")}, status=404)
    return JsonResponse(seat_money_offer(user=request.user, table=table))


@require_GET
def table_page(request, table_id: int):
    table = table_get(table_id=table_id)
    if table is None:
        raise Http404("no such table")
    return render(
        request,
        "tables/table.html",
        {
            "table": table,
            "ws_path": f"/ws/tables/{table_id}/",
            "user_name": request.user.username if request.user.is_authenticated else "",
            "is_authenticated": request.user.is_authenticated,
        },
    )


@require_GET
def api_hand(request, hand_id: int):
    """A finished hand as the requesting user may see it: its actions, board, shown hands, pots and the
    openings of the deck commitment (the public ones, and the requester's own hole cards)."""
    hand = Hand.objects.filter(pk=hand_id, status=Hand.Status.COMPLETE).select_related("table").first()
    if hand is None:
        raise Http404("no finished hand with this id")
    user = request.user if request.user.is_authenticated else None
    return JsonResponse(
        {
            **hand_summary(hand=hand),
            "table": hand.table_id,
            "players": {
                str(int(seat) + 1): {"name": p["name"], "bot": p["bot"]} for seat, p in hand.players.items()
            },
            "actions": [event_for_clients(action) for action in hand.actions],
            "openings": hand_openings_for(hand=hand, user=user),
        }
    )
