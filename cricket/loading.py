"""Loading one validated Cricsheet match into the spine and cricket's tables.

``match_load`` is the write half of a Cricsheet import: given a match document that has
passed the submission contract (``ingest.cricsheet.validate``), it records the file's
submission, the competition nodes, teams, people, the fixture with its squads and log
entry, the officials, innings and their side tables, and the deliveries, all in one
transaction. Reading files, deciding whether a file is new, fanning a corpus out to
processes and refreshing statistics are the importer's (``ingest.cricsheet.importer``).

A run of many matches keeps one ``MatchLoader``: the rows it has already met (sport,
nodes, teams, venues, people, fixture codes) and blocks of delivery and wicket ids, so a
match costs a few round trips rather than one per row. A match's rows travel in one batch
(``omnium.bulk.Inserts``) and its deliveries in one COPY.

Data: Cricsheet (https://cricsheet.org), Open Data Commons Attribution License 1.0.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from cricket.cricsheet_match import (
    OFFICIAL_ROLES,
    competition_path,
    fixture_format,
    fixture_meta,
    fixture_result,
    match_season,
    overs_decimal,
    overs_value,
    side_squad,
)
from cricket.models import (
    Delivery,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
    DismissalKind,
    FixtureOfficial,
    Innings,
    InningsAbsent,
    InningsMiscountedOver,
    InningsPowerplay,
    delivery_day,
)
from cricket.plugin import cricket_log_check
from cricket.services import (
    CRICKET,
    SOURCE,
    SQUAD_ROLE,
    MatchFixture,
    PeopleCache,
    Side,
    cricket_fixture_create,
    cricket_national_side,
    cricket_people_resolve,
    cricket_sport,
    cricket_team,
    people_cache_load,
)
from omnium.bulk import Inserts
from omnium.models import uuid7
from sports.models import (
    Competition,
    Fixture,
    FixtureStatus,
    Participant,
    Sport,
    SportDefinitionVersion,
    Venue,
)
from sports.services import LogEntry, competition_create, competition_ensure, submission_record
from sports.services.common import Actor
from sports.services.definitions import sport_definition_ensure
from sports.services.fixtures import definition_for
from sports.services.participants import season_memberships_record

DELIVERY_COLUMNS = (
    "id",
    "innings_id",
    "over_number",
    "position",
    "sequence",
    "ball_label",
    "actual_delivery",
    "batter_id",
    "bowler_id",
    "non_striker_id",
    "runs_batter",
    "runs_extras",
    "runs_total",
    "non_boundary",
    "extra_wides",
    "extra_noballs",
    "extra_byes",
    "extra_legbyes",
    "extra_penalty",
    "revision",
    "is_current",
    "source_event_id",
    "submission_id",
    "submission_event_ordinal",
    "occurred_on",
    "created_at",
)


@dataclass(frozen=True)
class MatchSubmission:
    """The file a match load records as its submission (the public gate: a fixture is
    public once first seen in an accepted submission). ``kind`` and ``note`` say where the
    file came from (a corpus, a reviewed batch...); ``original_filename`` is the name to
    keep (at most 512 characters)."""

    kind: str
    content: bytes
    original_filename: str
    note: str = ""


@dataclass(frozen=True)
class LoadedMatch:
    """What ``match_load`` wrote: the fixture (``first_seen_in`` is the new submission) and
    how many deliveries it holds."""

    fixture: Fixture
    deliveries: int


class _Caches:
    """Rows reused across the matches of one run. Cleared when a match rolls back, since a
    row created in the rolled-back transaction no longer exists."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.sport: Sport | None = None
        self.definition: tuple[SportDefinitionVersion | None] | None = None
        self.kinds: dict[str, DismissalKind] = {}
        self.nodes: dict[str, Competition] | None = None
        self.venues: dict[str, Venue] = {}
        self.teams: dict[tuple[str, str], Participant] = {}
        self.people: PeopleCache | None = None  # loaded at the first match
        self.codes: set[str] | None = None

    def mark(self) -> tuple[int, int, int, int]:
        """Where the growing caches stand (dicts keep insertion order): ``rollback`` drops
        what was added after."""
        people = len(self.people.by_id) if self.people is not None else 0
        return people, len(self.nodes or {}), len(self.teams), len(self.venues)

    def rollback(self, mark: tuple[int, int, int, int]) -> None:
        """Forget the rows a rolled-back match added, keeping the rest of what the run
        knows. Alias ranges it may have widened are forgotten altogether (they are only a
        shortcut: the next write of a pair sends it again), and so are fixture codes (a
        set: re-read on the next match)."""
        people, nodes, teams, venues = mark
        if self.people is not None:
            _truncate(self.people.by_id, people)
            self.people.seen.clear()
        if self.nodes is not None:
            _truncate(self.nodes, nodes)
        _truncate(self.teams, teams)
        _truncate(self.venues, venues)
        self.codes = None


