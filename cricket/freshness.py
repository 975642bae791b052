"""What the conditional GETs of cricket scorecards, careers and leaderboards compare
(omnium.conditional): one aggregate query each over the rows the response is built from,
plus the definition version the derived figures are built to, so a change of the engine's
definition is a new answer too.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Count, Max, QuerySet
from rest_framework.request import Request

from cricket.stats.aggregates import DEFINITION_VERSION
from cricket.stats.engine import LINES_DEFINITION_VERSION
from cricket.stats.models import RefreshStatus, StatisticsRefresh
from omnium.conditional import CompiledState, parse_uuid
from sports.models import Fixture


def _scorecard_state(pk) -> QuerySet:
    # Deliveries are written only by an import (which opens the fixture's log) and by
    # corrections (each appends a log item), so the log position dates every change to
    # them without reading them.
    return (
        Fixture.objects.public()
        .filter(sport__code="cricket", pk=pk)
        .annotate(innings_n=Count("innings"), innings_changed=Max("innings__updated_at"))
        .values_list("updated_at", "version", "last_seq", "innings_n", "innings_changed")
    )


_SCORECARD_STATE = CompiledState(_scorecard_state)


def scorecard_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """A cricket scorecard: the fixture, its log position and its innings, and the
    definition its lines are built to (the card reads the derived lines, rebuilt before
    they are read when stale: ``statistics_lines_ensure``)."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    state = _SCORECARD_STATE.row(pk)
    return None if state is None else (*state, LINES_DEFINITION_VERSION)


_CAREER_STATE = """
WITH RECURSIVE merged(id) AS (
    SELECT %(pk)s::uuid
    UNION SELECT p.id FROM sports_participant p JOIN merged ON p.merged_into_id = merged.id
)
SELECT p.updated_at,
       (SELECT max(q.updated_at) FROM sports_participant q JOIN merged ON q.id = merged.id),
       (SELECT count(*) FROM merged),
       (SELECT count(*) FROM sports_externalidmap e JOIN merged ON e.internal_id = merged.id
         WHERE e.source_code = 'cricsheet' AND e.entity_type = 'participant'),
       (SELECT coalesce(sum(v.data_version), 0) FROM cricket_participantstatisticsversion v
          JOIN merged ON v.participant_id = merged.id),
       st.data_version,
       st.definition_version
  FROM sports_participant p
  JOIN sports_sport s ON s.id = p.sport_id AND s.code = 'cricket'
  LEFT JOIN cricket_participantaggregatesnapshotstate st ON st.participant_id = p.id
 WHERE p.id = %(pk)s AND p.merged_into_id IS NULL
"""


def career_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """A cricket player's career: the player and every record merged into them, their
    registry ids, their statistics data versions (bumped by every refresh that touches
    them) and the snapshot's build state (so the rebuild after a refresh is a new answer).
    A merged id answers as its survivor: no validator of its own."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_CAREER_STATE, {"pk": pk})
        row = cursor.fetchone()
    return None if row is None else (*row, DEFINITION_VERSION)


def leaderboard_freshness(request: Request, **_kwargs) -> tuple | None:
    """A cricket leaderboard: every line and snapshot write finishes a recorded refresh
    (``statistics_refresh_run``, the whole rebuild, the wholesale invalidation), so the
    latest finished refresh dates them all; the query string is in the ETag already."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT max(completed_at), count(*) FROM {StatisticsRefresh._meta.db_table}"  # noqa: S608
            " WHERE status = %s",
            [RefreshStatus.DONE],
        )
        return (*cursor.fetchone(), DEFINITION_VERSION)
