"""Import a multi-sport Games in the Paris 2024 (Olympic Data Feed style) layout.

The directory may hold any of ``events``, ``schedules``, ``medals``, ``medallists``,
``teams``, ``nocs`` (each ``.csv`` or ``.csv.gz``) and ``results/*.csv(.gz)``; only the
files present are read. The tree built is::

    Games root (no sport) > discipline (its Sport row) > event > phase > unit fixtures

and, at each event, one "medals" fixture: a ranked field of the event's medallists with
their medals. Medals are recorded there and only there, so the medal table (folded over
result lines) counts each medal once whether or not the unit results were imported, and a
directory holding only ``medals.csv`` still gives the whole Games > discipline > event
tree with its medal results.

Contract:
- Everything is read and checked first (pure code). A bad file raises ``GamesInputError``
  naming the file, the row and the rule, before any write.
- The writes run in ONE transaction for the whole import (chosen over one per event so
  that a Games is never half there): a failure part-way (a database guard, a lost race
  with a concurrent import of the same Games, which then fails on the unique codes) leaves
  nothing behind, and the import can simply be run again.
- Athletes are keyed by their olympics code (the IOC's lasting id); team codes are re-used
  by every Games, so a team's external id is scoped by the Games code. The olympics code is
  the athlete's identity: new athletes are created with ``dedupe=False`` (a fingerprint of
  name and country would join two namesakes with no birth date), and the resolver never
  joins a code to a namesake the source knows under another code.
- Re-running with the same files changes no row: the submission is found again by the
  digest of the files, and every write below is create-if-missing or a no-op when equal.
  Fields a person pinned (on fixtures and competitors) are never written.
"""

from __future__ import annotations

import ast
import csv
import gzip
import hashlib
import io
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from sports.models import (
    Archetype,
    Competition,
    CompetitionEntry,
    EntityType,
    FixtureStatus,
    Membership,
    ParticipantType,
    ResultStatus,
    Sport,
    Submission,
    SubmissionKind,
    UnmatchedRow,
)
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    OutsideRow,
    competition_create,
    external_id_link,
    fixture_import,
    fixture_results_record,
    participant_create,
    participants_resolve,
    submission_record,
)

SOURCE = "olympics"
ACTOR = "integration:olympics"
CODE_MAX = 64  # Competition.code and Fixture.code

# The sport level above a discipline is not in the data (events.csv has only the
# discipline); these are the IOC sports that hold more than one discipline here.
SPORT_PARENTS = {
    "aquatics": (
        "Aquatics",
        ["swimming", "diving", "artistic-swimming", "water-polo", "marathon-swimming"],
    ),
    "gymnastics": (
        "Gymnastics",
        ["artistic-gymnastics", "rhythmic-gymnastics", "trampoline-gymnastics"],
    ),
    "cycling": (
        "Cycling",
        [
            "cycling-road",
            "cycling-track",
            "cycling-bmx-racing",
            "cycling-bmx-freestyle",
            "cycling-mountain-bike",
        ],
    ),
    "canoe": ("Canoe", ["canoe-slalom", "canoe-sprint"]),
}
PARENT_OF = {child: parent for parent, (_, kids) in SPORT_PARENTS.items() for child in kids}

MEDALS = {"Gold Medal": ("gold", 1), "Silver Medal": ("silver", 2), "Bronze Medal": ("bronze", 3)}
MEDAL_CODES = {"1": "gold", "2": "silver", "3": "bronze"}

# IRM (invalid result mark) words -> the canonical result status. The source word itself is
# always kept in ``status_code``: athletics writes DQ where swimming writes DSQ, sailing has
# BFD/UFD/OCS, and a reader of one sport wants its own word back. A word not listed here
# (NM "no mark", EL, DPI, RDG, SCP, BUW, REL, FS, Fall) is a finished entrant with a remark.
IRM_STATUS = {
    "DNS": ResultStatus.DNS,
    "DNC": ResultStatus.DNS,  # did not come to the start (sailing)
    "WD": ResultStatus.DNS,  # withdrawn before the unit
    "WDR": ResultStatus.DNS,
    "W/O": ResultStatus.DNS,  # walkover: the side that did not play
    "DNF": ResultStatus.DNF,
    "RET": ResultStatus.DNF,  # retired during the unit
    "RT": ResultStatus.DNF,  # equestrian: retired
    "LAP": ResultStatus.DNF,  # lapped and taken out of the race
    "OVL": ResultStatus.DNF,  # overlapped (track cycling)
    "INJ": ResultStatus.DNF,
    "DSQ": ResultStatus.DSQ,
    "DQ": ResultStatus.DSQ,
    "DQB": ResultStatus.DSQ,
    "BFD": ResultStatus.DSQ,  # black-flag disqualification (sailing)
    "UFD": ResultStatus.DSQ,
    "OCS": ResultStatus.DSQ,
}

