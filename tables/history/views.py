"""Pages and JSON of hand histories. Thin: parse (a form), call one selector, answer. Bad input gets a form
error (pages) or a JSON error (APIs) and changes nothing; a hand someone did not play is a 404 to them."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from tables.history import selectors
from tables.history.forms import ExportForm, HandPageForm
from tables.history.tournament import tournament_summaries
from tables.selectors import table_get

VERIFY_SCRIPT = Path(settings.BASE_DIR) / "static" / "verify_hand.py"
CONTENT_TYPES = {
    "pokerstars": ("text/plain; charset=utf-8", "txt"),
    "phh": ("application/toml; charset=utf-8", "phhs"),
    "summaries": ("text/plain; charset=utf-8", "txt"),
}


def _json_error(code: str, message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"error": code, "message": message, **extra}, status=status)


def _form_errors(form) -> dict:
    return {field: [str(error) for error in errors] for field, errors in form.errors.items()}


# --- My hands -------------------------------------------------------------------------------------------


@login_required
@require_GET
def my_hands(request):
    form = HandPageForm(request.GET or None)
    if request.GET and not form.is_valid():
        return render(request, "history/my_hands.html", {"form": form, "page": None}, status=400)
    filters = form.filters() if request.GET else {}
    per_page = (form.cleaned_data.get("per_page") if request.GET else None) or 25
    hands = selectors.hand_list_for_player(user=request.user, **filters)
    page = Paginator(hands, per_page).get_page(request.GET.get("page"))
    rows = [selectors.hand_row(hand=hand, user_id=request.user.id) for hand in page]
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "history/my_hands.html",
        {
            "form": form,
            "page": page,
            "rows": rows,
            "query": query.urlencode(),
            "kept_days": selectors.HISTORY_KEPT.days,
        },
    )


@require_GET
def api_my_hands(request):
    """``{"hands": [...], "page", "pages", "count"}``: the requesting player's hands, newest first."""
    if not request.user.is_authenticated:
        return _json_error("login_required", _("Log in to see your hands."), 403)
    form = HandPageForm(request.GET)
    if not form.is_valid():
        return _json_error("bad_filter", _("Those filters are not valid."), 400, fields=_form_errors(form))
    hands = selectors.hand_list_for_player(user=request.user, **form.filters())
    page = Paginator(hands, form.cleaned_data["per_page"]).get_page(form.cleaned_data.get("page"))
    return JsonResponse(
        {
            "hands": [_with_links(selectors.hand_row(hand=hand, user_id=request.user.id)) for hand in page],
            "page": page.number,
            "pages": page.paginator.num_pages,
            "count": page.paginator.count,
        }
    )


@require_GET
def api_table_last_hands(request, table_id: int):
    """The table's last ten hands, for its "last hands" panel (public; a player's own cards and result in
    the hands they played, and the link to replay them)."""
    if table_get(table_id=table_id) is None:
        return _json_error("no_table", _("This table does not exist."), 404)
    user_id = request.user.id if request.user.is_authenticated else None
    rows = [
        selectors.hand_row(hand=hand, user_id=user_id)
        for hand in selectors.table_last_hands(table_id=table_id)
    ]
    return JsonResponse({"hands": [_with_links(row) if row["seat"] else _public_links(row) for row in rows]})


def _with_links(row: dict) -> dict:
    return {**_public_links(row), "replay_url": reverse("hand_replayer", args=[row["hand_id"]])}


def _public_links(row: dict) -> dict:
    return {**row, "verify_url": reverse("hand_verify", args=[row["hand_id"]])}


# --- one hand: replayer, share, downloads ---------------------------------------------------------------


def _own_hand(request, hand_id: int):
    found = selectors.hand_for_player(hand_id=hand_id, user=request.user)
    if found is None:
        raise Http404("no hand of yours with this id")
    return found


@login_required
@require_GET
def hand_replayer(request, hand_id: int):
    hand, _seat = _own_hand(request, hand_id)
    token = selectors.hand_share_token(hand_id=hand.id)
    return render(
        request,
        "history/replayer.html",
        {
            "hand": hand,
            "data_url": reverse("api_hand_replay", args=[hand.id]),
            "share_url": request.build_absolute_uri(reverse("hand_shared", args=[token])),
            "downloads": [
                (fmt, reverse("hand_download", args=[hand.id]) + f"?format={fmt}")
                for fmt in ("pokerstars", "phh")
            ],
        },
    )


