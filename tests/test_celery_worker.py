import pytest

from omnium.celery import app
from omnium.tasks import ping


def test_celery_is_configured_for_reliable_json_tasks():
    conf = app.conf
    assert conf.task_acks_late is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.accept_content == ["json"]
    assert conf.task_soft_time_limit < conf.task_time_limit
    assert conf.task_always_eager is False


@pytest.mark.worker
def test_a_task_round_trips_through_a_real_worker_process(celery_worker_process):
    result = ping.apply_async(args=["hello"], queue=celery_worker_process.queue)
    assert result.get(timeout=60)["echo"] == "hello"
    assert celery_worker_process.poll() is None  # the worker is still alive


@pytest.mark.parametrize(
    "task",
    [
        "ingest.import_cricsheet",
        "ingest.collect_source",
        "ingest.batch_publish",
        "catalogue.suggest_candidates",
        "cricket.statistics_rebuild",
        "cricket.dataset_release_build",
    ],
)
def test_long_work_is_routed_to_the_bulk_queue(task, settings):
    route = app.amqp.router.route({}, task)
    assert route["queue"].name == settings.CELERY_BULK_QUEUE


@pytest.mark.parametrize(
    "task",
    [
        "cricket.statistics_refresh",
        "catalogue.price_alerts_check",
        "discussions.deliver_notification_mail",
        "accounts.jobs_sweep_stale",
    ],
)
def test_short_work_stays_on_the_interactive_queue(task, settings):
    route = app.amqp.router.route({}, task)
    assert route["queue"].name == settings.CELERY_TASK_DEFAULT_QUEUE


@pytest.fixture
def two_workers(django_db_setup):
    from omnium.testing import celery_worker_start, celery_worker_stop

    interactive = celery_worker_start(consumes=("interactive",))
    bulk = celery_worker_start(interactive.queue, consumes=("bulk",))
    try:
        yield interactive.queue
    finally:
        celery_worker_stop(bulk)
        celery_worker_stop(interactive)


@pytest.mark.worker
def test_a_long_bulk_job_does_not_delay_interactive_work(two_workers):
    queue = two_workers
    # Both workers are up before the long job starts.
    assert ping.apply_async(args=["up"], queue=queue).get(timeout=60)["echo"] == "up"
    assert ping.apply_async(args=["up"], queue=f"{queue}-bulk").get(timeout=60)["echo"] == "up"
    long_job = ping.apply_async(args=["long"], kwargs={"hold_seconds": 20}, queue=f"{queue}-bulk")
    queued_behind = ping.apply_async(args=["behind"], queue=f"{queue}-bulk")
    quick = ping.apply_async(args=["quick"], queue=queue)
    assert quick.get(timeout=15)["echo"] == "quick"
    # The interactive answer came while the bulk worker was still busy with the long job.
    assert not long_job.ready()
    assert not queued_behind.ready()
    assert long_job.get(timeout=60)["echo"] == "long"