UNIT_STATUS = {
    "FINISHED": FixtureStatus.COMPLETED,
    "RUNNING": FixtureStatus.LIVE,
    "SCHEDULED": FixtureStatus.SCHEDULED,
    "GETTING_READY": FixtureStatus.SCHEDULED,
    "CANCELLED": FixtureStatus.CANCELLED,
    "POSTPONED": FixtureStatus.POSTPONED,
}
NOC_SHAPE = re.compile(r"^[A-Z]{3}$")
EVENT_PART = 22  # ODF unit code: event (22) + phase (4) + unit (6) + "--"


class GamesInputError(ValidationError):
    """The input breaks a rule; ``problems`` lists each as 'file, row N: rule'."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:20]
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__("Games import refused, nothing written:\n" + "\n".join(shown) + more)


# --- reading ----------------------------------------------------------------------------


@dataclass
class Athlete:
    code: str
    name: str
    country: str = ""
    born_on: date | None = None


@dataclass
class Team:
    code: str
    name: str
    country: str
    members: list[str] = field(default_factory=list)  # athlete codes
    event: str = ""  # "Athletics 4 x 400m Relay Mixed": what the team was formed for


@dataclass
class Entrant:
    """One results row: a side or entrant of a unit."""

    code: str
    country: str
    rank: int | None
    wlt: str
    irm: str
    result: dict[str, Any]
    where: str


@dataclass
class Unit:
    stage_code: str
    event_key: tuple[str, str]
    phase: str
    stage_label: str
    name: str
    status: str
    start: datetime | None
    venue: str
    entrants: list[Entrant] = field(default_factory=list)


@dataclass
class Medal:
    event_key: tuple[str, str]
    medal: str
    code: str
    name: str
    country: str
    on: date | None
    where: str


@dataclass
class GamesData:
    files: dict[str, bytes] = field(default_factory=dict)  # name -> bytes as stored
    disciplines: dict[str, str] = field(default_factory=dict)  # name -> ODF code or ""
    events: dict[tuple[str, str], str] = field(default_factory=dict)  # key -> event code
    units: dict[str, Unit] = field(default_factory=dict)
    medals: list[Medal] = field(default_factory=list)
    athletes: dict[str, Athlete] = field(default_factory=dict)
    teams: dict[str, Team] = field(default_factory=dict)
    nocs: dict[str, str] = field(default_factory=dict)  # code -> name
    starts: dict[tuple[str, str, str], datetime] = field(default_factory=dict)


class _Reader:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, where: str, rule: str) -> None:
        self.problems.append(f"{where}: {rule}")

    def rows(self, name: str, raw: bytes, required: Iterable[str]) -> Iterable[tuple[str, dict]]:
        """(place, row) for each data row; a missing column is one problem for the file."""
        try:
            text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            self.fail(name, f"cannot be read as UTF-8 CSV{' (gzip)' * name.endswith('.gz')}: {exc}")
            return
        reader = csv.DictReader(io.StringIO(text))
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            self.fail(name, f"missing column(s) {', '.join(missing)}")
            return
        for row in reader:
            where = f"{name}, row {reader.line_num}"
            if None in row:  # DictReader files surplus fields under the key None
                self.fail(where, "has more fields than the header has columns")
                continue
            yield where, {k: (v or "").strip() for k, v in row.items()}

    def noc(self, where: str, value: str, column: str) -> str:
        if not NOC_SHAPE.match(value):
            self.fail(where, f"{column} {value!r} is not a three-letter NOC code")
        return value

    def when(self, where: str, value: str, column: str) -> datetime | None:
        if not value:
            return None
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            self.fail(where, f"{column} {value!r} is not an ISO date-time")
            return None
        if parsed.tzinfo is None:
            self.fail(where, f"{column} {value!r} has no UTC offset")
            return None
        return parsed

    def day(self, where: str, value: str, column: str) -> date | None:
        if not value:
            return None
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            self.fail(where, f"{column} {value!r} is not a date")
            return None


def _find(directory: Path, stem: str) -> Path | None:
    plain, packed = directory / f"{stem}.csv", directory / f"{stem}.csv.gz"
    if plain.exists() and packed.exists():
        raise GamesInputError([f"{plain.name} and {packed.name}: keep one of the two"])
    return plain if plain.exists() else (packed if packed.exists() else None)


def _name_list(value: str) -> list[str]:
    """The ``athletes`` column: a Python-style list whose names are not escaped by the
    source ("['SLIACHTICAS Ana', 'D'ALMEIDA Marcus']"), so it is split on the separators
    rather than parsed."""
    inner = value.strip().removeprefix("[").removesuffix("]").strip()
    if not inner:
        return []
    return [name.strip("'\" ") for name in re.split(r"',\s*'|\",\s*\"|',\s*\"|\",\s*'", inner)]


def _is_team_code(code: str) -> bool:
    # Athlete codes are all digits (1903136); team codes carry the event and NOC
    # (ATHX4X400M--GBR01, DIVW3MTEAM2-CHN01).
    return not code.isdigit()


def games_read(directory: Path) -> GamesData:
    """Read and check every file present. Raises ``GamesInputError`` listing each problem."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GamesInputError([f"{directory}: not a directory"])
    data, r = GamesData(), _Reader()
    paths = {
        stem: _find(directory, stem)
        for stem in ("events", "schedules", "medals", "medallists", "teams", "nocs")
    }
    results_dir = directory / "results"
    result_paths = sorted(results_dir.glob("*.csv*")) if results_dir.is_dir() else []
    if not any(paths.values()) and not result_paths:
        raise GamesInputError([f"{directory}: holds none of the Games files (medals.csv, ...)"])
    for path in [p for p in paths.values() if p] + result_paths:
        name = str(path.relative_to(directory))
        data.files[name] = path.read_bytes()

    def read(stem: str, required: tuple[str, ...]):
        path = paths[stem]
        if path is None:
            return []
        return list(r.rows(path.name, data.files[path.name], required))

    for where, row in read("nocs", ("code", "country")):
        data.nocs[r.noc(where, row["code"], "code")] = row.get("country_long") or row["country"]

    listed: list[tuple[str, str, str]] = []  # (discipline, its code, event) from events.csv
    for where, row in read("events", ("event", "sport", "sport_code")):
        if not row["event"] or not row["sport"]:
            r.fail(where, "event and sport must not be empty")
            continue
        listed.append((row["sport"], row["sport_code"], row["event"]))

    for where, row in read("teams", ("code", "team", "country_code", "athletes_codes")):
        try:
            members = ast.literal_eval(row["athletes_codes"]) if row["athletes_codes"] else []
        except (ValueError, SyntaxError):
            r.fail(where, "athletes_codes must be a Python-style list of athlete codes")
            continue
        names = _name_list(row.get("athletes", ""))
        members = [str(m).strip() for m in members]
        if not row["code"] or not all(m and " " not in m for m in members):
            r.fail(where, "a team needs a code, and its athletes_codes must be athlete codes")
            continue
        country = r.noc(where, row["country_code"], "country_code")
        event = f"{row.get('discipline', '')} {row.get('events', '')}".strip()
        data.teams[row["code"]] = Team(row["code"], row["team"], country, members, event)
        if len(names) == len(members):
            for code, athlete_name in zip(members, names, strict=True):
                data.athletes.setdefault(code, Athlete(code, str(athlete_name), country))

    for where, row in read("medallists", ("name", "country_code")):
        # The final dataset names the column code_athlete, the mid-Games snapshot code.
        code = (row.get("code_athlete") or row.get("code") or "").removesuffix(".0")
        # medallists.csv only adds names and birth dates to athletes (the medals come from
        # medals.csv); the snapshot has rows with neither name nor country, which add nothing.
        if code and row["name"] and not _is_team_code(code):
            born = r.day(where, row.get("birth_date", ""), "birth_date")
            country = row["country_code"] and r.noc(where, row["country_code"], "country_code")
            data.athletes[code] = Athlete(code, row["name"], country, born)

    for where, row in read("schedules", ("start_date", "discipline", "event", "url")):
        tail = row["url"].rstrip("/").rsplit("/", 1)[-1].upper()
        start = r.when(where, row["start_date"], "start_date")
        if start is not None and tail:
            data.starts[(row["discipline"], row["event"], tail)] = start

    for path in result_paths:
        _read_results(r, str(path.relative_to(directory)), data)

    medal_columns = (
        "medal_type",
        "medal_code",
        "medal_date",
        "name",
        "discipline",
        "event",
        "code",
        "country_code",
    )
    for where, row in read("medals", medal_columns):
        if row["medal_type"] not in MEDALS:
            r.fail(where, f"medal_type {row['medal_type']!r} is not one of {', '.join(MEDALS)}")
            continue
        medal, _ = MEDALS[row["medal_type"]]
        # medal_type is the authority; medal_code is derived from it at the source and is
        # sometimes left empty (the INA badminton bronze). A code that contradicts the type
        # is an error; an empty one is not.
        code_word = MEDAL_CODES.get(row["medal_code"].removesuffix(".0"))
        if row["medal_code"] and code_word != medal:
            r.fail(where, f"medal_code {row['medal_code']!r} contradicts medal_type")
            continue
        if not row["discipline"] or not row["event"]:
            r.fail(where, "discipline and event must not be empty")
            continue
        if not row["code"] and not row["name"]:
            r.fail(where, "a medal row needs the medallist's code or name")
            continue
        country = r.noc(where, row["country_code"], "country_code")
        key = (row["discipline"], row["event"])
        data.disciplines.setdefault(row["discipline"], "")
        data.events.setdefault(key, "")
        code = row["code"].removesuffix(".0")
        team = bool(code) and _is_team_code(code)
        if code and not team:
            data.athletes.setdefault(code, Athlete(code, row["name"], country))
        if team and code not in data.teams:
            data.teams[code] = Team(code, row["name"], country, event=" ".join(key))
        data.nocs.setdefault(country, row.get("country_long") or row.get("country") or country)
        on = r.day(where, row["medal_date"], "medal_date")
        data.medals.append(Medal(key, medal, code, row["name"], country, on, where))

    # events.csv of the snapshot names some disciplines its own way ("Basketball 3x3",
    # "Trampoline") where results and medals say "3x3 Basketball", "Trampoline Gymnastics";
    # the discipline code decides, and the name the results use wins.
    named = {code: name for name, code in data.disciplines.items() if code}
    for discipline, code, event in listed:
        discipline = named.get(code, discipline)
        data.disciplines.setdefault(discipline, code)
        data.events.setdefault((discipline, event), "")
    _check_medals(r, data)
    if r.problems:
        raise GamesInputError(r.problems)
    return data


