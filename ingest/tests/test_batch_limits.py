"""A batch's size is bounded by settings (BATCH_MAX_FILE_BYTES, BATCH_MAX_TOTAL_BYTES) and a
multipart request by UPLOAD_MAX_REQUEST_BYTES; each refusal names the limit, and an
uploaded part is measured before it is read into memory."""

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ingest.batches.limits import batch_files_collect
from ingest.batches.models import Batch
from ingest.tests.batch_factories import SMALL, sample

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
URL = "/api/v1/batches/"


def _upload(user, *files):
    client = APIClient()
    client.force_authenticate(user)
    return client.post(
        URL,
        {
            "files": [
                SimpleUploadedFile(n, raw, content_type="application/json") for n, raw in files
            ]
        },
        format="multipart",
        HTTP_IDEMPOTENCY_KEY="limits",
    )


def test_files_are_refused_as_soon_as_they_pass_the_batch_total_naming_it(settings):
    first, second = (sample(m) for m in SMALL)
    settings.BATCH_MAX_TOTAL_BYTES = len(first[1]) + 1
    taken = []

    def files():
        for pair in (first, second, ("never.json", b"{}")):
            taken.append(pair[0])
            yield pair

    with pytest.raises(ValidationError) as refused:
        batch_files_collect(files())
    assert taken == [first[0], second[0]]  # the third is never read
    assert f"{second[0]}:" in refused.value.messages[0]
    assert f"BATCH_MAX_TOTAL_BYTES = {len(first[1]) + 1}" in refused.value.messages[0]


def test_an_uploaded_batch_over_its_total_size_is_refused_naming_the_limit(submitter, settings):
    files = [sample(m) for m in SMALL]
    settings.BATCH_MAX_TOTAL_BYTES = sum(len(raw) for _, raw in files) - 1
    response = _upload(submitter, *files)
    assert response.status_code == 400
    assert "BATCH_MAX_TOTAL_BYTES" in response.json()["message"]
    assert not Batch.objects.exists()


def test_an_uploaded_part_over_the_file_limit_is_refused_naming_it(submitter, settings):
    name, raw = sample(SMALL[0])
    settings.BATCH_MAX_FILE_BYTES = len(raw) - 1
    response = _upload(submitter, (name, raw))
    assert response.status_code == 400
    assert (
        f"{name}: {len(raw)} bytes; the limit is BATCH_MAX_FILE_BYTES" in response.json()["message"]
    )


def test_a_multipart_request_over_the_request_limit_is_a_413_naming_it(submitter, settings):
    settings.UPLOAD_MAX_REQUEST_BYTES = 64 * 1024
    response = _upload(submitter, ("900001.json", b" " * (128 * 1024)))
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"
    assert "UPLOAD_MAX_REQUEST_BYTES = 65536" in response.json()["message"]
    assert not Batch.objects.exists()
