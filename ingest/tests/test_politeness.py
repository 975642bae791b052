"""A source's politeness, honoured by every collection run (``run_start``): at most
``max_concurrency`` runs at once, and ``delay_seconds`` between the starts of two runs,
tested with a fake clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from catalogue.collection_records import CollectionRun, RunStatus, Source
from catalogue.tests.factories import LocationFactory
from ingest.collectors.politeness import SourceBusy, run_release, run_start
from ingest.collectors.services import source_collect

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0
        self.slept: list[float] = []

    def now(self) -> datetime:
        return self.at

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def source():
    return Source.objects.create(
        slug="polite-shop", name="Polite shop", feed_format="generic_csv",
        location=LocationFactory(), mapping={"fields": {"sku": "sku", "name": "name"}},
        delay_seconds=Decimal("5"), max_concurrency=1,
    )  # fmt: skip


def release(run):
    run_release(run)


def _finish(run):
    run_release(run)
    CollectionRun.objects.filter(pk=run.pk).update(status=RunStatus.SUCCEEDED, finished_at=T0)


def test_a_run_waits_out_the_delay_since_the_last_run_began(source):
    clock = Clock()
    _finish(run_start(source=source, now=clock.now, sleep=clock.sleep))
    clock.at += timedelta(seconds=2)
    second = run_start(source=source, now=clock.now, sleep=clock.sleep)
    assert clock.slept == [3.0]
    assert second.started_at == T0 + timedelta(seconds=5)


def test_a_run_after_the_delay_has_passed_does_not_wait(source):
    clock = Clock()
    _finish(run_start(source=source, now=clock.now, sleep=clock.sleep))
    clock.at += timedelta(seconds=6)
    run_start(source=source, now=clock.now, sleep=clock.sleep)
    assert clock.slept == []


def test_a_run_beyond_the_concurrency_limit_is_refused_naming_it(source):
    clock = Clock()
    run_start(source=source, now=clock.now, sleep=clock.sleep)  # still running
    clock.at += timedelta(seconds=10)
    with pytest.raises(SourceBusy, match="max_concurrency = 1"):
        run_start(source=source, now=clock.now, sleep=clock.sleep)
    assert CollectionRun.objects.count() == 1


def test_two_runs_at_once_are_allowed_when_the_source_allows_two(source):
    source.max_concurrency = 2
    source.save()
    clock = Clock()
    run_start(source=source, now=clock.now, sleep=clock.sleep)
    run_start(source=source, now=clock.now, sleep=clock.sleep)
    assert CollectionRun.objects.filter(status=RunStatus.RUNNING).count() == 2
    assert clock.slept == [5.0]


def test_a_run_left_running_by_a_killed_worker_does_not_count(source):
    clock = Clock()
    left = run_start(source=source, now=clock.now, sleep=clock.sleep)
    release(left)  # what the end of a killed worker's session does
    clock.at += timedelta(seconds=10)
    run_start(source=source, now=clock.now, sleep=clock.sleep)
    assert CollectionRun.objects.count() == 2


def test_every_collection_goes_through_the_politeness_check(source, tmp_path):
    feed = tmp_path / "feed.csv"
    feed.write_text("sku,name\nK1,Maison Eau No 1 EDT 100 ml\n", encoding="utf-8")
    run_start(source=source)  # in progress
    with pytest.raises(SourceBusy):
        source_collect(source=source, path=feed)


def test_a_run_left_running_by_a_killed_worker_is_swept_to_failed_with_the_reason(source, settings):
    from ingest.collectors.politeness import collection_runs_sweep_stale

    clock = Clock()
    left = run_start(source=source, now=clock.now, sleep=clock.sleep)
    later = T0 + timedelta(seconds=settings.COLLECT_RUN_STALE_SECONDS + 1)
    assert collection_runs_sweep_stale(now=later) == 0  # its session is alive
    release(left)
    assert collection_runs_sweep_stale(now=T0 + timedelta(seconds=60)) == 0
    later = T0 + timedelta(seconds=settings.COLLECT_RUN_STALE_SECONDS + 1)
    assert collection_runs_sweep_stale(now=later) == 1
    left.refresh_from_db()
    assert left.status == RunStatus.FAILED and left.error.startswith("worker lost")
    assert collection_runs_sweep_stale(now=later) == 0