RESULT_COLUMNS = (
    "date",
    "stage_code",
    "event_code",
    "event_name",
    "event_stage",
    "stage",
    "stage_status",
    "discipline_name",
    "discipline_code",
    "participant_code",
    "participant_name",
    "participant_type",
    "participant_country_code",
    "result",
)


def _read_results(r: _Reader, name: str, data: GamesData) -> None:
    for where, row in r.rows(name, data.files[name], RESULT_COLUMNS):
        stage, event_code = row["stage_code"], row["event_code"]
        # One unit in the snapshot (the decathlon overall standing) prefixes the
        # discipline code: ATH_ATHMDECATH---... ; the event code must still lead the rest.
        body = stage.removeprefix(f"{row['discipline_code']}_")
        if not event_code or not body.startswith(event_code):
            r.fail(where, f"stage_code {stage!r} must start with event_code {event_code!r}")
            continue
        if row["stage_status"] not in UNIT_STATUS:
            r.fail(
                where,
                f"stage_status {row['stage_status']!r} is not one of {', '.join(UNIT_STATUS)}",
            )
            continue
        if row["participant_type"] not in ("Person", "Team") or not row["participant_code"]:
            r.fail(where, "participant_type must be Person or Team, with a participant_code")
            continue
        rank = None
        if row.get("rank"):
            try:
                value = float(row["rank"])
            except ValueError:
                value = 0
            if value < 1 or value != int(value):
                r.fail(where, f"rank {row['rank']!r} is not a positive whole number")
                continue
            rank = int(value)
        wlt = row.get("result_WLT", "")
        if wlt not in ("", "W", "L", "T"):
            r.fail(where, f"result_WLT {wlt!r} is not W, L or T")
            continue
        country = r.noc(where, row["participant_country_code"], "participant_country_code")
        key = (row["discipline_name"], row["event_name"])
        data.disciplines[row["discipline_name"]] = row["discipline_code"]
        data.events[key] = event_code
        unit = data.units.get(stage)
        if unit is None:
            start = r.when(where, row["date"], "date")
            tail = body[EVENT_PART:]
            start = data.starts.get((key[0], key[1], tail), start)
            unit = data.units[stage] = Unit(
                stage_code=stage,
                event_key=key,
                phase=body[EVENT_PART : EVENT_PART + 4].rstrip("-")
                or slugify(row["stage"]).upper()[:16]
                or "UNIT",
                stage_label=row["stage"],
                name=row["event_stage"] or f"{row['event_name']} {row['stage']}",
                status=row["stage_status"],
                start=start,
                venue=row.get("venue", ""),
            )
        elif unit.event_key != key:
            r.fail(where, f"stage_code {stage!r} appears under two events")
            continue
        code = row["participant_code"].removesuffix(".0")
        if any(e.code == code for e in unit.entrants):
            r.fail(where, f"{code} appears twice in unit {stage}")
            continue
        if row["participant_type"] == "Team":
            data.teams.setdefault(
                code, Team(code, row["participant_name"], country, event=" ".join(key))
            )
        else:
            data.athletes.setdefault(code, Athlete(code, row["participant_name"], country))
        data.nocs.setdefault(country, row.get("participant_country") or country)
        result = {
            "mark": row["result"] or None,
            "mark_type": row.get("result_type") or None,
            "diff": row.get("result_diff") or None,
            "qualification": row.get("qualification_mark") or None,
        }
        unit.entrants.append(
            Entrant(
                code=code,
                country=country,
                rank=rank,
                wlt=wlt,
                irm=row.get("result_IRM", ""),
                result={k: v for k, v in result.items() if v is not None},
                where=where,
            )
        )
    for unit in data.units.values():
        words = sorted(e.wlt for e in unit.entrants if e.wlt)
        # Each head-to-head row carries only its own side's W/L/T; the pair must agree.
        if len(unit.entrants) == 2 and len(words) == 2 and words not in (["L", "W"], ["T", "T"]):
            r.fail(
                unit.entrants[1].where,
                f"unit {unit.stage_code}: W/L/T pair {words} must be one W and one L, or two T",
            )


