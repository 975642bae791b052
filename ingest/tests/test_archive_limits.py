"""Archives and compressed files are read within the INGEST_* limits: refused from what they
declare before anything is inflated, and from what they yield while it is, with the limit
and the member named. The bombs are built here: a member of 1 GiB of zeros deflates to
about 1 MB."""

import gzip
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import zipfile

import pytest

from cricket.tests.factories import cricsheet_match
from ingest.cricsheet.importer import iter_sources
from ingest.cricsheet.validate import CricsheetRejected
from ingest.games.reading import GamesInputError, games_read
from omnium.testing import REPO_ROOT, _database_url_for_test_db

GIB = 1024**3
MIB = 1024**2
PEAK_LIMIT_KB = 200 * 1024  # ru_maxrss is in kilobytes on Linux
RAW = json.dumps(cricsheet_match()).encode()

# The child runs the command as its own child, so RUSAGE_CHILDREN measures that process
# alone (the test process has waited for other children before).
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.stdout + done.stderr)
print("exit", done.returncode)
print("peak-kb", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _zeros(handle, size: int) -> None:
    block = bytes(MIB)
    for _ in range(size // MIB):
        handle.write(block)


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory):
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("900001.json", "w") as member,
    ):
        _zeros(member, GIB)
    return path


def _measured(*command: str) -> tuple[str, int, int]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "manage.py", *command],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
            "DATABASE_URL": _database_url_for_test_db(),
        },
    )
    lines = done.stdout.strip().splitlines()
    return "\n".join(lines[:-2]), int(lines[-2].split()[1]), int(lines[-1].split()[1])


def test_the_zip_bomb_is_small(zip_bomb):
    assert zip_bomb.stat().st_size < 2 * MIB


@pytest.mark.django_db(transaction=True)
def test_a_1_mb_zip_holding_1_gib_is_refused_by_the_import_with_peak_memory_under_200_mb(
    zip_bomb,
):
    output, code, peak_kb = _measured("import_cricsheet", "--strict", str(zip_bomb))
    assert "bomb.zip:900001.json" in output
    assert f"INGEST_MAX_FILE_BYTES = {32 * MIB}" in output
    assert code != 0
    assert peak_kb < PEAK_LIMIT_KB, f"peak {peak_kb} kB"


@pytest.mark.django_db(transaction=True)
def test_a_1_mb_tar_gz_holding_1_gib_is_refused_by_submit_batch_with_peak_memory_under_200_mb(
    tmp_path, submitter
):
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("900001.json")
        info.size = GIB
        archive.addfile(info, _ZeroReader(GIB))
    assert path.stat().st_size < 2 * MIB
    output, code, peak_kb = _measured("submit_batch", "--as", submitter.username, str(path))
    assert "bomb.tar.gz:900001.json" in output
    assert "INGEST_MAX_FILE_BYTES" in output
    assert code != 0
    assert peak_kb < PEAK_LIMIT_KB, f"peak {peak_kb} kB"


