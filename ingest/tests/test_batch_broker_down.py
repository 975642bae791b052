"""A batch submitted while the broker is down: the API answers 201 at once with the batch
staged, its validation job waits unsent, and the dispatcher sends it when the broker is
back; the same submission again (its idempotency key) answers the same batch."""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import subprocess
import sys

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Job, JobKind, JobState
from accounts.services import jobs_dispatch_unsent
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches.models import Batch, BatchState
from ingest.batches.tasks import batch_validate_task
from ingest.tests.batch_factories import SMALL, sample
from omnium.testing import REPO_ROOT, _database_url_for_test_db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("batch_grants")]

# Run by a process whose broker, result store and cache are a closed port.
POSTER = """
import json, sys, time, django
django.setup()
from rest_framework.test import APIClient
from accounts.models import User
client = APIClient()
client.force_authenticate(User.objects.get(pk=sys.argv[1]))
body = json.loads(open(sys.argv[2]).read())
began = time.monotonic()
response = client.post("/api/v1/batches/", body, format="json", HTTP_IDEMPOTENCY_KEY="down-1")
print(response.status_code, response.json().get("id"), round(time.monotonic() - began, 2))
"""


def _body():
    return {
        "files": [
            {"name": name, "content_base64": base64.b64encode(raw).decode()}
            for name, raw in (sample(m) for m in SMALL)
        ]
    }


def test_a_batch_posted_while_the_broker_is_down_is_staged_and_validated_once_it_returns(
    submitter, tmp_path, settings
):
    seed_dismissal_kinds()
    settings.JOBS_QUEUE = "test-broker-down-nobody-consumes"
    body = tmp_path / "body.json"
    body.write_text(json.dumps(_body()))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
        "DATABASE_URL": _database_url_for_test_db(),
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    done = subprocess.run(
        [sys.executable, "-c", POSTER, str(submitter.pk), str(body)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    code, batch_id, seconds = done.stdout.split()
    assert code == "201" and float(seconds) < 5, done.stdout
    batch = Batch.objects.get(pk=batch_id)
    assert batch.state == BatchState.RECEIVED and batch.items.count() == len(SMALL)
    job = Job.objects.get(kind=JobKind.BATCH_VALIDATE, target=batch_id)
    assert job.state == JobState.QUEUED and job.sent_at is None

    assert jobs_dispatch_unsent(now=timezone.now() + dt.timedelta(minutes=5)) == 1
    job.refresh_from_db()
    assert job.sent_at is not None
    # What the worker does with the message the dispatcher sent.
    batch_validate_task.apply(args=[batch_id], kwargs={"job_id": str(job.pk)})
    batch.refresh_from_db()
    job.refresh_from_db()
    assert batch.state == BatchState.AWAITING_REVIEW and job.state == JobState.SUCCEEDED

    client = APIClient()
    client.force_authenticate(submitter)
    again = client.post("/api/v1/batches/", _body(), format="json", HTTP_IDEMPOTENCY_KEY="down-1")
    assert (again.status_code, again.json()["id"]) == (200, batch_id)
    assert Job.objects.filter(kind=JobKind.BATCH_VALIDATE).count() == 1