def _check_medals(r: _Reader, data: GamesData) -> None:
    per_event: dict[tuple[str, str], list[Medal]] = defaultdict(list)
    for medal in data.medals:
        per_event[medal.event_key].append(medal)
    for key, medals in per_event.items():
        seen = Counter((m.code or m.name) for m in medals)
        for who, n in seen.items():
            if n > 1:
                r.fail(medals[-1].where, f"{who} holds {n} medals in {key[0]} {key[1]}")


# --- writing ----------------------------------------------------------------------------


@dataclass
class GamesSummary:
    code: str
    submission: Submission | None = None
    disciplines: int = 0
    events: int = 0
    nodes_created: int = 0
    fixtures_created: int = 0
    fixtures_updated: int = 0
    results_changed: int = 0
    participants_created: int = 0
    medals: int = 0
    unmatched: int = 0
    sides_differ: int = 0

    def line(self) -> str:
        return (
            f"games {self.code}: {self.disciplines} disciplines, {self.events} events, "
            f"{self.medals} medals; created {self.nodes_created} nodes, "
            f"{self.fixtures_created} fixtures, {self.participants_created} participants; "
            f"updated {self.fixtures_updated} fixtures, results changed on "
            f"{self.results_changed}; {self.unmatched} unmatched rows kept; "
            f"{self.sides_differ} fixtures whose sides differ from the source left for an editor"
        )


