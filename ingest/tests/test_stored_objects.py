"""Stored objects: private bytes with their metadata; expiry deletes bytes, keeps the row."""

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import ProgrammingError, transaction
from django.utils import timezone

from accounts.models import AuditEntry
from ingest.models import RetentionState, StoredObject
from ingest.storage import (
    StoredObjectExpired,
    object_storage,
    sanitise_name,
    stored_object_create,
    stored_object_read,
    stored_objects_expire,
)
from omnium.celery import app

pytestmark = pytest.mark.django_db

RAW = b'{"info": {"teams": ["North", "South"]}}'


@pytest.fixture(autouse=True)
def private_root(settings, tmp_path):
    """The object storage in a directory of this test's own."""
    root = tmp_path / "objects"
    settings.STORAGES = {
        **settings.STORAGES,
        "stored_objects": {
            "BACKEND": "ingest.storage.PrivateFileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    return root


def _store(owner, raw=RAW, name="match 1.json", media_type="application/json", **kwargs):
    return stored_object_create(
        owner=owner, raw=raw, original_name=name, media_type=media_type, actor=owner, **kwargs
    )


def test_the_bytes_are_kept_under_a_server_key_with_their_metadata(submitter, private_root):
    stored = _store(submitter, name="../../etc/passwd")
    assert (stored.owner, stored.byte_size, stored.sha256) == (
        submitter, len(RAW), hashlib.sha256(RAW).hexdigest(),
    )  # fmt: skip
    assert stored.original_name == "passwd"
    assert "passwd" not in stored.key
    assert (private_root / stored.key).read_bytes() == RAW
    assert stored_object_read(stored) == RAW


def test_an_upload_is_audited(submitter):
    stored = _store(submitter)
    entry = AuditEntry.objects.get(action="stored_object.create")
    assert (entry.actor, entry.entity_key, entry.detail["sha256"]) == (
        submitter, str(stored.pk), stored.sha256,
    )  # fmt: skip


def test_the_default_retention_comes_from_settings(submitter):
    stored = _store(submitter)
    expected = timedelta(days=settings.STORED_OBJECT_RETENTION_DAYS)
    assert stored.expires_at - stored.created_at == expected


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("C:\\Users\\me\\scores.json", "scores.json"),
        ("bad\x00name\x1f.json", "badname.json"),
        ("<script>.json", "_script_.json"),
        ("..", "upload"),
        ("", "upload"),
        ("a" * 300 + ".json", "a" * 250 + ".json"),
    ],
)
def test_original_names_are_sanitised(given, kept):
    assert sanitise_name(given) == kept


def test_the_media_type_is_canonical(submitter):
    stored = _store(submitter, media_type="Application/JSON; charset=utf-8")
    assert stored.media_type == "application/json"


@pytest.mark.parametrize("media_type", ["", "json", "text/ html", "a/b/c"])
def test_a_malformed_media_type_stores_nothing(submitter, private_root, media_type):
    with pytest.raises(ValidationError, match="media type"):
        _store(submitter, media_type=media_type)
    assert not StoredObject.objects.exists()
    assert not any(path.is_file() for path in private_root.rglob("*"))


def test_an_upload_over_the_limit_is_refused(settings, submitter):
    settings.STORED_OBJECT_MAX_BYTES = 10
    with pytest.raises(ValidationError, match="the limit is 10"):
        _store(submitter)
    assert not StoredObject.objects.exists()


def test_the_storage_has_no_public_url(submitter):
    stored = _store(submitter)
    with pytest.raises(NotImplementedError):
        object_storage().url(stored.key)


def test_the_default_root_is_private_not_media_or_static():
    root = Path(settings.STORED_OBJECTS_ROOT)
    for public in (settings.MEDIA_ROOT, settings.STATIC_ROOT):
        assert not root.is_relative_to(Path(public).resolve())


def test_a_stored_object_row_cannot_be_deleted(submitter):
    stored = _store(submitter)
    with pytest.raises(ProgrammingError, match="Cannot delete"), transaction.atomic():
        StoredObject.objects.filter(pk=stored.pk).delete()


def test_what_a_row_says_of_its_bytes_cannot_change(submitter):
    stored = _store(submitter)
    with pytest.raises(ProgrammingError), transaction.atomic():
        StoredObject.objects.filter(pk=stored.pk).update(sha256="0" * 64)


def test_expiry_deletes_the_bytes_and_keeps_the_row(submitter, private_root):
    due = _store(submitter, retain_for=timedelta(seconds=1))
    kept = _store(submitter, raw=b"other bytes")
    assert stored_objects_expire(now=timezone.now() + timedelta(seconds=5)) == 1
    due.refresh_from_db()
    kept.refresh_from_db()
    assert (due.retention_state, due.deleted_at is not None) == (RetentionState.EXPIRED, True)
    assert not (private_root / due.key).exists()
    assert due.sha256 == hashlib.sha256(RAW).hexdigest()  # the provenance outlives the bytes
    assert kept.retention_state == RetentionState.RETAINED
    assert (private_root / kept.key).exists()
    assert AuditEntry.objects.filter(action="stored_object.expire", entity_key=str(due.pk)).exists()


def test_reading_expired_bytes_says_they_expired(submitter):
    stored = _store(submitter, retain_for=timedelta(seconds=1))
    stored_objects_expire(now=timezone.now() + timedelta(seconds=5))
    stored.refresh_from_db()
    with pytest.raises(StoredObjectExpired):
        stored_object_read(stored)


def test_expiry_is_safe_to_repeat_and_one_way(submitter):
    stored = _store(submitter, retain_for=timedelta(seconds=1))
    later = timezone.now() + timedelta(seconds=5)
    assert stored_objects_expire(now=later) == 1
    assert stored_objects_expire(now=later) == 0
    with pytest.raises(ProgrammingError), transaction.atomic():
        StoredObject.objects.filter(pk=stored.pk).update(
            retention_state=RetentionState.RETAINED, deleted_at=None
        )


def test_bytes_that_no_longer_match_their_checksum_are_refused(submitter, private_root):
    stored = _store(submitter)
    (private_root / stored.key).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="SHA-256"):
        stored_object_read(stored)


def test_the_expiry_task_is_scheduled_and_registered():
    entry = settings.CELERY_BEAT_SCHEDULE["expire-stored-objects"]
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks


def test_the_expiry_task_runs_the_service(submitter):
    from ingest.tasks import stored_objects_expire as task

    _store(submitter, retain_for=timedelta(microseconds=1))
    assert task.apply().get() == 1


def test_the_console_shows_metadata_read_only(client, admin_user, submitter):
    stored = _store(submitter)
    client.force_login(admin_user)
    assert client.get("/admin/ingest/storedobject/").status_code == 200
    page = client.get(f"/admin/ingest/storedobject/{stored.pk}/change/")
    assert page.status_code == 200
    assert stored.sha256.encode() in page.content
    assert client.get(f"/admin/ingest/storedobject/{stored.pk}/delete/").status_code == 403
