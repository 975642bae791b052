"""``suggest`` runs as a Celery task after each collection."""

import pytest
from django.core.management import call_command

from accounts.models import Job, JobKind, JobState
from catalogue.collection_records import Source
from catalogue.tests.factories import LocationFactory
from curation.models import MergeCandidate
from curation.tasks import suggest_candidates
from ingest import tasks


def feed_source(tmp_path, slug):
    feed = tmp_path / "feed.csv"
    feed.write_text(
        "sku,name,brand\nS1,Dior Sauvage EDT Men 100 ml,Dior\nS2,Dior Sauvage Men 100 ml,Dior\n",
        encoding="utf-8",
    )
    return Source.objects.create(
        slug=slug,
        name=slug,
        feed_format="generic_csv",
        location=LocationFactory(),
        feed_path=str(feed),
        mapping={
            "fields": {"sku": "sku", "name": "name", "brand": "brand"},
            "carries_prices": False,
            "defaults": {"vertical": "fragrance"},
        },
    )


def _suggest_jobs():
    return list(Job.objects.filter(kind=JobKind.SUGGEST))


@pytest.mark.django_db
def test_a_succeeded_collection_sends_the_suggest_task(tmp_path):
    # Sent as a job of its own once the collection's last row commits.
    outcome = tasks.collect_source(str(feed_source(tmp_path, "feed-a").pk))
    (job,) = _suggest_jobs()
    assert (job.via, job.state) == ("celery", JobState.QUEUED)
    assert outcome["suggest_task"] == job.task_id


@pytest.mark.django_db
def test_a_disabled_source_sends_no_suggest_task(tmp_path):
    source = feed_source(tmp_path, "feed-b")
    Source.objects.filter(pk=source.pk).update(enabled=False)
    tasks.collect_source(str(source.pk))
    assert _suggest_jobs() == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_queues_candidates_after_collecting(celery_worker_process, tmp_path):
    source = feed_source(tmp_path, "feed-worker")
    result = tasks.collect_source.apply_async(
        args=[str(source.pk)], queue=celery_worker_process.queue
    )
    assert result.get(timeout=120)["status"] == "succeeded"
    # The collection sent suggest on the worker's queue; run one more to wait for it.
    done = suggest_candidates.apply_async(queue=celery_worker_process.queue).get(timeout=120)
    assert done["proposed"] == 0
    assert MergeCandidate.objects.filter(level="product", status="open").count() == 1


@pytest.mark.django_db
def test_the_collect_command_sends_the_suggest_task_too(tmp_path):
    feed_source(tmp_path, "feed-cli")
    call_command("collect", "feed-cli", verbosity=0)
    assert len(_suggest_jobs()) == 1
    # The command's own run is a job too, run where it was typed.
    collected = Job.objects.get(kind=JobKind.COLLECT)
    assert (collected.via, collected.state, collected.percent) == ("cli", JobState.SUCCEEDED, 100)
    assert collected.result["rows_read"] == 2


@pytest.mark.django_db
def test_the_collect_command_sends_no_suggest_task_for_a_disabled_source(tmp_path):
    source = feed_source(tmp_path, "feed-cli-off")
    Source.objects.filter(pk=source.pk).update(enabled=False)
    call_command("collect", "feed-cli-off", verbosity=0)
    assert _suggest_jobs() == []
