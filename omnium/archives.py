"""Bounded reading of files nobody here wrote: zip and tar archives, gzip files, plain files.

Every reader takes its limits from settings (``INGEST_MAX_FILE_BYTES``,
``INGEST_ARCHIVE_MAX_MEMBERS``, ``INGEST_ARCHIVE_MAX_TOTAL_BYTES``) and checks them twice:
first against what the archive declares (its member count and sizes, so an honest bomb is
refused before a byte is inflated), then while inflating, counting the bytes as they come
in chunks (a header can lie; nothing is ever inflated whole and measured afterwards). A
refusal is ``LimitExceeded``, naming the file or member, the setting and its value; an
archive that cannot be read (corrupt, truncated, a member that does not inflate to the size
and checksum it declares) is ``ArchiveUnreadable``.

Members are returned as bytes, one at a time; an archive inside an archive is never opened
(callers take only the members they accept, by name).
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from django.conf import settings

CHUNK = 64 * 1024


class _Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


class ArchiveRefused(ValueError):
    """A file or archive that is not read, with the reason (``where`` is the file or the
    ``archive:member``)."""

    def __init__(self, where: str, reason: str) -> None:
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}")


class LimitExceeded(ArchiveRefused):
    """Over one of the limits: ``setting`` names it and ``limit`` is its value."""

    def __init__(self, where: str, what: str, *, setting: str, limit: int) -> None:
        self.setting, self.limit = setting, limit
        super().__init__(where, f"{what}; the limit is {setting} = {limit}")


class ArchiveUnreadable(ArchiveRefused):
    """Corrupt, truncated, or a member that does not inflate as its header says."""


@dataclass(frozen=True)
class Limits:
    member_bytes: int
    members: int
    total_bytes: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            member_bytes=settings.INGEST_MAX_FILE_BYTES,
            members=settings.INGEST_ARCHIVE_MAX_MEMBERS,
            total_bytes=settings.INGEST_ARCHIVE_MAX_TOTAL_BYTES,
        )


class _Budget:
    """The bytes an archive has inflated so far, against ``INGEST_ARCHIVE_MAX_TOTAL_BYTES``."""

    def __init__(self, archive: str, limit: int) -> None:
        self.archive, self.limit, self.spent = archive, limit, 0

    def spend(self, size: int, where: str) -> None:
        self.spent += size
        if self.spent > self.limit:
            raise LimitExceeded(
                where,
                f"the archive {self.archive} holds more than {self.limit} bytes uncompressed",
                setting="INGEST_ARCHIVE_MAX_TOTAL_BYTES",
                limit=self.limit,
            )


def _too_big(where: str, size: str, limit: int) -> LimitExceeded:
    return LimitExceeded(
        where, f"{size} bytes uncompressed", setting="INGEST_MAX_FILE_BYTES", limit=limit
    )


def read_bounded(
    handle: _Readable, *, where: str, limit: int, budget: _Budget | None = None
) -> bytes:
    """Everything ``handle`` yields, read in chunks and refused as soon as it passes
    ``limit`` bytes (so at most one chunk more than the limit is ever held)."""
    parts: list[bytes] = []
    size = 0
    while chunk := handle.read(CHUNK):
        size += len(chunk)
        if size > limit:
            raise _too_big(where, f"more than {limit}", limit)
        if budget is not None:
            budget.spend(len(chunk), where)
        parts.append(chunk)
    return b"".join(parts)


def read_file(path: Path, *, limits: Limits | None = None) -> bytes:
    """A plain file's bytes, refused above ``INGEST_MAX_FILE_BYTES`` (by its size on disk
    first, then by what is read: a file can grow while it is read)."""
    limits = limits or Limits.from_settings()
    size = path.stat().st_size
    if size > limits.member_bytes:
        raise _too_big(str(path), str(size), limits.member_bytes)
    with path.open("rb") as handle:
        return read_bounded(handle, where=str(path), limit=limits.member_bytes)


def gunzip(raw: bytes, *, where: str, limits: Limits | None = None) -> bytes:
    """A gzip file's content, inflated chunk by chunk and refused above
    ``INGEST_MAX_FILE_BYTES`` (gzip's own size trailer is modulo 4 GiB: never trusted)."""
    limits = limits or Limits.from_settings()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as handle:
            return read_bounded(handle, where=where, limit=limits.member_bytes)
    except (OSError, EOFError, zlib.error) as exc:
        raise ArchiveUnreadable(where, f"not a readable gzip file: {exc}") from None


def zip_names(path: Path, *, limits: Limits | None = None) -> list[str]:
    """The member names of a zip, its directory counted first as ``zip_members`` does."""
    limits = limits or Limits.from_settings()
    try:
        with path.open("rb") as handle:
            _count_directory(handle, where=path.name, limit=limits.members)
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, EOFError, struct.error) as exc:
        raise ArchiveUnreadable(path.name, f"not a readable zip archive: {exc}") from None


