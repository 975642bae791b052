"""Import Cricsheet match files: one file, one match, one transaction.

- The whole file is validated first (``validate.load``); a rejected file writes no row.
- Idempotent: a match id already in the external-id map whose file bytes were imported
  before (same SHA-256) is unchanged and nothing is written (not even parsed). A different
  file for a known match id is the same fixture with new content: its balls are compared by
  natural key and only those that differ are corrected (reason "source revision"). (The
  revision number proves nothing: Cricsheet renamed players in old files without bumping it.)
- Players are resolved through their registry ids (read once per run, never by name); a
  match's rows travel in one batch and its deliveries in one COPY.

Data: Cricsheet (https://cricsheet.org), Open Data Commons Attribution License 1.0.
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import tarfile
import threading
import time
import traceback
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, connections, transaction
from django.utils import timezone
from django.utils.text import slugify

from cricket.corrections import CorrectionReview
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
)
from cricket.services import (
    SOURCE,
    MatchFixture,
    PeopleCache,
    Side,
    cricket_fixture_create,
    cricket_people_resolve,
    cricket_sport,
    cricket_team,
    people_cache_load,
)
from cricket.source_revisions import SOURCE_REVISION, fixture_corrections_from_source
from cricket.stats.refresh import statistics_refresh
from ingest.cricsheet.validate import CricsheetRejected, Problem, load
from omnium.bulk import Inserts
from omnium.models import uuid7
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureStatus,
    Participant,
    Sport,
    SportDefinitionVersion,
    Submission,
    SubmissionKind,
    Venue,
    WinMethod,
)
from sports.querysets import follow_merges
from sports.services import (
    LogEntry,
    competition_create,
    competition_ensure,
    submission_record,
    timeline_append,
)
from sports.services.common import Actor
from sports.services.fixtures import definition_for

ACTOR = "integration:cricsheet"
OFFICIAL_ROLES = {
    "umpires": "umpire",
    "tv_umpires": "tv_umpire",
    "reserve_umpires": "reserve_umpire",
    "match_referees": "match_referee",
}
WIN_METHODS = {"D/L": WinMethod.DLS, "DLS": WinMethod.DLS, "Awarded": WinMethod.AWARDED}
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
    "created_at",
)


class Outcome:
    NEW = "new"
    UNCHANGED = "unchanged"
    UPDATED = "updated"
    REJECTED = "rejected"


@dataclass
class MatchResult:
    filename: str
    outcome: str
    deliveries: int = 0
    fixture_id: Any = None
    error: str = ""
    # The submission this file was recorded as (None when it was already known).
    submission_id: Any = None
    # A revised file of a known match: the delivery revisions its corrections wrote.
    revisions: list[int] = field(default_factory=list)


@dataclass
class ImportSummary:
    new: int = 0
    unchanged: int = 0
    updated: int = 0
    rejected: int = 0
    deliveries: int = 0
    seconds: float = 0.0
    rejections: list[str] = field(default_factory=list)

    def add(self, result: MatchResult) -> None:
        setattr(self, result.outcome, getattr(self, result.outcome) + 1)
        self.deliveries += result.deliveries
        if result.error:
            self.rejections.append(result.error)

    def line(self) -> str:
        return (
            f"matches: {self.new} new, {self.unchanged} unchanged, {self.updated} updated, "
            f"{self.rejected} rejected; {self.deliveries} deliveries; {self.seconds:.1f} s"
        )


# --- reading files, directories and archives ---------------------------------------------


def iter_sources(paths: Iterable[str | Path]) -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of every match file under ``paths``: JSON files, directories
    (searched recursively, in name order), ``.zip`` and ``.tar.gz``/``.tgz`` archives
    (read as a stream, never unpacked to disk). Non-JSON members (a README) are skipped."""
    for raw_path in paths:
        path = Path(raw_path)
        name = path.name.lower()
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and _readable(child.name):
                    yield from iter_sources([child])
        elif name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                for member in sorted(archive.namelist()):
                    if member.lower().endswith(".json"):
                        yield f"{path.name}:{member}", archive.read(member)
        elif name.endswith((".tar.gz", ".tgz", ".tar")):
            with tarfile.open(path, "r|*") as archive:
                for member in archive:
                    if member.isfile() and member.name.lower().endswith(".json"):
                        handle = archive.extractfile(member)
                        yield f"{path.name}:{member.name}", handle.read()
        elif name.endswith(".json"):
            yield str(path), path.read_bytes()
        else:
            raise CricsheetRejected(
                str(path),
                [Problem("(file)", "file-type", "is not a .json file, a directory or an archive")],
            )


