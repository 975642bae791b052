"""One JSON error shape for every 4xx and 5xx under ``/api/``.

Every error body is::

    {"code": "not_found", "message": "No Fixture matches the given query."}

and a validation error (400) adds ``errors``, one entry per problem, naming the body
``field`` (dotted for nested input: ``lines.0.quantity``) or the query ``parameter``::

    {"code": "invalid", "message": "status: 'bogus' is not one of ...",
     "errors": [{"parameter": "status", "code": "invalid_choice", "message": "..."}]}

``code`` is machine-readable and stable; ``message`` is for a person and may change.

Services raise ``django.core.exceptions.ValidationError`` (the admin shows it on the form);
``api_exception_handler`` turns the same exception into a 400 with field errors, so both
share one error type; a ``StaleVersion`` (a write against a version that has moved on) is
the one service error that answers otherwise, 412. Outside DRF's views (a URL nothing
matches, a path converter that refuses a malformed id, an unhandled exception)
``omnium.views`` answers in the same shape.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse, JsonResponse
from rest_framework import exceptions, status
from rest_framework.exceptions import ErrorDetail
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

from omnium.uploads import UploadTooLarge, upload_too_large

# The ``code`` of a status when nothing more precise is known.
STATUS_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "throttled",
    500: "server_error",
}


class ParameterError(exceptions.ValidationError):
    """A query parameter that is unknown, malformed or outside its choices: a 400 whose
    ``errors`` name the ``parameter``. ``problems`` maps names to messages when several
    parameters are wrong at once."""

    def __init__(
        self,
        parameter: str | None = None,
        message: str = "",
        code: str = "invalid",
        *,
        problems: dict[str, list[Any]] | None = None,
    ) -> None:
        detail: Any = (
            problems if problems is not None else {parameter: [ErrorDetail(message, code)]}
        )
        super().__init__(detail=detail, code=code)


class StaleVersion(DjangoValidationError):
    """A write made against a version of a record that has moved on: the optimistic check
    a service makes under the record's row lock failed, and nothing was written. Apps raise
    a subclass naming the record; the console shows the message like any service error and
    the API answers 412 Precondition Failed (the client's ``If-Match`` no longer holds)."""


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The record changed since the version this request names."
    default_code = "precondition_failed"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than this server accepts."
    default_code = "payload_too_large"


def validation_error_detail(error: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            (api_settings.NON_FIELD_ERRORS_KEY if field == NON_FIELD_ERRORS else field): messages
            for field, messages in error.message_dict.items()
        }
    return {api_settings.NON_FIELD_ERRORS_KEY: list(error.messages)}


def _flatten(detail: Any, path: str = "") -> list[tuple[str, str, str]]:
    """(path, code, message) for each message in a DRF detail tree."""
    if isinstance(detail, dict):
        return [
            problem
            for key, value in detail.items()
            for problem in _flatten(value, f"{path}.{key}" if path else str(key))
        ]
    if isinstance(detail, list):
        problems: list[tuple[str, str, str]] = []
        for index, value in enumerate(detail):
            nested = isinstance(value, dict | list)
            problems.extend(_flatten(value, f"{path}.{index}" if nested else path))
        return problems
    return [(path, getattr(detail, "code", None) or "invalid", str(detail))]


def error_body(
    code: str, message: str, errors: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if errors is not None:
        body["errors"] = errors
    return body


def _validation_body(exc: exceptions.ValidationError) -> dict[str, Any]:
    key = "parameter" if isinstance(exc, ParameterError) else "field"
    errors = []
    for path, code, message in _flatten(exc.detail):
        entry = {"code": code, "message": message}
        if path and path != api_settings.NON_FIELD_ERRORS_KEY:
            entry = {key: path, **entry}
        errors.append(entry)
    summary = "; ".join(f"{e[key]}: {e['message']}" if key in e else e["message"] for e in errors)
    return error_body("invalid", summary or "Invalid input.", errors)


def _body(exc: exceptions.APIException, status_code: int) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        return _validation_body(exc)
    detail = exc.detail
    if isinstance(detail, dict | list):  # an APIException raised with structured detail
        flat = _flatten(detail)
        message = "; ".join(m for _, _, m in flat) or str(exc.default_detail)
        code = flat[0][1] if flat else exc.default_code
    else:
        message, code = str(detail), getattr(detail, "code", None) or exc.default_code
    if code in ("error", "invalid") and status_code != 400:
        code = STATUS_CODES.get(status_code, code)
    return error_body(code, message)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, answering in the one error shape. An exception it does not know is
    left to propagate: Django logs it and ``omnium.views.server_error`` answers 500."""
    if isinstance(exc, StaleVersion):
        exc = PreconditionFailed(" ".join(exc.messages))
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=validation_error_detail(exc))
    elif isinstance(exc, RequestDataTooBig):
        # An upload over its limit says which (omnium.uploads); Django's own says nothing.
        exc = PayloadTooLarge(str(exc) if isinstance(exc, UploadTooLarge) else None)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(*(exc.args[:1] or ()))
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*(exc.args[:1] or ()))
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = _body(exc, response.status_code)
    return response


class ApiErrorMiddleware:
    """Rewrites any error under ``/api/`` that is not already JSON into the error shape.

    DRF's views answer through ``api_exception_handler``; this catches what never reaches
    one: a path converter refusing a malformed id (``<uuid:pk>``) and any URL nothing
    matches, Django's 400/403/500 pages (an unhandled exception, a body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` read before a view) and the debug pages DEBUG shows.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/") and (refusal := _body_too_large(request)):
            return JsonResponse(error_body("payload_too_large", refusal), status=413)
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return _json_error(response)
        return response


def _body_too_large(request) -> str:
    """Why the request's declared body is too large, or "". A non-multipart body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``: Django checks that limit only when ``request.body`` or
    ``POST`` is read, and DRF's parsers read the stream, so without this a JSON body of any
    size would be parsed. A multipart body over ``UPLOAD_MAX_REQUEST_BYTES``, answered
    before the view; the upload handler (omnium.uploads) counts what actually arrives."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return ""
    if request.content_type == "multipart/form-data":
        return (
            str(upload_too_large(declared)) if declared > settings.UPLOAD_MAX_REQUEST_BYTES else ""
        )
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is None or declared <= limit:
        return ""
    return f"{PayloadTooLarge.default_detail} (DATA_UPLOAD_MAX_MEMORY_SIZE = {limit})"


def _json_error(original: HttpResponse) -> JsonResponse:
    code = STATUS_CODES.get(original.status_code, "error")
    response = JsonResponse(
        error_body(code, _MESSAGES.get(code, original.reason_phrase)),
        status=original.status_code,
    )
    for header in ("Allow", "Retry-After", "WWW-Authenticate", "Vary"):
        if header in original:
            response[header] = original[header]
    return response


_MESSAGES = {
    "invalid": "Bad request.",
    "not_found": "Not found.",
    "permission_denied": "You do not have permission to perform this action.",
    "server_error": "Server error: the failure was logged.",
    "payload_too_large": PayloadTooLarge.default_detail,
}
