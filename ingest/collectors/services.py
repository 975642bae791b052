"""Collector writes: registering a source, switching it, and collecting one feed file."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from accounts.models import JobKind, User
from accounts.services import audit_record, job_start
from catalogue import services as catalogue_services
from catalogue.collection_records import (
    CollectionRun,
    RejectedObservation,
    RejectionStage,
    RunStatus,
    Source,
)
from catalogue.identity.keys import listed_quantity
from catalogue.identity.quantity import quantity_refusal
from catalogue.models import Location, ObservationSourceKind
from ingest.collectors.adapters import adapter_for, resolve_path
from ingest.collectors.builtin import BUILTIN_SOURCES
from ingest.collectors.feeds import FeedError, FeedRow, Rejection, safe_payload, safe_text
from ingest.collectors.politeness import SourceBusy as SourceBusy
from ingest.collectors.politeness import run_release, run_start
from omnium.progress import ProgressCallback


class SourceDisabled(Exception):
    def __init__(self, source: Source) -> None:
        self.source = source
        super().__init__(f"source {source.slug} is disabled: nothing collected")


@transaction.atomic
def source_register_builtin(*, slug: str, actor: User | None = None) -> Source:
    """Create one of the development sources with its retailer and location (idempotent)."""
    existing = Source.objects.filter(slug=slug).first()
    if existing is not None:
        return existing
    spec = BUILTIN_SOURCES.get(slug)
    if spec is None:
        known = ", ".join(sorted(BUILTIN_SOURCES))
        raise ValidationError({"slug": f"No source {slug!r}; the built-in ones are {known}."})
    retailer = catalogue_services.retailer_ensure(
        slug=spec.retailer_slug, name=spec.retailer_name, actor=actor
    )
    location = catalogue_services.location_ensure(
        retailer=retailer,
        code=spec.location_code,
        name=spec.location_name,
        currency=spec.currency,
        iata=spec.iata,
        country=spec.country,
        is_catalogue_only=spec.is_catalogue_only,
        actor=actor,
    )
    return Source.objects.create(
        slug=spec.slug,
        name=spec.name,
        feed_format=spec.feed_format,
        feed_path=spec.feed_path,
        location=location,
        identity_mode=spec.identity_mode,
        notes=spec.notes,
        permission_record=spec.permission_record,
    )


@transaction.atomic
def source_set_enabled(*, source: Source, enabled: bool, actor: User | None, note: str) -> Source:
    """The kill switch: a disabled source collects nothing until switched back on.

    ``note`` (why) is required. Each switch is an audit row (who, when, why, which way)
    and a line appended to the source's notes; switching to the state it is in records
    nothing."""
    if not note.strip():
        raise ValidationError({"note": "Say why the source is switched on or off."})
    # One switch at a time: the row is locked, then read.
    list(Source.objects.select_for_update().filter(pk=source.pk).values_list("pk"))
    source.refresh_from_db(fields=["enabled", "notes"])
    if source.enabled == enabled:
        return source
    source.enabled = enabled
    who = getattr(actor, "username", None) or "system"
    stamp = timezone.now().strftime("%Y-%m-%d %H:%M")
    line = f"[{stamp} {who}] {'enabled' if enabled else 'disabled'}: {note.strip()}"
    source.notes = f"{source.notes}\n{line}".strip()
    source.save(update_fields=["enabled", "notes", "updated_at"])
    audit_record(
        actor=actor,
        action="source.enable" if enabled else "source.disable",
        entity=source,
        key=source.pk,
        detail={"slug": source.slug, "note": note.strip()},
    )
    return source


@dataclass
class _Tally:
    rows_read: int = 0
    products_seen: int = 0
    listings_created: int = 0
    products_created: int = 0
    prices_written: int = 0
    prices_already_known: int = 0
    skipped_no_price: int = 0
    rejected: int = 0
    prices_rejected: int = 0

    def __post_init__(self) -> None:
        self.skips: Counter[str] = Counter()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _reject(run: CollectionRun, tally: _Tally, rejection: Rejection, stage: str) -> None:
    # Whatever the row held (a NUL, a lone surrogate), its rejection can be stored.
    RejectedObservation.objects.create(
        run=run,
        stage=stage,
        reason=rejection.reason,
        message=safe_text(rejection.message),
        source_sku=safe_text(rejection.source_sku)[:200],
        url=safe_text(rejection.url)[:1000],
        row_number=rejection.row_number,
        payload=safe_payload(rejection.payload),
    )
    tally.rejected += 1
    tally.skips[rejection.reason] += 1
    if rejection.reason == "no_price":
        tally.skipped_no_price += 1


def _row_refusal(row: FeedRow, *, now: datetime) -> tuple[str, str] | None:
    """(rule, sentence) for a row no listing or price may be made of: a time more than the
    allowed skew in the future, a price or was-price above its currency's ceiling, or a
    quantity no purchase has (negative, zero, an exponent, beyond the bounds of its unit).
    """
    if row.observed_at is not None:
        refused = catalogue_services.time_refusal(row.observed_at, now=now)
        if refused is not None:
            return refused
    for price in (row.price, row.was_price):
        if price is not None:
            refused = catalogue_services.price_refusal(price, row.currency)
            if refused is not None:
                return refused
    refused = quantity_refusal(
        listed_quantity(row.listed, vertical=row.vertical), vertical=row.vertical
    )
    if refused is not None:
        return refused[0], f"quantity: {refused[1]}"
    return None


def _locations_for(source: Source) -> Callable[[str], Location | None]:
    cache: dict[str, Location | None] = {"": source.location}

    def find(code: str) -> Location | None:
        if code not in cache:
            cache[code] = Location.objects.filter(code=code).first()
        return cache[code]

    return find


def _write_row(
    row: FeedRow,
    *,
    run: CollectionRun,
    source: Source,
    location: Location,
    carries_prices: bool,
    parser_version: str,
    book: catalogue_services.IdentityBook,
    fx: catalogue_services.FxBook,
    tally: _Tally,
) -> None:
    """One row, all or nothing: the sighting service is the row's transaction (with the
    price's own rejection, when the row's price cannot be recorded)."""
    if carries_prices and row.price_problem is not None:
        with transaction.atomic():
            _write_sighting(
                row,
                run=run,
                source=source,
                location=location,
                price=None,
                parser_version=parser_version,
                book=book,
                fx=fx,
                tally=tally,
            )
            reason, message = row.price_problem
            RejectedObservation.objects.create(
                run=run,
                stage=RejectionStage.COLLECT,
                reason=reason,
                message=message,
                source_sku=row.source_sku[:200],
                url=row.url,
                row_number=row.row_number,
                payload=row.payload,
            )
        tally.prices_rejected += 1
        tally.skips[reason] += 1
        return
    price = None
    if carries_prices:
        # A price-carrying adapter rejects a row without its price (no_price, or no time in
        # the mapping) before it gets here, or names the problem in ``price_problem``.
        assert row.price is not None and row.observed_at is not None
        price = catalogue_services.ObservedPrice(
            price=row.price,
            currency=row.currency,
            observed_at=row.observed_at,
            was_price=row.was_price,
            in_stock=row.in_stock,
            run_id=run.pk,
            source_kind=ObservationSourceKind.FEED,
        )
    result = _write_sighting(
        row,
        run=run,
        source=source,
        location=location,
        price=price,
        parser_version=parser_version,
        book=book,
        fx=fx,
        tally=tally,
    )
    if carries_prices:
        if result.price_written:
            tally.prices_written += 1
        else:
            tally.prices_already_known += 1


def _write_sighting(
    row: FeedRow,
    *,
    run: CollectionRun,
    source: Source,
    location: Location,
    price: catalogue_services.ObservedPrice | None,
    parser_version: str,
    book: catalogue_services.IdentityBook,
    fx: catalogue_services.FxBook,
    tally: _Tally,
) -> catalogue_services.SightingResult:
    result = catalogue_services.listing_record_sighting(
        sighting=catalogue_services.Sighting(
            location=location,
            source_sku=row.source_sku,
            listed=row.listed,
            vertical=row.vertical,
            seen_at=row.observed_at or run.started_at,
            category=row.category,
            url=row.url,
            identity_mode=source.identity_mode,
        ),
        book=book,
        price=price,
        raw=catalogue_services.RawFragment(
            payload=row.payload,
            parser_version=parser_version,
            run_id=run.pk,
            row_number=row.row_number,
        ),
        fx=fx,
    )
    tally.products_seen += 1
    tally.listings_created += result.listing_created
    tally.products_created += result.product_created
    return result


@dataclass(frozen=True)
class Collected:
    """What ``source_collect`` did: the finished run, and the id of the suggest task it sent
    (None when the run failed or no suggestions were asked for)."""

    run: CollectionRun
    suggest_task_id: str | None = None


def source_collect(
    *,
    source: Source,
    path: str | Path | None = None,
    actor: User | None = None,
    triggered_by: str = "",
    progress: ProgressCallback | None = None,
    suggest: bool = False,
) -> Collected:
    """Collect one feed file for ``source``: the one collection path of the CLI, Celery and
    the sample loader.

    The whole file is decoded and parsed first: a file that cannot be collected (a byte
    that is not UTF-8, a NUL, broken quoting, a number out of range, a document nested too
    deep, a missing column) raises ``FeedError`` after recording a failed run with one
    rejection naming the rule and the true line; none of its rows is written. The rows then
    load in one transaction for the whole run, each row in a savepoint of its own: a row
    that cannot be written becomes a RejectedObservation with its reason and the run
    carries on; anything else rolls every row back and leaves the run failed with its
    error. Collecting the same file again writes no new listing, product, observation or
    raw record.

    ``progress`` (``omnium.progress``) is told the file's row count first, then the rows
    read so far after each row.

    With ``suggest`` (the CLI and the Celery task ask for it), a succeeded run sends the
    suggest task: what the new rows suggest waits for a person, in a task of its own, so a
    slow or failed suggest never fails the collection. Called outside a transaction, as the
    CLI and Celery do, the run's rows are committed by then.
    """
    run = _collect(source=source, path=path, triggered_by=triggered_by, progress=progress)
    if suggest and run.status == RunStatus.SUCCEEDED:
        # What the new rows suggest is a job of its own (the console lists it).
        job = job_start(kind=JobKind.SUGGEST, actor=actor, via="celery")
        return Collected(run=run, suggest_task_id=job.task_id)
    return Collected(run=run)


def _collect(
    *,
    source: Source,
    path: str | Path | None,
    triggered_by: str,
    progress: ProgressCallback | None,
) -> CollectionRun:
    if not source.enabled:
        raise SourceDisabled(source)
    if not path and not source.feed_path:
        raise ValidationError({"path": f"Source {source.slug} has no feed file; give --file."})
    file_path = resolve_path(path or source.feed_path)
    adapter = adapter_for(source.feed_format)
    if not file_path.is_file():
        raise FeedError(file_path, "file", "does not exist", reason="no_file")
    carries_prices = adapter.carries_prices(source.mapping)

    # The source's politeness: its concurrency limit and the delay between runs.
    run = run_start(
        source=source,
        file_name=file_path.name,
        file_sha256=file_sha256(file_path),
        fx_source="catalogue FxRate table",
        fx_fetched_at=timezone.now(),
        triggered_by=triggered_by[:200],
    )
    try:
        # The whole file is decoded and parsed before anything is written.
        items = list(adapter.rows(file_path, mapping=source.mapping))
    except FeedError as exc:
        _reject_file(run, exc)
        run_release(run)
        raise
    if progress:
        progress(0, total=len(items), step=f"collecting {file_path.name}")
    tally = _Tally()
    try:
        # One transaction for the run: its rows and its account commit together, or none
        # of its rows does and the run is recorded as failed.
        with transaction.atomic():
            _load(
                items,
                run=run,
                source=source,
                carries_prices=carries_prices,
                parser_version=adapter.parser_version,
                tally=tally,
                progress=progress,
            )
            return _finish(run, tally, status=RunStatus.SUCCEEDED)
    except Exception as exc:
        _finish(run, _Tally(), status=RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        run_release(run)


def _reject_file(run: CollectionRun, error: FeedError) -> None:
    """A file that cannot be collected: the run fails with one rejection naming the rule
    and the line, and none of the file's rows is written."""
    RejectedObservation.objects.create(
        run=run,
        stage=RejectionStage.COLLECT,
        reason=error.reason,
        message=safe_text(str(error)),
        row_number=error.line,
        payload=safe_payload(
            {"file": Path(error.path).name, "place": error.place, "line": error.excerpt}
        ),
    )
    _finish(run, _Tally(), status=RunStatus.FAILED, error=str(error))


