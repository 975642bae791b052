"""Requests PostgreSQL could never answer are refused before any view sees them.

A NUL character cannot be stored in or compared with a PostgreSQL text value: a query that
carries one raises ``DataError`` wherever the value reaches SQL (a filter, a lookup by
code, a search), which would be a 500. No path or parameter of the project can mean
anything with one, so this middleware answers 400 naming where it was, in the API's error
shape under ``/api/`` and as a plain page elsewhere.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

from omnium.exceptions import error_body

NUL = "\x00"


def nul_byte_place(request: HttpRequest) -> str | None:
    """Where a NUL character is in the request's path or query string: ``"path"``, or the
    name of the parameter; None when there is none."""
    if NUL in request.path:
        return "path"
    for name, values in request.GET.lists():
        if NUL in name or any(NUL in value for value in values):
            return name.replace(NUL, "\\x00")
    return None


class NulByteMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        place = nul_byte_place(request)
        if place is None:
            return self.get_response(request)
        message = f"{place}: a NUL character (\\x00) is not allowed."
        if request.path.startswith("/api/"):
            entry = {"code": "nul_character", "message": "a NUL character is not allowed."}
            if place != "path":
                entry = {"parameter": place, **entry}
            return JsonResponse(error_body("invalid", message, [entry]), status=400)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
