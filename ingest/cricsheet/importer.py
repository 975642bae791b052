"""Import Cricsheet match files: one file, one match, one transaction.

- The whole file is validated first (``validate.load``); a rejected file writes no row.
- Idempotent: a match id already in the external-id map whose live state follows these
  very bytes (the SHA-256 of the last file applied to it) is unchanged and nothing is
  written (not even parsed). Any other file for a known match id, an older one included,
  is the same fixture with new content, applied whole by ``cricket.source_revisions``
  (balls changed, added or removed, innings and match facts; reason "source revision").
  (The revision number proves nothing: Cricsheet renamed players in old files without
  bumping it.)
- Players are resolved through their registry ids (read once per run, never by name); a
  match's rows travel in one batch and its deliveries in one COPY.

This module reads the files and decides what each one is; writing a new match is cricket's
``cricket.loading.match_load``, and a revised one becomes corrections through
``cricket.source_revisions``.

Data: Cricsheet (https://cricsheet.org), Open Data Commons Attribution License 1.0.
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asgiref.local import Local
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, connections

from cricket.corrections import CorrectionReview
from cricket.loading import LoadedMatch, MatchLoader, MatchSubmission, match_load
from cricket.services import SOURCE
from cricket.source_revisions import SOURCE_REVISION, match_revise
from cricket.stats.refresh import statistics_refresh
from ingest.cricsheet.validate import CricsheetRejected, Problem, load
from omnium.archives import (
    ArchiveRefused,
    LimitExceeded,
    read_file,
    tar_members,
    zip_members,
    zip_names,
)
from omnium.db import analyze
from omnium.lifeline import end_with_parent
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    SubmissionKind,
    TimelineItem,
)
from sports.querysets import follow_merges
from sports.services.common import Actor

ACTOR = "integration:cricsheet"


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
    # A revised file of a known match: the delivery revisions it wrote, and what changed
    # (``["2 deliveries", "penalty runs", "outcome"]``).
    revisions: list[int] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)


@dataclass
class ImportSummary:
    new: int = 0
    unchanged: int = 0
    updated: int = 0
    rejected: int = 0
    deliveries: int = 0
    seconds: float = 0.0
    rejections: list[str] = field(default_factory=list)
    # What the updated files changed: balls revised, and each kind of fact, in order.
    revised_deliveries: int = 0
    revised_facts: list[str] = field(default_factory=list)

    def add(self, result: MatchResult) -> None:
        setattr(self, result.outcome, getattr(self, result.outcome) + 1)
        self.deliveries += result.deliveries
        if result.error:
            self.rejections.append(result.error)
        for change in result.changes:
            count, _, word = change.partition(" ")
            if word.startswith("deliver") and count.isdigit():
                self.revised_deliveries += int(count)
            elif change not in self.revised_facts:
                self.revised_facts.append(change)

    def updated_text(self) -> str:
        """``1 updated: 2 deliveries, penalty runs, outcome``."""
        n = self.revised_deliveries
        words = [f"{n} deliver{'y' if n == 1 else 'ies'}"] if n else []
        words += self.revised_facts
        return f"{self.updated} updated" + (f": {', '.join(words)}" if words else "")

    def line(self) -> str:
        return (
            f"matches: {self.new} new, {self.unchanged} unchanged, {self.updated_text()}, "
            f"{self.rejected} rejected; {self.deliveries} deliveries; {self.seconds:.1f} s"
        )


# --- reading files, directories and archives ---------------------------------------------


def iter_sources(paths: Iterable[str | Path]) -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of every match file under ``paths``: JSON files, directories
    (searched recursively, in name order), ``.zip`` and ``.tar.gz``/``.tgz`` archives
    (read as a stream, never unpacked to disk). Non-JSON members (a README, an archive
    inside the archive) are skipped unopened.

    Every file and archive is read within the ``INGEST_*`` limits (``omnium.archives``): a
    file or archive over one, or an archive that cannot be read, is ``CricsheetRejected``
    naming the limit and the member, before or while it is inflated, never after."""
    for raw_path in paths:
        path = Path(raw_path)
        name = path.name.lower()
        try:
            if path.is_dir():
                for child in sorted(path.rglob("*")):
                    if child.is_file() and _readable(child.name):
                        yield from iter_sources([child])
            elif name.endswith(".zip"):
                for member, raw in zip_members(path, accept=_is_json):
                    yield f"{path.name}:{member}", raw
            elif name.endswith((".tar.gz", ".tgz", ".tar")):
                for member, raw in tar_members(path, accept=_is_json):
                    yield f"{path.name}:{member}", raw
            elif name.endswith(".json"):
                yield str(path), read_file(path)
            else:
                raise CricsheetRejected(
                    str(path),
                    [
                        Problem(
                            "(file)", "file-type", "is not a .json file, a directory or an archive"
                        )
                    ],
                )
        except LimitExceeded as exc:
            raise CricsheetRejected(
                exc.where, [Problem("(file)", "size-limit", exc.reason)]
            ) from None
        except ArchiveRefused as exc:
            raise CricsheetRejected(
                exc.where, [Problem("(archive)", "archive", exc.reason)]
            ) from None


