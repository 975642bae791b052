"""The schema's examples for the main reads exist and say what the responses really look
like: each validates against the response schema it illustrates (the paged ones with the
page around them), so an example cannot drift from its serializer unnoticed."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS30Validator

MAIN_READS = [
    "/api/v1/competitions/",
    "/api/v1/fixtures/",
    "/api/v1/cricket/fixtures/{id}/scorecard/",
    "/api/v1/cricket/players/{id}/career/",
    "/api/v1/cricket/leaderboards/batting/",
    "/api/v1/products/",
    "/api/v1/products/{id}/",
]


@pytest.fixture(scope="module")
def document():
    return SchemaGenerator().get_schema(request=None, public=True)


def _validator(document, schema):
    return OAS30Validator({**schema, "components": document["components"]})


@pytest.mark.parametrize("path", MAIN_READS)
def test_each_main_read_has_an_example_its_schema_accepts(document, path):
    content = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    examples = content.get("examples", {})
    assert examples, f"GET {path} has no 200 example"
    validator = _validator(document, content["schema"])
    for name, example in examples.items():
        problems = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(example["value"])
        ]
        assert not problems, f"GET {path} example {name!r}: {problems}"


def test_every_error_response_has_an_example(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for code, response in operation["responses"].items():
                if code[0] in "45":
                    examples = response["content"]["application/json"].get("examples")
                    assert examples, f"{method.upper()} {path} {code}"
