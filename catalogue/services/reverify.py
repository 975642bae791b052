"""The reverification queue and the verification record.

A row enters the queue for one of two reasons:

- ``OLD_RULES``: a live product last resolved under older identity rules than the current
  ones (once per rules version: a row worked under the current version is not queued
  again until the rules change);
- ``DATA_CHANGED``: a kept listing of a live product whose shop changed what it says the
  product is (``Listing.listed_changed_at``: its brand, title, variant, size as written or
  barcode, changed by a re-collection) later than the listing's last verification check,
  or at all when it was never checked.

An editor works a row in the console: what they found, how, and a verdict. Working it
records a verification run with one check per listing read (the row's listing, or every
kept listing of the row's product), each with the listed values as they stood, so the
next change is measured from that check. ``verification_record`` is the one writer of
runs and checks, for the editor's action and any other caller alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.utils import timezone

from accounts.services import audit_record
from catalogue.identity import RULES_VERSION
from catalogue.models import (
    LISTED_IDENTITY_COLUMNS,
    Listing,
    PriceObservation,
    Product,
    Reverification,
    VerificationCheck,
    VerificationRun,
)

if TYPE_CHECKING:
    from accounts.models import User

OLD_RULES = "identity rules version is old"
DATA_CHANGED = "listed data changed since the last check"


def _queue_lock(reason: str) -> None:
    """Take the queue's transaction-scoped advisory lock for ``reason``: two runs at once
    (beat's and a command's) queue one after the other, and the second, whose statements
    see the first's committed rows, queues nothing twice instead of failing on the
    one-waiting-row rule."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"reverify:{reason}"]
        )


@transaction.atomic
def reverifications_queue_old_rules(*, actor: User | None = None) -> int:
    """Queue every live product last resolved under older identity rules than the current
    ones, once per rules version: a product waiting for the same reason, or worked already
    under the current rules, is not queued again. Returns how many were queued."""
    _queue_lock(OLD_RULES)
    held = Reverification.objects.filter(product=OuterRef("pk"), reason=OLD_RULES).filter(
        Q(done_at__isnull=True) | Q(detail__current=RULES_VERSION)
    )
    old = Product.objects.canonical().filter(identity_rules_version__lt=RULES_VERSION)
    now = timezone.now()
    rows = [
        Reverification(
            product_id=pk,
            reason=OLD_RULES,
            queued_at=now,
            detail={"rules_version": version, "current": RULES_VERSION},
        )
        for pk, version in old.filter(~Exists(held)).values_list("pk", "identity_rules_version")
    ]
    return _queued(rows, reason=OLD_RULES, actor=actor)


def _queued(rows: list[Reverification], *, reason: str, actor: User | None) -> int:
    """Write the queued rows, with one audit row for the run when there are any."""
    Reverification.objects.bulk_create(rows)
    if rows:
        audit_record(
            actor=actor,
            action="reverification.queue",
            entity=Reverification,
            key=None,
            detail={"reason": reason, "queued": len(rows)},
        )
    return len(rows)


def _listed(listing: Listing) -> dict[str, str | None]:
    return {column: getattr(listing, column) for column in LISTED_IDENTITY_COLUMNS}


@transaction.atomic
def reverifications_queue_changed_data(*, actor: User | None = None) -> int:
    """Queue every kept listing of a live product whose listed identity (brand, title,
    variant, size as written, barcode) a re-collection changed later than its last
    verification check (or at all, when it was never checked), once: a listing already
    waiting for the same reason is not queued again. Each row says when the data changed,
    when it was last checked, what it says now and what that check recorded. Returns how
    many were queued."""
    _queue_lock(DATA_CHANGED)
    last_check = VerificationCheck.objects.filter(listing=OuterRef("pk")).order_by(
        "-checked_at", "-pk"
    )
    waiting = Reverification.objects.filter(
        listing=OuterRef("pk"), reason=DATA_CHANGED, done_at__isnull=True
    )
    changed = (
        Listing.objects.filter(
            listed_changed_at__isnull=False,
            ignored_at__isnull=True,
            product__merged_into__isnull=True,
        )
        .annotate(
            last_checked_at=Subquery(last_check.values("checked_at")[:1]),
            last_check_detail=Subquery(last_check.values("detail")[:1]),
        )
        .filter(Q(last_checked_at__isnull=True) | Q(listed_changed_at__gt=F("last_checked_at")))
        .filter(~Exists(waiting))
        .order_by("listed_changed_at", "pk")
    )
    now = timezone.now()
    rows = []
    for listing in changed:
        was = (listing.last_check_detail or {}).get("listed")
        changed_at = listing.listed_changed_at
        assert changed_at is not None  # filtered above
        rows.append(
            Reverification(
                product_id=listing.product_id,
                listing=listing,
                reason=DATA_CHANGED,
                queued_at=now,
                detail={
                    "changed_at": changed_at.isoformat(),
                    "last_checked_at": (
                        listing.last_checked_at.isoformat() if listing.last_checked_at else None
                    ),
                    "listed": _listed(listing),
                    "was": was,
                },
            )
        )
    return _queued(rows, reason=DATA_CHANGED, actor=actor)


