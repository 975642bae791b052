"""The one refresh path: every write to statistic inputs (a corpus import, a batch
publication, a delivery correction) calls ``statistics_refresh`` inside its transaction.

What it does (the refresh boundary: exactly the scopes a write touches are rebuilt):

1. records a ``StatisticsRefresh`` and its ``StatisticsRefreshDependency`` rows: each
   fixture, the season and competition nodes holding them, and the career of every
   participant the fixtures name (before the write, from the stored lines, and after it,
   from the live deliveries, wickets and squads) plus any ``participant_ids`` given;
2. bumps those participants' data versions (their stored snapshots become stale at once,
   so no reader sees a figure from before the write) and the fixtures' input versions
   (their stored lines become stale at once);
3. records a job for it (``accounts.services.job_start``: the console lists its progress)
   and on commit sends ``statistics_refresh_task``, which rebuilds exactly those fixtures'
   lines and those participants' snapshots, marking each snapshot built from the version
   this refresh bumped it to.

``statistics_lines_ensure`` is the read side's half: a reader that shows one fixture's
lines (the scorecard) calls it first, and a fixture whose lines are stale (its refresh is
still queued, or failed) is rebuilt on the spot, so no reader shows figures from before a
write. ``statistics_invalidate_all`` is the wholesale invalidation for writes that bypass
versions; ``statistics_rebuild_all`` rebuilds every line and snapshot (after a bulk load).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import JobKind
from accounts.services import job_start
from cricket.stats.aggregates import Scope, snapshots_invalidate_all, snapshots_rebuild
from cricket.stats.engine import (
    LINES_DEFINITION_VERSION,
    lines_rebuild,
    lines_rebuild_all,
    lines_stale,
)
from cricket.stats.models import (
    FixtureLinesState,
    RefreshScope,
    RefreshStatus,
    StatisticsRefresh,
    StatisticsRefreshDependency,
)
from omnium.progress import ProgressCallback
from sports.models import Submission
from sports.services.common import Actor, actor_label, actor_user, audit_person

# Everyone a fixture names: its current lines (the state before the write) and its live
# deliveries, wickets, fielders and squad (the state after it). Answered as survivors.
_AFFECTED = """
WITH RECURSIVE named AS (
    SELECT participant_id AS pid FROM cricket_cricketappearance
     WHERE fixture_id = ANY(%(ids)s::uuid[])
    UNION SELECT unnest(ARRAY[d.batter_id, d.bowler_id, d.non_striker_id])
      FROM cricket_delivery d WHERE d.innings_id = ANY(%(innings)s::uuid[]) AND d.is_current
    UNION SELECT w.player_out_id
      FROM cricket_deliverywicket w JOIN cricket_delivery d ON d.id = w.delivery_id
     WHERE d.innings_id = ANY(%(innings)s::uuid[]) AND d.is_current
    UNION SELECT f.participant_id
      FROM cricket_deliverywicketfielder f JOIN cricket_deliverywicket w ON w.id = f.wicket_id
      JOIN cricket_delivery d ON d.id = w.delivery_id
     WHERE d.innings_id = ANY(%(innings)s::uuid[]) AND d.is_current
       AND f.participant_id IS NOT NULL
    UNION SELECT c.participant_id FROM sports_fixturecompetitor c
     WHERE c.fixture_id = ANY(%(ids)s::uuid[]) AND c.parent_id IS NOT NULL
       AND c.participant_id IS NOT NULL
    UNION SELECT unnest(%(extra)s::uuid[])
),
chain(id, survivor) AS (
    SELECT p.id, p.merged_into_id FROM sports_participant p JOIN named n ON n.pid = p.id
     WHERE p.merged_into_id IS NOT NULL
    UNION
    SELECT c.id, p.merged_into_id FROM chain c
      JOIN sports_participant p ON p.id = c.survivor AND p.merged_into_id IS NOT NULL
)
SELECT DISTINCT COALESCE(
    (SELECT c.survivor FROM chain c JOIN sports_participant s ON s.id = c.survivor
      WHERE c.id = n.pid AND s.merged_into_id IS NULL LIMIT 1), n.pid)
  FROM named n WHERE n.pid IS NOT NULL
