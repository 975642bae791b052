import pytest
from celery.result import AsyncResult

from accounts.models import Job
from catalogue.collection_records import Source
from catalogue.tests.factories import LocationFactory
from ingest import tasks

pytestmark = pytest.mark.django_db


def test_the_beat_task_starts_a_job_for_each_enabled_source(monkeypatch):
    location = LocationFactory()
    on = Source.objects.create(
        slug="on", name="On", feed_format="generic_csv", location=location, feed_path="feeds/on.csv"
    )
    Source.objects.create(
        slug="off",
        name="Off",
        feed_format="generic_csv",
        location=location,
        feed_path="feeds/off.csv",
        enabled=False,
    )
    assert tasks.collect_enabled_sources() == ["on"]
    job = Job.objects.get()
    assert (job.kind, job.target, job.via, job.state) == ("collect", str(on.pk), "beat", "queued")


def test_the_collect_task_reports_a_disabled_source():
    source = Source.objects.create(
        slug="off", name="Off", feed_format="generic_csv", location=LocationFactory(), enabled=False
    )
    result = tasks.collect_source(str(source.pk))
    assert result["status"] == "disabled"


def test_the_collect_task_runs_the_collection(tmp_path, settings):
    feed = tmp_path / "feed.csv"
    feed.write_text("sku,name\nX1,Dior Sauvage EDT 100 ml\n", encoding="utf-8")
    source = Source.objects.create(
        slug="ids",
        name="Ids",
        feed_format="generic_csv",
        location=LocationFactory(),
        feed_path=str(feed),
        mapping={"fields": {"sku": "sku", "name": "name"}, "carries_prices": False},
    )
    result = tasks.collect_source(str(source.pk))
    assert result["status"] == "succeeded"
    assert source.runs.get().products_seen == 1


def test_the_beat_schedule_runs_the_collection_task(settings):
    from omnium.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["collect-enabled-sources"]
    assert entry["task"] == tasks.collect_enabled_sources.name
    assert entry["task"] in app.tasks


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_collects_a_source(celery_worker_process, tmp_path):
    feed = tmp_path / "feed.csv"
    feed.write_text("sku,name\nW1,Dior Sauvage EDT 100 ml\nW2,Dior Sauvage EDP 100 ml\n")
    source = Source.objects.create(
        slug="worker-feed",
        name="Worker feed",
        feed_format="generic_csv",
        location=LocationFactory(),
        feed_path=str(feed),
        mapping={"fields": {"sku": "sku", "name": "name"}, "carries_prices": False},
    )
    result = tasks.collect_source.apply_async(
        args=[str(source.pk)], queue=celery_worker_process.queue
    )
    outcome = result.get(timeout=120)
    assert outcome["status"] == "succeeded"
    assert source.runs.get().products_seen == 2
    # The suggest run the collection queued finishes too (and is not left running while
    # the test database is emptied).
    AsyncResult(outcome["suggest_task"]).get(timeout=120)
