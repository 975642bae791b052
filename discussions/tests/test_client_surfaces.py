from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import ProgrammingError, transaction

from accounts.tests.factories import StaffFactory
from discussions import services
from discussions.models import FeaturePriority, OwnerItemState, QuoteRequest, QuoteSelection
from discussions.tests.factories import ClientTodoFactory, DecisionItemFactory

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"


@pytest.fixture(autouse=True)
def _private_media(settings, tmp_path):
    settings.PRIVATE_MEDIA_ROOT = tmp_path / "private"


def test_the_latest_feature_priority_wins(admin_user):
    other = StaffFactory(username="second-admin", role="admin")
    services.feature_priority_set(feature_key="price-alerts", priority="could", actor=admin_user)
    services.feature_priority_set(feature_key="price-alerts", priority="must", actor=other)
    row = FeaturePriority.objects.get()
    assert (row.priority, row.author) == ("must", other)


@pytest.mark.parametrize("persona", ["viewer", "submitter", "reviewer", "editor"])
def test_only_the_client_ranks_features_and_chooses_quote_lines(request, persona):
    user = request.getfixturevalue(persona)
    with pytest.raises(PermissionDenied):
        services.feature_priority_set(feature_key="price-alerts", priority="must", actor=user)
    with pytest.raises(PermissionDenied):
        services.quote_selection_set(item_key="line-7", included=True, actor=user)
    assert not FeaturePriority.objects.exists()
    assert not QuoteSelection.objects.exists()


def test_the_latest_quote_selection_wins(admin_user):
    services.quote_selection_set(item_key="line-7", included=True, actor=admin_user)
    services.quote_selection_set(item_key="line-7", included=False, actor=admin_user)
    assert QuoteSelection.objects.get().included is False


def test_a_quote_request_freezes_the_basket_and_totals_it(viewer):
    request = services.quote_request_submit(
        lines=[
            {"item_key": "a", "label": "Gin 70cl", "quantity": 2, "unit_usd": "19.99"},
            {"item_key": "b", "quantity": 1, "unit_usd": 5},
        ],
        note="for the launch",
        actor=viewer,
    )
    assert request.total_usd == Decimal("44.98")
    assert request.items[0] == {
        "item_key": "a", "label": "Gin 70cl", "quantity": 2, "unit_usd": "19.99",
    }  # fmt: skip


def test_a_submitted_quote_request_cannot_be_changed(viewer):
    request = services.quote_request_submit(
        lines=[{"item_key": "a", "quantity": 1, "unit_usd": "1"}], note="", actor=viewer
    )
    with pytest.raises(ProgrammingError), transaction.atomic():
        QuoteRequest.objects.filter(pk=request.pk).update(total_usd=0)


def test_an_empty_basket_cannot_be_submitted(viewer):
    with pytest.raises(ValidationError):
        services.quote_request_submit(lines=[], note="", actor=viewer)


def test_the_owners_latest_decision_on_an_item_wins(admin_user):
    item = DecisionItemFactory()
    services.owner_item_state_set(item=item, status="deferred", decision="", actor=admin_user)
    services.owner_item_state_set(
        item=item, status="accepted", decision="go ahead", actor=admin_user
    )
    state = OwnerItemState.objects.get(item=item)
    assert (state.status, state.decision, state.acted_by) == ("accepted", "go ahead", admin_user)


def test_completing_a_todo_records_who_and_when(viewer):
    todo = services.todo_complete(todo=ClientTodoFactory(owner=viewer), actor=viewer)
    assert (todo.status, todo.completed_by) == ("done", viewer)
    assert todo.completed_at is not None


def test_an_upload_is_stored_privately_with_its_size_and_type(viewer, settings):
    todo = ClientTodoFactory(owner=viewer)
    upload = services.upload_add(todo=todo, file=SimpleUploadedFile("brief.pdf", PDF), actor=viewer)
    assert (upload.original_name, upload.content_type, upload.bytes) == (
        "brief.pdf", "application/pdf", len(PDF),
    )  # fmt: skip
    assert upload.file.path.startswith(str(settings.PRIVATE_MEDIA_ROOT))
    assert upload.file.storage.base_url is None


def test_a_file_whose_content_does_not_match_its_type_is_refused(viewer):
    todo = ClientTodoFactory(owner=viewer)
    with pytest.raises(ValidationError, match="does not match"):
        services.upload_add(
            todo=todo, file=SimpleUploadedFile("brief.pdf", b"MZ\x90\x00binary"), actor=viewer
        )


def test_an_unaccepted_file_type_is_refused(viewer):
    todo = ClientTodoFactory(owner=viewer)
    with pytest.raises(ValidationError, match="not accepted"):
        services.upload_add(todo=todo, file=SimpleUploadedFile("run.exe", b"MZ"), actor=viewer)


def test_an_oversized_file_is_refused(viewer, settings):
    settings.CLIENT_UPLOAD_MAX_BYTES = 10
    todo = ClientTodoFactory(owner=viewer)
    with pytest.raises(ValidationError, match="limited"):
        services.upload_add(todo=todo, file=SimpleUploadedFile("a.pdf", PDF), actor=viewer)


def test_a_todo_that_takes_no_files_refuses_uploads(viewer):
    todo = ClientTodoFactory(owner=viewer, accepts_files=False)
    with pytest.raises(ValidationError):
        services.upload_add(todo=todo, file=SimpleUploadedFile("a.pdf", PDF), actor=viewer)


def test_only_the_owner_or_a_moderator_downloads_an_upload(client, viewer, outsider, editor):
    todo = ClientTodoFactory(owner=viewer)
    upload = services.upload_add(todo=todo, file=SimpleUploadedFile("a.pdf", PDF), actor=viewer)
    url = f"/discussions/uploads/{upload.pk}/"
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.force_login(viewer)
    response = client.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PDF
    client.force_login(editor)
    assert client.get(url).status_code == 200
