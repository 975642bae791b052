"""The size bounds of a staged batch, read from settings: ``BATCH_MAX_FILES``,
``BATCH_MAX_TOTAL_BYTES`` (each file's own bound, ``BATCH_MAX_FILE_BYTES``, is checked with
the file's other problems in ``batch_submit``)."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ValidationError


def batch_limits_check(*, count: int, total_bytes: int, where: str = "the batch") -> None:
    """Refuses a batch of ``count`` files and ``total_bytes`` bytes over ``BATCH_MAX_FILES``
    or ``BATCH_MAX_TOTAL_BYTES``, naming the limit."""
    if count > settings.BATCH_MAX_FILES:
        raise ValidationError(
            f"{where}: more than {settings.BATCH_MAX_FILES} files; "
            f"the limit is BATCH_MAX_FILES = {settings.BATCH_MAX_FILES}"
        )
    if total_bytes > settings.BATCH_MAX_TOTAL_BYTES:
        raise ValidationError(
            f"{where}: more than {settings.BATCH_MAX_TOTAL_BYTES} bytes in all; "
            f"the limit is BATCH_MAX_TOTAL_BYTES = {settings.BATCH_MAX_TOTAL_BYTES}"
        )


def batch_files_collect(files: Iterable[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The (name, bytes) pairs of a batch, taken one at a time and refused as soon as they
    pass ``BATCH_MAX_FILES`` or ``BATCH_MAX_TOTAL_BYTES`` (the file that does is named), so
    a stream of files (an archive) is never held whole before it is measured."""
    collected: list[tuple[str, bytes]] = []
    total = 0
    for name, raw in files:
        total += len(raw)
        batch_limits_check(count=len(collected) + 1, total_bytes=total, where=name)
        collected.append((name, raw))
    return collected