def _short(code: str) -> str:
    """A code within the column's 64 characters; a longer one keeps its head and a hash."""
    if len(code) <= CODE_MAX:
        return code
    return f"{code[: CODE_MAX - 9]}~{hashlib.sha256(code.encode()).hexdigest()[:8]}"


def _digest_content(code: str, data: GamesData) -> bytes:
    # The Games code is part of the content: the same files under another code are
    # another submission (another tree).
    parts = [f"games:{code}\n".encode()]
    for name in sorted(data.files):
        parts += [f"\n--- {name}\n".encode(), data.files[name]]
    return b"".join(parts)


class _Writer:
    def __init__(self, data: GamesData, code: str, name: str, actor, summary: GamesSummary):
        self.data, self.code, self.name, self.actor, self.s = data, code, name, actor, summary
        self.batch = f"games:{code}"
        self.nodes: dict[tuple, Competition] = {}
        self.sports: dict[str, Sport] = {}
        self.people: dict[str, Any] = {}  # source code -> Participant
        self.countries: dict[str, Any] = {}
        self.entries: set[tuple] = set()

    # tree
    def node(self, key: tuple, *, code: str, name: str, type: str, parent, sport=None, **kw):
        if key in self.nodes:
            return self.nodes[key]
        code = _short(code)
        lookup = Competition.objects.filter(code=code, parent=parent)
        found = lookup.filter(sport=sport).first() if sport else lookup.first()
        if found is None:
            found = competition_create(
                code=code, name=name, type=type, parent=parent, sport=sport, actor=self.actor, **kw
            )
            self.s.nodes_created += 1
        self.nodes[key] = found
        return found

    def root(self) -> Competition:
        existing = Competition.objects.filter(code=self.code, sport__isnull=True).first()
        if existing is not None and existing.parent_id is not None:
            raise GamesInputError([f"--code {self.code}: already used by a non-root node"])
        if existing is not None:
            self.nodes[("root",)] = existing
            return existing
        return self.node(("root",), code=self.code, name=self.name, type="games", parent=None)

    def sport(self, discipline: str) -> Sport:
        slug = slugify(discipline)[:64]
        if slug in self.sports:
            return self.sports[slug]
        parent = None
        if slug in PARENT_OF:
            parent_slug = PARENT_OF[slug]
            parent, _ = Sport.objects.get_or_create(
                code=parent_slug, defaults={"name": SPORT_PARENTS[parent_slug][0]}
            )
        # An existing sport row (football, shared with the league importer) is used as it is.
        sport, _ = Sport.objects.get_or_create(
            code=slug, defaults={"name": discipline, "parent": parent}
        )
        self.sports[slug] = sport
        return sport

    def link_node(self, node: Competition, odf_code: str) -> None:
        # The source's discipline and event codes (SWM, SWMM100MBR) live only in the
        # external-id map, scoped by the Games code: every Games re-uses them.
        if odf_code:
            external_id_link(
                source_code=SOURCE,
                entity_type=EntityType.COMPETITION,
                external_id=f"{self.code}/{odf_code}",
                internal_id=node.pk,
                actor=self.actor,
            )

    def event_node(self, key: tuple[str, str]) -> Competition:
        discipline, event = key
        if ("event", key) in self.nodes:
            return self.nodes[("event", key)]
        sport = self.sport(discipline)
        disc = self.node(
            ("disc", discipline),
            code=f"{self.code}.{sport.code}",
            name=discipline,
            type="discipline",
            parent=self.nodes[("root",)],
            sport=sport,
        )
        node = self.node(
            ("event", key),
            code=f"{self.code}.{sport.code}.{_event_slug(event)}",
            name=event,
            type="event",
            parent=disc,
            sport=sport,
        )
        self.link_node(disc, self.data.disciplines.get(discipline, ""))
        self.link_node(node, self.data.events.get(key, ""))
        return node

    # participants
    def participants(self) -> None:
        d = self.data
        nocs = set(d.nocs) | {t.country for t in d.teams.values() if t.country}
        rows = [
            OutsideRow(country=n, name=d.nocs.get(n, n), type=ParticipantType.COUNTRY)
            for n in sorted(nocs)
        ]
        found = participants_resolve(
            source_code=SOURCE, rows=rows, batch=self.batch, keep_unmatched=False
        )
        for row in rows:
            country = found.matched.get(row)
            if country is None or country.code != row.country:
                # Countries are Commons participants keyed by their NOC code; a name match
                # to some other record is not the country.
                country, created = participant_create(
                    type=ParticipantType.COUNTRY,
                    name=row.name,
                    code=row.country,
                    country=row.country,
                    actor=self.actor,
                    source_code=SOURCE,
                    dedupe=False,
                )
                self.s.participants_created += created
            self.countries[row.country] = country

        wanted = self._wanted_codes()
        # The discipline each entrant was seen in: new participants are made visible there.
        seen_in: dict[str, str] = {}
        for unit in d.units.values():
            for e in unit.entrants:
                seen_in.setdefault(e.code, unit.event_key[0])
        for medal in d.medals:
            seen_in.setdefault(medal.code, medal.event_key[0])
        pairs: list[tuple[str, OutsideRow]] = []
        for code in sorted(wanted):
            if code in d.teams:
                team = d.teams[code]
                row = OutsideRow(
                    self.team_id(code), self._team_name(code), team.country, ParticipantType.TEAM
                )
                pairs.append((code, row))
            elif code in d.athletes:
                a = d.athletes[code]
                pairs.append((code, OutsideRow(code, a.name, a.country, ParticipantType.PERSON)))
            else:
                self.unmatched(
                    code,
                    "",
                    "",
                    f"athlete {code} is a team member in teams.csv but "
                    "no results, medallists or team name list names them",
                )
        found = participants_resolve(
            source_code=SOURCE, rows=[r for _, r in pairs], batch=self.batch, keep_unmatched=False
        )
        for code, row in pairs:
            person = found.matched.get(row)
            if person is None:
                athlete = d.athletes.get(code)
                person, created = participant_create(
                    type=row.type,
                    name=row.name,
                    country=row.country or None,
                    born_on=athlete.born_on if athlete else None,
                    sports=[self.sport(seen_in[code])] if code in seen_in else [],
                    actor=self.actor,
                    source_code=SOURCE,
                )
                self.s.participants_created += created
            external_id_link(
                source_code=SOURCE,
                entity_type=EntityType.PARTICIPANT,
                external_id=row.external_id,
                internal_id=person.pk,
                actor=self.actor,
            )
            self.people[code] = person
        self._memberships()

    def _wanted_codes(self) -> set[str]:
        d = self.data
        codes = {e.code for u in d.units.values() for e in u.entrants}
        codes |= {m.code for m in d.medals if m.code}
        for code in list(codes):
            if code in d.teams:
                codes |= set(d.teams[code].members)
        return codes

    def team_id(self, code: str) -> str:
        # Athlete codes are the IOC's lasting ids; a team code (ATHW4X100M--USA01) is
        # re-used by every Games, so a team's id is scoped by the Games code.
        return f"{self.code}/{code}"

    def _team_name(self, code: str) -> str:
        # A team is one entry in one event (a relay squad, a pair): the country name alone
        # would fold every team of a country into one participant by fingerprint.
        team = self.data.teams[code]
        # The Games name keeps two Games' USA relay teams apart (fingerprints use the name).
        label = f"{team.name} — {team.event or code} ({self.name})"
        # A country's second entry in one event (GBR02) is another team.
        suffix = code[-2:]
        return label if not suffix.isdigit() or suffix == "01" else f"{label} {int(suffix)}"

    def _memberships(self) -> None:
        teams = {c: self.people[c] for c in self.data.teams if c in self.people}
        existing = set(
            Membership.objects.filter(team__in=teams.values()).values_list("team_id", "member_id")
        )
        new = []
        for code, team in teams.items():
            for member_code in self.data.teams[code].members:
                member = self.people.get(member_code)
                if member is not None and (team.pk, member.pk) not in existing:
                    existing.add((team.pk, member.pk))
                    new.append(Membership(team=team, member=member, role="athlete"))
        Membership.objects.bulk_create(new)

    def unmatched(self, external_id: str, name: str, country: str, reason: str) -> None:
        row, created = UnmatchedRow.objects.get_or_create(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            batch=self.batch,
            external_id=external_id,
            name=name,
            defaults={"country": country, "reason": reason},
        )
        if not created and row.reason != reason:
            row.reason = reason
            row.save(update_fields=["reason", "updated_at"])
        self.s.unmatched += 1

    # fixtures
    def spec(self, code: str, country: str) -> CompetitorSpec:
        members = []
        if code in self.data.teams:
            members = [
                CompetitorSpec(participant=self.people[m], entry={"country": country})
                for m in self.data.teams[code].members
                if m in self.people
            ]
        return CompetitorSpec(
            participant=self.people[code], entry={"country": country}, members=members
        )

    def entry(self, event: Competition, code: str, country: str) -> None:
        self.entries.add((event.pk, self.people[code].pk, self.countries[country].pk))

    def save_entries(self) -> None:
        # Who was entered in each event and for which country (the flag is on the entry).
        # Existing entries are left alone: a person may have corrected one.
        CompetitionEntry.objects.bulk_create(
            [
                CompetitionEntry(competition_id=c, participant_id=p, country_id=n)
                for c, p, n in sorted(self.entries, key=str)
            ],
            ignore_conflicts=True,
        )

    def import_fixture(self, *, external_id, parent, code, values, specs, results, status):
        imported = fixture_import(
            source_code=SOURCE,
            external_id=f"{self.code}/{external_id}",
            competition=parent,
            code=_short(code),
            values=values,
            competitors=specs,
            submission=self.s.submission,
            actor=self.actor,
        )
        if imported.created:
            self.s.fixtures_created += 1
        elif imported.changed:
            self.s.fixtures_updated += 1
        fixture = imported.fixture
        sides = list(fixture.competitors.filter(parent__isnull=True).order_by("ordinal", "id"))
        by_participant: dict[Any, list] = defaultdict(list)
        for side in sides:
            by_participant[side.participant_id].append(side)
        wanted: dict[Any, EntrantResult] = {}
        for spec, result in zip(specs, results, strict=True):
            candidates = by_participant.get(spec.participant.pk)
            if not candidates:
                continue
            wanted[candidates.pop(0).pk] = result
        if len(wanted) != len(specs) or len(sides) != len(specs):
            self.s.sides_differ += 1
        if fixture_results_record(
            fixture=fixture, results=wanted, status=status, actor=self.actor, source_code=SOURCE
        ):
            self.s.results_changed += 1

    def unit(self, unit: Unit) -> None:
        event = self.event_node(unit.event_key)
        labels = [
            u.stage_label
            for u in self.data.units.values()
            if u.event_key == unit.event_key and u.phase == unit.phase
        ]
        phase = self.node(
            ("phase", unit.event_key, unit.phase),
            code=f"{event.code}.{unit.phase.lower()}",
            name=_phase_name(labels, unit.phase),
            type="phase",
            parent=event,
            sport=event.sport,
        )
        head_to_head = len(unit.entrants) == 2
        specs, results = [], []
        for entrant in unit.entrants:
            specs.append(self.spec(entrant.code, entrant.country))
            results.append(_entrant_result(entrant, unit, head_to_head))
            self.entry(event, entrant.code, entrant.country)
        self.import_fixture(
            external_id=unit.stage_code,
            parent=phase,
            code=f"{self.code}.{unit.stage_code}",
            values={
                "name": unit.name,
                "scheduled_start": unit.start,
                "archetype": Archetype.HEAD_TO_HEAD if head_to_head else Archetype.RANKED_FIELD,
                "meta": {
                    k: v for k, v in {"venue": unit.venue, "stage": unit.stage_label}.items() if v
                },
            },
            specs=specs,
            results=results,
            status=UNIT_STATUS[unit.status],
        )

    def medal_fixture(self, key: tuple[str, str], medals: list[Medal]) -> None:
        event = self.event_node(key)
        specs, results = [], []
        for medal in sorted(medals, key=lambda m: (MEDAL_RANK[m.medal], m.code, m.name)):
            if not medal.code:
                self.unmatched(
                    "",
                    medal.name,
                    medal.country,
                    f"{medal.where}: the medal row has "
                    "no medallist code, so no participant can be named",
                )
                continue
            specs.append(self.spec(medal.code, medal.country))
            # Medal-fixture place: gold 1, silver 2, bronze 3. A dead heat puts two entrants
            # on one place; two bronzes (repechage sports) share place 3.
            results.append(
                EntrantResult(
                    rank=MEDAL_RANK[medal.medal],
                    result_status=ResultStatus.FINISHED,
                    result={"medal": medal.medal},
                )
            )
            self.entry(event, medal.code, medal.country)
        days = [m.on for m in medals if m.on]
        # Noon UTC keeps the medal day the fixture's day in every European time zone.
        start = datetime.combine(max(days), time(12), tzinfo=UTC) if days else None
        self.import_fixture(
            external_id=f"{key[0]}/{key[1]}/medals",
            parent=event,
            code=f"{event.code}.medals",
            values={
                "name": f"{key[0]} {key[1]} — medals",
                "archetype": Archetype.RANKED_FIELD,  # a classification, never a two-side match
                "scheduled_start": start,
                "meta": {"classification": "medals"},
            },
            specs=specs,
            results=results,
            status=FixtureStatus.COMPLETED,
        )
        self.s.medals += len(specs)