def _readable(name: str) -> bool:
    return name.lower().endswith((".json", ".zip", ".tar.gz", ".tgz"))


def count_sources(paths: Iterable[str | Path]) -> int | None:
    """How many match files ``paths`` hold, when that is cheap to know (not for .tar.gz)."""
    total = 0
    for raw_path in paths:
        path = Path(raw_path)
        if path.is_dir():
            inner = [c for c in path.rglob("*") if c.is_file() and _readable(c.name)]
            if any(not c.name.lower().endswith(".json") for c in inner):
                return None
            total += len(inner)
        elif path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                total += sum(1 for m in archive.namelist() if m.lower().endswith(".json"))
        elif path.name.lower().endswith(".json"):
            total += 1
        else:
            return None
    return total


def match_id_of(filename: str) -> str:
    """Cricsheet names each file ``<match id>.json``; the id is text (``wi_211973``)."""
    base = filename.rsplit(":", 1)[-1].replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-5] if base.lower().endswith(".json") else base


@dataclass(frozen=True)
class PathStep:
    code: str
    name: str
    type: str


def competition_path(info: dict) -> list[PathStep]:
    """The competition nodes a match sits under, root first, as the import names them:
    event > season > stage > group; a match with no event sits under a node per match
    type, gender and team type. Pure: it reads the file's ``info`` only, so a batch can say
    where its matches will go before anything is written. Codes identify the nodes
    (unique among cricket's competitions)."""
    gender = info["gender"]
    women = gender == "female"
    event = info.get("event") or {}
    season = str(info.get("season") or info["dates"][0][:4])
    if event.get("name"):
        name = event["name"]
        if women and "women" not in name.lower():
            name = f"{name} (women)"
        path = [PathStep(slugify(name)[:64], name, "event")]
    else:
        label = (
            f"{info['match_type']} matches ({'women' if women else 'men'}, "
            f"{info.get('team_type', 'international')})"
        )
        path = [PathStep(slugify(label)[:64], label, "format")]
    path.append(PathStep(f"{path[-1].code[:50]}-{slugify(season)}"[:64], season, "season"))
    for key in ("stage", "group"):
        if event.get(key) not in (None, ""):
            value = str(event[key])
            path.append(
                PathStep(
                    f"{path[-1].code[:50]}-{key[0]}-{slugify(value)}"[:64],
                    value if key == "stage" else f"Group {value}",
                    key,
                )
            )
    return path


# --- the import ----------------------------------------------------------------------------


class _Caches:
    """Rows reused across the matches of one run. Cleared when a match rolls back, since a
    row created in the rolled-back transaction no longer exists."""

    def __init__(self) -> None:
        self.sport: Sport | None = None
        self.definition: tuple[SportDefinitionVersion | None] | None = None
        self.kinds: dict[str, DismissalKind] = {}
        self.nodes: dict[str, Competition] | None = None
        self.venues: dict[str, Venue] = {}
        self.teams: dict[tuple[str, str], Participant] = {}
        self.people: PeopleCache | None = None  # loaded at the first match
        self.codes: set[str] | None = None

    def clear(self) -> None:
        self.__init__()

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


