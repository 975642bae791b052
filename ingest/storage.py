"""Private source retention: uploaded bytes behind Django's storage API, with their metadata.

The bytes go to the ``"stored_objects"`` storage (``settings.STORAGES``; a private local
directory, ``STORED_OBJECTS_ROOT``, by default — any backend of Django's storage API can take
its place). Nothing serves that storage at a URL: bytes are read back only through
``stored_object_read``, by code that has already checked who asks.

A ``StoredObject`` row records owner, sanitised original name, media type, size, SHA-256,
the server-generated key, expiry and retention state. ``stored_objects_expire`` (a scheduled
task) deletes expired bytes and keeps the row, which the database refuses to delete.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, storages
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import audit_record
from ingest.models import RetentionState, StoredObject

STORAGE_ALIAS = "stored_objects"
MAX_NAME_LENGTH = 255
_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}/[a-z0-9][a-z0-9!#$&^_.+-]{0,62}$")
_UNSAFE_NAME_CHARACTERS = re.compile(r"[^\w.\- ()+]+")


class PrivateFileSystemStorage(FileSystemStorage):
    """A directory no web server maps: it has no URL, so nothing can link to its files."""

    def url(self, name):
        raise NotImplementedError("Stored objects are private: read them with stored_object_read.")


class StoredObjectExpired(Exception):
    """The object's bytes were deleted by the retention policy; its metadata remains."""


def object_storage():
    return storages[STORAGE_ALIAS]


def sanitise_name(name: str) -> str:
    """A display-safe file name: the last path component only, Unicode NFKC, no control or
    shell-special characters, at most 255 characters with its extension kept. It is kept
    for people to read; the bytes are stored under a server-generated key, never this."""
    name = unicodedata.normalize("NFKC", name or "")
    name = re.split(r"[\\/]", name)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = _UNSAFE_NAME_CHARACTERS.sub("_", name).strip(" .")
    name = re.sub(r"_{2,}", "_", name)
    if not name:
        return "upload"
    if len(name) > MAX_NAME_LENGTH:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            name = f"{stem[: MAX_NAME_LENGTH - len(ext) - 1]}.{ext}"
        else:
            name = name[:MAX_NAME_LENGTH]
    return name


def canonical_media_type(media_type: str) -> str:
    """``type/subtype``, lowercased, parameters dropped; a ValidationError when malformed."""
    value = (media_type or "").split(";", 1)[0].strip().lower()
    if not _MEDIA_TYPE.match(value):
        raise ValidationError({"media_type": f"{media_type!r} is not a media type (type/subtype)."})
    return value


def _new_key() -> str:
    token = secrets.token_hex(20)
    return f"{token[:2]}/{token}"


@transaction.atomic
def stored_object_create(
    *,
    owner: User,
    raw: bytes,
    original_name: str,
    media_type: str,
    actor: User | None,
    retain_for: timedelta | None = None,
) -> StoredObject:
    """Keep ``raw`` privately and record it. The row is written first and the bytes second,
    both inside the transaction: if writing the bytes fails, no row claims them. (If the
    caller's transaction rolls back after the write, the bytes are left without a row;
    nothing can reach them, and the key is random, so they are harmless.)"""
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise ValidationError({"raw": "The upload must be bytes."})
    raw = bytes(raw)
    limit = settings.STORED_OBJECT_MAX_BYTES
    if len(raw) > limit:
        raise ValidationError({"raw": f"The upload is {len(raw)} bytes; the limit is {limit}."})
    if owner is None:
        raise ValidationError({"owner": "A stored object needs an owner."})
    now = timezone.now()
    retain_for = retain_for or timedelta(days=settings.STORED_OBJECT_RETENTION_DAYS)
    if retain_for <= timedelta(0):
        raise ValidationError({"retain_for": "The retention period must be positive."})
    stored = StoredObject.objects.create(
        key=_new_key(),
        owner=owner,
        original_name=sanitise_name(original_name),
        media_type=canonical_media_type(media_type),
        byte_size=len(raw),
        sha256=hashlib.sha256(raw).hexdigest(),
        created_at=now,
        expires_at=now + retain_for,
    )
    saved_as = object_storage().save(stored.key, ContentFile(raw))
    if saved_as != stored.key:
        # The key is random; a storage that renames it would lose the bytes' address.
        object_storage().delete(saved_as)
        raise RuntimeError(f"the object storage stored {stored.key} as {saved_as}")
    audit_record(
        actor=actor,
        action="stored_object.create",
        entity=stored,
        key=stored.pk,
        detail={
            "owner": owner.pk,
            "sha256": stored.sha256,
            "byte_size": stored.byte_size,
            "media_type": stored.media_type,
            "expires_at": stored.expires_at,
        },
    )
    return stored


def stored_object_read(stored: StoredObject) -> bytes:
    """The object's bytes, checked against the recorded SHA-256. Raises
    ``StoredObjectExpired`` once the retention policy has deleted them."""
    if stored.retention_state == RetentionState.EXPIRED:
        raise StoredObjectExpired(f"stored object {stored.pk}: bytes deleted {stored.deleted_at}")
    with object_storage().open(stored.key, "rb") as handle:
        raw = handle.read()
    if hashlib.sha256(raw).hexdigest() != stored.sha256:
        raise ValueError(f"stored object {stored.pk}: the bytes do not match their SHA-256")
    return raw


def stored_objects_expire(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Delete the bytes of every retained object whose expiry has passed; keep the rows
    (marked expired, with the deletion time). Returns how many expired.

    One transaction per object, its row locked (``SKIP LOCKED``: two runs at once share the
    work). The bytes are deleted before the row is marked; a crash in between leaves the row
    retained and the next run deletes again (deleting a missing file is a no-op)."""

    now = now or timezone.now()
    storage = object_storage()
    due = list(
        StoredObject.objects.filter(
            retention_state=RetentionState.RETAINED, expires_at__lte=now
        ).values_list("pk", flat=True)[:limit]
    )
    expired = 0
    for pk in due:
        with transaction.atomic():
            stored = (
                StoredObject.objects.select_for_update(skip_locked=True)
                .filter(pk=pk, retention_state=RetentionState.RETAINED)
                .first()
            )
            if stored is None:
                continue
            storage.delete(stored.key)
            stored.retention_state = RetentionState.EXPIRED
            stored.deleted_at = timezone.now()
            stored.save(update_fields=["retention_state", "deleted_at"])
            audit_record(
                actor=None,
                action="stored_object.expire",
                entity=stored,
                key=stored.pk,
                detail={"sha256": stored.sha256, "expires_at": stored.expires_at},
            )
            expired += 1
    return expired
