from django.conf import settings

from omnium.celery import app


def test_the_usage_prune_task_is_scheduled_and_registered():
    entry = settings.CELERY_BEAT_SCHEDULE["prune-api-usage"]
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks
