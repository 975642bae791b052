import re

import pytest
import yaml
from django.core.exceptions import ValidationError
from openapi_spec_validator import validate
from rest_framework.test import APIRequestFactory

from omnium.exceptions import api_exception_handler


@pytest.mark.django_db
def test_schema_is_a_valid_openapi_document(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    document = yaml.safe_load(response.content)
    validate(document)
    assert document["info"]["title"] == "omnium API"


@pytest.mark.django_db
def test_swagger_ui_renders_from_local_files_only(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    external = [
        u
        for u in re.findall(r"https?://[^\s\"'<>)]+", page)
        if not u.startswith("http://testserver")
    ]
    assert external == []


@pytest.mark.django_db
def test_api_root_links_schema_and_docs(anon_client):
    body = anon_client.get("/api/v1/").json()
    assert body == {
        "schema": "http://testserver/api/schema/",
        "docs": "http://testserver/api/docs/",
    }


def test_django_validation_error_becomes_a_400_with_field_errors():
    request = APIRequestFactory().get("/")
    error = ValidationError({"code": ["Already taken."], "__all__": ["Dates overlap."]})
    response = api_exception_handler(error, {"request": request, "view": None})
    assert response.status_code == 400
    assert response.data["code"] == "invalid"
    assert response.data["errors"] == [
        {"field": "code", "code": "invalid", "message": "Already taken."},
        {"code": "invalid", "message": "Dates overlap."},
    ]


def test_plain_django_validation_error_becomes_non_field_errors():
    response = api_exception_handler(ValidationError("Nope."), {"request": None, "view": None})
    assert response.status_code == 400
    assert response.data == {
        "code": "invalid",
        "message": "Nope.",
        "errors": [{"code": "invalid", "message": "Nope."}],
    }
