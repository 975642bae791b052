"""The sample the verification tests recompute: real matches chosen for every edge case of
the data README, read once per session and imported once per test module."""

import functools
import io
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import transaction

from cricket.stats.engine import lines_rebuild_all
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import import_bytes, iter_sources
from omnium.testing import REPO_ROOT, SHARED_DATA

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"
ARCHIVE = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"
# Edge cases the samples lack, early in the archive (it is read as a stream, never copied):
# a named substitute fielder, more legal balls than balls per over and a miscount written as
# a string (64012); retired hurt (64050); absent hurt (64053); a wicket off a wide or no-ball
# and a name two registry ids share (64059); retired not out (935819); concussion and
# other match replacements (213288); five-ball overs of The Hundred (1252666).
EXTRA = {
    "64012.json",
    "64050.json",
    "64053.json",
    "64059.json",
    "213288.json",
    "935819.json",
    "1252666.json",
}


def _archive_members() -> list[tuple[str, bytes]]:
    if not ARCHIVE.is_file():
        return []
    found = []
    with tarfile.open(ARCHIVE, "r|gz") as archive:
        for member in archive:
            if member.name in EXTRA:
                extracted = archive.extractfile(member)
                assert extracted is not None
                found.append((member.name, extracted.read()))
                if len(found) == len(EXTRA):
                    break
    return found


@functools.cache
def sample_sources() -> tuple[tuple[str, bytes], ...]:
    """(file name, bytes) of every sample file and the archive's extra edge cases."""
    samples = list(iter_sources([SAMPLES]))
    # An edge case the samples have since taken in is read from them, not twice.
    have = {name.rsplit("/", 1)[-1] for name, _ in samples}
    return tuple(samples + [(n, raw) for n, raw in _archive_members() if n not in have])


def write_archive(path: Path, sources: tuple[tuple[str, bytes], ...]) -> Path:
    """The sources as one .tar.gz, as the command reads the dev corpus."""
    with tarfile.open(path, "w:gz") as out:
        for filename, raw in sources:
            info = tarfile.TarInfo(filename.rsplit("/", 1)[-1])
            info.size = len(raw)
            out.addfile(info, io.BytesIO(raw))
    return path


@contextmanager
def imported_once(django_db_blocker, sources) -> Iterator[None]:
    """The sources imported and their lines built, inside a transaction rolled back when
    the block ends (each test runs in a savepoint within it, so a test's own writes, such
    as a corrupted figure, are undone before the next)."""
    with django_db_blocker.unblock(), transaction.atomic():
        seed_dismissal_kinds()
        for filename, raw in sources:
            result = import_bytes(raw, filename=filename)
            assert result.outcome == "new", result.error
        lines_rebuild_all()
        yield
        transaction.set_rollback(True)
