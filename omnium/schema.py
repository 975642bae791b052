"""The OpenAPI schema's shared parts: error responses, the rate-limit headers, tags per app
and security per operation (a public read declares none, so no lock icon).

``OmniumAutoSchema`` (the project's ``DEFAULT_SCHEMA_CLASS``) adds to every operation the
error responses it can really give, each with the one error body (``omnium.exceptions``)
and an example, so a client or a fuzzer can rely on the document for every status it receives:

- 429 with ``Retry-After`` and the ``RateLimit-*`` headers on every throttled view (all of
  them by default: anonymous and keyed limits), and those headers on its success responses;
- 401 (a presented API key that is unknown, revoked or expired);
- 403 where the view needs more than anonymous read access (or the method writes: CSRF);
- 404 where the path names a record;
- 400 where the operation takes a body, query parameters or an id in its path;
- 406 (an Accept header naming no format it answers) and 500 everywhere; 413 and 415
  where it takes a body;
- 304 where the view answers conditional requests (``omnium.conditional``).
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import SAFE_METHODS, AllowAny

from omnium.exceptions import STATUS_CODES, PayloadTooLarge


class ErrorItemSerializer(serializers.Serializer):
    field = serializers.CharField(
        required=False, help_text="The body field at fault (dotted for nested input)."
    )
    parameter = serializers.CharField(
        required=False, help_text="The query parameter at fault (unknown, malformed, out of range)."
    )
    code = serializers.CharField(help_text="Machine-readable: required, invalid_choice, unknown…")
    message = serializers.CharField(help_text="For a person to read.")


class ErrorSerializer(serializers.Serializer):
    """The one error body of every 4xx and 5xx under /api/ (``omnium.exceptions``)."""

    code = serializers.CharField(
        help_text="Machine-readable and stable: "
        + ", ".join(sorted(set(STATUS_CODES.values())))
        + " (or a more precise one, such as authentication_failed)."
    )
    message = serializers.CharField(help_text="What went wrong, for a person to read.")
    # DRF's metaclass moves declared fields off the class, so this does not shadow
    # Serializer.errors at run time; mypy sees only the class attribute.
    errors = ErrorItemSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="Validation errors only (400): one per problem."
    )


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
        "Invalid input: a body field, a query parameter (unknown, malformed or outside its "
        "choices, a page_size over the limit, a cursor this list did not give out) or an id "
        "that does not parse. Each problem names its field or parameter.",
        {
            "code": "invalid",
            "message": "page_size: must be at most 200 (the maximum page size).",
            "errors": [
                {
                    "parameter": "page_size",
                    "code": "max_value",
                    "message": "must be at most 200 (the maximum page size).",
                }
            ],
        },
    ),
    "401": (
        "The API key presented is unknown, revoked or expired.",
        {"code": "api_key_rejected", "message": "Invalid, revoked or expired API key."},
    ),
    "403": (
        "Not signed in, or not allowed to do this.",
        {
            "code": "permission_denied",
            "message": "You do not have permission to perform this action.",
        },
    ),
    "404": (
        "No such record (or not visible to you), or an id that is malformed.",
        {"code": "not_found", "message": "No Fixture matches the given query."},
    ),
    "406": (
        "The Accept header names no format this operation answers in (JSON).",
        {"code": "not_acceptable", "message": "Could not satisfy the request Accept header."},
    ),
    "409": (
        "The record changed under you: someone else's write came first.",
        {"code": "conflict", "message": "The delivery was corrected first by someone else."},
    ),
    "412": (
        "If-Match names a version the record is no longer at: someone else's write came "
        "first. Nothing changed; read the record again.",
        {
            "code": "precondition_failed",
            "message": "Rovers v United (fixture 0190f1d2-7a3b-7c4d-8e5f-1a2b3c4d5e6f) changed "
            "since version 3: it is now at version 4. Read it again and redo the change.",
        },
    ),
    "413": (
        "The request body is larger than this server accepts.",
        {"code": "payload_too_large", "message": PayloadTooLarge.default_detail},
    ),
    "415": (
        "The body's Content-Type is not one this operation reads.",
        {"code": "unsupported_media_type", "message": 'Unsupported media type "text/csv".'},
    ),
    "429": (
        "Over a rate limit. Retry after the number of seconds in Retry-After.",
        {
            "code": "throttled",
            "message": "Request was throttled. Expected available in 30 seconds.",
        },
    ),
    "500": (
        "An unexpected failure on the server (it is logged).",
        {"code": "server_error", "message": "Server error: the failure was logged."},
    ),
}

# Each operation's tag, by the module of its view: one group per app.
TAGS = {
    "sports": "The spine: sports, the competition tree, fixtures, participants, tables.",
    "cricket": "Scorecards, deliveries, corrections, careers, leaderboards, traces.",
    "catalogue": "Products, brands, airports and their prices; merges and overrides.",
    "curation": "The merge-candidate queue.",
    "batches": "Staged match files: submission, review, onboarding.",
    "discussions": "Threads, comments, notifications, articles, client surfaces.",
    "accounts": "The API's entry point, who is asking, and the long work (jobs) they follow.",
    "releases": "Cricket dataset releases (staff).",
}


def list_tags(result, generator, request, public):
    """The document's tag list, in the order above, with each app's description."""
    result["tags"] = [{"name": name, "description": text} for name, text in TAGS.items()]
    return result


def tag_of(view) -> str:
    module = type(view).__module__
    name = type(view).__name__
    if module.startswith("cricket.stats") and "Release" in name:
        return "releases"
    if module.startswith("ingest.batches"):
        return "batches"
    if module.startswith("ingest.provenance"):
        return "cricket"
    if module.startswith("omnium"):
        return "accounts"
    if module.startswith("catalogue") and name in ("MergeViewSet", "OverrideViewSet"):
        return "catalogue"
    app = module.split(".")[0]
    return app if app in TAGS else "accounts"


class OmniumAutoSchema(AutoSchema):
    def get_tags(self) -> list[str]:
        return [tag_of(self.view)]

    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        query = getattr(self.view, "query_serializer_class", None)
        if query is not None and self.method == "GET":
            parameters.append(query)
        return parameters

    def is_public(self) -> bool:
        """Anyone may call it: a read whose every permission is AllowAny."""
        permissions = getattr(self.view, "permission_classes", ())
        return self.method in SAFE_METHODS and all(p is AllowAny for p in permissions)

    def get_auth(self):
        if self.is_public():
            return []
        # Credentials required: session or API key, never the anonymous alternative.
        return [scheme for scheme in super().get_auth() if scheme != {}]

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        if self.is_public():
            operation["security"] = []
        for parameter in operation.get("parameters", []):
            # The convention for a parameter kept under the deprecation policy (docs/api.md):
            # its help text starts "Deprecated", and the schema marks it so.
            if parameter.get("description", "").startswith("Deprecated"):
                parameter["deprecated"] = True
        paginator = getattr(self.view, "paginator", None)
        # A generic list gets its paging parameters from drf-spectacular; a computed list
        # (an ApiView with a pagination_class) from its paginator here.
        if paginator is not None and not isinstance(self.view, GenericAPIView):
            parameters = operation.setdefault("parameters", [])
            known = {p["name"] for p in parameters}
            parameters.extend(
                p
                for p in paginator.get_schema_operation_parameters(self.view)
                if p["name"] not in known
            )
        responses = operation.setdefault("responses", {})
        throttled = bool(getattr(self.view, "throttle_classes", ()))
        if throttled:
            for code, response in responses.items():
                if code.startswith("2"):
                    response.setdefault("headers", {}).update(rate_limit_headers(required=False))
        declared = [c for c in responses if c[0] in "45"]
        for code in dict.fromkeys([*self._error_codes(path, operation, throttled), *declared]):
            if code in responses and "content" in responses[code]:
                continue
            described = responses.get(code, {}).get("description")
            responses[code] = self._error_response(code, described)
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
        codes = ["401", "406", "500"]
        if "requestBody" in operation or has_query or "{" in path:
            codes.append("400")
        if "requestBody" in operation:
            codes.extend(("413", "415"))
        if not self.is_public():
            codes.append("403")
        if "{" in path:
            codes.append("404")
        if throttled:
            codes.append("429")
        return codes

    def _error_response(self, code: str, described: str | None = None) -> dict:
        description, example = ERRORS[code]
        response = self._get_response_for_code(
            OpenApiResponse(
                response=ErrorSerializer,
                description=described or description,
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