class _ZeroReader(io.RawIOBase):
    """``size`` zero bytes, read in whatever pieces the caller asks for."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def test_a_zip_member_that_inflates_past_its_declared_size_is_refused_naming_it(tmp_path):
    path = tmp_path / "lying.zip"
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("900001.json", "w") as member,
    ):
        _zeros(member, 64 * MIB)
    data = bytearray(path.read_bytes())
    # Declare 1,000 bytes in the local header and the central directory alike.
    data[22:26] = (1000).to_bytes(4, "little")
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = (1000).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(CricsheetRejected) as refused:
        list(iter_sources([path]))
    assert refused.value.filename == "lying.zip:900001.json"
    assert "does not inflate to the size and checksum it declares" in str(refused.value)


def test_a_zip_with_more_members_than_the_limit_is_refused_before_any_is_read(tmp_path, settings):
    settings.INGEST_ARCHIVE_MAX_MEMBERS = 3
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for n in range(4):
            archive.writestr(f"90000{n}.json", RAW)
    sources = iter_sources([path])
    with pytest.raises(CricsheetRejected) as refused:
        next(sources)
    assert "more than 3 members in its directory; the limit is INGEST_ARCHIVE_MAX_MEMBERS = 3" in (
        str(refused.value)
    )


def _directory_bomb(path, entries: int) -> None:
    """A zip of ``entries`` empty members whose end record claims it holds one."""
    local, central, offset = [], [], 0
    for n in range(entries):
        name = b"%07d.json" % n
        local.append(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0))
        local.append(name)
        central.append(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                *(0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0, offset),
            )
        )
        central.append(name)
        offset += 30 + len(name)
    directory = b"".join(central)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(directory), offset, 0)
    path.write_bytes(b"".join(local) + directory + end)


@pytest.mark.django_db(transaction=True)
def test_a_zip_holding_more_members_than_it_declares_is_refused_with_peak_memory_under_200_mb(
    tmp_path,
):
    path = tmp_path / "members.zip"
    _directory_bomb(path, 1_000_000)  # about 400 MB as zipfile's objects, counted first here
    output, code, peak_kb = _measured("import_cricsheet", "--strict", str(path))
    assert "more than 100000 members in its directory" in output
    assert "INGEST_ARCHIVE_MAX_MEMBERS = 100000" in output
    assert code != 0
    assert peak_kb < PEAK_LIMIT_KB, f"peak {peak_kb} kB"


def test_a_tar_with_more_members_than_the_limit_is_refused_at_the_first_one_over(
    tmp_path, settings
):
    settings.INGEST_ARCHIVE_MAX_MEMBERS = 3
    path = tmp_path / "many.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for n in range(5):
            info = tarfile.TarInfo(f"90000{n}.json")
            info.size = len(RAW)
            archive.addfile(info, io.BytesIO(RAW))
    names = []
    with pytest.raises(CricsheetRejected) as refused:
        for name, _ in iter_sources([path]):
            names.append(name)
    assert len(names) == 3
    assert refused.value.filename == "many.tar.gz:900003.json"
    assert "the limit is INGEST_ARCHIVE_MAX_MEMBERS = 3" in str(refused.value)


def test_a_tar_header_record_over_the_file_limit_is_refused_before_it_is_read(tmp_path, settings):
    settings.INGEST_MAX_FILE_BYTES = MIB
    path = tmp_path / "pax.tar.gz"
    # A pax header record declaring 8 MiB: tarfile reads such a record whole, unasked.
    record = tarfile.TarInfo("././@PaxHeader")
    record.type, record.size = tarfile.XHDTYPE, 8 * MIB
    with gzip.open(path, "wb") as archive:
        archive.write(record.tobuf(format=tarfile.USTAR_FORMAT) + bytes(8 * MIB + 1024))
    with pytest.raises(CricsheetRejected) as refused:
        next(iter_sources([path]))
    assert refused.value.filename == "pax.tar.gz:././@PaxHeader"
    assert f"a header record declares {8 * MIB}" in str(refused.value)
    assert f"INGEST_MAX_FILE_BYTES = {MIB}" in str(refused.value)


def test_an_archive_over_its_total_uncompressed_size_is_refused_before_it_is_inflated(
    tmp_path, settings
):
    settings.INGEST_ARCHIVE_MAX_TOTAL_BYTES = 2 * len(RAW)
    path = tmp_path / "total.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for n in range(3):
            archive.writestr(f"90000{n}.json", RAW)
    with pytest.raises(CricsheetRejected) as refused:
        next(iter_sources([path]))
    assert refused.value.filename == "total.zip:900002.json"
    assert f"INGEST_ARCHIVE_MAX_TOTAL_BYTES = {2 * len(RAW)}" in str(refused.value)


def test_a_plain_match_file_over_the_file_limit_is_refused_unread(tmp_path, settings):
    settings.INGEST_MAX_FILE_BYTES = len(RAW) - 1
    path = tmp_path / "900001.json"
    path.write_bytes(RAW)
    with pytest.raises(CricsheetRejected) as refused:
        next(iter_sources([path]))
    assert f"INGEST_MAX_FILE_BYTES = {len(RAW) - 1}" in str(refused.value)


def test_a_corrupt_zip_is_refused_naming_it(tmp_path):
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    with pytest.raises(CricsheetRejected) as refused:
        next(iter_sources([path]))
    assert refused.value.filename == "broken.zip"
    assert "not a readable zip archive" in str(refused.value)


def test_a_gzipped_games_file_that_inflates_past_the_limit_is_refused_naming_it(tmp_path, settings):
    settings.INGEST_MAX_FILE_BYTES = MIB
    # No size in any header is trusted here: gzip's is modulo 4 GiB.
    (tmp_path / "medals.csv.gz").write_bytes(gzip.compress(b"medal_type," + bytes(8 * MIB)))
    with pytest.raises(GamesInputError) as refused:
        games_read(tmp_path)
    assert f"medals.csv.gz: more than {MIB} bytes uncompressed" in str(refused.value)
    assert f"INGEST_MAX_FILE_BYTES = {MIB}" in str(refused.value)
