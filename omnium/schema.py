"""The OpenAPI schema's shared parts: error responses and the rate-limit headers.

``OmniumAutoSchema`` (the project's ``DEFAULT_SCHEMA_CLASS``) adds to every operation the
error responses it can really give, each with the one error body DRF answers with and an
example, so a client or a fuzzer can rely on the document for every status it receives:

- 429 with ``Retry-After`` and the ``RateLimit-*`` headers on every throttled view (all of
  them by default: anonymous and keyed limits), and those headers on its success responses;
- 401 (a presented API key that is unknown, revoked or expired);
- 403 where the view needs more than anonymous read access (or the method writes: CSRF);
- 404 where the path names a record or the list pages with a cursor or page number;
- 400 where the operation takes a body, query parameters or an id in its path;
- 304 where the view answers conditional requests (``omnium.conditional``).
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS, AllowAny


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, for a person to read.")


def _header(description: str, *, required: bool) -> dict:
    return {"schema": {"type": "integer"}, "description": description, "required": required}


def rate_limit_headers(*, required: bool) -> dict:
    return {
        "RateLimit-Limit": _header(
            "Requests allowed in the current window: the consumer's per-minute limit or daily "
            "quota, whichever runs out first, or the anonymous per-source limit.",
            required=required,
        ),
        "RateLimit-Remaining": _header("Requests left in that window.", required=required),
        "RateLimit-Reset": _header(
            "Seconds until that window resets (the next UTC minute or day).", required=required
        ),
    }


ERRORS = {
    "400": (
        "Invalid input: a body naming each field's problems, or a query parameter or an id "
        "in the path that does not parse.",
        {"field": ["This field is required."]},
    ),
    "401": (
        "The API key presented is unknown, revoked or expired.",
        {"detail": "Invalid, revoked or expired API key."},
    ),
    "403": (
        "Not signed in, or not allowed to do this.",
        {"detail": "You do not have permission to perform this action."},
    ),
    "404": (
        "No such record (or not visible to you), or an invalid page or cursor.",
        {"detail": "No Fixture matches the given query."},
    ),
    "429": (
        "Over a rate limit. Retry after the number of seconds in Retry-After.",
        {"detail": "Request was throttled. Expected available in 30 seconds."},
    ),
}


class OmniumAutoSchema(AutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        throttled = bool(getattr(self.view, "throttle_classes", ()))
        if throttled:
            for code, response in responses.items():
                if code.startswith("2"):
                    response.setdefault("headers", {}).update(rate_limit_headers(required=False))
        for code in self._error_codes(path, operation, throttled):
            if code in responses:
                continue
            responses[code] = self._error_response(code)
        if getattr(self._handler(), "conditional", False):
            responses.setdefault(
                "304",
                {
                    "description": "Not modified: the If-None-Match or If-Modified-Since "
                    "validators still match (no body).",
                },
            )
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _handler(self):
        action = getattr(self.view, "action", None)
        return getattr(self.view, action or self.method.lower(), None)

    def _error_codes(self, path: str, operation: dict, throttled: bool) -> list[str]:
        parameters = operation.get("parameters", [])
        has_query = any(p.get("in") == "query" for p in parameters)
        codes = ["401"]
        if "requestBody" in operation or has_query or "{" in path:
            codes.append("400")
        permissions = getattr(self.view, "permission_classes", ())
        if self.method not in SAFE_METHODS or any(p is not AllowAny for p in permissions):
            codes.append("403")
        if "{" in path or has_query:
            codes.append("404")
        if throttled:
            codes.append("429")
        return codes

    def _error_response(self, code: str) -> dict:
        description, example = ERRORS[code]
        if code == "400":
            # Field errors ({field: [message, ...]}, nested for nested input) or a parse
            # error ({"detail": ...}): an object whatever the input's shape.
            response = {
                "description": description,
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "additionalProperties": {}},
                        "examples": {"Error400": {"value": example, "summary": "Error 400"}},
                    }
                },
            }
            return response
        response = self._get_response_for_code(
            OpenApiResponse(
                response=ErrorSerializer,
                description=description,
                examples=[OpenApiExample(f"Error {code}", value=example, status_codes=[code])],
            ),
            code,
        )
        if code == "429":
            response["headers"] = {
                "Retry-After": _header("Seconds until a retry can succeed.", required=True),
                **rate_limit_headers(required=True),
            }
        return response
