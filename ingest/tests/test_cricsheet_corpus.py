"""A corpus of malformed Cricsheet files (``cricsheet_corpus``): each one is refused whole by
the contract, naming the file, the JSON path and a rule, never with another exception; and
imported through the real command it exits non-zero, says why, and changes no row of any
table but the record of its own run."""

import copy
import io
import json
import tarfile
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cricket.models import (
    Delivery,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    FixtureOfficial,
    InningsMiscountedOver,
)
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet import checks, validate
from ingest.cricsheet.problems import LISTED_PROBLEMS
from ingest.cricsheet.validate import CricsheetRejected, load
from ingest.tests.cricsheet_corpus import CASES, case_ids, malformed_files, valid_bytes
from omnium import exitcodes
from sports.models import Competition, Fixture, Participant, ParticipantAlias, Venue


@pytest.mark.parametrize(("case", "build", "path", "rule"), CASES, ids=case_ids())
def test_a_malformed_file_is_refused_naming_the_file_the_path_and_the_rule(case, build, path, rule):
    with pytest.raises(CricsheetRejected) as caught:
        load(build(), filename="990001.json", match_id="990001")
    named = {(p.path, p.rule) for p in caught.value.problems}
    assert (path, rule) in named, caught.value
    assert f"990001.json: {path}: " in str(caught.value)
    assert f"[{rule}]" in str(caught.value)


def test_the_corpus_holds_sixty_different_files_at_least():
    files = malformed_files()
    assert len(files) >= 60
    assert len({f.raw for f in files}) == len(files)
    assert len({f.match_id for f in files}) == len(files)


def test_the_valid_document_of_the_corpus_is_accepted():
    assert load(valid_bytes(), filename="990001.json", match_id="990001") == cricsheet_match()


def test_a_key_repeated_with_the_same_value_is_accepted_as_cricsheet_writes_it():
    twice = b'"venue": "Test Ground", "venue": "Test Ground"'
    raw = valid_bytes().replace(b'"venue": "Test Ground"', twice)
    assert load(raw, filename="64933.json", match_id="64933")["info"]["venue"] == "Test Ground"


def test_a_file_over_the_configured_size_is_refused_before_it_is_parsed():
    raw = valid_bytes()
    with pytest.raises(CricsheetRejected, match=r"990001\.json: \$: is \d+ bytes.*\[size\]"):
        load(raw, filename="990001.json", match_id="990001", max_bytes=len(raw) - 1)
    assert load(raw, filename="990001.json", match_id="990001", max_bytes=len(raw))


def test_a_rejection_message_never_carries_a_huge_value_whole():
    doc = cricsheet_match(venue="v" * 100_000, city=["x"] * 100_000)
    with pytest.raises(CricsheetRejected) as caught:
        load(json.dumps(doc).encode(), filename="990001.json", match_id="990001")
    assert len(str(caught.value)) < 1_000


def test_a_file_with_more_problems_than_listed_says_how_many_more():
    doc = cricsheet_match()
    over = doc["innings"][0]["overs"][1]
    over["deliveries"] = [dict(over["deliveries"][0], batter=f"Ghost {i}") for i in range(40)]
    doc["innings"][0]["overs"].append(dict(copy.deepcopy(over), over=2))
    with pytest.raises(CricsheetRejected) as caught:
        load(json.dumps(doc).encode(), filename="990001.json", match_id="990001")
    assert len(caught.value.problems) == 80 > LISTED_PROBLEMS
    assert str(caught.value).endswith(f"990001.json: ... and {80 - LISTED_PROBLEMS} more")


@pytest.mark.parametrize(
    ("limit", "model", "field"),
    [
        (checks.NAME_MAX, Participant, "name"),
        (checks.NAME_MAX, ParticipantAlias, "name"),
        (checks.NAME_MAX, Venue, "name"),
        (checks.NAME_MAX, Competition, "name"),
        (checks.NAME_MAX, Fixture, "name"),
        (checks.NAME_MAX, FixtureOfficial, "name"),
        (checks.NAME_MAX, DeliveryReview, "umpire"),
        (checks.NAME_MAX, InningsMiscountedOver, "umpire"),
        (validate.CITY_MAX, Venue, "city"),
        (validate.REGISTRY_ID_MAX, FixtureOfficial, "registry_id"),
        (validate.LABEL_MAX, Delivery, "actual_delivery"),
        (validate.KIND_MAX, DeliveryWicket, "kind_raw"),
        (validate.SHORT_MAX, DeliveryReview, "decision"),
        (validate.SHORT_MAX, DeliveryReview, "type"),
        (validate.SHORT_MAX, DeliveryReplacement, "role"),
        (validate.REASON_MAX, DeliveryReplacement, "reason"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_each_text_limit_is_the_width_of_the_column_it_lands_in(limit, model, field):
    assert model._meta.get_field(field).max_length == limit


def _row_counts() -> dict[str, int]:
    """The exact row count of every table of the public schema."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )
        tables = [name for (name,) in cursor.fetchall()]
        counts = {}
        for table in tables:
            # The names come from the catalogue, not from input.
            cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608
            counts[table] = cursor.fetchone()[0]
    return counts


@pytest.mark.django_db
def test_each_corpus_file_through_the_command_exits_non_zero_naming_its_rule_changing_no_table(
    tmp_path, capsys
):
    seed_dismissal_kinds()
    files = malformed_files()
    before = _row_counts()
    assert len(before) > 100
    failures = []
    for malformed in files:
        path = tmp_path / malformed.filename
        path.write_bytes(malformed.raw)
        with pytest.raises(CommandError, match="1 file") as raised:
            call_command("import_cricsheet", str(path), "--strict", verbosity=0)
        said = capsys.readouterr()
        if str(path) not in said.err or f"[{malformed.rule}]" not in said.err:
            failures.append((malformed.case, said.err[-300:]))
        if raised.value.returncode != exitcodes.REJECTED:
            failures.append((malformed.case, f"exit {raised.value.returncode}"))
    assert failures == []
    # --strict checks every file before any write: not even a job row is written.
    assert _row_counts() == before


def _corrupt_archives(directory) -> list:
    good = directory / "good.tar.gz"
    with tarfile.open(good, "w:gz") as archive:
        for n in range(3):
            info = tarfile.TarInfo(f"99100{n}.json")
            info.size = len(valid_bytes())
            archive.addfile(info, io.BytesIO(valid_bytes()))
    truncated = directory / "truncated.tar.gz"
    truncated.write_bytes(good.read_bytes()[:200])
    not_zip = directory / "not.zip"
    not_zip.write_bytes(b"PK\x03\x04 this is no zip archive")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("991010.json", valid_bytes())
    damaged = bytearray(zipped.getvalue())
    damaged[60:80] = b"\xff" * 20  # inside the deflated member
    bad_member = directory / "bad_member.zip"
    bad_member.write_bytes(bytes(damaged))
    return [truncated, not_zip, bad_member]


@pytest.mark.django_db
def test_a_corrupt_archive_is_refused_by_the_command_naming_it_and_the_archive_rule(
    tmp_path, capsys
):
    seed_dismissal_kinds()
    archives = _corrupt_archives(tmp_path)
    before = _row_counts()
    for archive in archives:
        with pytest.raises(CommandError, match="1 file"):
            call_command("import_cricsheet", str(archive), "--strict", verbosity=0)
        said = capsys.readouterr().err
        # Named by the archive (and the member it broke in, when it broke inside one).
        assert said.lstrip().startswith(archive.name) and "(archive): " in said, said
        assert "[archive]" in said, said
    assert _row_counts() == before