def zip_members(
    path: Path, *, accept: Callable[[str], bool], limits: Limits | None = None
) -> Iterator[tuple[str, bytes]]:
    """(member name, bytes) of each member ``accept`` takes, in name order.

    Before any member is inflated, the central directory is checked: its member count
    (every entry, taken or not, counted before ``zipfile`` parses the directory), each taken
    member's declared size and their declared total.
    Then each member is read in chunks and counted against the same limits; a member whose
    data does not match its declared size and checksum is unreadable (``zipfile`` stops at
    the declared size and checks the CRC at the end)."""
    limits = limits or Limits.from_settings()
    try:
        with path.open("rb") as handle:
            _count_directory(handle, where=path.name, limit=limits.members)
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, struct.error) as exc:
        raise ArchiveUnreadable(path.name, f"not a readable zip archive: {exc}") from None
    with archive:
        infos = archive.infolist()  # no more than INGEST_ARCHIVE_MAX_MEMBERS: counted above
        taken = sorted(
            (i for i in infos if not i.is_dir() and accept(i.filename)), key=lambda i: i.filename
        )
        declared = _Budget(path.name, limits.total_bytes)
        for info in taken:
            where = f"{path.name}:{info.filename}"
            if info.file_size > limits.member_bytes:
                raise _too_big(where, f"declares {info.file_size}", limits.member_bytes)
            declared.spend(info.file_size, where)
        budget = _Budget(path.name, limits.total_bytes)
        for info in taken:
            where = f"{path.name}:{info.filename}"
            try:
                with archive.open(info) as handle:
                    raw = read_bounded(
                        handle, where=where, limit=limits.member_bytes, budget=budget
                    )
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as exc:
                raise ArchiveUnreadable(
                    where, f"does not inflate to the size and checksum it declares: {exc}"
                ) from None
            yield info.filename, raw


_CENTRAL_HEADER = 46  # bytes of a central directory entry before its name, extra and comment


def _count_directory(handle: BinaryIO, *, where: str, limit: int) -> None:
    """Refuses a zip whose central directory holds more than ``limit`` entries, counted
    by walking the entries' headers before ``zipfile`` turns each into an object (about
    400 bytes apiece). The end record's entry count is not trusted: ``zipfile`` itself reads
    as many entries as the directory's byte size holds, and so does this."""
    end = zipfile._EndRecData(handle)  # type: ignore[attr-defined]
    if end is None:
        raise zipfile.BadZipFile("no end of central directory record")
    size = end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
    # The directory ends where the end record starts, as zipfile reckons it (so bytes
    # prepended to the archive, a self-extractor's, move both alike).
    start = end[zipfile._ECD_LOCATION] - size  # type: ignore[attr-defined]
    if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # type: ignore[attr-defined]
        start -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator  # type: ignore[attr-defined]
    handle.seek(start)
    count = seen = 0
    while seen < size:
        header = handle.read(_CENTRAL_HEADER)
        if len(header) < _CENTRAL_HEADER or header[:4] != b"PK\x01\x02":
            return  # zipfile names what is wrong with it
        name, extra, comment = struct.unpack("<HHH", header[28:34])
        handle.seek(name + extra + comment, os.SEEK_CUR)
        seen += _CENTRAL_HEADER + name + extra + comment
        count += 1
        if count > limit:
            raise LimitExceeded(
                where,
                f"more than {limit} members in its directory",
                setting="INGEST_ARCHIVE_MAX_MEMBERS",
                limit=limit,
            )


# Header records tarfile reads whole into memory (a pax or GNU long name/link record):
# one that declares a gigabyte would be a gigabyte before any member is seen.
_TAR_HEADER_RECORDS = frozenset(
    (
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
    )
)


def _bounded_tarinfo(archive: str, limit: int) -> type[tarfile.TarInfo]:
    class BoundedTarInfo(tarfile.TarInfo):
        def _proc_member(self, tarfile):
            if self.type in _TAR_HEADER_RECORDS and self.size > limit:
                raise _too_big(
                    f"{archive}:{self.name}", f"a header record declares {self.size}", limit
                )
            return super()._proc_member(tarfile)

    return BoundedTarInfo


def tar_members(
    path: Path, *, accept: Callable[[str], bool], limits: Limits | None = None
) -> Iterator[tuple[str, bytes]]:
    """(member name, bytes) of each regular member ``accept`` takes, in archive order, read
    as one stream (``.tar``, ``.tar.gz``...).

    A tar has no directory to check first: members are counted as they come, and each
    header's declared size is checked before its data is read (a pax or long-name header
    record's too, which tarfile would read whole); every member's size counts
    toward the total, taken or not (the stream inflates a skipped member too)."""
    limits = limits or Limits.from_settings()
    budget = _Budget(path.name, limits.total_bytes)
    count = 0
    try:
        # Opened apart from its ``with``: a file that is no tar is told from a broken member.
        archive = tarfile.open(  # noqa: SIM115
            path, "r|*", tarinfo=_bounded_tarinfo(path.name, limits.member_bytes)
        )
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise ArchiveUnreadable(path.name, f"not a readable tar archive: {exc}") from None
    with archive:
        entries = iter(archive)
        while True:
            try:
                entry = next(entries, None)
            except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
                raise ArchiveUnreadable(path.name, f"not a readable tar archive: {exc}") from None
            if entry is None:
                return
            count += 1
            where = f"{path.name}:{entry.name}"
            if count > limits.members:
                raise LimitExceeded(
                    where,
                    f"more than {limits.members} members",
                    setting="INGEST_ARCHIVE_MAX_MEMBERS",
                    limit=limits.members,
                )
            taken = entry.isfile() and accept(entry.name)
            if taken and entry.size > limits.member_bytes:
                raise _too_big(where, f"declares {entry.size}", limits.member_bytes)
            budget.spend(entry.size, where)
            if not taken:
                continue
            try:
                # A regular file's entry always has a reader.
                handle = archive.extractfile(entry)
                raw = (
                    b""
                    if handle is None
                    else read_bounded(handle, where=where, limit=limits.member_bytes)
                )
            except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
                raise ArchiveUnreadable(where, f"cannot be read: {exc}") from None
            yield entry.name, raw