def _truncate(entries: dict, length: int) -> None:
    for key in list(itertools.islice(entries, length, None)):
        del entries[key]


class _IdPool:
    """Ids taken from a table's identity sequence in blocks (one round trip per block), so
    rows written by COPY can be referenced without reading them back. Sequences are not
    transactional: ids of a rolled-back match are simply never used (gaps are harmless)."""

    def __init__(self, model, *, block: int = 50_000) -> None:
        self.table = model._meta.db_table
        self.block = block
        self.free: list[int] = []
        self.next = 0  # the first free id's index (a block is not copied per match)

    def take(self, count: int) -> list[int]:
        if count > len(self.free) - self.next:
            rest = self.free[self.next :]
            self.free = rest + _allocate_ids(self.table, max(self.block, count - len(rest)))
            self.next = 0
        taken = self.free[self.next : self.next + count]
        self.next += count
        return taken


class MatchLoader:
    """What one run of ``match_load`` calls reuses across matches: the rows already met and
    blocks of ids. Holds no transaction and writes nothing itself.

    ``shared``: other processes load matches at the same time. People ids missing from
    this loader's cache are then looked up rather than taken as new, and nodes and teams
    are made with "get or create" semantics. A load that meets another process's rows may
    still fail on a unique key or a deadlock; the caller may ``rollback`` to a ``mark``
    taken before it and try the match again.
    """

    def __init__(self, *, shared: bool = False, root: Competition | None = None) -> None:
        self.shared = shared
        # ``root``: an existing tree root (a Games) the matches' competitions go under.
        self.root = root
        self.caches = _Caches()
        self.delivery_ids = _IdPool(Delivery)
        self.wicket_ids = _IdPool(DeliveryWicket, block=2_000)

    def mark(self) -> tuple[int, int, int, int]:
        """Where the caches stand before a load (see ``rollback``)."""
        return self.caches.mark()

    def rollback(self, mark: tuple[int, int, int, int]) -> None:
        """Forget what a rolled-back load added after ``mark``, keeping the rest."""
        self.caches.rollback(mark)

    def clear(self) -> None:
        """Forget every cached row (after a load failed in a way no mark describes)."""
        self.caches.clear()

    def kinds(self) -> dict[str, DismissalKind]:
        """Dismissal kinds by name, read once per run."""
        if not self.caches.kinds:
            self.caches.kinds = {k.name: k for k in DismissalKind.objects.all()}
        return self.caches.kinds

    # --- reference rows --------------------------------------------------------------------

    def _sport(self) -> Sport:
        if self.caches.sport is None:
            # Cricket's shipped definition is published before the run's first fixture, so
            # every new fixture pins it.
            sport_definition_ensure(actor=f"integration:{SOURCE}", sports=[CRICKET])
            self.caches.sport = cricket_sport()
        return self.caches.sport

    def _codes(self) -> set[str]:
        """Fixture codes cricket already uses: loaded once, then kept by the run. Another
        writer taking a code meanwhile makes that match fail on the unique key (nothing
        written; the next run imports it)."""
        if self.caches.codes is None:
            self.caches.codes = set(
                Fixture.objects.filter(sport=self._sport()).values_list("code", flat=True)
            )
        return self.caches.codes

    def _people(self) -> PeopleCache:
        if self.caches.people is None:
            self.caches.people = people_cache_load(source_code=SOURCE)
            # Another process may add people at any moment: an id this cache lacks is
            # looked up, not taken as new.
            self.caches.people.complete = not self.shared
        return self.caches.people

    def _definition(self) -> SportDefinitionVersion | None:
        if self.caches.definition is None:
            self.caches.definition = (definition_for(self._sport()),)
        return self.caches.definition[0]

    def _node(
        self, *, code: str, name: str, type: str, parent: Competition | None, actor: Actor
    ) -> Competition:
        code = code[:64]
        if self.caches.nodes is None:  # every cricket node, once per run
            self.caches.nodes = {
                node.code: node for node in Competition.objects.filter(sport=self._sport())
            }
        node = self.caches.nodes.get(code)
        if node is None and self.shared:  # another process may be making it right now
            node, _ = competition_ensure(
                code=code, name=name, type=type, parent=parent, sport=self._sport(),
                actor=actor,
            )  # fmt: skip
        elif node is None:
            node = competition_create(
                code=code,
                name=name,
                type=type,
                parent=parent,
                sport=self._sport(),
                actor=actor,
            )
        self.caches.nodes[code] = node
        return node

    def _competition(self, info: dict, actor: Actor) -> Competition:
        """The match's node (see ``competition_path``), creating what is missing. Under a
        ``root``, the path's first node is a child of it; one that already sits elsewhere
        is refused (a node is moved by a person, never by an import)."""
        # The path always has a root (the event, or the match type) and a season under it.
        root, *below = competition_path(info)
        node = self._node(
            code=root.code, name=root.name, type=root.type, parent=self.root, actor=actor
        )
        if self.root is not None and node.parent_id != self.root.pk:
            place = "is a root of its own" if node.parent_id is None else "sits elsewhere"
            raise ValidationError(
                f"competition {node.code!r} already exists and {place}, not under the "
                f"root {self.root.code!r}: move it there first (the import never moves a node)"
            )
        for step in below:
            node = self._node(
                code=step.code, name=step.name, type=step.type, parent=node, actor=actor
            )
        return node

    def _team(self, name: str, info: dict, seen_at: datetime, actor: Actor) -> Participant:
        key = (name, info["gender"])
        if key not in self.caches.teams:
            team = cricket_team(
                name=name,
                gender=info["gender"],
                sport=self._sport(),
                actor=actor,
                seen_at=seen_at,
                concurrent=self.shared,
            )
            if info.get("team_type") == "international":
                # Once per run and side: the side belongs to its Commons country.
                cricket_national_side(team=team, side=name, actor=actor)
            self.caches.teams[key] = team
        return self.caches.teams[key]

    def _venue(self, info: dict) -> Venue | None:
        name = info.get("venue")
        if not name:
            return None
        code = slugify(name)[:64] or "venue"
        venue = self.caches.venues.get(code)
        if venue is None:
            venue, _ = Venue.objects.get_or_create(
                code=code, defaults={"name": name[:256], "city": (info.get("city") or "")[:128]}
            )
            self.caches.venues[code] = venue
        return venue

    # --- one match ---------------------------------------------------------------------------

    def _write(
        self,
        document: dict,
        *,
        match_id: str,
        sha256: str,
        source: MatchSubmission,
        actor: Actor,
    ) -> LoadedMatch:
        info = document["info"]
        meta = document["meta"]
        sha = sha256
        sport = self._sport()
        first_day = date.fromisoformat(info["dates"][0])
        seen_at = datetime(first_day.year, first_day.month, first_day.day, tzinfo=UTC)
        # Every row of the match but the deliveries travels in one round trip (``batch``),
        # then one COPY writes the deliveries.
        batch = Inserts()
        submission = submission_record(
            kind=source.kind,
            note=source.note,
            source_code=SOURCE,
            actor=actor,
            content=source.content,
            original_filename=source.original_filename,
            media_type="application/json",
            inserts=batch,
        )
        # The competition first: creating a node locks its tree until this commits, and
        # taking tree locks before writing any participant keeps parallel imports from
        # waiting on each other in a circle.
        competition = self._competition(info, actor)
        team_names = info["teams"]
        teams = {name: self._team(name, info, seen_at, actor) for name in team_names}
        people = cricket_people_resolve(
            names=info["registry"]["people"],
            sport=sport,
            actor=actor,
            seen_at=seen_at,
            cache=self._people(),
            inserts=batch,
            concurrent=self.shared,
        )
        outcome = info.get("outcome") or {}
        result, ranks, methods = fixture_result(outcome, team_names)
        innings_list = document["innings"]
        squads = {team: side_squad(info, team, people) for team in team_names}
        code = _fixture_code(self._codes(), first_day, team_names)
        deliveries = sum(
            len(over["deliveries"]) for inning in innings_list for over in inning.get("overs", ())
        )
        fixture = cricket_fixture_create(
            match=MatchFixture(
                competition=competition,
                code=code,
                name=f"{team_names[0]} v {team_names[1]}",
                format_code=info["match_type"],
                scheduled_start=seen_at,
                venue=self._venue(info),
                format=fixture_format(info),
                meta=fixture_meta(info, meta, people),
                status=(
                    FixtureStatus.ABANDONED
                    if outcome.get("result") == "no result"
                    else FixtureStatus.COMPLETED
                ),
                result=result,
                sides=[
                    Side(
                        team=teams[team],
                        squad=squads[team],
                        rank=ranks.get(team),
                        win_method=methods.get(team, ""),
                    )
                    for team in team_names
                ],
                match_id=match_id,
            ),
            sport=sport,
            definition=self._definition(),
            submission=submission,
            actor=actor,
            log=[
                _import_entry(
                    idempotency_key=f"{match_id}:{sha[:40]}",
                    payload={
                        "submission": str(submission.pk),
                        "sha256": sha,
                        "data_version": meta["data_version"],
                        "revision": meta.get("revision"),
                        "innings": len(innings_list),
                        "deliveries": deliveries,
                    },
                )
            ],
            inserts=batch,
        )
        officials = [
            FixtureOfficial(
                fixture=fixture,
                role=OFFICIAL_ROLES[role],
                ordinal=i,
                name=name,
                registry_id=info["registry"]["people"].get(name, ""),
            )
            for role, names in (info.get("officials") or {}).items()
            for i, name in enumerate(names, start=1)
        ]
        batch.extend(officials)
        lines = self._write_innings(fixture, innings_list, teams, people, submission, batch)
        batch.send()
        _copy(Delivery, DELIVERY_COLUMNS, lines)
        # Who played for whom that season: one row per player, team and season.
        season_memberships_record(
            pairs=[(teams[t].pk, player.pk) for t in team_names for player, _ in squads[t]],
            role=SQUAD_ROLE,
            season=match_season(info),
            valid_from=first_day,
            valid_to=date.fromisoformat(info["dates"][-1]),
        )
        self._codes().add(fixture.code)
        return LoadedMatch(fixture=fixture, deliveries=deliveries)

    def _write_innings(
        self,
        fixture: Fixture,
        innings_list: list[dict],
        teams: dict[str, Participant],
        people: dict[str, Participant],
        submission,
        batch: Inserts,
    ) -> list[str]:
        """Adds the innings and what hangs off them to ``batch``; returns the delivery rows
        for the COPY."""
        rows = []
        for ordinal, inning in enumerate(innings_list, start=1):
            target = inning.get("target") or {}
            penalty = inning.get("penalty_runs") or {}
            rows.append(
                Innings(
                    fixture=fixture,
                    ordinal=ordinal,
                    batting_team=teams[inning["team"]],
                    super_over=bool(inning.get("super_over")),
                    target_runs=target.get("runs"),
                    target_overs=overs_decimal(target.get("overs")),
                    declared=bool(inning.get("declared")),
                    forfeited=bool(inning.get("forfeited")),
                    penalty_runs_pre=penalty.get("pre"),
                    penalty_runs_post=penalty.get("post"),
                )
            )
        batch.extend(rows)
        powerplays, absent, miscounted = [], [], []
        for innings, inning in zip(rows, innings_list, strict=True):
            for i, pp in enumerate(inning.get("powerplays") or [], start=1):
                powerplays.append(
                    InningsPowerplay(
                        innings=innings,
                        ordinal=i,
                        from_over=overs_value(pp["from"]),
                        to_over=overs_value(pp["to"]),
                        type=pp["type"],
                    )
                )
            for name in inning.get("absent_hurt") or []:
                absent.append(InningsAbsent(innings=innings, participant=people[name]))
            for over, value in (inning.get("miscounted_overs") or {}).items():
                miscounted.append(
                    InningsMiscountedOver(
                        innings=innings,
                        over_number=int(over),
                        # The source writes 5 in some files and "5" in others.
                        balls=int(value["balls"]),
                        umpire=value.get("umpire") or "",
                    )
                )
        batch.extend(powerplays)
        batch.extend(absent)
        batch.extend(miscounted)
        return self._write_deliveries(
            rows, innings_list, teams, people, submission, batch, delivery_day(fixture)
        )

    def _write_deliveries(
        self, rows, innings_list, teams, people, submission, batch, day: date
    ) -> list[str]:
        total = sum(
            len(over["deliveries"]) for inning in innings_list for over in inning.get("overs", [])
        )
        if total == 0:
            return []
        ids = self.delivery_ids.take(total)
        events = _event_ids(total)
        # The COPY is fed text lines built here: every value is already validated (whole
        # numbers, known people), so each line is one format string, not 25 adapter calls.
        # The only free text (the 1.2.0 printed label) is escaped for COPY.
        now = timezone.now().isoformat()
        pk = {name: str(p.pk) for name, p in people.items()}
        # ``occurred_on``: the fixture's first day (its ``scheduled_start``), the partition key.
        tail = f"\t1\tt\t{{}}\t{submission.pk}\t{{}}\t{day.isoformat()}\t{now}\n"
        lines = []
        wickets: list[tuple[DeliveryWicket, list[dict]]] = []
        reviews, replacements = [], []
        kinds = self.kinds()
        ordinal = 0
        for innings, inning in zip(rows, innings_list, strict=True):
            sequence = 0
            innings_pk = str(innings.pk)
            for over in inning.get("overs", ()):
                number = over["over"]
                legal = 0
                for position, d in enumerate(over["deliveries"]):
                    delivery_id = ids[ordinal]
                    event = events[ordinal]
                    ordinal += 1
                    sequence += 1
                    extras = d.get("extras") or _NO_EXTRAS
                    runs = d["runs"]
                    wides, noballs = extras.get("wides"), extras.get("noballs")
                    # Wides and no-balls do not advance the printed ball number, which is
                    # why it repeats; it is display only, never identity. An explicit 0 is not one.
                    label = f"{number}.{legal + 1}"
                    if not wides and not noballs:
                        legal += 1
                    actual = d.get("actual_delivery")
                    lines.append(
                        f"{delivery_id}\t{innings_pk}\t{number}\t{position}\t{sequence}\t"
                        f"{label}\t{'' if actual is None else _copy_text(actual)}\t"
                        f"{pk[d['batter']]}\t{pk[d['bowler']]}\t{pk[d['non_striker']]}\t"
                        f"{runs['batter']}\t{runs['extras']}\t{runs['total']}\t"
                        f"{'t' if runs.get('non_boundary') else 'f'}\t"
                        f"{_copy_int(wides)}\t{_copy_int(noballs)}\t"
                        f"{_copy_int(extras.get('byes'))}\t{_copy_int(extras.get('legbyes'))}\t"
                        f"{_copy_int(extras.get('penalty'))}" + tail.format(event, ordinal)
                    )
                    for w, wicket in enumerate(d.get("wickets") or [], start=1):
                        wickets.append(
                            (
                                DeliveryWicket(
                                    delivery_id=delivery_id,
                                    ordinal=w,
                                    player_out=people[wicket["player_out"]],
                                    kind=kinds[wicket["kind"]],
                                    kind_raw=wicket["kind"],
                                ),
                                wicket.get("fielders") or [],
                            )
                        )
                    review = d.get("review")
                    if review:
                        reviews.append(
                            DeliveryReview(
                                delivery_id=delivery_id,
                                by_team=teams[review["by"]],
                                batter=people.get(review.get("batter")),
                                umpire=review.get("umpire") or "",
                                decision=review["decision"],
                                type=review.get("type") or "",
                                umpires_call=review.get("umpires_call"),
                            )
                        )
                    for kind, entries in (d.get("replacements") or {}).items():
                        for r, entry in enumerate(entries, start=1):
                            replacements.append(
                                DeliveryReplacement(
                                    delivery_id=delivery_id,
                                    kind=kind,
                                    ordinal=r,
                                    team=teams.get(entry.get("team")),
                                    player_in=people[entry["in"]],
                                    player_out=people.get(entry.get("out")),
                                    role=entry.get("role") or "",
                                    reason=entry.get("reason") or "",
                                )
                            )
        wicket_ids = self.wicket_ids.take(len(wickets))
        for (wicket, _), wicket_id in zip(wickets, wicket_ids, strict=True):
            wicket.id = wicket_id
        batch.extend(w for w, _ in wickets)
        batch.extend(
            [
                DeliveryWicketFielder(
                    wicket=wicket,
                    ordinal=f,
                    # A substitute may be recorded with no name.
                    participant=people.get(fielder.get("name")),
                    substitute=bool(fielder.get("substitute")),
                )
                for wicket, fielders in wickets
                for f, fielder in enumerate(fielders, start=1)
            ]
        )
        batch.extend(reviews)
        batch.extend(replacements)
        return lines


