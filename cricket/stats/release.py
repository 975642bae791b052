"""Dataset releases: batting and bowling careers and team innings as CSV, with a manifest.

``write_release_files`` writes the three CSV files and ``manifest.json`` (row counts and
SHA-256 of each file) into a directory; ``manage.py release_cricket_dataset`` calls it.
``dataset_release_request`` records a request and its job and sends ``dataset_release_build``
on commit, which writes the files into private storage and the immutable ``DatasetRelease`` record.

Columns are keyed by the Cricsheet registry id, never by name. Averages are empty with no
outs (or no wickets); economy counts overs of each match's own balls per over. Innings are
1-based in file order; team wickets exclude retired hurt, retired not out and absent hurt; the total
includes innings penalty runs. Data: Cricsheet (https://cricsheet.org), ODC-By 1.0.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import FileSystemStorage
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import JobKind
from accounts.services import job_start
from cricket.stats.aggregates import Scope, careers
from cricket.stats.models import DatasetRelease, DatasetReleaseJob, ReleaseJobStatus
from omnium.csvfiles import SafeWriter
from omnium.progress import ProgressCallback
from sports.services.common import Actor, actor_label, actor_user, audit_person

BATTING_CSV = (
    "registry_id",
    "name",
    "matches",
    "innings",
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "outs",
    "highest",
    "fifties",
    "hundreds",
    "catches",
    "stumpings",
    "not_outs",
    "average",
    "strike_rate",
    "ducks",
    "sub_catches",
)
BOWLING_CSV = (
    "registry_id",
    "name",
    "legal_balls",
    "runs_conceded",
    "wickets",
    "maidens",
    "best_wickets",
    "best_runs",
    "average",
    "economy",
    "strike_rate",
    "four_wickets",
    "five_wickets",
    "ten_wickets",
    "best_match_wickets",
    "best_match_runs",
)
# Release column -> fold column where the names differ (a bowling file's ``average`` is the
# bowling average); existing columns keep their names.
BATTING_SOURCES = {"sub_catches": "substitute_catches"}
BOWLING_SOURCES = {
    "average": "bowling_average",
    "strike_rate": "bowling_strike_rate",
}
TEAM_CSV = ("match_id", "innings", "team", "total", "wickets", "legal_balls", "super_over")
FILES = ("batting_careers.csv", "bowling_careers.csv", "team_innings.csv")
CREDIT = "Cricsheet (https://cricsheet.org), Open Data Commons Attribution License 1.0"


def private_storage() -> FileSystemStorage:
    """Private files: outside MEDIA_ROOT, never served directly (a view checks who asks)."""
    return FileSystemStorage(location=settings.PRIVATE_MEDIA_ROOT)


def _team_rows(scope: Scope) -> list[tuple]:
    where, params = scope.where("l")
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT e.external_id, l.innings_ordinal, t.name, l.total, l.wickets,
                       l.legal_balls, l.super_over
                  FROM cricket_cricketteaminningsline l
                  JOIN sports_participant t ON t.id = l.team_id
                  LEFT JOIN sports_externalidmap e ON e.internal_id = l.fixture_id
                   AND e.source_code = 'cricsheet' AND e.entity_type = 'fixture'
                 WHERE {where}
                 ORDER BY e.external_id, l.innings_ordinal""",
            params,
        )
        return cursor.fetchall()


