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