def _import_entry(*, idempotency_key: str, payload: dict) -> LogEntry:
    """The log item of a match's import, checked against the command cricket's plugin
    declares for it."""
    cricket_log_check("cricket.import", payload)
    return LogEntry(
        "cricket.import", unit="record", idempotency_key=idempotency_key, payload=payload
    )


def cricket_root(code: str) -> Competition:
    """The existing tree root ``code`` that cricket competitions may be filed under: a
    root (no parent) with no sport (a Games) or with cricket as its sport. Anything else
    is a ``ValidationError`` naming the code and the rule."""
    roots = list(
        Competition.objects.canonical().filter(code=code, parent__isnull=True)
        .filter(Q(sport__isnull=True) | Q(sport__code="cricket"))
    )  # fmt: skip
    if len(roots) == 1:
        return roots[0]
    if roots:
        raise ValidationError(
            f"--root {code}: both a Games root and a cricket root have this code; "
            "rename one of them"
        )
    if Competition.objects.filter(code=code).exists():
        raise ValidationError(
            f"--root {code}: that competition is not a tree root of no sport or of cricket"
        )
    raise ValidationError(f"--root {code}: no competition has this code")


@transaction.atomic
def match_load(
    *,
    document: dict,
    match_id: str,
    sha256: str,
    submission: MatchSubmission,
    actor: Actor,
    loader: MatchLoader | None = None,
) -> LoadedMatch:
    """Write one new Cricsheet match, whole or not at all.

    Preconditions: ``document`` is a validated match (``ingest.cricsheet.validate.load``)
    whose dismissal kinds are all known (``MatchLoader.kinds``), and ``match_id`` (the
    Cricsheet id, text) is not in the external-id map yet: a known match is revised
    through ``cricket.source_revisions`` instead. ``sha256`` is the file's digest; with the
    match id it keys the fixture's ``cricket.import`` log entry, so a replay is recognised.

    Records ``submission`` (accepted) as the fixture's first sighting, then the
    competition path (``competition_path``), teams and people (through their registry
    ids, never by name), the fixture, officials, innings with powerplays, absences and
    miscounted overs, and the deliveries with wickets, fielders, reviews and
    replacements. Competition nodes are created first: a new node locks its tree until
    commit, and taking tree locks before any participant keeps parallel loads from
    waiting on each other in a circle. Statistics are not refreshed here; the caller
    decides when (per match or per block of a run).

    ``loader`` carries a run's caches between calls (a new one when omitted). If this
    raises, nothing is written and the loader may hold rows that no longer exist: the
    caller rolls it back to a ``mark`` taken before the call, or clears it.
    """
    loader = loader or MatchLoader()
    return loader._write(document, match_id=match_id, sha256=sha256, source=submission, actor=actor)