def _write_csv(path: Path, header: tuple[str, ...], rows: list) -> int:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = SafeWriter(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return len(rows)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def write_release_files(
    scope: Scope,
    directory: Path,
    *,
    progress: ProgressCallback | None = None,
    steps: int = len(FILES) + 1,
) -> dict[str, Any]:
    """Write the three CSV files and ``manifest.json`` into ``directory`` (created if need
    be). Returns the manifest. ``progress`` hears of each of the four files, out of
    ``steps`` (more when the caller has steps of its own after these, as storing them)."""
    directory.mkdir(parents=True, exist_ok=True)
    if progress:
        progress(0, total=steps, step="careers")
    rows = sorted(
        careers(scope, ordering="name"), key=lambda r: (r["registry_id"] or "", r["name"])
    )
    batting = [[_cell(r[BATTING_SOURCES.get(c, c)]) for c in BATTING_CSV] for r in rows]
    bowling = [
        [_cell(r[BOWLING_SOURCES.get(c, c)]) for c in BOWLING_CSV]
        for r in rows
        if r["bowling_innings"]
    ]
    team = [[_cell(v) for v in row] for row in _team_rows(scope)]
    files = []
    for done, (name, header, body) in enumerate(
        (
            ("batting_careers.csv", BATTING_CSV, batting),
            ("bowling_careers.csv", BOWLING_CSV, bowling),
            ("team_innings.csv", TEAM_CSV, team),
        )
    ):
        if progress:
            progress(done, step=name)
        path = directory / name
        count = _write_csv(path, header, body)
        files.append(
            {"name": name, "rows": count, "bytes": path.stat().st_size, "sha256": _sha256(path)}
        )
    manifest = {
        "dataset": "cricket careers and team innings",
        "scope": scope.as_dict(),
        "generated_at": timezone.now().isoformat(),
        "credit": CREDIT,
        "files": files,
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if progress:
        progress(len(FILES) + 1, step="manifest.json")
    return manifest


def dataset_release_request(*, scope: Scope, actor: Actor, via: str = "api") -> DatasetReleaseJob:
    """Record a release request for ``scope`` and its job (``accounts.Job``: the console
    and ``/api/v1/jobs/`` show its progress), whose build is sent when the transaction
    commits. Audited when a person asks."""
    with transaction.atomic():
        job = DatasetReleaseJob.objects.create(
            scope=scope.as_dict(), requested_by=actor_user(actor), actor=actor_label(actor)
        )
        audit_person(
            actor,
            action="cricket.dataset_release_request",
            entity=job,
            key=job.pk,
            detail={"scope": job.scope},
        )
        queue = getattr(settings, "STATISTICS_REFRESH_QUEUE", None)
        job_start(
            kind=JobKind.DATASET_RELEASE,
            actor=actor_user(actor),
            via=via,
            target=job.pk,
            target_label=scope_label(job.scope),
            **({"queue": queue} if queue else {}),
        )
    return job


def scope_label(scope: dict[str, Any]) -> str:
    """A release scope in words for the job list: "T20 female, super overs exclude"."""
    parts = [str(v) for k, v in sorted(scope.items()) if v and k != "super_overs"]
    return (
        f"{' '.join(parts) or 'all matches'}, super overs {scope.get('super_overs') or 'exclude'}"
    )


def scope_from_dict(data: dict[str, Any]) -> Scope:
    import datetime as dt

    return Scope(
        format_code=data.get("match_type") or None,
        gender=data.get("gender") or None,
        competition_id=data.get("competition") or None,
        season=data.get("season") or None,
        date_from=dt.date.fromisoformat(data["date_from"]) if data.get("date_from") else None,
        date_to=dt.date.fromisoformat(data["date_to"]) if data.get("date_to") else None,
        super_overs=data.get("super_overs") or "exclude",
    )


def dataset_release_build(
    *, job_id: Any, progress: ProgressCallback | None = None
) -> DatasetRelease | None:
    """Build one request's files into private storage and write the immutable release
    record (the Celery task's body). A request already built returns its release; a
    failure is kept on the request with nothing published. ``progress`` hears of each file
    and of storing them."""
    job = DatasetReleaseJob.objects.get(pk=job_id)
    if job.release_id:
        return job.release
    DatasetReleaseJob.objects.filter(pk=job.pk).update(status=ReleaseJobStatus.RUNNING)
    storage = private_storage()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            manifest = write_release_files(
                scope_from_dict(job.scope), Path(tmp), progress=progress, steps=len(FILES) + 2
            )
            release_id = DatasetRelease._meta.pk.default()
            files = []
            for entry in [*manifest["files"], {"name": "manifest.json"}]:
                path = Path(tmp) / entry["name"]
                name = f"cricket/releases/{release_id}/{entry['name']}"
                with path.open("rb") as handle:
                    key = storage.save(name, File(handle))
                files.append(
                    {
                        **entry,
                        "bytes": path.stat().st_size,
                        "sha256": entry.get("sha256") or _sha256(path),
                        "storage_key": key,
                    }
                )
        with transaction.atomic():
            release = DatasetRelease.objects.create(
                id=release_id,
                scope=job.scope,
                requested_by=job.requested_by,
                actor=job.actor,
                files=files,
                manifest_sha256=files[-1]["sha256"],
            )
            if progress:
                progress(len(FILES) + 2, step="stored")
            DatasetReleaseJob.objects.filter(pk=job.pk).update(
                status=ReleaseJobStatus.DONE, release=release, finished_at=timezone.now()
            )
    except Exception as exc:
        DatasetReleaseJob.objects.filter(pk=job.pk).update(
            status=ReleaseJobStatus.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        return None
    return release


def release_file(release: DatasetRelease, name: str) -> dict[str, Any]:
    """The file entry ``name`` of a release, or a ValidationError naming the choices."""
    for entry in release.files:
        if entry["name"] == name:
            return entry
    names = ", ".join(entry["name"] for entry in release.files)
    raise ValidationError(f"release {release.pk} has no file {name!r} (it has {names})")
