"""The OpenAPI document describes the limits and the errors every operation can answer."""

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

LIMIT_HEADERS = {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_every_operation_documents_429_with_retry_after_and_the_limit_headers(document):
    for name, operation in _operations(document):
        refused = operation["responses"].get("429")
        assert refused is not None, name
        assert {"Retry-After", *LIMIT_HEADERS} <= set(refused["headers"]), name
        assert refused["headers"]["Retry-After"]["required"] is True, name
        assert refused["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }


def test_success_responses_document_the_limit_headers_as_optional(document):
    # Signed-in browsers are not throttled, so their responses carry none.
    for name, operation in _operations(document):
        for code, response in operation["responses"].items():
            if code.startswith("2"):
                headers = response.get("headers", {})
                assert set(headers) >= LIMIT_HEADERS, f"{name} {code}"
                assert not any(headers[h]["required"] for h in LIMIT_HEADERS)


def test_every_operation_documents_401_for_a_bad_key_with_an_example(document):
    for name, operation in _operations(document):
        content = operation["responses"]["401"]["content"]["application/json"]
        assert content["examples"], name


def test_paths_naming_a_record_document_404_and_writes_document_403(document):
    for name, operation in _operations(document):
        if "{" in name:
            assert "404" in operation["responses"], name
        if not name.startswith("GET"):
            assert "403" in operation["responses"], name


def test_the_documented_429_is_what_a_refused_client_gets(settings, document):
    settings.API_ANON_PER_MINUTE = 1
    client = APIClient(REMOTE_ADDR="192.0.2.55")
    client.get("/api/v1/sports/")
    refused = client.get("/api/v1/sports/")
    assert refused.status_code == 429
    documented = document["paths"]["/api/v1/sports/"]["get"]["responses"]["429"]["headers"]
    assert set(documented) <= set(refused.headers)
    assert set(refused.json()) == {"code", "message"}
    assert refused.json()["code"] == "throttled"


def test_the_conditional_endpoints_document_304(document):
    for path in (
        "/api/v1/fixtures/{id}/",
        "/api/v1/cricket/fixtures/{id}/scorecard/",
        "/api/v1/products/{id}/",
    ):
        assert "304" in document["paths"][path]["get"]["responses"], path
    assert "304" not in document["paths"]["/api/v1/fixtures/"]["get"]["responses"]


def test_an_api_url_nothing_matches_answers_the_json_error_body(client):
    response = client.get("/api/v1/no-such-resource/")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "Not found."}


def test_a_site_url_nothing_matches_still_gets_the_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_the_bench_baseline_view_is_not_routed_by_default(client):
    assert client.get("/bench/bare").status_code == 404