MEDAL_RANK = {"gold": 1, "silver": 2, "bronze": 3}


def _event_slug(event: str) -> str:
    # "+92kg" and "92kg" are different boxing events; slugify alone would drop the plus.
    return slugify(event.replace("+", " plus "))


def _phase_name(labels: list[str], phase: str) -> str:
    """The phase's label from its units' labels: the shared part before " - " ("Round 1"
    from "Round 1 - Heat 2"), else their common prefix ("Heat" from "Heat 1", "Heat 2")."""
    heads = {label.split(" - ")[0] for label in labels if label}
    if len(heads) == 1:
        return heads.pop()
    prefix = ""
    values = [label for label in labels if label]
    if values:
        first, last = min(values), max(values)
        while len(prefix) < min(len(first), len(last)) and first[len(prefix)] == last[len(prefix)]:
            prefix += first[len(prefix)]
    return prefix.rstrip(" -0123456789") or phase


def _entrant_result(entrant: Entrant, unit: Unit, head_to_head: bool) -> EntrantResult:
    rank = entrant.rank
    if head_to_head and entrant.wlt:
        # Win and loss are never stored: W is rank 1, L rank 2, a tie both on rank 1.
        rank = {"W": 1, "L": 2, "T": 1}[entrant.wlt]
    result = dict(entrant.result)
    if head_to_head and result.get("mark", "").isdigit():
        result["score"] = int(result["mark"])
    if entrant.irm:
        status = IRM_STATUS.get(entrant.irm, ResultStatus.FINISHED)
    elif unit.status == "RUNNING":
        status = ResultStatus.ACTIVE
    elif unit.status == "FINISHED":
        status = ResultStatus.FINISHED
    else:
        status = ResultStatus.ENTERED
    return EntrantResult(rank=rank, result_status=status, status_code=entrant.irm, result=result)