"""

# The season node (nearest ancestor-or-self of type "season") and the root of each fixture.
_NODES = """
SELECT DISTINCT sn.id, 'season' FROM sports_fixture f
  JOIN sports_competition c ON c.id = f.competition_id
  JOIN sports_competition sn ON sn.tree_id = c.tree_id AND sn.lft <= c.lft
   AND sn.rght >= c.rght AND sn.type = 'season'
 WHERE f.id = ANY(%(ids)s::uuid[])
UNION
SELECT DISTINCT root.id, 'competition' FROM sports_fixture f
  JOIN sports_competition c ON c.id = f.competition_id
  JOIN sports_competition root ON root.tree_id = c.tree_id AND root.level = 0
 WHERE f.id = ANY(%(ids)s::uuid[])
"""

_BUMP = """
INSERT INTO cricket_participantstatisticsversion (participant_id, data_version, updated_at)
SELECT unnest(%s::uuid[]), 1, now()
ON CONFLICT (participant_id) DO UPDATE
   SET data_version = cricket_participantstatisticsversion.data_version + 1, updated_at = now()
RETURNING participant_id, data_version
"""

# Sorted, so two writers bumping overlapping fixtures lock the rows in one order.
SWEEP_ACTOR = "integration:statistics-sweep"

_BUMP_FIXTURES = """
INSERT INTO cricket_fixturelinesstate (fixture_id, data_version)
SELECT id, 1 FROM sports_fixture WHERE id = ANY(%s::uuid[]) ORDER BY id
    ON CONFLICT (fixture_id) DO UPDATE
   SET data_version = cricket_fixturelinesstate.data_version + 1