@dataclass(frozen=True)
class CheckRead:
    """One listing read against its shop: the verdict and, when read, what the shop shows
    live. ``note`` is how it was read."""

    listing: Listing
    verdict: str
    note: str = ""
    url: str = ""
    live_name: str = ""
    live_gtin: str = ""
    live_price: Decimal | None = None
    live_currency: str = ""
    live_size_ml: Decimal | None = None
    live_in_stock: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@transaction.atomic
def verification_record(
    *,
    checks: Sequence[CheckRead],
    mode: str,
    actor: User | None,
    seed: int | None = None,
    per_source: int | None = None,
) -> VerificationRun:
    """Record one verification run and each of its checks with its verdict, in one
    transaction with one audit row. Each check keeps the listing's listed identity as it
    stood (``detail.listed``: the baseline a later re-collection is measured against) and
    the listing's latest observation. Refused, writing nothing: no checks, an unknown mode
    or verdict, a listing checked twice in one run."""
    if mode not in VerificationRun.Mode.values:
        raise ValidationError(
            {"mode": f"{mode!r} is not one of {', '.join(VerificationRun.Mode.values)}."}
        )
    if not checks:
        raise ValidationError("A verification run checks at least one listing.")
    for read in checks:
        if read.verdict not in VerificationCheck.Verdict.values:
            raise ValidationError(
                {
                    "verdict": f"{read.listing}: {read.verdict!r} is not one of "
                    f"{', '.join(VerificationCheck.Verdict.values)}."
                }
            )
    ids = [read.listing.pk for read in checks]
    if len(set(ids)) != len(ids):
        raise ValidationError("A run checks each listing once.")
    latest = dict(
        PriceObservation.objects.filter(listing_id__in=ids)
        .order_by("listing_id", "-observed_at")
        .distinct("listing_id")
        .values_list("listing_id", "id")
    )
    now = timezone.now()
    run = VerificationRun.objects.create(
        started_at=now, finished_at=now, seed=seed, n=len(checks), per_source=per_source,
        mode=mode,
    )  # fmt: skip
    VerificationCheck.objects.bulk_create(
        VerificationCheck(
            run=run,
            listing=read.listing,
            observation_id=latest.get(read.listing.pk),
            verdict=read.verdict,
            checked_at=now,
            url=read.url or read.listing.url,
            live_name=read.live_name,
            live_gtin=read.live_gtin,
            live_price=read.live_price,
            live_currency=read.live_currency,
            live_size_ml=read.live_size_ml,
            live_in_stock=read.live_in_stock,
            detail={**read.extra, "listed": _listed(read.listing), "note": read.note.strip()},
        )
        for read in checks
    )
    audit_record(
        actor=actor,
        action="verification.record",
        entity=VerificationRun,
        key=run.pk,
        detail={
            "mode": mode,
            "n": run.n,
            "verdicts": dict(Counter(read.verdict for read in checks)),
            "listings": [str(pk) for pk in ids],
        },
    )
    return run


@transaction.atomic
def reverification_done(
    *,
    reverification: Reverification,
    result: str,
    actor: User,
    note: str,
    verdict: str = VerificationCheck.Verdict.AGREES,
) -> Reverification:
    """A person worked one queued row: what they found (``result``), how (``note``) and
    the verdict on what they read. Records a verification run (mode ``editor``) with one
    check per listing read: the row's listing, or every kept listing of the row's product
    (none when it has none). A row done already is refused; holds a row lock on it."""
    if not (result or "").strip():
        raise ValidationError({"result": "Say what the fresh read found."})
    if not (note or "").strip():
        raise ValidationError({"note": "Say how it was checked."})
    if verdict not in VerificationCheck.Verdict.values:
        raise ValidationError(
            {"verdict": f"{verdict!r} is not one of {', '.join(VerificationCheck.Verdict.values)}."}
        )
    row = Reverification.objects.select_for_update().get(pk=reverification.pk)
    if row.done_at is not None:
        raise ValidationError(f"Already done on {row.done_at:%Y-%m-%d %H:%M}.")
    if row.listing_id is not None:
        listings = list(Listing.objects.filter(pk=row.listing_id))
    elif row.product_id is not None:
        listings = list(
            Listing.objects.filter(product_id=row.product_id, ignored_at__isnull=True).order_by(
                "pk"
            )
        )
    else:
        listings = []
    run = None
    if listings:
        run = verification_record(
            checks=[
                CheckRead(
                    listing=listing, verdict=verdict, note=note, extra={"reverification": row.pk}
                )
                for listing in listings
            ],
            mode=VerificationRun.Mode.EDITOR,
            actor=actor,
        )
    row.done_at = timezone.now()
    row.result = result.strip()[:200]
    row.detail = {
        **(row.detail or {}),
        "note": note.strip(),
        "done_by": str(actor.pk),
        "verdict": verdict,
        "run": run.pk if run else None,
    }
    row.save(update_fields=["done_at", "result", "detail"])
    audit_record(
        actor=actor,
        action="reverification.done",
        entity=Reverification,
        key=row.pk,
        detail={
            "reason": row.reason,
            "result": row.result,
            "note": note.strip(),
            "verdict": verdict,
            "run": run.pk if run else None,
        },
    )
    return row
