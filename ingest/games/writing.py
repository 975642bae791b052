"""Writing a read Games into the sports tree, in one transaction (see ``ingest.games``
for the contract)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from ingest.games.reading import (
    ACTOR,
    CODE_MAX,
    IRM_STATUS,
    PARENT_OF,
    SOURCE,
    SPORT_PARENTS,
    UNIT_STATUS,
    Entrant,
    GamesData,
    GamesInputError,
    Medal,
    Unit,
    games_read,
)
from omnium.progress import ProgressCallback
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
    sport_definition_ensure,
    submission_record,
)
from sports.services.common import Actor


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
    def __init__(
        self, data: GamesData, code: str, name: str, actor: Actor, summary: GamesSummary
    ) -> None:
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
        # Its shipped definition (if it has one) is published before its first fixture, so
        # every fixture of the sport pins it.
        sport_definition_ensure(actor=self.actor, sports=[slug])
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
            # A name joins an entrant only to a participant the sport it was seen in sees.
            sport_id = self.sport(seen_in[code]).pk if code in seen_in else None
            if code in d.teams:
                team = d.teams[code]
                row = OutsideRow(
                    self.team_id(code),
                    self._team_name(code),
                    team.country,
                    ParticipantType.TEAM,
                    sport_id=sport_id,
                )
                pairs.append((code, row))
            elif code in d.athletes:
                a = d.athletes[code]
                row = OutsideRow(code, a.name, a.country, ParticipantType.PERSON, sport_id=sport_id)
                pairs.append((code, row))
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

    def import_fixture(
        self,
        *,
        external_id: str,
        parent: Competition,
        code: str,
        values: dict[str, Any],
        specs: list[CompetitorSpec],
        results: list[EntrantResult],
        status: str,
    ) -> None:
        # ``games_import`` records the submission before the writer runs.
        assert self.s.submission is not None
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
            # Games entrants are named participants (``spec``), never placeholders.
            assert spec.participant is not None
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
    actor: Actor = ACTOR,
    progress: ProgressCallback | None = None,
) -> GamesSummary:
    """Import the Games in ``directory`` as the tree rooted at ``code`` (see the module
    docstring for the contract). ``progress`` hears of each event written (the total is the
    events; the step its discipline)."""
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
        if progress:
            progress(0, total=len(keys), step="events")
        for done, key in enumerate(keys, start=1):
            w.event_node(key)
            for unit in sorted(units_by_event.get(key, []), key=lambda u: u.stage_code):
                w.unit(unit)
            if key in medals_by_event:
                w.medal_fixture(key, medals_by_event[key])
            if progress:
                progress(done, step=key[0])
        w.save_entries()
    return summary