class Importer:
    """Imports files one match per transaction and keeps the run's summary."""

    PREFETCH = 200  # files whose match ids are looked up in one query

    def __init__(
        self,
        *,
        actor: Actor = ACTOR,
        kind: str = SubmissionKind.CORPUS_IMPORT,
        note: str = "",
        refresh: bool = True,
        shared: bool = False,
        correction_reason: str = SOURCE_REVISION,
        correction_review: CorrectionReview | None = None,
    ) -> None:
        """``actor`` is who submitted the files (their submissions name them); ``kind`` and
        ``note`` describe where the files came from (a corpus, a reviewed batch...).

        ``shared``: other import processes write at the same time (``run_sources`` with
        ``workers``): people ids missing from this process's cache are looked up rather
        than taken as new, and a match that meets another process's uncommitted or newly
        committed rows (a person, a node, a fixture code both created at once; a deadlock)
        is rolled back and tried again with fresh caches.

        ``refresh``: new matches go through the statistics refresh path (once per block of
        files in a run, once per file otherwise). Off only for a first load into an empty
        database, which rebuilds every statistic once afterwards
        (``rebuild_cricket_statistics``) instead of refreshing match by match."""
        self.actor = actor
        self.kind, self.note = kind, note
        # A revised file of a known match becomes corrections with this reason (and, from a
        # reviewed batch, the reviewer's approval on each history row).
        self.correction_reason, self.correction_review = correction_reason, correction_review
        self.refresh = refresh
        self.shared = shared
        self.retries = 0  # shared mode: matches tried again (reported with each result)
        self.unrefreshed: list[Any] = []
        self.caches = _Caches()
        self.summary = ImportSummary()
        self.delivery_ids = _IdPool(Delivery)
        self.wicket_ids = _IdPool(DeliveryWicket, block=2_000)
        self.known: dict[str, tuple[Any, str]] | None = None

    def run(
        self,
        paths: Iterable[str | Path],
        *,
        progress: Callable[[MatchResult], None] | None = None,
        workers: int = 1,
    ) -> ImportSummary:
        return self.run_sources(iter_sources(paths), progress=progress, workers=workers)

    def run_sources(
        self,
        sources: Iterable[tuple[str, bytes]],
        *,
        progress: Callable[[MatchResult], None] | None = None,
        workers: int = 1,
    ) -> ImportSummary:
        """Import (file name, bytes) pairs in order; the summary counts every outcome.

        ``workers`` > 1 imports in that many processes (``_run_parallel``): each match id
        always goes to the same process, so the files of one match keep their order.

        Files are taken in blocks of ``PREFETCH``: one query says which of their match ids
        are already imported (and from which bytes), then each file is its own transaction.
        The run commits without waiting for the disk flush of each match
        (``synchronous_commit = off`` for this session only): a crash can lose the last
        fraction of a second of committed matches but never leaves a partial one, and the
        import is idempotent, so running it again restores them."""
        started = time.perf_counter()
        if workers > 1:
            self._run_parallel(sources, progress=progress, workers=workers)
            if self.summary.new >= ANALYZE_AFTER:
                _analyze_cricket_tables()
            self.summary.seconds = time.perf_counter() - started
            return self.summary
        _synchronous_commit(False)
        try:
            iterator = iter(sources)
            while block := list(itertools.islice(iterator, self.PREFETCH)):
                self.known = _known_fixtures([match_id_of(name) for name, _ in block])
                for filename, raw in block:
                    result = self.import_file(raw, filename=filename)
                    self.summary.add(result)
                    if progress:
                        progress(result)
                self._refresh_statistics()
        except CricsheetRejected as exc:  # a path that is not a match file at all
            self.summary.add(MatchResult(exc.filename, Outcome.REJECTED, error=str(exc)))
        finally:
            self.known = None
            _synchronous_commit(True)
        if self.summary.new >= ANALYZE_AFTER and not self.shared:
            _analyze_cricket_tables()
        self.summary.seconds = time.perf_counter() - started
        return self.summary

    def _run_parallel(
        self,
        sources: Iterable[tuple[str, bytes]],
        *,
        progress: Callable[[MatchResult], None] | None,
        workers: int,
    ) -> None:
        """Fan the files out to ``workers`` forked processes, each a shared-mode importer
        with its own connection, and gather their results here as they come. A thread
        reads the sources (an archive is a stream) and hands each file to the process its
        match id hashes to; the queues are bounded, so memory stays flat."""
        context = multiprocessing.get_context("fork")
        connections.close_all()  # a forked child must open its own connection
        # A worker takes ``PREFETCH`` files at a time before writing any: each inbox holds
        # several blocks, so the one reader never waits on a busy worker's full inbox
        # while the other worker has nothing to do.
        inboxes = [context.Queue(maxsize=3 * self.PREFETCH) for _ in range(workers)]
        outbox = context.Queue()
        options = {
            "actor": self.actor,
            "kind": self.kind,
            "note": self.note,
            "correction_reason": self.correction_reason,
            "correction_review": self.correction_review,
        }
        processes = [
            context.Process(
                target=_worker, args=(inbox, outbox, options, self.refresh), daemon=True
            )
            for inbox in inboxes
        ]
        for process in processes:
            process.start()
        unreadable: list[CricsheetRejected] = []

        def feed() -> None:
            try:
                for filename, raw in sources:
                    inboxes[_partition(match_id_of(filename), workers)].put((filename, raw))
            except CricsheetRejected as exc:  # a path that is not a match file at all
                unreadable.append(exc)
            finally:
                for inbox in inboxes:
                    inbox.put(None)

        feeder = threading.Thread(target=feed, name="cricsheet-feed", daemon=True)
        feeder.start()
        finished, failures = 0, []
        try:
            while finished < workers:
                try:
                    kind, payload = outbox.get(timeout=5)
                except Exception:  # queue.Empty: make sure every worker is still there
                    if any(not p.is_alive() and p.exitcode not in (0, None) for p in processes):
                        raise RuntimeError("an import worker died; see its output") from None
                    continue
                if kind == "result":
                    self.summary.add(payload)
                    if progress:
                        progress(payload)
                elif kind == "failed":
                    failures.append(payload)
                    finished += 1
                else:
                    self.retries += payload
                    finished += 1
        finally:
            feeder.join(timeout=5)
            for process in processes:
                process.join(timeout=30)
                if process.is_alive():
                    process.terminate()
        for exc in unreadable:
            self.summary.add(MatchResult(exc.filename, Outcome.REJECTED, error=str(exc)))
        if failures:
            raise RuntimeError("import worker failed:\n" + "\n".join(failures))

    def import_file(self, raw: bytes, *, filename: str) -> MatchResult:
        match_id = match_id_of(filename)
        sha = hashlib.sha256(raw).hexdigest()
        # In a run, the block's ids were looked up together.
        known = self.known.get(match_id) if self.known is not None else _known_fixture(match_id)
        if known is not None and (known[1] == sha or _file_seen(sha)):
            return MatchResult(filename, Outcome.UNCHANGED, fixture_id=known[0])
        try:
            document = load(raw, filename=filename, match_id=match_id)
            if known is not None:
                # Same match id, different bytes: the same fixture (its source_ref) with new
                # content, applied as corrections of exactly the balls that differ.
                return self._revise(document, raw=raw, filename=filename, sha=sha, known=known)
            self._check_kinds(document, filename)
            fixture, deliveries = self._write_match(document, raw=raw, filename=filename, sha=sha)
            self._codes().add(fixture.code)
            self.unrefreshed.append(fixture.pk)
            if self.known is not None:  # the same id later in this block is now known
                self.known[match_id] = (fixture.pk, sha)
            else:  # a file on its own (an upload): its statistics now
                self._refresh_statistics()
        except CricsheetRejected as exc:
            return MatchResult(filename, Outcome.REJECTED, error=str(exc))
        except Exception as exc:
            self.caches.clear()
            if isinstance(exc, KeyboardInterrupt):
                raise
            return MatchResult(
                filename,
                Outcome.REJECTED,
                error=f"{filename}: not imported, nothing written: {exc}",
            )
        return MatchResult(
            filename,
            Outcome.NEW,
            deliveries=deliveries,
            fixture_id=fixture.pk,
            submission_id=fixture.first_seen_in_id,
        )

    RETRIES = 5  # shared mode: attempts of one match that meets another process's rows

    def _write_match(self, document: dict, *, raw: bytes, filename: str, sha: str):
        attempt = 1
        while True:
            mark = self.caches.mark()
            try:
                with transaction.atomic():
                    return self._write(document, raw=raw, filename=filename, sha=sha)
            except (IntegrityError, DatabaseError, ValidationError):
                # A key another process took meanwhile (a person, a node, a fixture code)
                # or a deadlock between two matches: nothing of this attempt remains, and
                # the next one starts from what is committed now.
                if not self.shared or attempt >= self.RETRIES:
                    raise
                attempt += 1
                self.retries += 1
                self.caches.rollback(mark)

    def _refresh_statistics(self) -> None:
        """The statistics refresh path for the matches written since the last call: one
        refresh record for all of them (their lines, seasons, competitions and careers),
        rebuilt by the worker once this commits."""
        if self.refresh and self.unrefreshed:
            statistics_refresh(
                fixture_ids=self.unrefreshed,
                reason=f"import ({len(self.unrefreshed)} new match(es))",
                actor=self.actor,
            )
        self.unrefreshed = []

    def _revise(
        self, document: dict, *, raw: bytes, filename: str, sha: str, known: tuple
    ) -> MatchResult:
        """A revised file of an imported match: its submission is recorded, its balls are
        compared with the live deliveries by natural key and each one that differs gets a
        correction (reason "source revision"), and the fixture's log says so. A revision
        that changes the match's structure is rejected with nothing written. A file whose
        balls are all equal (a player renamed, say) corrects nothing but is recorded, so the
        next run knows it and the new name becomes an alias."""
        match_id = match_id_of(filename)
        try:
            with transaction.atomic():
                submission = submission_record(
                    kind=self.kind,
                    note=self.note,
                    source_code=SOURCE,
                    actor=self.actor,
                    content=raw,
                    original_filename=filename.rsplit(":", 1)[-1][-512:],
                    media_type="application/json",
                )
                fixture = Fixture.objects.get(pk=follow_merges(Fixture, known[0]))
                result = fixture_corrections_from_source(
                    fixture=fixture,
                    document=document,
                    submission=submission,
                    actor=self.actor,
                    reason=self.correction_reason,
                    review=self.correction_review,
                )
                timeline_append(
                    fixture=fixture,
                    event_type="cricket.import",
                    actor=self.actor,
                    source_code=SOURCE,
                    unit="record",
                    idempotency_key=f"{match_id}:{sha[:40]}",
                    payload={
                        "submission": str(submission.pk),
                        "sha256": sha,
                        "data_version": document["meta"]["data_version"],
                        "revision": document["meta"].get("revision"),
                        "corrections": len(result.corrections),
                    },
                )
        except ValidationError as exc:
            raise CricsheetRejected(
                filename, [Problem("(file)", "source-revision", " ".join(exc.messages))]
            ) from None
        return MatchResult(
            filename,
            Outcome.UPDATED if result.corrections else Outcome.UNCHANGED,
            fixture_id=fixture.pk,
            submission_id=submission.pk,
            revisions=[
                delivery.pk
                for correction in result.corrections
                for delivery in (correction.delivery, *correction.relabelled)
            ],
        )

    # --- reference rows --------------------------------------------------------------------

    def _sport(self) -> Sport:
        if self.caches.sport is None:
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

    def _kinds(self) -> dict[str, DismissalKind]:
        if not self.caches.kinds:
            self.caches.kinds = {k.name: k for k in DismissalKind.objects.all()}
        return self.caches.kinds

    def _check_kinds(self, document: dict, filename: str) -> None:
        kinds = self._kinds()
        problems = []
        for i, inning in enumerate(document["innings"]):
            for k, over in enumerate(inning.get("overs", [])):
                for d, delivery in enumerate(over["deliveries"]):
                    for w, wicket in enumerate(delivery.get("wickets", ())):
                        if wicket["kind"] not in kinds:
                            problems.append(
                                Problem(
                                    f"$.innings[{i}].overs[{k}].deliveries[{d}].wickets[{w}].kind",
                                    "dismissal-kind",
                                    f"{wicket['kind']!r} is not a known dismissal kind",
                                )
                            )
        if problems:
            raise CricsheetRejected(filename, problems)

    def _node(self, *, code: str, name: str, type: str, parent: Competition | None) -> Competition:
        code = code[:64]
        if self.caches.nodes is None:  # every cricket node, once per run
            self.caches.nodes = {
                node.code: node for node in Competition.objects.filter(sport=self._sport())
            }
        node = self.caches.nodes.get(code)
        if node is None and self.shared:  # another process may be making it right now
            node, _ = competition_ensure(
                code=code, name=name, type=type, parent=parent, sport=self._sport(),
                actor=self.actor,
            )  # fmt: skip
        elif node is None:
            node = competition_create(
                code=code,
                name=name,
                type=type,
                parent=parent,
                sport=self._sport(),
                actor=self.actor,
            )
        self.caches.nodes[code] = node
        return node

    def _competition(self, info: dict) -> Competition:
        """The match's node (see ``competition_path``), creating what is missing."""
        node = None
        for step in competition_path(info):
            node = self._node(code=step.code, name=step.name, type=step.type, parent=node)
        return node

    def _team(self, name: str, gender: str, seen_at: datetime) -> Participant:
        key = (name, gender)
        if key not in self.caches.teams:
            self.caches.teams[key] = cricket_team(
                name=name,
                gender=gender,
                sport=self._sport(),
                actor=self.actor,
                seen_at=seen_at,
                concurrent=self.shared,
            )
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

    def _write(self, document: dict, *, raw: bytes, filename: str, sha: str) -> tuple[Fixture, int]:
        info = document["info"]
        meta = document["meta"]
        match_id = match_id_of(filename)
        sport = self._sport()
        first_day = date.fromisoformat(info["dates"][0])
        seen_at = datetime(first_day.year, first_day.month, first_day.day, tzinfo=UTC)
        # Every row of the match but the deliveries travels in one round trip (``batch``),
        # then one COPY writes the deliveries.
        batch = Inserts()
        submission = submission_record(
            kind=self.kind,
            note=self.note,
            source_code=SOURCE,
            actor=self.actor,
            content=raw,
            original_filename=filename.rsplit(":", 1)[-1][-512:],
            media_type="application/json",
            inserts=batch,
        )
        # The competition first: creating a node locks its tree until this commits, and
        # taking tree locks before writing any participant keeps parallel imports from
        # waiting on each other in a circle.
        competition = self._competition(info)
        team_names = info["teams"]
        teams = {name: self._team(name, info["gender"], seen_at) for name in team_names}
        people = cricket_people_resolve(
            names=info["registry"]["people"],
            sport=sport,
            actor=self.actor,
            seen_at=seen_at,
            cache=self._people(),
            inserts=batch,
            concurrent=self.shared,
        )
        outcome = info.get("outcome") or {}
        result, ranks, methods = _result(outcome, team_names)
        innings_list = document["innings"]
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
                format=_format(info),
                meta=_meta(info, meta, people),
                status=(
                    FixtureStatus.ABANDONED
                    if outcome.get("result") == "no result"
                    else FixtureStatus.COMPLETED
                ),
                result=result,
                sides=[
                    Side(
                        team=teams[team],
                        squad=_squad(info, team, people),
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
            actor=self.actor,
            log=[
                LogEntry(
                    "cricket.import",
                    unit="record",
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
        return fixture, deliveries

    def _write_innings(
        self,
        fixture: Fixture,
        innings_list: list[dict],
        teams: dict[str, Participant],
        people: dict[str, Participant],
        submission,
        batch: Inserts,
    ) -> list[tuple]:
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
                    target_overs=_overs(target.get("overs")),
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
                        from_over=_overs(pp["from"]),
                        to_over=_overs(pp["to"]),
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
                        # The source writes 5 in some files and "5" in others (O6).
                        balls=int(value["balls"]),
                        umpire=value.get("umpire") or "",
                    )
                )
        batch.extend(powerplays)
        batch.extend(absent)
        batch.extend(miscounted)
        return self._write_deliveries(rows, innings_list, teams, people, submission, batch)

    def _write_deliveries(self, rows, innings_list, teams, people, submission, batch) -> list:
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
        tail = f"\t1\tt\t{{}}\t{submission.pk}\t{{}}\t{now}\n"
        lines = []
        wickets: list[tuple[DeliveryWicket, list[dict]]] = []
        reviews, replacements = [], []
        kinds = self._kinds()
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
                    # why it repeats; it is display only (O1). An explicit 0 is not one.
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
                    # O4: a substitute may be recorded with no name.
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


def _partition(match_id: str, workers: int) -> int:
    """The worker a match id goes to: stable across runs and processes."""
    return zlib.crc32(match_id.encode()) % workers


def _worker(inbox, outbox, options: dict, refresh: bool) -> None:
    """One import process of a parallel run: a shared-mode importer over the files its
    inbox receives (until None), each result sent back as it is known."""
    try:
        importer = Importer(**options, refresh=refresh, shared=True)
        importer.run_sources(
            iter(inbox.get, None), progress=lambda result: outbox.put(("result", result))
        )
        outbox.put(("done", importer.retries))
    except BaseException:
        outbox.put(("failed", traceback.format_exc()))
    finally:
        connections.close_all()


def _known_fixture(match_id: str) -> tuple[Any, str] | None:
    """(fixture id, SHA-256 of the file that first brought it) for a known match id."""
    return _known_fixtures([match_id]).get(match_id)


def _known_fixtures(match_ids: list[str]) -> dict[str, tuple[Any, str]]:
    """``_known_fixture`` for many match ids in one query."""
    rows = ExternalIdMap.objects.filter(
        source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id__in=match_ids
    ).values_list("external_id", "internal_id")
    links = dict(rows)
    shas = dict(
        Fixture.objects.filter(pk__in=links.values()).values_list("pk", "first_seen_in__sha256")
    )
    return {
        match_id: (fixture_id, shas.get(fixture_id) or "") for match_id, fixture_id in links.items()
    }


# A run that added this many matches refreshes the planner's statistics of the tables it
# grew before it returns, rather than leaving the next readers (the statistics refresh,
# the scorecards) to plan against row counts from before the load until autovacuum's
# analyze comes round: measured on the dev corpus, a refresh ran 2.1 s instead of 0.2 s.
ANALYZE_AFTER = 500
_GROWN_TABLES = (
    "cricket_innings",
    "cricket_delivery",
    "cricket_deliverywicket",
    "cricket_deliverywicketfielder",
    "sports_fixture",
    "sports_fixturecompetitor",
    "sports_participant",
    "sports_participantalias",
    "sports_externalidmap",
    "sports_statline",
)


def _analyze_cricket_tables() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {', '.join(_GROWN_TABLES)}")


def _file_seen(sha: str) -> bool:
    """Whether these exact bytes were imported before (a revision already applied)."""
    return Submission.objects.filter(source_code=SOURCE, sha256=sha).exists()


def _synchronous_commit(on: bool) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SET synchronous_commit TO {'on' if on else 'off'}")


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


def _overs(value: Any) -> Decimal | None:
    if value is None:
        return None
    return Decimal(str(value)).quantize(Decimal("0.1"))


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


def _squad(info: dict, team: str, people: dict[str, Participant]) -> list[tuple[Participant, str]]:
    """The team's players in file order; the supersub (a Big Bash rule of 2005-06) keeps
    "supersub" as the role on their squad entry, added if the list left them out."""
    listed = (info.get("players") or {}).get(team, [])
    supersub = (info.get("supersubs") or {}).get(team)
    squad = [(people[name], "supersub" if name == supersub else "") for name in listed]
    if supersub and supersub not in listed:
        squad.append((people[supersub], "supersub"))
    return squad


def _format(info: dict) -> dict:
    """The rules the match was played to (the same for every match of its kind)."""
    rules = {
        "match_type": info["match_type"],
        "balls_per_over": info.get("balls_per_over", 6),
        "gender": info["gender"],
        "team_type": info.get("team_type", ""),
    }
    if info.get("overs") is not None:
        rules["overs"] = info["overs"]
    return rules


def _meta(info: dict, meta: dict, people: dict[str, Participant]) -> dict:
    """This match's own facts: the rest of ``info`` (players, registry, officials and the
    outcome have their own homes), plus the source file's version."""
    facts = {
        key: value
        for key, value in info.items()
        if key
        not in (
            "players",
            "registry",
            "officials",
            "outcome",
            "teams",
            "match_type",
            "balls_per_over",
            "overs",
            "gender",
            "team_type",
            "supersubs",
        )
    }
    if info.get("player_of_match"):
        facts["player_of_match_ids"] = [str(people[n].pk) for n in info["player_of_match"]]
    if info.get("supersubs"):
        facts["supersubs"] = info["supersubs"]
    facts["source"] = {
        "data_version": meta["data_version"],
        "revision": meta.get("revision"),
        "created": meta.get("created"),
    }
    return facts


def _result(outcome: dict, teams: list[str]) -> tuple[dict | None, dict[str, int], dict]:
    """The outcome in the spine's terms: the result document, each team's rank and win
    method. Seven source shapes: a winner by runs, wickets or innings (or with no margin);
    a tie, decided or not by an eliminator or a bowl-out; a draw; no result; any of them
    with a method (D/L, VJD, Awarded). Level results use the spine's one draw form: both
    ranked 1 with outcome "draw"."""
    if not outcome:
        return None, {}, {}
    document: dict[str, Any] = {"cricsheet": outcome}
    ranks: dict[str, int] = {}
    methods: dict[str, str] = {}
    winner = outcome.get("winner")
    result = outcome.get("result")
    decider = outcome.get("eliminator") or outcome.get("bowl_out")
    if result == "no result":
        document["outcome"] = "no_result"
    elif winner is not None or decider is not None:
        winner = winner or decider
        document["outcome"] = "win"
        document["winner"] = winner
        for team in teams:
            ranks[team] = 1 if team == winner else 2
        if result == "tie":
            document["tie"] = True
            document["decided_by"] = "eliminator" if outcome.get("eliminator") else "bowl_out"
        if outcome.get("by"):
            document["by"] = outcome["by"]
        method = outcome.get("method")
        if method in WIN_METHODS:
            methods[winner] = WIN_METHODS[method]
    else:
        document["outcome"] = "draw"
        document["tie"] = result == "tie"
        for team in teams:
            ranks[team] = 1
    if outcome.get("method"):
        document["method"] = outcome["method"]
    return document, ranks, methods


def import_paths(
    paths: Iterable[str | Path],
    *,
    actor: Actor = ACTOR,
    progress: Callable[[MatchResult], None] | None = None,
    workers: int = 1,
) -> ImportSummary:
    """The one entry point of the command, the Celery task and the samples."""
    return Importer(actor=actor).run(paths, progress=progress, workers=workers)


def import_bytes(raw: bytes, *, filename: str, actor: Actor = ACTOR) -> MatchResult:
    """Import one uploaded file (an admin upload or an API client)."""
    return Importer(actor=actor).import_file(raw, filename=filename)


__all__ = [
    "ImportSummary",
    "Importer",
    "MatchResult",
    "Outcome",
    "import_bytes",
    "import_paths",
    "iter_sources",
    "match_id_of",
]
