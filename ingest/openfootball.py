"""Import openfootball ``football.json`` season files: league > season > round > fixtures.

The whole file is validated before anything is written; a bad file raises
``FeedError`` listing every problem with its place. A file whose bytes were imported before
reuses that submission, and every write underneath is idempotent, so re-running an import
changes no row. Fields a person pinned are never written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from omnium.progress import ProgressCallback
from sports.models import (
    Archetype,
    Competition,
    EntityType,
    ExternalIdMap,
    FixtureStatus,
    Participant,
    ParticipantType,
    ResultStatus,
    Sport,
    Submission,
    SubmissionKind,
    WinMethod,
)
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    external_id_link,
    fixture_import,
    fixture_results_record,
    participant_create,
    sport_definition_ensure,
    submission_record,
)

SOURCE = "openfootball"
ACTOR = "integration:openfootball"
_SEASON_DIR = re.compile(r"^\d{4}-\d{2}$")
_SEASON_IN_NAME = re.compile(r"(\d{4})/(\d{2})")
_COUNTRY_SUFFIX = re.compile(r"^(?P<name>.+?)\s*\((?P<code>[A-Z]{3})\)$")


class FeedError(ValueError):
    """A file that breaks the format: every problem, each naming the file and place."""

    def __init__(self, path: Path, problems: list[str]):
        self.path, self.problems = path, problems
        listed = "\n".join(f"  {path}: {p}" for p in problems)
        super().__init__(f"{path}: {len(problems)} problem(s), nothing imported:\n{listed}")


@dataclass
class Match:
    index: int
    round: str
    stage: str
    team1: str
    team2: str
    kickoff: datetime | None
    ft: tuple[int, int] | None
    ht: tuple[int, int] | None
    et: tuple[int, int] | None
    penalties: tuple[int, int] | None
    status: str


@dataclass
class Season:
    path: Path
    name: str
    season: str
    matches: list[Match]
    raw: bytes


@dataclass
class ImportSummary:
    files: int = 0
    fixtures_new: int = 0
    fixtures_updated: int = 0
    results_changed: int = 0
    unchanged: int = 0
    seasons: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.files} file(s): {self.fixtures_new} new fixture(s), "
            f"{self.fixtures_updated} updated, {self.results_changed} result(s) changed, "
            f"{self.unchanged} unchanged"
        )


def _pair(value: Any, where: str, problems: list[str]) -> tuple[int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        problems.append(f"{where}: a score must be two whole numbers >= 0, got {value!r}")
        return None
    return (value[0], value[1])


def parse_season(path: Path) -> Season:
    """Read and validate one season file; raise ``FeedError`` with every problem found."""
    raw = path.read_bytes()
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FeedError(path, [f"not valid JSON: {exc}"]) from None
    problems: list[str] = []
    if not isinstance(document, dict):
        raise FeedError(path, ["$: the document must be an object with name and matches"])
    name = document.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("$.name: a non-empty string is required")
        name = ""
    season = path.parent.name if _SEASON_DIR.match(path.parent.name) else ""
    if not season and (m := _SEASON_IN_NAME.search(name or "")):
        season = f"{m.group(1)}-{m.group(2)}"
    if not season:
        problems.append("$: no season: neither the folder (YYYY-YY) nor $.name says it")
    matches_in = document.get("matches")
    if not isinstance(matches_in, list) or not matches_in:
        problems.append("$.matches: a non-empty list is required")
        matches_in = []
    matches: list[Match] = []
    seen: dict[tuple, int] = {}
    for i, m in enumerate(matches_in):
        where = f"$.matches[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where}: a match must be an object")
            continue
        for key in ("round", "team1", "team2"):
            value = m.get(key)
            if not isinstance(value, str) or not value.strip():
                problems.append(f"{where}.{key}: a non-empty string is required")
        if m.get("team1") and m.get("team1") == m.get("team2"):
            problems.append(f"{where}: a team cannot play itself ({m['team1']!r})")
        kickoff = None
        if m.get("date") is not None:
            try:
                day = date.fromisoformat(m["date"])
                clock = time.fromisoformat(m["time"]) if m.get("time") else time(12, 0)
                kickoff = datetime.combine(day, clock, tzinfo=UTC)
            except (TypeError, ValueError):
                problems.append(
                    f"{where}.date/time: not a date (YYYY-MM-DD) and time (HH:MM): "
                    f"{m.get('date')!r} {m.get('time')!r}"
                )
        score = m.get("score") or {}
        if not isinstance(score, dict):
            problems.append(f"{where}.score: must be an object")
            score = {}
        status = m.get("status", "")
        if status not in ("", "awarded", "cancelled", "postponed", "abandoned"):
            problems.append(f"{where}.status: unknown status {status!r}")
        pairing = (m.get("round"), m.get("team1"), m.get("team2"))
        if pairing in seen:
            problems.append(f"{where}: the same round and teams as $.matches[{seen[pairing]}]")
        seen[pairing] = i
        matches.append(
            Match(
                index=i,
                round=str(m.get("round", "")),
                stage=str(m.get("stage", "") or ""),
                team1=str(m.get("team1", "")),
                team2=str(m.get("team2", "")),
                kickoff=kickoff,
                ft=_pair(score.get("ft"), f"{where}.score.ft", problems),
                ht=_pair(score.get("ht"), f"{where}.score.ht", problems),
                et=_pair(score.get("et"), f"{where}.score.et", problems),
                penalties=_pair(score.get("p"), f"{where}.score.p", problems),
                status=status,
            )
        )
    if problems:
        raise FeedError(path, problems)
    return Season(path=path, name=name, season=season, matches=matches, raw=raw)


def _node(
    *,
    code: str,
    name: str,
    type: str,
    parent: Competition | None,
    sport: Sport,
    ordinal: int | None = None,
    config: dict | None = None,
) -> Competition:
    existing = Competition.objects.filter(sport=sport, code=code).first()
    if existing is not None:
        return existing
    return competition_create(
        code=code,
        name=name,
        type=type,
        parent=parent,
        sport=sport,
        ordinal=ordinal,
        config=config,
        actor=ACTOR,
    )


def _teams(names: set[str], sport: Sport) -> dict[str, Participant]:
    """Teams by their openfootball name (its only id), in one query; new ones created."""
    known = dict(
        ExternalIdMap.objects.filter(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            external_id__in=names,
        ).values_list("external_id", "internal_id")
    )
    rows = {p.pk: p for p in Participant.objects.filter(pk__in=known.values())}
    teams = {}
    for team in sorted(names):
        if team in known and known[team] in rows:
            participant = rows[known[team]]
            while participant.merged_into_id:  # merged teams answer as their survivor
                participant = Participant.objects.get(pk=participant.merged_into_id)
            teams[team] = participant
            continue
        match = _COUNTRY_SUFFIX.match(team)
        participant, _ = participant_create(
            type=ParticipantType.TEAM,
            name=match.group("name") if match else team,
            country=match.group("code") if match else None,
            sport=sport,
            sports=[sport],
            actor=ACTOR,
            source_code=SOURCE,
        )
        external_id_link(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            external_id=team,
            internal_id=participant.pk,
            actor=ACTOR,
        )
        teams[team] = participant
    return teams


def _ranks(m: Match) -> tuple[int | None, int | None]:
    """Ranks from the deciding score: a shoot-out, else extra time, else full time; level
    everywhere is a draw (both rank 1)."""
    if m.ft is None:
        return None, None
    for home, away in (score for score in (m.penalties, m.et, m.ft) if score):
        if home != away:
            return (1, 2) if home > away else (2, 1)
    return 1, 1


def football_sport() -> Sport:
    """The football row, with its shipped definition published before any fixture is
    written (so each new fixture pins it)."""
    sport, _ = Sport.objects.get_or_create(
        code="football", defaults={"name": "Football", "archetype": Archetype.HEAD_TO_HEAD}
    )
    sport_definition_ensure(actor=ACTOR, sports=[sport.code])
    return sport


def import_season(
    season: Season,
    *,
    code: str,
    name: str,
    summary: ImportSummary,
    config: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> Competition:
    """Write one validated season in one transaction. Returns the season node."""
    sport = football_sport()
    sha = hashlib.sha256(season.raw).hexdigest()
    with transaction.atomic():
        submission = Submission.objects.filter(
            source_code=SOURCE, sha256=sha, kind=SubmissionKind.LEAGUE_IMPORT, accepted=True
        ).first() or submission_record(
            kind=SubmissionKind.LEAGUE_IMPORT,
            source_code=SOURCE,
            actor=ACTOR,
            content=season.raw,
            original_filename=season.path.name,
            media_type="application/json",
        )
        league = _node(code=code, name=name, type="league", parent=None, sport=sport, config=config)
        season_node = _node(
            code=f"{code}-{season.season}",
            name=f"{name} {season.season}",
            type="season",
            parent=league,
            sport=sport,
        )
        teams = _teams({m.team1 for m in season.matches} | {m.team2 for m in season.matches}, sport)
        parents: dict[str, Competition] = {}
        rounds: dict[tuple[str, str], Competition] = {}
        for m in season.matches:
            parent = season_node
            if m.stage:
                if m.stage not in parents:
                    parents[m.stage] = _node(
                        code=f"{season_node.code}-{slugify(m.stage)}"[:64],
                        name=m.stage,
                        type="stage",
                        parent=season_node,
                        sport=sport,
                        ordinal=len(parents) + 1,
                    )
                parent = parents[m.stage]
            if (m.stage, m.round) not in rounds:
                rounds[(m.stage, m.round)] = _node(
                    code=f"{parent.code}-{slugify(m.round)}"[:64],
                    name=m.round,
                    type="round",
                    parent=parent,
                    sport=sport,
                    ordinal=len(rounds) + 1,
                )
            round_node = rounds[(m.stage, m.round)]
            external_id = f"{code}|{season.season}|{m.stage}|{m.round}|{m.team1}|{m.team2}"
            status = (
                FixtureStatus.CANCELLED
                if m.status == "cancelled"
                else FixtureStatus.POSTPONED
                if m.status == "postponed"
                else FixtureStatus.ABANDONED
                if m.status == "abandoned"
                else FixtureStatus.COMPLETED
                if (m.ft or m.status == "awarded")
                else FixtureStatus.SCHEDULED
            )
            imported = fixture_import(
                source_code=SOURCE,
                external_id=external_id,
                competition=round_node,
                code=f"{season_node.code}-{hashlib.sha1(external_id.encode()).hexdigest()[:10]}",  # noqa: S324
                values={"name": f"{m.team1} v {m.team2}", "scheduled_start": m.kickoff},
                competitors=[
                    CompetitorSpec(participant=teams[m.team1], alignment="home"),
                    CompetitorSpec(participant=teams[m.team2], alignment="away"),
                ],
                submission=submission,
                actor=ACTOR,
            )
            summary.fixtures_new += imported.created
            summary.fixtures_updated += bool(imported.changed)
            changed = _record(imported.fixture, m, status)
            summary.results_changed += changed
            summary.unchanged += not (imported.created or imported.changed or changed)
            if progress:
                progress(1)
    summary.files += 1
    summary.seasons.append(season_node.code)
    return season_node


def _record(fixture, m: Match, status: str) -> bool:
    sides = {c.alignment: c for c in fixture.competitors.filter(parent__isnull=True)}
    home_rank, away_rank = _ranks(m) if status == FixtureStatus.COMPLETED else (None, None)
    awarded = m.status == "awarded"

    def side(score_index: int, rank: int | None) -> EntrantResult:
        result: dict[str, Any] = {}
        if m.ft:
            result["score"] = m.ft[score_index]
        if m.ht:
            result["half_time"] = m.ht[score_index]
        if m.et:
            result["extra_time"] = m.et[score_index]
        if m.penalties:
            result["penalties"] = m.penalties[score_index]
        return EntrantResult(
            rank=rank,
            result_status=ResultStatus.FINISHED if rank is not None else None,
            result=result,
            win_method=WinMethod.AWARDED if awarded and rank == 1 else "",
        )

    outcome: dict[str, Any] | None = None
    if status == FixtureStatus.COMPLETED and home_rank is not None:
        outcome = {"outcome": "draw" if home_rank == away_rank else "win"}
        if m.ft:
            outcome["score"] = {"home": m.ft[0], "away": m.ft[1]}
        if m.ht:
            outcome["half_time"] = {"home": m.ht[0], "away": m.ht[1]}
        if awarded:
            outcome["awarded"] = True
    return fixture_results_record(
        fixture=fixture,
        actor=ACTOR,
        source_code=SOURCE,
        status=status,
        outcome=outcome,
        results={sides["home"].pk: side(0, home_rank), sides["away"].pk: side(1, away_rank)},
    )


def import_files(
    paths: list[Path],
    *,
    code: str,
    name: str,
    config: dict | None = None,
    progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Validate every file first (nothing is written when any is broken), then import each
    season in its own transaction. The one entry point of the CLI, the task and samples.
    ``progress`` hears of each match written (the total is every file's matches; the step
    the file's name)."""
    seasons = [parse_season(Path(path)) for path in paths]
    summary = ImportSummary()
    done = 0
    if progress:
        progress(0, total=sum(len(season.matches) for season in seasons), step="validated")

    def one_match(_: int) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done)

    for season in seasons:
        if progress:
            progress(done, step=season.path.name)
        import_season(
            season, code=code, name=name, summary=summary, config=config, progress=one_match
        )
    return summary
