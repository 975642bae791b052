"""Reading a Games directory: every file parsed and checked, nothing written.

``games_read`` returns the whole Games as plain dataclasses, or raises ``GamesInputError``
listing every problem with its file and row (see ``ingest.games`` for the contract).
"""

from __future__ import annotations

import ast
import csv
import io
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.text import slugify

from omnium.archives import ArchiveRefused, LimitExceeded, gunzip, read_file
from sports.models import FixtureStatus, ResultStatus

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
            # Inflated in bounded chunks: a small .gz can hold gigabytes (INGEST_MAX_FILE_BYTES).
            text = (gunzip(raw, where=name) if name.endswith(".gz") else raw).decode("utf-8-sig")
        except LimitExceeded as exc:
            self.fail(name, exc.reason)
            return
        except (ArchiveRefused, UnicodeDecodeError) as exc:
            reason = exc.reason if isinstance(exc, ArchiveRefused) else exc
            self.fail(
                name, f"cannot be read as UTF-8 CSV{' (gzip)' * name.endswith('.gz')}: {reason}"
            )
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
    too_big = []
    for path in [p for p in paths.values() if p] + result_paths:
        name = str(path.relative_to(directory))
        try:
            data.files[name] = read_file(path)
        except LimitExceeded as exc:
            too_big.append(f"{name}: {exc.reason}")
    if too_big:
        raise GamesInputError(too_big)

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