@require_GET
def api_hand_replay(request, hand_id: int):
    found = selectors.hand_for_player(hand_id=hand_id, user=request.user)
    if found is None:
        return _json_error("no_hand", _("There is no hand of yours with this number."), 404)
    hand, seat = found
    return JsonResponse(selectors.hand_replay(hand=hand, viewer=seat))


@require_GET
def hand_shared(request, token: str):
    hand = selectors.hand_from_share_token(token=token)
    if hand is None:
        raise Http404("no such shared hand")
    return render(
        request,
        "history/replayer.html",
        {
            "hand": hand,
            "data_url": reverse("api_hand_shared", args=[token]),
            "shared": True,
        },
    )


@require_GET
def api_hand_shared(request, token: str):
    """A shared hand as anyone may see it: public cards only, whoever asks (its players included)."""
    hand = selectors.hand_from_share_token(token=token)
    if hand is None:
        return _json_error("no_hand", _("This link does not lead to a hand."), 404)
    return JsonResponse(selectors.hand_replay(hand=hand, viewer=None))


@login_required
@require_GET
def hand_download(request, hand_id: int):
    hand, seat = _own_hand(request, hand_id)
    fmt = request.GET.get("format", "pokerstars")
    if fmt not in selectors.EXPORT_FORMATS:
        return HttpResponse(
            _("Unknown format: choose pokerstars or phh."), status=400, content_type="text/plain"
        )
    text = (
        selectors.hand_pokerstars(hand=hand, viewer=seat)
        if fmt == "pokerstars"
        else selectors.hand_phh(hand=hand, viewer=seat)
    )
    content_type, extension = CONTENT_TYPES[fmt]
    response = HttpResponse(text, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="hand-{hand.id}.{extension}"'
    return response


@login_required
@require_GET
def hands_download(request):
    """The player's hands of a range (dates, table, game) as one file, oldest first; or (``summaries``) the
    PokerStars summaries of the tournaments they played that started in the range."""
    form = ExportForm(request.GET)
    if not form.is_valid():
        page = HandPageForm(request.GET)
        page.is_valid()
        return render(
            request, "history/my_hands.html", {"form": page, "export_form": form, "page": None}, status=400
        )
    fmt = form.cleaned_data["format"]
    filters = form.filters()
    if fmt == "summaries":
        text = tournament_summaries(user=request.user, since=filters["since"], until=filters["until"])
        stem = "tournaments"
    else:
        hands = selectors.hands_for_export(user=request.user, **filters)
        text = selectors.hands_export_text(hands=hands, fmt=fmt, user=request.user)
        stem = "hands"
    content_type, extension = CONTENT_TYPES[fmt]
    response = StreamingHttpResponse(text, content_type=content_type)
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = (
        f'attachment; filename="{stem}-{request.user.username}-{stamp}.{extension}"'
    )
    return response


# --- fairness -------------------------------------------------------------------------------------------


@require_GET
def hand_verify(request, hand_id: int):
    """The deck check of a finished hand, in the browser: the page loads the hand's JSON (/api/hands/<id>/,
    with the openings the requester may see) and recomputes every opening against the commitment."""
    hand = selectors.hands_finished().filter(pk=hand_id).only("id", "number", "table__name").first()
    if hand is None:
        raise Http404("no finished hand with this id")
    return render(
        request, "history/verify.html", {"hand": hand, "data_url": reverse("api_hand", args=[hand.id])}
    )


@require_GET
def fairness(request):
    return render(request, "history/fairness.html", {"script_url": reverse("verify_script")})


@require_GET
def verify_script(request):
    """The stand-alone verifier (one file, Python's standard library only), as a download."""
    return FileResponse(
        VERIFY_SCRIPT.open("rb"),
        as_attachment=True,
        filename="verify_hand.py",
        content_type="text/x-python; charset=utf-8",
    )