def _load(
    items: list[FeedRow | Rejection],
    *,
    run: CollectionRun,
    source: Source,
    carries_prices: bool,
    parser_version: str,
    tally: _Tally,
    progress: ProgressCallback | None,
) -> None:
    book = catalogue_services.identity_book()
    fx = catalogue_services.FxBook()
    locations = _locations_for(source)
    for item in items:
        tally.rows_read += 1
        if isinstance(item, Rejection):
            _reject(run, tally, item, RejectionStage.COLLECT)
        elif (refused := _row_refusal(item, now=run.started_at)) is not None:
            _reject(
                run,
                tally,
                Rejection(
                    row_number=item.row_number,
                    reason=refused[0],
                    message=refused[1],
                    payload=item.payload,
                    source_sku=item.source_sku,
                    url=item.url,
                ),
                RejectionStage.COLLECT,
            )
        elif (location := locations(item.location_code)) is None:
            _reject(
                run,
                tally,
                Rejection(
                    row_number=item.row_number,
                    reason="unknown_location",
                    message=f"no location with code {item.location_code!r}",
                    payload=item.payload,
                    source_sku=item.source_sku,
                ),
                RejectionStage.INGEST,
            )
        else:
            try:
                _write_row(
                    item,
                    run=run,
                    source=source,
                    location=location,
                    carries_prices=carries_prices,
                    parser_version=parser_version,
                    book=book,
                    fx=fx,
                    tally=tally,
                )
            except (ValidationError, DataError, IntegrityError) as exc:
                # The row's savepoint is already rolled back, and with it any brand or line
                # the book cached while writing it: start a fresh book.
                book = catalogue_services.identity_book()
                messages = exc.messages if isinstance(exc, ValidationError) else [str(exc)]
                _reject(
                    run,
                    tally,
                    Rejection(
                        row_number=item.row_number,
                        reason="invalid_record",
                        message="; ".join(messages),
                        payload=item.payload,
                        source_sku=item.source_sku,
                    ),
                    RejectionStage.INGEST,
                )
        if progress:
            progress(tally.rows_read)


def _finish(run: CollectionRun, tally: _Tally, *, status: str, error: str = "") -> CollectionRun:
    run.status = status
    run.error = safe_text(error)
    run.finished_at = timezone.now()
    for name in (
        "rows_read",
        "products_seen",
        "listings_created",
        "products_created",
        "prices_written",
        "prices_already_known",
        "skipped_no_price",
        "rejected",
        "prices_rejected",
    ):
        setattr(run, name, getattr(tally, name))
    run.skip_counts = dict(tally.skips)
    if status == RunStatus.FAILED:
        # A failed run may stop between a row read and its outcome; keep the counts honest.
        run.rows_read = run.products_seen + run.rejected
    run.save()
    return run
