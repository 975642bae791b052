"""Imports and table rebuilds run through a real Celery worker process."""

import json

import pytest

from ingest.sports_tasks import import_openfootball_task
from sports.models import Competition, StatTable, TableKind
from sports.tasks import stat_table_rebuild_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def test_an_import_and_a_table_rebuild_run_on_a_real_worker(celery_worker_process, tmp_path):
    folder = tmp_path / "2021-22"
    folder.mkdir()
    path = folder / "w.1.json"
    path.write_text(
        json.dumps(
            {
                "name": "Worker League 2021/22",
                "matches": [
                    {
                        "round": "R1",
                        "date": "2021-08-01",
                        "team1": "North",
                        "team2": "South",
                        "score": {"ft": [3, 1]},
                    },
                ],
            }
        )
    )
    queue = celery_worker_process.queue
    summary = import_openfootball_task.apply_async(
        args=[[str(path)], "wl", "Worker League"], queue=queue
    ).get(timeout=120)
    assert summary.startswith("1 file(s): 1 new fixture(s)")
    season = Competition.objects.get(code="wl-2021-22")
    rows = stat_table_rebuild_task.apply_async(
        args=[str(season.pk), TableKind.STANDINGS], queue=queue
    ).get(timeout=120)
    assert rows == 2
    table = StatTable.objects.get(competition=season, kind=TableKind.STANDINGS)
    assert [r["team"] for r in table.rows] == ["North", "South"]