def _allocate_ids(table: str, count: int) -> list[int]:
    """Take ``count`` ids from the table's identity sequence in one round trip. The values
    come back as runs of consecutive ids (one run unless another session drew from the
    sequence at the same moment), not as ``count`` rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT min(v), max(v) FROM (
                SELECT v, v - row_number() OVER (ORDER BY v) AS run
                  FROM (SELECT nextval(pg_get_serial_sequence(%s, 'id')) AS v
                          FROM generate_series(1, %s)) AS drawn
            ) AS numbered GROUP BY run ORDER BY 1
            """,
            [table, count],
        )
        return [n for low, high in cursor.fetchall() for n in range(low, high + 1)]


_NO_EXTRAS: dict = {}
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: str) -> str:
    """A text value for COPY's text format."""
    return value.translate(_COPY_ESCAPES)


def _copy_int(value: int | None) -> str:
    return "\\N" if value is None else str(value)


def _event_ids(count: int) -> list[str]:
    """``count`` distinct, time-ordered source event ids for one match, as text for the
    COPY: one UUIDv7 and its successors (RFC 9562 §6.2, method 2: the random part used as
    a counter). Its low 20 bits (the last five hex digits) are the count, so no match of up
    to a million deliveries can carry into the version or variant bits."""
    if count > 0xFFFFF:
        raise ValueError(f"{count} deliveries in one match")
    prefix = str(uuid7())[:-5]
    return [f"{prefix}{n:05x}" for n in range(count)]


def _copy(model, columns: tuple[str, ...], lines: list[str]) -> None:
    """Write ``lines`` (COPY text format, one row each) with one COPY ... FROM STDIN: the
    bulk path for deliveries."""
    if not lines:
        return
    table = model._meta.db_table
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        copy.write("".join(lines))


def _fixture_code(taken: set[str], day: date, teams: list[str]) -> str:
    """A readable code, unique within cricket: the day and the teams (a second meeting the
    same day gets a suffix). The Cricsheet id is not used: it lives in the id map.
    ``taken``: the sport's codes in use (the run's set, loaded once)."""
    base = f"{day.isoformat()}-{slugify(teams[0])[:24]}-v-{slugify(teams[1])[:24]}"
    code, n = base, 1
    while code in taken:
        n += 1
        code = f"{base}-{n}"
    return code
