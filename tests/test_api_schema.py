"""The OpenAPI document is good enough to build on: clean under drf-spectacular's own
validation, one tag per app, security declared per operation, every error documented."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command

from omnium.schema import TAGS

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def document(django_db_blocker, tmp_path_factory):
    target = tmp_path_factory.mktemp("schema") / "openapi.yaml"
    with django_db_blocker.unblock():
        # --fail-on-warn: any warning (an unresolvable type, a clashing enum name) fails.
        call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    return yaml.safe_load(target.read_text())


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_every_operation_has_one_app_tag(document):
    used = set()
    for name, operation in _operations(document):
        assert len(operation["tags"]) == 1, name
        assert operation["tags"][0] in TAGS, name
        used.add(operation["tags"][0])
    assert used == set(TAGS)


def test_the_tags_are_listed_with_descriptions(document):
    assert {t["name"] for t in document["tags"]} == set(TAGS)


def test_public_reads_declare_no_credentials(document):
    for path in ("/api/v1/fixtures/", "/api/v1/cricket/leaderboards/batting/", "/api/v1/products/"):
        assert document["paths"][path]["get"]["security"] == [], path


def test_operations_needing_an_account_declare_session_or_key_only(document):
    security = document["paths"]["/api/v1/batches/"]["get"]["security"]
    assert {} not in security
    assert {"cookieAuth": []} in security and {"ApiKeyAuth": []} in security


def test_every_error_response_has_the_one_error_body(document):
    for name, operation in _operations(document):
        for code, response in operation["responses"].items():
            if code[0] in "45":
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, f"{name} {code}"
        assert {"401", "406", "500"} <= set(operation["responses"]), name


def test_lists_document_their_paging_and_a_400(document):
    fixtures = document["paths"]["/api/v1/fixtures/"]["get"]
    names = {p["name"] for p in fixtures["parameters"]}
    assert {"cursor", "page_size", "q", "sport", "date_from", "date_to", "ordering"} <= names
    size = next(p for p in fixtures["parameters"] if p["name"] == "page_size")
    assert size["schema"]["maximum"] == 200
    assert "400" in fixtures["responses"]


def test_the_leaderboard_documents_format_and_its_orderings_as_an_enum(document):
    board = document["paths"]["/api/v1/cricket/leaderboards/batting/"]["get"]
    parameters = {p["name"]: p for p in board["parameters"]}
    assert {"format", "cursor", "page_size", "ordering"} <= set(parameters)
    assert "-runs" in parameters["ordering"]["schema"]["enum"]
