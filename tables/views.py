from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from tables.selectors import table_get, table_list_open


@require_GET
def lobby(request):
    return render(request, "tables/lobby.html", {"tables": table_list_open()})


@require_GET
def api_tables(request):
    return JsonResponse(table_list_open(), safe=False)


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
