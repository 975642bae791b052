"""/api/v1/batches/: upload with an idempotency key, read, decide; role checks throughout."""

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import Batch, BatchState
from ingest.storage import stored_object_read
from ingest.tests.batch_factories import SMALL, BatchFactory, sample
from sports.models import Fixture

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
URL = "/api/v1/batches/"


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _body(*match_ids):
    return {
        "files": [
            {"name": name, "content_base64": base64.b64encode(raw).decode()}
            for name, raw in (sample(m) for m in match_ids)
        ]
    }


def _post(client, body, key="k1", **kwargs):
    return client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=key, **kwargs)


def test_a_submitter_uploads_and_validation_runs_after_commit(
    submitter, django_capture_on_commit_callbacks, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = _post(_client(submitter), _body(*SMALL))
    assert response.status_code == 201, response.data
    assert len(callbacks) == 1
    batch = Batch.objects.get(pk=response.data["id"])
    assert batch.submitter == submitter
    assert batch.items.count() == 2


def test_resending_the_same_key_returns_the_same_batch(submitter):
    client = _client(submitter)
    first = _post(client, _body(SMALL[0]))
    again = _post(client, _body(SMALL[0]))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.data["id"] == first.data["id"]
    assert Batch.objects.count() == 1


def test_the_key_is_required(submitter):
    response = _client(submitter).post(URL, _body(SMALL[0]), format="json")
    assert response.status_code == 400
    assert "Idempotency-Key" in {e.get("field") for e in response.data["errors"]}


def test_multipart_upload(submitter):
    name, raw = sample(SMALL[0])
    response = _client(submitter).post(
        URL,
        {"files": [SimpleUploadedFile(name, raw, content_type="application/json")]},
        format="multipart",
        HTTP_IDEMPOTENCY_KEY="m1",
    )
    assert response.status_code == 201, response.data
    assert stored_object_read(Batch.objects.get().items.get().stored_object) == raw


def test_bad_base64_is_a_400_naming_the_file(submitter):
    body = {"files": [{"name": "1.json", "content_base64": "%%%"}]}
    response = _post(_client(submitter), body)
    assert response.status_code == 400
    assert "1.json" in str(response.data)


@pytest.mark.parametrize("persona", ["viewer", "outsider"])
def test_roles_that_may_not_submit_get_403(persona, request):
    response = _post(_client(request.getfixturevalue(persona)), _body(SMALL[0]))
    assert response.status_code == 403
    assert not Batch.objects.exists()


def test_anonymous_gets_nothing(submitter):
    BatchFactory(submitter=submitter)
    assert _client().get(URL).status_code == 403
    assert _post(_client(), _body(SMALL[0])).status_code == 403


def test_a_submitter_reads_only_their_own_batches(submitter, editor):
    mine = BatchFactory(submitter=submitter)
    theirs = BatchFactory(submitter=editor)
    client = _client(submitter)
    listed = client.get(URL)
    assert [b["id"] for b in listed.data["results"]] == [str(mine.pk)]
    assert client.get(f"{URL}{theirs.pk}/").status_code == 404


def test_the_detail_shows_validation_results_item_by_item(submitter):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    response = _client(submitter).get(f"{URL}{batch.pk}/")
    assert response.status_code == 200
    assert response.data["state"] == "awaiting_review"
    assert [i["outcome"] for i in response.data["items"]] == ["valid", "valid"]
    assert response.data["items"][0]["resolution"]["people"]


def test_a_reviewer_sees_the_queue_and_approves(
    submitter, reviewer, django_capture_on_commit_callbacks, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    client = _client(reviewer)
    queue = client.get(URL, {"state": "awaiting_review"})
    assert [b["id"] for b in queue.data["results"]] == [str(batch.pk)]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{URL}{batch.pk}/decision/", {"approve": True, "reason": "ok"}, format="json"
        )
    assert response.status_code == 200, response.data
    batch.refresh_from_db()
    assert batch.state == BatchState.PUBLISHED
    assert Fixture.objects.public().count() == 2


def test_a_submitter_cannot_decide(submitter):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    response = _client(submitter).post(
        f"{URL}{batch.pk}/decision/", {"approve": True, "reason": "mine"}, format="json"
    )
    assert response.status_code == 403
    batch.refresh_from_db()
    assert batch.state == BatchState.AWAITING_REVIEW


def test_a_decision_needs_a_reason(submitter, reviewer):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    response = _client(reviewer).post(
        f"{URL}{batch.pk}/decision/", {"approve": False}, format="json"
    )
    assert response.status_code == 400
    assert "reason" in {e.get("field") for e in response.data["errors"]}