def games_import(
    *,
    directory: Path | str,
    code: str,
    name: str,
    actor=ACTOR,
    progress: Callable[[Iterable, int], Iterable] | None = None,
) -> GamesSummary:
    """Import the Games in ``directory`` as the tree rooted at ``code`` (see the module
    docstring for the contract). ``progress`` wraps the per-event loop (a tqdm bar)."""
    if not code or not name:
        raise GamesInputError(["--code and --name: both are required"])
    data = games_read(Path(directory))
    summary = GamesSummary(code=code)
    content = _digest_content(code, data)
    with transaction.atomic():
        sha = hashlib.sha256(content).hexdigest()
        summary.submission = Submission.objects.filter(
            kind=SubmissionKind.GAMES_IMPORT, source_code=SOURCE, sha256=sha, accepted=True
        ).first() or submission_record(
            kind=SubmissionKind.GAMES_IMPORT,
            source_code=SOURCE,
            actor=actor,
            content=content,
            original_filename=Path(directory).name,
            media_type="text/csv",
            note=f"Games {code}: {', '.join(sorted(data.files))}",
        )
        w = _Writer(data, code, name, actor, summary)
        w.root()
        w.participants()
        units_by_event: dict[tuple, list[Unit]] = defaultdict(list)
        for unit in data.units.values():
            units_by_event[unit.event_key].append(unit)
        medals_by_event: dict[tuple, list[Medal]] = defaultdict(list)
        for medal in data.medals:
            medals_by_event[medal.event_key].append(medal)
        keys = sorted(data.events)
        summary.events = len(keys)
        summary.disciplines = len({k[0] for k in keys})
        loop = progress(keys, len(keys)) if progress else keys
        for key in loop:
            w.event_node(key)
            for unit in sorted(units_by_event.get(key, []), key=lambda u: u.stage_code):
                w.unit(unit)
            if key in medals_by_event:
                w.medal_fixture(key, medals_by_event[key])
        w.save_entries()
    return summary
