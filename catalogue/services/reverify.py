"""The reverification queue: rows a person should read again, queued by rule and worked by
an editor in the console."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.services import audit_record
from catalogue.identity import RULES_VERSION
from catalogue.models import Product, Reverification

if TYPE_CHECKING:
    from accounts.models import User

OLD_RULES = "identity rules version is old"


@transaction.atomic
def reverifications_queue_old_rules(*, actor: User | None = None) -> int:
    """Queue every live product last resolved under older identity rules than the current
    ones, once: a product already waiting for the same reason is not queued again. Returns
    how many were queued."""
    waiting = Reverification.objects.filter(
        product=OuterRef("pk"), reason=OLD_RULES, done_at__isnull=True
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
        for pk, version in old.filter(~Exists(waiting)).values_list("pk", "identity_rules_version")
    ]
    Reverification.objects.bulk_create(rows)
    if rows:
        audit_record(
            actor=actor,
            action="reverification.queue",
            entity=Reverification,
            key=None,
            detail={"reason": OLD_RULES, "queued": len(rows)},
        )
    return len(rows)


@transaction.atomic
def reverification_done(
    *, reverification: Reverification, result: str, actor: User, note: str
) -> Reverification:
    """A person worked one queued row: what they found (``result``) and why. A row done
    already is refused; holds a row lock on it."""
    if not (result or "").strip():
        raise ValidationError({"result": "Say what the fresh read found."})
    if not (note or "").strip():
        raise ValidationError({"note": "Say how it was checked."})
    row = Reverification.objects.select_for_update().get(pk=reverification.pk)
    if row.done_at is not None:
        raise ValidationError(f"Already done on {row.done_at:%Y-%m-%d %H:%M}.")
    row.done_at = timezone.now()
    row.result = result.strip()[:200]
    row.detail = {**(row.detail or {}), "note": note.strip(), "done_by": str(actor.pk)}
    row.save(update_fields=["done_at", "result", "detail"])
    audit_record(
        actor=actor,
        action="reverification.done",
        entity=Reverification,
        key=row.pk,
        detail={"reason": row.reason, "result": row.result, "note": note.strip()},
    )
    return row
