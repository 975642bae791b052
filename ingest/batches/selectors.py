"""Reads that build the reviewer's pages."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from cricket.source_revisions import DiffLine, source_correction_diff
from ingest.batches.models import BatchItem, ItemOperation
from ingest.batches.services import ItemBytesGone, item_bytes
from ingest.cricsheet.validate import CricsheetRejected, load


def correction_diff(item: BatchItem) -> list[DiffLine]:
    """The diff a correction item would make now against the live deliveries (natural key,
    field, live value, proposed value), from the correction path's own plan; nothing is
    written. Empty for an item that is not a correction. Raises ValidationError with the
    reason when it cannot be computed (bytes gone, file broken, correction refused)."""
    if item.operation != ItemOperation.CORRECT or item.correction_target_id is None:
        return []
    try:
        raw = item_bytes(item)
        document = load(raw, filename=item.filename, match_id=item.source_identity)
    except ItemBytesGone as exc:
        raise ValidationError(str(exc)) from None
    except CricsheetRejected as exc:
        raise ValidationError(str(exc)) from None
    fixture = item.correction_target
    if fixture is None:  # checked by id above; read here, after the file, as before
        return []
    return source_correction_diff(fixture=fixture, document=document)