"""


def statistics_refresh(
    *,
    fixture_ids: Iterable[Any],
    participant_ids: Iterable[Any] | None = None,
    reason: str,
    actor: Actor,
    submission: Submission | None = None,
) -> StatisticsRefresh:
    """Record that these fixtures' statistic inputs changed and schedule their refresh.

    Call it inside the transaction of the write (an import, a batch publication, a
    correction), after the write: it reads the live deliveries to find who is affected.

    - ``fixture_ids``: the fixtures whose deliveries, wickets, innings or squads changed.
    - ``participant_ids``: anyone else whose figures change though the fixtures no longer
      name them (a correction that replaces a batter names the new one in the deliveries;
      the old one is found in the stored lines, so this is rarely needed; a participant
      merge passes both sides here).
    - ``reason``: required, recorded ("import", "correction: ...", "source revision").
    - ``actor``: an account or ``"integration:<source>"``; a person's refresh is audited.
    - ``submission``: the submission that caused it, when there is one.

    Writes the refresh record, its dependency rows (fixture, season, competition, career),
    the participants' new data versions and the fixtures' new input versions, and a job
    (``accounts.Job``) whose task, ``statistics_refresh_task``, is sent on commit. Returns
    the refresh record. Raises
    ``ValidationError`` with nothing written when there is no reason or nothing to refresh.
    """
    fixtures = sorted({str(pk) for pk in fixture_ids})
    extra = sorted({str(pk) for pk in participant_ids or ()})
    if not (reason or "").strip():
        raise ValidationError("statistics_refresh: a reason is required.")
    if not fixtures and not extra:
        raise ValidationError("statistics_refresh: name at least one fixture or participant.")
    label = actor_label(actor)
    with transaction.atomic():
        refresh = StatisticsRefresh.objects.create(
            reason=reason.strip()[:256], actor=label, submission=submission, fixture_ids=fixtures
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id::text FROM cricket_innings WHERE fixture_id = ANY(%s::uuid[])",
                [fixtures],
            )
            innings = [row[0] for row in cursor.fetchall()]
            cursor.execute(_AFFECTED, {"ids": fixtures, "innings": innings, "extra": extra})
            affected = sorted(str(row[0]) for row in cursor.fetchall())
            cursor.execute(_NODES, {"ids": fixtures})
            nodes = cursor.fetchall()
            cursor.execute(_BUMP, [affected])
            versions = dict(cursor.fetchall())
            cursor.execute(_BUMP_FIXTURES, [fixtures])
        dependencies = [
            StatisticsRefreshDependency(refresh=refresh, scope=RefreshScope.FIXTURE, fixture_id=pk)
            for pk in fixtures
        ]
        dependencies += [
            StatisticsRefreshDependency(refresh=refresh, scope=scope, competition_id=pk)
            for pk, scope in nodes
        ]
        dependencies += [
            StatisticsRefreshDependency(
                refresh=refresh,
                scope=RefreshScope.CAREER,
                participant_id=pk,
                data_version=version,
            )
            for pk, version in sorted(versions.items(), key=lambda item: str(item[0]))
        ]
        StatisticsRefreshDependency.objects.bulk_create(dependencies)
        audit_person(
            actor,
            action="cricket.statistics_refresh",
            entity=refresh,
            key=refresh.pk,
            detail={"reason": refresh.reason, "fixtures": fixtures},
        )
        _job_start(refresh, actor)
    return refresh


def _job_start(refresh: StatisticsRefresh, actor: Actor) -> None:
    """The refresh's job: its progress on the console's job pages, its task sent on commit
    (``job_start`` sends ``statistics_refresh_task`` by name, on ``STATISTICS_REFRESH_QUEUE``
    when set)."""
    queue = getattr(settings, "STATISTICS_REFRESH_QUEUE", None)
    job_start(
        kind=JobKind.STATISTICS_REFRESH,
        actor=actor_user(actor),
        via="celery",
        target=refresh.pk,
        target_label=refresh.reason,
        **({"queue": queue} if queue else {}),
    )


# Cricket fixtures with innings whose lines are not current (no state row, built from an
# older input version or another definition), written before the cutoff, that no owed
# refresh (pending, or failed and so retried from its job) already covers.
_UNREFRESHED = """
SELECT f.id::text
  FROM sports_fixture f
  JOIN sports_sport sp ON sp.id = f.sport_id AND sp.code = 'cricket'
  LEFT JOIN cricket_fixturelinesstate s ON s.fixture_id = f.id
 WHERE f.merged_into_id IS NULL
   AND f.created_at < %(cutoff)s
   AND EXISTS (SELECT 1 FROM cricket_innings i WHERE i.fixture_id = f.id)
   AND (s.fixture_id IS NULL
        OR s.lines_version IS DISTINCT FROM s.data_version
        OR s.definition_version IS DISTINCT FROM %(definition)s
        -- lines a read made current (a points table ensures its fixtures' lines) while
        -- no refresh ever named the fixture: its careers are still owed
        OR NOT EXISTS (SELECT 1 FROM cricket_statisticsrefreshdependency named
                        WHERE named.fixture_id = f.id AND named.scope = 'fixture'))
   AND NOT EXISTS (
        SELECT 1 FROM cricket_statisticsrefreshdependency dep
          JOIN cricket_statisticsrefresh r ON r.id = dep.refresh_id AND r.status <> 'done'
         WHERE dep.fixture_id = f.id AND dep.scope = 'fixture')
 ORDER BY f.created_at, f.id
 LIMIT %(limit)s
"""


def statistics_sweep_unrefreshed(
    *, grace: dt.timedelta | None = None, limit: int = 500
) -> StatisticsRefresh | None:
    """Refresh the cricket fixtures that were written without the refresh their write asks
    for: an import asks for one per block of matches after they commit, so one killed
    between its commits and that request leaves committed matches with no lines and careers
    that do not count them. Owed: a fixture whose lines are not current, or one no refresh
    ever named (a read that needs its lines, such as a points table, builds them on the
    spot, but only a refresh rebuilds the careers); written more than ``grace`` ago
    (``STATISTICS_SWEEP_GRACE_SECONDS``: a live import asks for its own) and not covered by
    an owed refresh, up to ``limit`` of them get one refresh, as if the import had asked.
    The beat task ``cricket.statistics_sweep`` runs it; None when nothing is owed."""
    grace = (
        dt.timedelta(seconds=settings.STATISTICS_SWEEP_GRACE_SECONDS) if grace is None else grace
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                _UNREFRESHED,
                {
                    "cutoff": timezone.now() - grace,
                    "definition": LINES_DEFINITION_VERSION,
                    "limit": limit,
                },
            )
            fixtures = [row[0] for row in cursor.fetchall()]
        if not fixtures:
            return None
        return statistics_refresh(
            fixture_ids=fixtures,
            reason=f"sweep: {len(fixtures)} fixture(s) written without a refresh",
            actor=SWEEP_ACTOR,
        )


def statistics_refresh_run(
    *, refresh_id: Any, progress: ProgressCallback | None = None
) -> StatisticsRefresh:
    """Carry out one recorded refresh (the Celery task's body; safe to run twice): rebuild
    its fixtures' lines, then its participants' snapshots, each marked built from the data
    version this refresh gave it. A later refresh of the same participant leaves that
    snapshot stale until its own run, so a reader never takes an old figure as current.
    ``progress`` hears of its two steps (lines, snapshots)."""
    refresh = StatisticsRefresh.objects.get(pk=refresh_id)
    careers = list(
        refresh.dependencies.filter(scope=RefreshScope.CAREER).values_list(
            "participant_id", "data_version"
        )
    )
    try:
        with transaction.atomic():
            if progress:
                progress(0, total=2, step=f"lines of {len(refresh.fixture_ids)} fixture(s)")
            lines_rebuild(fixture_ids=refresh.fixture_ids)
            if progress:
                progress(1, step=f"snapshots of {len(careers)} career(s)")
            snapshots_rebuild(
                participant_ids=[pk for pk, _ in careers],
                # Career dependencies are written with the version the refresh bumped
                # them to (statistics_refresh), so none is null here.
                versions={str(pk): cast(int, version) for pk, version in careers},
            )
            StatisticsRefresh.objects.filter(pk=refresh.pk).update(
                status=RefreshStatus.DONE, completed_at=timezone.now(), error=""
            )
            if progress:
                progress(2, step="done")
    except Exception as exc:
        StatisticsRefresh.objects.filter(pk=refresh.pk).update(
            status=RefreshStatus.FAILED, error=str(exc)[:2000]
        )
        raise
    refresh.refresh_from_db()
    return refresh


def statistics_lines_ensure(*, fixture_ids: Iterable[Any]) -> list[str]:
    """Make these fixtures' lines current before they are read: any fixture whose lines
    are missing, built from an older input version or under an older engine definition is
    rebuilt now, in its own transaction, from the live deliveries (what the queued refresh
    would do for its lines; the queued run still rebuilds them and the snapshots). Current
    fixtures cost one query and no write. Returns the ids rebuilt (sorted).

    Not audited and without an actor: it decides nothing, it carries out a rebuild a
    recorded refresh (or a new engine definition) already asked for. Concurrent callers
    for one fixture rebuild it once (the engine checks again under the fixture's lock)."""
    stale = lines_stale(fixture_ids=fixture_ids)
    if stale:
        lines_rebuild(fixture_ids=stale, only_stale=True)
    return stale


def statistics_invalidate_all(*, reason: str, actor: Actor) -> int:
    """The wholesale invalidation: every stored snapshot goes (readers fold live until the
    next rebuild) and every fixture's lines count as stale (a scorecard rebuilds its
    fixture's lines as it reads them). For writes to statistic inputs that do not advance
    versions (a raw SQL fix, a restored backup). Returns the snapshot rows removed."""
    if not (reason or "").strip():
        raise ValidationError("statistics_invalidate_all: a reason is required.")
    with transaction.atomic():
        removed = snapshots_invalidate_all()
        FixtureLinesState.objects.update(lines_version=None)
        refresh = StatisticsRefresh.objects.create(
            reason=f"invalidate all: {reason.strip()}"[:256],
            actor=actor_label(actor),
            status=RefreshStatus.DONE,
            completed_at=timezone.now(),
        )
        audit_person(
            actor,
            action="cricket.statistics_invalidate_all",
            entity=refresh,
            key=refresh.pk,
            detail={"reason": reason, "removed": removed},
        )
    return removed


def statistics_rebuild_all(
    *, reason: str, actor: Actor, progress: ProgressCallback | None = None
) -> tuple[int, int]:
    """Rebuild every line and every snapshot set-based (after a bulk corpus load, or to
    recover from anything). Returns (line rows, snapshot rows). ``progress`` hears of the
    two steps (lines, then snapshots) as 0 and 1 of 2."""
    if not (reason or "").strip():
        raise ValidationError("statistics_rebuild_all: a reason is required.")
    with transaction.atomic():
        if progress:
            progress(0, total=2, step="lines")
        lines = lines_rebuild_all()
        if progress:
            progress(1, step="snapshots")
        snapshots = snapshots_rebuild()
        StatisticsRefresh.objects.create(
            reason=f"rebuild all: {reason.strip()}"[:256],
            actor=actor_label(actor),
            status=RefreshStatus.DONE,
            completed_at=timezone.now(),
        )
    return lines, snapshots


# Refreshes not yet carried out (queued, or failed and so still owed) that touch a fixture
# in the scope, or a career among the participants.
_PENDING = """
SELECT r.id::text, r.reason, r.requested_at, r.status
  FROM cricket_statisticsrefresh r
 WHERE r.status <> %s AND ({touches})
 ORDER BY r.requested_at, r.id
"""


def refreshes_pending(
    *, scope: Scope | None = None, participant_ids: Iterable[Any] | None = None
) -> list[PendingRefresh]:
    """The refreshes still owed (pending or failed) whose fixtures fall in ``scope`` (its
    fixture-level filters: format, gender, competition subtree, season, dates; a refresh
    of careers alone, a merge's, falls in every scope) or whose careers include one of
    ``participant_ids`` or anyone merged into them; with neither, every owed refresh.
    Oldest first. One query.

    A reader of figures in that scope either runs them first (``release_cricket_dataset``)
    or says the figures are stale and since when (the statistics API)."""
    touches: list[str] = []
    params: list[Any] = [RefreshStatus.DONE]
    if scope is not None or participant_ids is None:
        where, values = ("true", []) if scope is None else Scope.where(scope, "f", "side")
        touches.append(
            "EXISTS (SELECT 1 FROM cricket_statisticsrefreshdependency dep"
            f" JOIN {_FIXTURE_SCOPE} f ON f.id = dep.fixture_id"
            f" WHERE dep.refresh_id = r.id AND dep.scope = 'fixture' AND {where})"
        )
        # A refresh of careers alone (a participant merge) names no fixture, yet moves
        # rows in every scope the merged players' lines fall in: it counts for any scope.
        touches.append(
            "NOT EXISTS (SELECT 1 FROM cricket_statisticsrefreshdependency dep"
            " WHERE dep.refresh_id = r.id AND dep.scope = 'fixture')"
        )
        params += values
    if participant_ids is not None:
        # The participants and everyone merged into them, at any depth.
        touches.append(
            "EXISTS (WITH RECURSIVE m(id) AS (SELECT unnest(%s::uuid[]) UNION"
            " SELECT p.id FROM sports_participant p JOIN m ON p.merged_into_id = m.id)"
            " SELECT 1 FROM cricket_statisticsrefreshdependency dep JOIN m"
            " ON m.id = dep.participant_id WHERE dep.refresh_id = r.id"
            " AND dep.scope = 'career')"
        )
        params.append(sorted({str(pk) for pk in participant_ids}))
    with connection.cursor() as cursor:
        cursor.execute(_PENDING.format(touches=" OR ".join(touches)), params)
        return [PendingRefresh(*row) for row in cursor.fetchall()]


# A fixture's scope under the line columns' names (as ``engine`` copies them onto lines).
_FIXTURE_SCOPE = """(
    SELECT f.id, COALESCE((f.scheduled_start AT TIME ZONE 'UTC')::date,
                          (f.created_at AT TIME ZONE 'UTC')::date) AS occurred_on,
           f.competition_id, COALESCE(f.format_code, '') AS format_code,
           COALESCE(f.format->>'gender', '') AS gender,
           COALESCE(f.meta->>'season', '') AS season
      FROM sports_fixture f)"""


@dataclass(frozen=True)
class PendingRefresh:
    id: str
    reason: str
    requested_at: dt.datetime
    status: str

    def __str__(self) -> str:
        return f"{self.id} ({self.status}, queued {self.requested_at.isoformat()}: {self.reason})"


def staleness(pending: list[PendingRefresh]) -> dict[str, Any]:
    """What a response says about pending refreshes: ``stale`` and when the oldest was
    queued (None when nothing is pending)."""
    return {
        "stale": bool(pending),
        "refresh_queued_at": pending[0].requested_at if pending else None,
    }
