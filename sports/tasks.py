from celery import shared_task

from sports.models import Competition
from sports.services import stat_table_rebuild


@shared_task(name="sports.stat_table_rebuild", acks_late=True)
def stat_table_rebuild_task(competition_id: str, kind: str) -> int:
    """Rebuild one cached table (league or medal) for a competition node; returns its row
    count. Idempotent, so a redelivered task does no harm."""

    table = stat_table_rebuild(node=Competition.objects.get(pk=competition_id), kind=kind)
    return len(table.rows)
