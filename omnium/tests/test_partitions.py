"""The partitioned logs (``omnium.partitions``): the migration moves the rows both ways, the
future partitions come from ``partitions_ensure``, and every rule of the plain table holds."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.utils import timezone

from catalogue.models import PriceObservation, VerificationCheck, VerificationRun
from catalogue.tests.factories import ListingFactory, PriceObservationFactory
from cricket.models import Delivery, DeliveryReview
from cricket.tests.factories import DeliveryFactory
from omnium.celery import app
from omnium.partitions import SCHEMES, ranges
from sports.models import Fixture, LedgerStream, StatLine, TimelineActor, TimelineItem
from sports.models.enums import SubjectKind
from sports.tests.factories import FixtureFactory, ParticipantFactory

TABLE = "catalogue_priceobservation"


def _month(months: int) -> datetime:
    """Noon on the 15th, ``months`` months from now (UTC)."""
    now = timezone.now()
    total = now.year * 12 + now.month - 1 + months
    return datetime(total // 12, total % 12 + 1, 15, 12, tzinfo=UTC)


def _partition_of(table: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT tableoid::regclass::text FROM {table} WHERE id = %s", [pk])  # noqa: S608
        return cursor.fetchone()[0]


def _relkind(table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_observations_both_ways():
    old = PriceObservationFactory(observed_at=datetime(2019, 3, 4, 5, tzinfo=UTC))
    new = PriceObservationFactory(observed_at=_month(1))
    try:
        call_command("migrate", "catalogue", "0015", verbosity=0)
        assert _relkind(TABLE) == "r"
        assert set(PriceObservation.objects.values_list("id", flat=True)) == {old.pk, new.pk}
        later = PriceObservationFactory(observed_at=datetime(2018, 7, 1, tzinfo=UTC))
    finally:
        call_command("migrate", "catalogue", verbosity=0)
    assert _relkind(TABLE) == "p"
    kept = {o.pk: o.observed_at for o in PriceObservation.objects.all()}
    assert kept == {o.pk: o.observed_at for o in (old, new, later)}
    # The oldest row's month got its own partition; the sequence goes on after the copy.
    assert _partition_of(TABLE, later.pk) == f"{TABLE}_p2018_07"
    assert _partition_of(TABLE, new.pk) == f"{TABLE}_p{_month(1):%Y_%m}"
    assert PriceObservationFactory().pk > later.pk


@pytest.mark.django_db
def test_partitions_ensure_creates_each_month_once(capsys):
    call_command("partitions_ensure", "--months-ahead", "8")
    first = capsys.readouterr().out
    call_command("partitions_ensure", "--months-ahead", "8")
    second = capsys.readouterr().out
    assert f"created {TABLE}_p{_month(8):%Y_%m}" in first
    wanted = sum(
        len(ranges(scheme.kind, now=timezone.now(), months_ahead=8))
        for scheme in SCHEMES
        if scheme.kind != "hash"
    )
    assert second.strip() == f"partitions: 0 created, {wanted} there"


@pytest.mark.django_db
def test_partitions_ensure_refuses_a_negative_horizon():
    with pytest.raises(ValueError, match="--months-ahead"):
        call_command("partitions_ensure", "--months-ahead", "-1")


@pytest.mark.django_db
def test_an_observation_in_a_future_month_lands_in_its_partition():
    call_command("partitions_ensure", "--months-ahead", "14", verbosity=0)
    row = PriceObservationFactory(observed_at=_month(13))
    assert _partition_of(TABLE, row.pk) == f"{TABLE}_p{_month(13):%Y_%m}"


@pytest.mark.django_db
def test_rows_the_default_partition_caught_move_into_the_new_month():
    row = PriceObservationFactory(observed_at=_month(30))
    assert _partition_of(TABLE, row.pk) == f"{TABLE}_default"
    call_command("partitions_ensure", "--months-ahead", "30", verbosity=0)
    assert _partition_of(TABLE, row.pk) == f"{TABLE}_p{_month(30):%Y_%m}"
    assert PriceObservation.objects.filter(pk=row.pk).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statement", ["UPDATE {} SET price = 1 WHERE id = %s", "DELETE FROM {} WHERE id = %s"]
)
def test_a_partition_still_refuses_edits_and_deletes(statement):
    row = PriceObservationFactory(observed_at=_month(0))
    partition = _partition_of(TABLE, row.pk)
    with pytest.raises(ProgrammingError, match="Cannot"), connection.cursor() as cursor:
        cursor.execute(statement.format(partition), [row.pk])


@pytest.mark.django_db
def test_an_id_stays_unique_across_partitions():
    row = PriceObservationFactory(observed_at=_month(0))
    with pytest.raises(IntegrityError, match="unique rule"), transaction.atomic():
        PriceObservationFactory(id=row.pk, observed_at=datetime(2020, 1, 1, tzinfo=UTC))


@pytest.mark.django_db
def test_a_listing_has_one_observation_per_moment_across_partitions():
    row = PriceObservationFactory(observed_at=_month(0))
    # PostgreSQL names the partition's index of ``catalogue_observation_unique_moment``.
    duplicate = r"\(listing_id, observed_at\).* already exists"
    with pytest.raises(IntegrityError, match=duplicate), transaction.atomic():
        PriceObservationFactory(listing=row.listing, observed_at=row.observed_at)


def _check(observation_id: int) -> VerificationCheck:
    run = VerificationRun.objects.create(started_at=timezone.now())
    return VerificationCheck.objects.create(
        run=run,
        listing=ListingFactory(),
        observation_id=observation_id,
        verdict=VerificationCheck.Verdict.AGREES,
        checked_at=timezone.now(),
    )


@pytest.mark.django_db
def test_a_reference_to_a_missing_observation_is_refused_at_commit():
    with pytest.raises(IntegrityError, match="is not present"), transaction.atomic():
        _check(10**12)
        connection.check_constraints()


@pytest.mark.django_db
def test_a_referenced_observation_is_found_and_kept():
    row = PriceObservationFactory(observed_at=_month(0), price=Decimal("9.99"))
    check = _check(row.pk)
    connection.check_constraints()
    refused = pytest.raises(IntegrityError, match="still referenced")
    with refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE id = %s", [row.pk])  # noqa: S608
    assert VerificationCheck.objects.get(pk=check.pk).observation == row


def test_partitions_ensure_is_on_the_beat():
    entry = settings.CELERY_BEAT_SCHEDULE["ensure-partitions"]
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks
    assert entry["schedule"] <= 24 * 3600
    assert timedelta(seconds=entry["schedule"]) < timedelta(days=28)


LINES = "sports_statline"


def _line(on: date, **extra) -> StatLine:
    fixture = extra.pop("fixture", None) or FixtureFactory()
    return StatLine.objects.create(
        fixture=fixture,
        subject=extra.pop("subject", None) or ParticipantFactory(),
        subject_role="batter",
        occurred_on=on,
        values={"runs": 4},
        sport=fixture.sport,
        competition=fixture.competition,
        **extra,
    )


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_stat_lines_both_ways():
    old = _line(date(2003, 6, 1))
    try:
        call_command("migrate", "sports", "0005", verbosity=0)
        assert _relkind(LINES) == "r"
        later = _line(date(1999, 2, 3))
    finally:
        call_command("migrate", "sports", verbosity=0)
    assert _relkind(LINES) == "p"
    kept = dict(StatLine.objects.values_list("id", "occurred_on"))
    assert kept == {old.pk: old.occurred_on, later.pk: later.occurred_on}
    assert _partition_of(LINES, later.pk) == f"{LINES}_p1999"
    assert _partition_of(LINES, old.pk) == f"{LINES}_p2003"


@pytest.mark.django_db
def test_a_stat_line_of_next_year_lands_in_its_partition():
    call_command("partitions_ensure", "--months-ahead", "13", verbosity=0)
    year = timezone.now().year + 1
    assert _partition_of(LINES, _line(date(year, 3, 1)).pk) == f"{LINES}_p{year}"


@pytest.mark.django_db
def test_a_stat_line_stays_unique_across_partitions():
    line = _line(date(2010, 5, 5))
    duplicate = pytest.raises(IntegrityError, match="subject_role, segment, occurred_on")
    with duplicate, transaction.atomic():
        _line(line.occurred_on, fixture=line.fixture, subject=line.subject)
    with pytest.raises(IntegrityError, match="unique rule"), transaction.atomic():
        _line(date(2021, 5, 5), id=line.pk)


@pytest.mark.django_db
def test_a_stat_line_can_still_be_rebuilt():
    """Stat lines are derived, not a log: a rebuild deletes them (no append-only guard)."""
    line = _line(date(2012, 1, 1))
    StatLine.objects.filter(pk=line.pk).delete()
    assert not StatLine.objects.filter(pk=line.pk).exists()


ITEMS = "sports_timelineitem"


def _item(stream: LedgerStream | None = None, **extra) -> TimelineItem:
    stream = stream or LedgerStream.objects.create(
        subject_kind=SubjectKind.FIXTURE, subject_id=uuid.uuid4()
    )
    seq = extra.pop("seq", None) or stream.items.count() + 1
    return TimelineItem.objects.create(stream=stream, event_type="goal", seq=seq, **extra)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_timeline_both_ways():
    first = _item()
    try:
        call_command("migrate", "sports", "0008", verbosity=0)
        assert _relkind(ITEMS) == "r"
        second = _item(first.stream, supersedes=first)
    finally:
        call_command("migrate", "sports", verbosity=0)
    assert _relkind(ITEMS) == "p"
    assert TimelineItem.objects.get(pk=second.pk).supersedes == first
    assert _partition_of(ITEMS, first.pk) == _partition_of(ITEMS, second.pk)
    assert _partition_of(ITEMS, first.pk).startswith(f"{ITEMS}_h")


@pytest.mark.django_db
def test_an_actor_of_a_missing_item_is_refused_at_commit():
    with pytest.raises(IntegrityError, match="is not present"), transaction.atomic():
        TimelineActor.objects.create(item_id=10**12, participant=ParticipantFactory(), role="x")
        connection.check_constraints()


@pytest.mark.django_db
def test_a_correction_of_a_missing_item_is_refused_at_commit():
    with pytest.raises(IntegrityError, match="is not present"), transaction.atomic():
        _item(supersedes_id=10**12)
        connection.check_constraints()


@pytest.mark.django_db
def test_a_stream_position_and_an_item_id_stay_unique():
    item = _item()
    with pytest.raises(IntegrityError, match="already exists"), transaction.atomic():
        _item(item.stream, seq=item.seq)
    with pytest.raises(IntegrityError, match="unique rule"), transaction.atomic():
        _item(id=item.pk)


@pytest.mark.django_db
def test_a_timeline_partition_still_refuses_a_content_edit():
    item = _item()
    partition = _partition_of(ITEMS, item.pk)
    with pytest.raises(ProgrammingError, match="Cannot"), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {partition} SET event_type = 'x' WHERE id = %s", [item.pk])  # noqa: S608


BALLS = "cricket_delivery"


def _ball(on: date | None = None, **extra) -> Delivery:
    if on is not None:
        extra["innings__fixture__scheduled_start"] = datetime(on.year, on.month, on.day, tzinfo=UTC)
    return DeliveryFactory(**extra)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_deliveries_both_ways():
    ball = _ball(date(2004, 5, 6))
    review = DeliveryReview.objects.create(delivery=ball, by_team=ball.batter, decision="x")
    try:
        call_command("migrate", "cricket", "0012", verbosity=0)
        assert _relkind(BALLS) == "r"
        # The day is filled from the fixture when the rows move back in.
        Fixture.objects.filter(pk=ball.innings.fixture_id).update(
            scheduled_start=datetime(2001, 2, 3, 23, tzinfo=UTC)
        )
    finally:
        call_command("migrate", "cricket", verbosity=0)
    assert _relkind(BALLS) == "p"
    assert Delivery.objects.get(pk=ball.pk).occurred_on == date(2001, 2, 3)
    assert _partition_of(BALLS, ball.pk) == f"{BALLS}_p2001"
    assert DeliveryReview.objects.get(pk=review.pk).delivery_id == ball.pk
    assert _ball().pk > ball.pk


@pytest.mark.django_db
def test_partitions_ensure_makes_the_years_an_import_of_old_fixtures_needs():
    ball = _ball(date(1995, 7, 1))
    assert _partition_of(BALLS, ball.pk) == f"{BALLS}_default"
    call_command("partitions_ensure", verbosity=0)
    assert _partition_of(BALLS, ball.pk) == f"{BALLS}_p1995"
    assert Delivery.objects.filter(pk=ball.pk).count() == 1


@pytest.mark.django_db
def test_a_delivery_id_stays_unique_across_partitions():
    ball = _ball(date(2010, 5, 5))
    with pytest.raises(IntegrityError, match="unique rule"), transaction.atomic():
        _ball(date(2026, 5, 5), id=ball.pk)


@pytest.mark.django_db
def test_a_live_ball_of_an_innings_on_another_day_is_refused():
    ball = _ball(date(2010, 5, 5))
    with pytest.raises(IntegrityError, match="another day"), transaction.atomic():
        _ball(innings=ball.innings, occurred_on=date(2011, 5, 5))
    duplicate = r"\(innings_id, over_number, \"?position\"?, occurred_on\).* already exists"
    with pytest.raises(IntegrityError, match=duplicate), transaction.atomic():
        _ball(innings=ball.innings, over_number=ball.over_number, position=ball.position)


@pytest.mark.django_db
def test_a_source_event_in_two_partitions_is_refused():
    ball = _ball(date(2010, 5, 5))
    with pytest.raises(IntegrityError, match="another day"), transaction.atomic():
        _ball(date(2012, 5, 5), source_event_id=ball.source_event_id)


@pytest.mark.django_db
def test_a_review_of_a_missing_delivery_is_refused_at_commit():
    ball = _ball()
    with pytest.raises(IntegrityError, match="is not present"), transaction.atomic():
        DeliveryReview.objects.create(delivery_id=10**12, by_team=ball.batter, decision="x")
        connection.check_constraints()


@pytest.mark.django_db
def test_a_delivery_partition_still_refuses_a_content_edit():
    ball = _ball()
    partition = _partition_of(BALLS, ball.pk)
    with pytest.raises(ProgrammingError, match="Cannot"), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {partition} SET runs_batter = 6 WHERE id = %s", [ball.pk])  # noqa: S608


# The row checks probe by index whatever the statistics say (omnium.partitions.PROBE_SETTING).


def _check_settings() -> dict[str, list[str] | None]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT proname, proconfig FROM pg_proc WHERE proname LIKE 'partitioned\\_%%'"
        )
        return dict(cursor.fetchall())


@pytest.mark.django_db
def test_every_row_check_of_a_partitioned_table_probes_with_seq_scans_off():
    found = _check_settings()
    assert {
        "partitioned_catalogue_priceobservation_id_unique",
        "partitioned_sports_statline_id_unique",
        "partitioned_sports_timelineitem_id_unique",
        "partitioned_ref_catalogue_pricealert_observation_id",
        "partitioned_kept_catalogue_pricealert_observation_id",
        "partitioned_ref_sports_timelineactor_item_id",
    } <= set(found)
    without = {name: config for name, config in found.items() if config != ["enable_seqscan=off"]}
    assert without == {}


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_the_setting_to_an_older_check_of_its_app_alone():
    from omnium.db import as_owner
    from omnium.partitions import probe_setting_sql

    names = ("partitioned_catalogue_older_id_unique", "partitioned_sports_older_id_unique")
    with as_owner(), connection.cursor() as cursor:  # only the owner creates functions
        try:
            for name in names:
                cursor.execute(
                    f"CREATE FUNCTION public.{name}() RETURNS trigger LANGUAGE plpgsql "
                    "AS $f$ BEGIN RETURN NEW; END; $f$"
                )
            for _ in range(2):  # a second run changes nothing
                cursor.execute(probe_setting_sql("catalogue"))
            found = _check_settings()
        finally:
            for name in names:
                cursor.execute(f"DROP FUNCTION IF EXISTS public.{name}()")
    assert found["partitioned_catalogue_older_id_unique"] == ["enable_seqscan=off"]
    assert found["partitioned_sports_older_id_unique"] is None


@pytest.mark.django_db
def test_a_bulk_insert_into_an_empty_analyzed_partition_probes_its_ids_by_index():
    """A new month's partition, analyzed while empty: the id check's plan, cached for the
    statement, would scan the partition's heap for each row the statement adds."""
    from omnium.db import analyze
    from omnium.partitions import partition_name

    listing = ListingFactory()
    month = _month(2)
    partition = partition_name(TABLE, "month", month.date())
    analyze(partition)
    rows = 300
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_get_xact_numscans(%s::regclass)", [partition])
        before = cursor.fetchone()[0]
        cursor.execute(
            f"INSERT INTO {TABLE} (listing_id, price, currency, price_type, observed_at, "  # noqa: S608
            "source_kind) SELECT %s, 10, 'EUR', 'regular', %s + make_interval(mins => g), "
            "'feed' FROM generate_series(1, %s) g",
            [listing.pk, month, rows],
        )
        cursor.execute("SELECT pg_stat_get_xact_numscans(%s::regclass)", [partition])
        scans = cursor.fetchone()[0] - before
        cursor.execute(f"SELECT count(*) FROM {partition}")  # noqa: S608
        assert cursor.fetchone()[0] == rows
    # One probe of the partition's index per row; a sequential scan per row would be 300+.
    assert scans < rows / 10, scans
