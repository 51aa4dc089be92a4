from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from tables.selectors import table_list_open


@require_GET
def lobby(request):
    return render(request, "tables/lobby.html", {"tables": table_list_open()})


@require_GET
def api_tables(request):
    return JsonResponse(table_list_open(), safe=False)
