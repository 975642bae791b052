"""API-key authentication for programs: ``Authorization: Api-Key <prefix>.<secret>``.

A key authenticates as its consumer's owning account, so every role and grant check works
for programs exactly as for people; ``request.auth`` is the ``ApiKey`` (the consumer
throttle keys on it). Browsers keep using session authentication.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiKey, User
from accounts.services import api_key_authenticate

KEYWORD = "Api-Key"


class ApiKeyRejected(exceptions.APIException):
    """401 with an ``Api-Key`` challenge.

    Not an ``AuthenticationFailed``: DRF turns that into a 403 unless the *first*
    authenticator has a challenge, and session authentication (first, for browsers) has
    none. Putting this class first instead would change what anonymous clients get.
    """

    status_code = 401
    default_detail = "Invalid, revoked or expired API key."
    default_code = "authentication_failed"
    auth_header = KEYWORD


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[User, ApiKey] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        keyword, _, presented = header.partition(" ")
        if keyword.lower() != KEYWORD.lower():
            # Not ours (no header, or another scheme): let the next authenticator look.
            return None
        key = api_key_authenticate(presented=presented)
        if key is None:
            raise ApiKeyRejected
        return key.consumer.owner, key

    def authenticate_header(self, request: Request) -> str:
        return KEYWORD


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Describes the scheme in the OpenAPI document (drf-spectacular warns on unknown ones)."""

    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": f"`{KEYWORD} <prefix>.<secret>`, as shown once when the key was issued.",
        }
