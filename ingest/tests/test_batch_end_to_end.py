"""A submitter's batch of real matches from upload to public fixtures, through the API:
validation, an onboarding task for a renamed player, the reviewer's answer, approval and
publication; and a rejected batch that publishes nothing."""

import base64
import json

import pytest
from django.db.models import Sum
from rest_framework.test import APIClient

from cricket.models import Delivery
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches.models import BatchState
from ingest.cricsheet.importer import Importer
from ingest.tests.batch_factories import SMALL, renamed, sample
from sports.models import Fixture, Submission, SubmissionKind

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
URL = "/api/v1/batches/"


@pytest.fixture(autouse=True)
def _eager(db, settings):
    seed_dismissal_kinds()
    settings.CELERY_TASK_ALWAYS_EAGER = True


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _upload(client, files, key):
    body = {
        "files": [
            {"name": name, "content_base64": base64.b64encode(raw).decode()} for name, raw in files
        ]
    }
    return client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _runs_in_file(raw: bytes) -> int:
    document = json.loads(raw)
    return sum(
        d["runs"]["total"]
        for inning in document["innings"]
        for over in inning.get("overs", [])
        for d in over["deliveries"]
    )


def test_upload_validate_onboard_approve_publish(
    submitter, reviewer, django_capture_on_commit_callbacks
):
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)  # "A Learoyd" is known from this match
    files = [
        renamed(SMALL[1], old_name="KL Cross", new_name="A Learoyd", new_id="0badcafe"),
        sample("64924"),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        created = _upload(_client(submitter), files, "e2e")
    assert created.status_code == 201, created.data
    batch_url = f"{URL}{created.data['id']}/"
    seen = _client(submitter).get(batch_url).data
    assert seen["state"] == BatchState.AWAITING_REVIEW
    assert [i["outcome"] for i in seen["items"]] == ["valid", "valid"]
    assert Fixture.objects.public().count() == 1  # only the corpus match
    # The reviewer finds the task and links the file's "A Learoyd" to the known one.
    review = _client(reviewer)
    (task,) = review.get(batch_url).data["onboarding_tasks"]
    refused = review.post(f"{batch_url}decision/", {"approve": True, "reason": "ok"})
    assert refused.status_code == 400
    assert task["task_reference"] in str(refused.data)
    answered = review.post(
        f"{batch_url}onboarding/",
        {"task_reference": task["task_reference"], "participant": task["candidates"][0]},
        format="json",
    )
    assert answered.status_code == 200, answered.data
    with django_capture_on_commit_callbacks(execute=True):
        decided = review.post(
            f"{batch_url}decision/", {"approve": True, "reason": "checked"}, format="json"
        )
    assert decided.status_code == 200, decided.data
    final = _client(submitter).get(batch_url).data
    assert final["state"] == BatchState.PUBLISHED
    assert [t["to_state"] for t in final["transitions"]][-3:] == [
        "approved",
        "publishing",
        "published",
    ]
    for item, (_, file_raw) in zip(final["items"], files, strict=True):
        fixture = Fixture.objects.public().get(pk=item["fixture"])
        assert fixture.first_seen_in.kind == SubmissionKind.BATCH
        assert fixture.first_seen_in.submitted_by == submitter
        runs = Delivery.objects.filter(innings__fixture=fixture).aggregate(r=Sum("runs_total"))
        assert runs["r"] == _runs_in_file(file_raw)
    assert Fixture.objects.public().count() == 3


def test_a_rejected_batch_publishes_nothing(
    submitter, reviewer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        created = _upload(_client(submitter), [sample(m) for m in SMALL], "e2e-reject")
    batch_url = f"{URL}{created.data['id']}/"
    decided = _client(reviewer).post(
        f"{batch_url}decision/", {"approve": False, "reason": "not ours"}, format="json"
    )
    assert decided.status_code == 200, decided.data
    assert decided.data["state"] == BatchState.REJECTED
    assert not Fixture.objects.exists()
    assert not Submission.objects.exists()
    assert len(_client(submitter).get(batch_url).data["items"]) == 2