def _is_json(name: str) -> bool:
    return name.lower().endswith(".json")


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
            try:
                total += sum(1 for m in zip_names(path) if _is_json(m))
            except ArchiveRefused:  # the import itself names what is wrong
                return None
        elif path.name.lower().endswith(".json"):
            total += 1
        else:
            return None
    return total


def match_id_of(filename: str) -> str:
    """Cricsheet names each file ``<match id>.json``; the id is text (``wi_211973``)."""
    base = filename.rsplit(":", 1)[-1].replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-5] if base.lower().endswith(".json") else base


# --- the import ----------------------------------------------------------------------------


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
        root: Competition | None = None,
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
        (``rebuild_cricket_statistics``) instead of refreshing match by match.

        ``root``: an existing tree root (``cricket.loading.cricket_root``) under which
        new competitions are filed, so a Games and its cricket share one tree."""
        self.actor = actor
        self.kind, self.note = kind, note
        # A revised file of a known match becomes corrections with this reason (and, from a
        # reviewed batch, the reviewer's approval on each history row).
        self.correction_reason, self.correction_review = correction_reason, correction_review
        self.refresh = refresh
        self.shared = shared
        self.retries = 0  # shared mode: matches tried again (reported with each result)
        self.unrefreshed: list[Any] = []
        # The rows and ids this run's matches reuse (the write half's state).
        self.root = root
        self.loader = MatchLoader(shared=shared, root=root)
        self.summary = ImportSummary()
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
        except CricsheetRejected as exc:  # a path that is no match file, an archive refused
            result = MatchResult(exc.filename, Outcome.REJECTED, error=str(exc))
            self.summary.add(result)
            if progress:
                progress(result)
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
            "root": self.root,
        }
        processes = [
            context.Process(
                target=_worker,
                args=(inbox, outbox, options, self.refresh, os.getpid()),
                daemon=True,
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
            # Files still buffered for a worker that stopped early would make this process
            # wait for ever at exit, flushing them into a pipe nobody reads: drop them.
            for inbox in inboxes:
                inbox.cancel_join_thread()
                inbox.close()
        for exc in unreadable:
            result = MatchResult(exc.filename, Outcome.REJECTED, error=str(exc))
            self.summary.add(result)
            if progress:
                progress(result)
        if failures:
            raise RuntimeError("import worker failed:\n" + "\n".join(failures))

    def import_file(self, raw: bytes, *, filename: str) -> MatchResult:
        match_id = match_id_of(filename)
        sha = hashlib.sha256(raw).hexdigest()
        # In a run, the block's ids were looked up together.
        known = self.known.get(match_id) if self.known is not None else _known_fixture(match_id)
        if known is not None and known[1] == sha:
            return MatchResult(filename, Outcome.UNCHANGED, fixture_id=known[0])
        try:
            # Unknown dismissal kinds are named with every other problem, in one pass.
            document = load(raw, filename=filename, match_id=match_id, kinds=self.loader.kinds())
            if known is not None:
                # Same match id, different bytes: the same fixture (its source_ref) with new
                # content, applied as corrections of exactly the balls that differ.
                return self._revise(document, raw=raw, filename=filename, sha=sha, known=known)
            loaded = self._write_match(document, raw=raw, filename=filename, sha=sha)
            fixture, deliveries = loaded.fixture, loaded.deliveries
            self.unrefreshed.append(fixture.pk)
            if self.known is not None:  # the same id later in this block is now known
                self.known[match_id] = (fixture.pk, sha)
            else:  # a file on its own (an upload): its statistics now
                self._refresh_statistics()
        except CricsheetRejected as exc:
            return MatchResult(filename, Outcome.REJECTED, error=str(exc))
        except Exception as exc:
            self.loader.clear()
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

    def _write_match(self, document: dict, *, raw: bytes, filename: str, sha: str) -> LoadedMatch:
        attempt = 1
        while True:
            mark = self.loader.mark()
            try:
                return match_load(
                    document=document,
                    match_id=match_id_of(filename),
                    sha256=sha,
                    submission=self._submission(raw, filename),
                    actor=self.actor,
                    loader=self.loader,
                )
            except (IntegrityError, DatabaseError, ValidationError):
                # A key another process took meanwhile (a person, a node, a fixture code)
                # or a deadlock between two matches: nothing of this attempt remains, and
                # the next one starts from what is committed now.
                if not self.shared or attempt >= self.RETRIES:
                    raise
                attempt += 1
                self.retries += 1
                self.loader.rollback(mark)

    def _submission(self, raw: bytes, filename: str) -> MatchSubmission:
        """The submission a file is recorded as: this run's kind and note, and the
        member's own name (an archive member is ``archive:member``), its last 512
        characters."""
        return MatchSubmission(
            kind=self.kind,
            note=self.note,
            content=raw,
            original_filename=filename.rsplit(":", 1)[-1][-512:],
        )

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
        """A revised file of an imported match, applied whole (``match_revise``): what
        differs from the live state is revised (reason "source revision") and the fixture's
        log says so. A revision that changes what a revision cannot is rejected with nothing
        written. A file that changes nothing (a player renamed, say) is still recorded, so
        the next run knows it and the new name becomes an alias."""
        try:
            revised = match_revise(
                fixture_id=known[0],
                document=document,
                match_id=match_id_of(filename),
                sha256=sha,
                submission=self._submission(raw, filename),
                actor=self.actor,
                reason=self.correction_reason,
                review=self.correction_review,
            )
        except ValidationError as exc:
            raise CricsheetRejected(
                filename, [Problem("(file)", "source-revision", " ".join(exc.messages))]
            ) from None
        changed = revised.corrections
        if self.known is not None:  # the same file later in this block is now the live one
            self.known[match_id_of(filename)] = (revised.fixture.pk, sha)
        return MatchResult(
            filename,
            Outcome.UPDATED if changed.changed else Outcome.UNCHANGED,
            fixture_id=revised.fixture.pk,
            submission_id=revised.submission.pk,
            revisions=changed.revisions,
            changes=changed.labels if changed.changed else [],
        )


def _partition(match_id: str, workers: int) -> int:
    """The worker a match id goes to: stable across runs and processes."""
    return zlib.crc32(match_id.encode()) % workers


def _worker(inbox, outbox, options: dict, refresh: bool, parent: int) -> None:
    """One import process of a parallel run: a shared-mode importer over the files its
    inbox receives (until None), each result sent back as it is known.

    It ends with its parent (``omnium.lifeline``): killed, the parent can neither stop it
    nor read what it sends, so the match being written rolls back, the connection closes
    and the process exits without waiting to flush its queues."""
    # The fork copied the parent's connection objects, and with them any socket still open
    # (a connection the parent holds in a transaction is never really closed): a query here
    # would run inside the parent's session. Forget them without closing (closing would end
    # the parent's session too); this process connects afresh.
    connections._connections = Local(connections.thread_critical)  # type: ignore[attr-defined]
    try:
        end_with_parent(parent)
        importer = Importer(**options, refresh=refresh, shared=True)
        importer.run_sources(
            iter(inbox.get, None), progress=lambda result: outbox.put(("result", result))
        )
        outbox.put(("done", importer.retries))
    except BaseException:
        if os.getppid() != parent:
            # Nobody reads either queue now: what is buffered for them would hold this
            # process at exit for ever.
            outbox.cancel_join_thread()
            inbox.cancel_join_thread()
        else:  # a failure, or a SIGTERM sent to this worker alone: the parent is told
            outbox.put(("failed", traceback.format_exc()))
    finally:
        connections.close_all()


def _known_fixture(match_id: str) -> tuple[Any, str] | None:
    """(fixture id, SHA-256 of the last file applied to it) for a known match id."""
    return _known_fixtures([match_id]).get(match_id)


def _known_fixtures(match_ids: list[str]) -> dict[str, tuple[Any, str]]:
    """``_known_fixture`` for many match ids: the id map, then the newest ``cricket.import``
    item of each fixture's log (the first import or the last revision applied), whose
    digest names the file the live state follows. A file seen long ago is not that file:
    submitted again after a later one, it is compared like any other."""
    rows = ExternalIdMap.objects.filter(
        source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id__in=match_ids
    ).values_list("external_id", "internal_id")
    links = dict(rows)
    # A merged fixture answers as its survivor, whose log holds the later items.
    merged = Fixture.objects.filter(pk__in=links.values(), merged_into__isnull=False)
    survivors: dict[Any, Any] = {f: f for f in links.values()}
    survivors.update({f: follow_merges(Fixture, f) for f in merged.values_list("pk", flat=True)})
    shas = dict(
        TimelineItem.objects.filter(
            fixture_id__in=set(survivors.values()), event_type="cricket.import"
        )
        .order_by("fixture_id", "-seq")
        .distinct("fixture_id")
        .values_list("fixture_id", "payload__sha256")
    )
    return {
        match_id: (fixture_id, shas.get(survivors[fixture_id]) or "")
        for match_id, fixture_id in links.items()
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
    analyze(*_GROWN_TABLES)


def _synchronous_commit(on: bool) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SET synchronous_commit TO {'on' if on else 'off'}")


def import_paths(
    paths: Iterable[str | Path],
    *,
    actor: Actor = ACTOR,
    progress: Callable[[MatchResult], None] | None = None,
    workers: int = 1,
    root: Competition | None = None,
) -> ImportSummary:
    """The one entry point of the command, the Celery task and the samples. ``root``: file
    new competitions under this existing tree root (``cricket.loading.cricket_root``)."""
    return Importer(actor=actor, root=root).run(paths, progress=progress, workers=workers)


def check_paths(paths: Iterable[str | Path]) -> list[str]:
    """Every contract problem of the files under ``paths`` (each rejected file's message, as
    an import would name it), writing nothing: what ``import_cricsheet --strict`` checks
    before it writes any file. A path refused as a whole (an archive over a limit or that
    cannot be read) ends the check with its own rejection."""
    kinds = Importer().loader.kinds()
    rejections = []
    try:
        for filename, raw in iter_sources(paths):
            try:
                load(raw, filename=filename, match_id=match_id_of(filename), kinds=kinds)
            except CricsheetRejected as exc:
                rejections.append(str(exc))
    except CricsheetRejected as exc:
        rejections.append(str(exc))
    return rejections


def import_bytes(raw: bytes, *, filename: str, actor: Actor = ACTOR) -> MatchResult:
    """Import one uploaded file (an admin upload or an API client)."""
    return Importer(actor=actor).import_file(raw, filename=filename)


__all__ = [
    "ImportSummary",
    "Importer",
    "MatchResult",
    "Outcome",
    "check_paths",
    "import_bytes",
    "import_paths",
    "iter_sources",
    "match_id_of",
]
