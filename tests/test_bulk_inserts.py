"""omnium.bulk.Inserts: rows of several tables written in one round trip, exactly as
bulk_create would write them."""

import json
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from psycopg.types.json import Jsonb

from omnium.bulk import Inserts, _literal
from sports.models import LedgerStream, SubjectKind, TimelineItem, Venue

pytestmark = pytest.mark.django_db


def _venue(code, **extra):
    return Venue(code=code, name=code.title(), **extra)


def test_rows_of_several_tables_travel_in_one_query():
    venue = _venue("lords", meta={"capacity": 31_100, "ends": ["Pavilion", "Nursery"]})
    stream = LedgerStream(subject_kind=SubjectKind.COMPETITION, subject_id=venue.pk)
    item = TimelineItem(stream=stream, event_type="test", seq=1, payload={"a": [1, "x"]})
    batch = Inserts()
    batch.add(venue, stream)
    batch.add(item)
    with CaptureQueriesContext(connection) as queries:
        batch.send()
    assert len(queries.captured_queries) == 1
    stored = Venue.objects.get(pk=venue.pk)
    assert stored.meta == {"capacity": 31_100, "ends": ["Pavilion", "Nursery"]}
    assert stored.created_at is not None and stored.updated_at is not None
    assert TimelineItem.objects.get(stream=stream).payload == {"a": [1, "x"]}


def test_rows_without_an_id_get_one_from_the_table():
    stream = LedgerStream(subject_kind=SubjectKind.COMPETITION, subject_id=_venue("x").pk)
    batch = Inserts()
    batch.add(stream, *(TimelineItem(stream=stream, event_type="e", seq=n) for n in (1, 2)))
    batch.send()
    assert sorted(TimelineItem.objects.filter(stream=stream).values_list("seq", flat=True)) == [
        1,
        2,
    ]


def test_a_statement_of_the_callers_own_travels_with_the_rows():
    Venue.objects.create(code="old", name="Old")
    batch = Inserts()
    batch.add(_venue("new"))
    batch.add_delete(Venue.objects.filter(code="old"))
    batch.add_sql("UPDATE sports_venue SET city = %s WHERE code = %s", ["London", "new"])
    batch.send()
    assert list(Venue.objects.values_list("code", "city")) == [("new", "London")]


def test_a_failing_row_writes_nothing_of_the_batch():
    Venue.objects.create(code="taken", name="Taken")
    batch = Inserts()
    batch.add(_venue("fresh"), _venue("taken"))
    with pytest.raises(IntegrityError), transaction.atomic():
        batch.send()
    assert not Venue.objects.filter(code="fresh").exists()


def test_rows_of_one_table_with_and_without_ids_are_refused():
    stream = LedgerStream(subject_kind=SubjectKind.COMPETITION, subject_id=_venue("y").pk)
    batch = Inserts()
    batch.add(TimelineItem(stream=stream, event_type="e", seq=1))
    batch.add(TimelineItem(id=99, stream=stream, event_type="e", seq=2))
    with pytest.raises(ValueError, match="with and without ids"):
        batch.send()


def test_nothing_collected_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        Inserts().send()
    assert queries.captured_queries == []


def test_a_row_is_stored_exactly_as_bulk_create_stores_it():
    from datetime import UTC, datetime

    from sports.models import Submission, SubmissionKind

    def submission(note):
        return Submission(
            kind=SubmissionKind.CORPUS_IMPORT,  # a choices member, stored as its value
            source_code="test",
            original_filename="x.json",
            byte_size=12,
            sha256="ab" * 32,
            accepted=True,
            accepted_at=datetime(2024, 5, 1, 12, tzinfo=UTC),
            note=note,
        )

    batch = Inserts()
    batch.add(submission("batched"))
    batch.send()
    Submission.objects.bulk_create([submission("bulk")])
    volatile = {"id", "submitted_at", "note"}
    rows = [
        {k: v for k, v in row.items() if k not in volatile}
        for row in Submission.objects.order_by("note").values()
    ]
    assert len(rows) == 2 and rows[0] == rows[1]
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT kind FROM sports_submission")
        assert cursor.fetchall() == [("corpus_import",)]


def test_a_row_pointing_at_an_unsaved_row_without_an_id_is_refused():
    stream = LedgerStream(subject_kind=SubjectKind.COMPETITION, subject_id=_venue("z").pk)
    stream.pk = None
    item = TimelineItem(stream=stream, event_type="e", seq=1)
    batch = Inserts()
    batch.add(item)
    with pytest.raises(ValueError, match="unsaved row"):
        batch.send()


def test_the_database_reads_quotes_as_the_literals_assume():
    with connection.cursor() as cursor:
        cursor.execute("SHOW standard_conforming_strings")
        assert cursor.fetchone()[0] == "on"


@pytest.mark.parametrize(
    "value",
    [
        "O'Brien",
        "back\\slash and 100% and %s and $1",
        "tab\tnew\nline",
        "",
        None,
        True,
        0,
        -7,
        2.5,
        Decimal("12.50"),
        uuid.UUID("01a22c01-68ea-7019-a729-bf4a531e9e95"),
        datetime(2026, 3, 1, 12, 30, tzinfo=UTC),
        date(2026, 3, 1),
        b"\x00\xffbytes",
    ],
)
def test_a_literal_reads_back_as_the_value(value):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_literal(value)}")
        assert cursor.fetchone()[0] == value


def test_a_json_literal_reads_back_as_the_document():
    document = {"name": "O'Brien", "path": "a\\b", "n": [1, 2.5, None]}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_literal(Jsonb(document))}")
        # Django's psycopg setup hands jsonb to raw cursors as text.
        assert json.loads(cursor.fetchone()[0]) == document


def test_a_value_of_an_unknown_type_is_refused():
    with pytest.raises(TypeError, match="cannot write a object"):
        _literal(object())
