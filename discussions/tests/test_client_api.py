import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from discussions.models import FeaturePriority, QuoteRequest
from discussions.tests.factories import ClientTodoFactory, DecisionItemFactory

pytestmark = pytest.mark.django_db


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_client_surfaces_need_a_signed_in_account(anon_client):
    for url in ("/api/v1/feature-priorities/", "/api/v1/todos/", "/api/v1/decision-items/"):
        assert anon_client.get(url).status_code == 403


def test_posting_a_priority_twice_keeps_one_row_with_the_latest(admin_user):
    client = _client(admin_user)
    client.post("/api/v1/feature-priorities/", {"feature_key": "alerts", "priority": "could"})
    response = client.post(
        "/api/v1/feature-priorities/", {"feature_key": "alerts", "priority": "must"}
    )
    assert response.status_code == 200
    assert FeaturePriority.objects.get().priority == "must"


def test_a_quote_request_from_the_api_is_frozen_with_its_total(viewer):
    response = _client(viewer).post(
        "/api/v1/quote-requests/",
        {"note": "", "lines": [{"item_key": "a", "quantity": 3, "unit_usd": "2.50"}]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["total_usd"] == "7.50"
    assert QuoteRequest.objects.get().author == viewer


def test_only_an_administrator_sets_the_owners_item_state(viewer, admin_user):
    item = DecisionItemFactory()
    url = f"/api/v1/decision-items/{item.pk}/state/"
    assert _client(viewer).post(url, {"status": "accepted"}).status_code == 403
    response = _client(admin_user).post(url, {"status": "accepted", "decision": "yes"})
    assert response.json()["owner_state"]["status"] == "accepted"


def test_todos_list_only_my_own(viewer, outsider):
    ClientTodoFactory(owner=viewer)
    ClientTodoFactory(owner=outsider)
    assert len(_client(viewer).get("/api/v1/todos/").json()["results"]) == 1


def test_uploading_to_a_todo(viewer, settings, tmp_path):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    todo = ClientTodoFactory(owner=viewer)
    response = _client(viewer).post(
        f"/api/v1/todos/{todo.pk}/uploads/",
        {"file": SimpleUploadedFile("notes.txt", b"plain words"), "note": "as asked"},
        format="multipart",
    )
    assert response.status_code == 201
    assert response.json()["bytes"] == len(b"plain words")


def test_a_refused_upload_is_a_400(viewer, settings, tmp_path):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    todo = ClientTodoFactory(owner=viewer)
    response = _client(viewer).post(
        f"/api/v1/todos/{todo.pk}/uploads/",
        {"file": SimpleUploadedFile("tool.exe", b"MZ")},
        format="multipart",
    )
    assert response.status_code == 400


def test_nobody_uploads_to_someone_elses_todo(viewer, outsider, settings, tmp_path):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    todo = ClientTodoFactory(owner=viewer)
    response = _client(outsider).post(
        f"/api/v1/todos/{todo.pk}/uploads/",
        {"file": SimpleUploadedFile("a.txt", b"x")},
        format="multipart",
    )
    assert response.status_code == 404
