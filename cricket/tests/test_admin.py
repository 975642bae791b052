"""The cricket console: every page renders and nothing can be edited by hand."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from cricket.models import Delivery, DismissalKind, FixtureOfficial, Innings
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import ExternalIdMap, Fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, admin_user):
    seed_dismissal_kinds()
    Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    client.force_login(admin_user)
    return client


@pytest.mark.parametrize("model", [DismissalKind, Innings, Delivery, FixtureOfficial])
def test_each_cricket_changelist_and_change_page_renders(console, model):
    base = f"/admin/cricket/{model._meta.model_name}/"
    assert console.get(base).status_code == 200
    row = model.objects.first()
    assert console.get(f"{base}{row.pk}/change/").status_code == 200


@pytest.mark.parametrize("model", [DismissalKind, Innings, Delivery, FixtureOfficial])
def test_cricket_rows_cannot_be_added_by_hand(console, model):
    assert console.get(f"/admin/cricket/{model._meta.model_name}/add/").status_code == 403


def test_the_upload_page_renders(console):
    assert console.get("/admin/cricket/innings/upload/").status_code == 200


def test_an_uploaded_file_is_imported_with_the_editor_on_its_submission(console, admin_user):
    doc = cricsheet_match(dates=["2024-07-01"])
    upload = SimpleUploadedFile("900777.json", json.dumps(doc).encode(), "application/json")
    response = console.post("/admin/cricket/innings/upload/", {"files": [upload]}, follow=True)
    assert "900777.json: new (13 deliveries)" in response.content.decode()
    link = ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type="fixture", external_id="900777"
    )
    assert Fixture.objects.get(pk=link.internal_id).first_seen_in.submitted_by == admin_user


def test_a_broken_upload_lists_its_problems_and_writes_nothing(console):
    doc = cricsheet_match(dates=["2024-07-01"])
    doc["innings"][0]["overs"][0]["deliveries"][1]["extras"]["wides"] = -1
    before = Delivery.objects.count()
    upload = SimpleUploadedFile("900778.json", json.dumps(doc).encode(), "application/json")
    response = console.post("/admin/cricket/innings/upload/", {"files": [upload]}, follow=True)
    assert "extras.wides: must be 0 or more" in response.content.decode()
    assert Delivery.objects.count() == before


def test_an_uploaded_file_over_the_file_limit_is_refused_naming_the_limit(console, settings):
    settings.INGEST_MAX_FILE_BYTES = 100
    raw = json.dumps(cricsheet_match(dates=["2024-07-01"])).encode()
    upload = SimpleUploadedFile("900779.json", raw, "application/json")
    response = console.post("/admin/cricket/innings/upload/", {"files": [upload]})
    assert f"900779.json: {len(raw)} bytes; the limit is INGEST_MAX_FILE_BYTES = 100" in (
        response.content.decode()
    )
    assert not ExternalIdMap.objects.filter(external_id="900779").exists()


def test_an_upload_request_over_the_request_limit_is_refused_and_imports_nothing(console, settings):
    settings.UPLOAD_MAX_REQUEST_BYTES = 1024
    raw = json.dumps(cricsheet_match(dates=["2024-07-01"])).encode()
    upload = SimpleUploadedFile("900780.json", raw, "application/json")
    response = console.post("/admin/cricket/innings/upload/", {"files": [upload]})
    assert response.status_code == 400
    assert not ExternalIdMap.objects.filter(external_id="900780").exists()
