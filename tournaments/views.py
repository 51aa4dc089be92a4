"""Tournament pages and their JSON. Thin: parse, call one selector or service, answer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cashier.errors import CashierError
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.selectors import (
    entry_of,
    late_registration_open,
    tournament_detail,
    tournament_get,
    tournament_levels,
    tournament_list,
    tournament_payouts,
    tournament_standings,
    tournament_tables,
)


def _tournament_or_404(tournament_id: int):
    tournament = tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise Http404("no such tournament")
    return tournament


@require_GET
def api_tournaments(request):
    return JsonResponse(tournament_list(user=request.user), safe=False)


@require_GET
def api_tournament(request, tournament_id: int):
    return JsonResponse(tournament_detail(tournament=_tournament_or_404(tournament_id)))


@require_GET
def tournament_page(request, tournament_id: int):
    tournament = _tournament_or_404(tournament_id)
    return render(
        request,
        "tournaments/tournament.html",
        {
            "tournament": tournament,
            "levels": tournament_levels(tournament=tournament),
            "payouts": tournament_payouts(tournament=tournament),
            "standings": tournament_standings(tournament=tournament),
            "entry": entry_of(tournament=tournament, user=request.user),
            "tables": tournament_tables(tournament=tournament),
            "late_registration_open": late_registration_open(tournament=tournament),
        },
    )


@login_required
@require_POST
def register(request, tournament_id: int):
    tournament = _tournament_or_404(tournament_id)
    try:
        entry = services.tournament_register(tournament_id=tournament.pk, user=request.user)
    except (TournamentError, CashierError) as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("You are registered for %(name)s.") % {"name": tournament.name})
        entry.refresh_from_db()
        if entry.table_id is not None:  # a sit-and-go that filled (a practice one, with house bots): play now
            return redirect("table", table_id=entry.table_id)
    return redirect("tournaments:tournament", tournament_id=tournament.pk)


@login_required
@require_POST
def unregister(request, tournament_id: int):
    tournament = _tournament_or_404(tournament_id)
    try:
        services.tournament_unregister(tournament_id=tournament.pk, user=request.user)
    except (TournamentError, CashierError) as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("You are unregistered from %(name)s: the buy-in and the fee are back in your wallet.")
            % {"name": tournament.name},
        )
    return redirect("tournaments:tournament", tournament_id=tournament.pk)
