"""Product merges: a person's decision, recorded and reversible."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.services import audit_record
from catalogue.models import (
    Award,
    Listing,
    Override,
    Product,
    ProductMerge,
)
from catalogue.services.common import _by, _record_history
from catalogue.services.rederive import _OVERRIDE_FIELDS
from curation.models import MergeCandidate, MergeLevel

if TYPE_CHECKING:
    from accounts.models import User

# The rows a merge moves or rewrites, and so the rows an undo puts back.
_Restorable = Product | Listing | Award


def _row(obj: models.Model) -> dict[str, Any]:
    """Every column of a row as plain JSON values, exact enough to compare and restore.

    Not DjangoJSONEncoder: it drops microseconds from datetimes, and an undo must put
    ``updated_at`` back to the microsecond.
    """
    row: dict[str, Any] = {}
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if value is None or isinstance(f, models.JSONField):
            row[f.attname] = value
        elif isinstance(value, datetime):
            row[f.attname] = value.isoformat()
        elif isinstance(value, bool | int | str):
            row[f.attname] = value
        else:  # Decimal, UUID, date
            row[f.attname] = str(value)
    return row


def _column_value(model: type[models.Model], attname: str, value: Any) -> Any:
    """A snapshot value back in the column's Python type."""
    f = next(f for f in model._meta.concrete_fields if f.attname == attname)
    if value is None or isinstance(f, models.JSONField):
        return value
    return f.to_python(value)


def _put_back(
    model: type[_Restorable], pk: UUID | str, before: dict[str, Any], written: dict[str, Any]
) -> list[str]:
    """Return each column a merge wrote to the value ``before`` it, where it still holds
    what the merge wrote; a column someone changed since keeps their value (listed in the
    return). When the row is then exactly as before, ``updated_at`` goes back too, so an
    untouched merge and undo leave no trace on the row."""
    current = _row(model.objects.select_for_update().get(pk=pk))
    values: dict[str, Any] = {}
    kept: list[str] = []
    for column, merge_value in written.items():
        if current[column] == merge_value:
            values[column] = before[column]
        else:
            kept.append(column)
    after = {**current, **values}
    if all(after[c] == before[c] for c in before if c != "updated_at"):
        values["updated_at"] = before["updated_at"]
    elif "updated_at" in before:
        values["updated_at"] = timezone.now().isoformat()
    # update() rather than save(): auto_now would otherwise stamp updated_at anew.
    model.objects.filter(pk=pk).update(**{c: _column_value(model, c, v) for c, v in values.items()})
    return kept


# Fields the survivor takes from the merged row when it has no value of its own (M7), in
# groups that move together, with the override field that makes each group a person's.
_QUANTITY_COLUMNS = _OVERRIDE_FIELDS[Override.Field.QUANTITY] + ("size_value", "size_unit")
_INHERITED_GROUPS: list[tuple[str, tuple[str, ...], str | None]] = [
    ("quantity", _QUANTITY_COLUMNS, Override.Field.QUANTITY),
    ("category", ("category",), Override.Field.CATEGORY),
    ("line", ("line_id",), Override.Field.LINE),
    ("brand", ("brand_id",), None),
    ("strength", ("abv",), None),
    ("origin", ("country_of_origin",), None),
]
_IMAGE_COLUMNS = ("image_url", "thumb_url", "image_source", "image_checked")


def _lacks(product: Product, group: str, columns: tuple[str, ...]) -> bool:
    if group == "quantity":
        # A quantity the rules could not read is as good as none; a stated one is kept.
        return product.quantity_state != "stated"
    return all(getattr(product, c) in (None, "") for c in columns)


def _inherit(
    survivor: Product, loser: Product, *, note: str, confirm_two_barcodes: bool
) -> tuple[list[str], dict[str, Any]]:
    """Apply M7 to ``survivor`` in memory; return the columns changed and the record."""
    changed: list[str] = []
    record: dict[str, Any] = {}
    if survivor.gtin and loser.gtin and survivor.gtin != loser.gtin:
        # Two barcodes are a veto no rule overrides: only a person may confirm the pair.
        if not confirm_two_barcodes:
            raise ValidationError(
                {
                    "confirm_two_barcodes": (
                        f"The products carry different barcodes ({survivor.gtin} and "
                        f"{loser.gtin}); only a person who has checked may confirm them."
                    )
                }
            )
        record["barcode"] = {"won": survivor.gtin, "dropped": loser.gtin, "why": note}
    elif not survivor.gtin and loser.gtin:
        # The survivor's own shops never published this barcode: gtin_source says so.
        survivor.gtin, survivor.gtin_source = loser.gtin, "merge"
        changed += ["gtin", "gtin_source"]
        record["barcode"] = {"inherited": loser.gtin, "from": str(loser.pk)}
    if not survivor.image_url and loser.image_url:
        for column in _IMAGE_COLUMNS:
            setattr(survivor, column, getattr(loser, column))
        changed += list(_IMAGE_COLUMNS)
        record["image"] = {"from": str(loser.pk), "source": loser.image_source}
    decided = set(
        Override.objects.filter(entity_type="product", entity_key=str(survivor.pk)).values_list(
            "field", flat=True
        )
    )
    taken: list[str] = []
    for group, columns, override_field in _INHERITED_GROUPS:
        if override_field in decided:
            continue  # A person's value on the survivor, even an empty one, stands.
        if _lacks(survivor, group, columns) and not _lacks(loser, group, columns):
            for column in columns:
                setattr(survivor, column, getattr(loser, column))
            changed += list(columns)
            taken.append(group)
    missing = {k: v for k, v in loser.attributes.items() if k not in survivor.attributes}
    if Override.Field.VARIATION in decided:
        missing.pop("variation", None)
    if missing:
        survivor.attributes = {**survivor.attributes, **missing}
        changed.append("attributes")
        taken.append("attributes")
    if taken:
        record["fields"] = {"from": str(loser.pk), "taken": taken}
    return changed, record


@transaction.atomic
def product_merge(
    *,
    loser: Product,
    survivor: Product,
    actor: User,
    note: str,
    confirm_two_barcodes: bool = False,
) -> ProductMerge:
    """Merge ``loser`` into ``survivor`` as a person decided, and record it.

    The loser keeps its row with ``merged_into`` set; its listings and awards move to the
    survivor; the survivor inherits by M7 (barcode, image, then the fields it lacks) and a
    person's override on it is never overwritten. Two different barcodes refuse unless
    ``confirm_two_barcodes`` (the note then says why). Holds row locks on both products,
    taken in key order so two merges of the same pair cannot deadlock.
    """
    if not (note or "").strip():
        raise ValidationError({"note": "Say why these are one product."})
    if loser.pk == survivor.pk:
        raise ValidationError("A product cannot be merged into itself.")
    rows = Product.objects.select_for_update().filter(pk__in=[loser.pk, survivor.pk])
    locked = {p.pk: p for p in rows.order_by("pk")}
    loser, survivor = locked[loser.pk], locked[survivor.pk]
    for product in (loser, survivor):
        if product.merged_into_id:
            raise ValidationError(f"{product} is already merged into another product.")

    from_before, to_before = _row(loser), _row(survivor)
    listings = list(Listing.objects.select_for_update().filter(product=loser).order_by("pk"))
    awards = list(Award.objects.select_for_update().filter(product=loser).order_by("pk"))
    changed, record = _inherit(
        survivor, loser, note=note, confirm_two_barcodes=confirm_two_barcodes
    )

    # The loser stops being live first: the survivor may take its barcode, and a barcode
    # is unique among live products only.
    loser.merged_into = survivor
    _by(loser, actor, f"merged: {note}").save(update_fields=["merged_into", "updated_at"])
    if changed:
        _by(survivor, actor, f"inherited in a merge: {note}")
        survivor.save(update_fields=[*changed, "updated_at"])
    Listing.objects.filter(pk__in=[x.pk for x in listings]).update(
        product=survivor, updated_at=timezone.now()
    )
    Award.objects.filter(pk__in=[x.pk for x in awards]).update(
        product=survivor, updated_at=timezone.now()
    )

    # A queued pair with the loser in it is about a row that no longer stands alone.
    superseded = list(
        MergeCandidate.objects.select_for_update()
        .filter(level=MergeLevel.PRODUCT, status=MergeCandidate.Status.OPEN)
        .filter(Q(left_id=loser.pk) | Q(right_id=loser.pk))
        .values_list("pk", flat=True)
    )
    MergeCandidate.objects.filter(pk__in=superseded).update(
        status=MergeCandidate.Status.SUPERSEDED, decided_at=timezone.now()
    )

    loser.refresh_from_db()
    survivor.refresh_from_db()
    survivor_row = _row(survivor)
    merge = ProductMerge.objects.create(
        from_product=loser,
        to_product=survivor,
        merged_by=actor,
        merged_at=timezone.now(),
        reason=note,
        detail={
            **record,
            # What the merge wrote to each row, so an undo can tell its own work from
            # a change someone made since.
            "from_written": {"merged_into_id": str(survivor.pk)},
            "to_written": {c: survivor_row[c] for c in _attnames(Product, changed)},
            "listings": [_row(x) for x in listings],
            "awards": [_row(x) for x in awards],
            "superseded_candidates": [str(pk) for pk in superseded],
        },
        from_snapshot=from_before,
        to_snapshot=to_before,
    )
    audit_record(
        actor=actor,
        action="product.merge",
        entity=loser,
        key=loser.pk,
        detail={
            "into": survivor.pk,
            "merge": merge.pk,
            "note": note,
            "listings": len(listings),
            "awards": len(awards),
            **record,
        },
    )
    return merge


def _attnames(model: type[models.Model], names: Iterable[str]) -> list[str]:
    by_name = {f.name: f.attname for f in model._meta.concrete_fields}
    by_name.update({f.attname: f.attname for f in model._meta.concrete_fields})
    return [by_name[n] for n in dict.fromkeys(names)]


@transaction.atomic
def product_unmerge(*, merge: ProductMerge, actor: User, note: str) -> ProductMerge:
    """Undo a merge from its record: both products, their listings and awards go back to
    what they were, except where a person changed something since (that stays, and the
    audit row lists it).

    Refused when the survivor has itself been merged since (undo that merge first). Holds
    row locks on the merge record and both products.
    """
    if not (note or "").strip():
        raise ValidationError({"note": "Say why this merge is undone."})
    merge = ProductMerge.objects.select_for_update().get(pk=merge.pk)
    if merge.undone_at is not None:
        raise ValidationError("This merge has already been undone.")
    rows = Product.objects.select_for_update().filter(
        pk__in=[merge.from_product_id, merge.to_product_id]
    )
    products = {p.pk: p for p in rows.order_by("pk")}
    loser, survivor = products[merge.from_product_id], products[merge.to_product_id]
    if survivor.merged_into_id:
        raise ValidationError(
            f"{survivor} has since been merged into another product; undo that merge first."
        )
    if loser.merged_into_id != survivor.pk:
        raise ValidationError(f"{loser} no longer forwards to {survivor}.")

    detail = merge.detail
    kept: dict[str, list[str]] = {}
    # The survivor gives back an inherited barcode before the loser is live again.
    kept["to"] = _put_back(Product, survivor.pk, merge.to_snapshot, detail["to_written"])
    kept["from"] = _put_back(Product, loser.pk, merge.from_snapshot, detail["from_written"])
    _record_history(Product, [survivor.pk, loser.pk], actor=actor, reason=f"merge undone: {note}")
    written_product = {"product_id": str(survivor.pk)}
    for model, key in ((Listing, "listings"), (Award, "awards")):
        for before in detail[key]:
            if _put_back(model, before["id"], before, written_product):
                kept.setdefault(key, []).append(before["id"])

    # Pairs this merge closed are open again, unless a person has decided them since.
    MergeCandidate.objects.filter(
        pk__in=detail.get("superseded_candidates", []),
        status=MergeCandidate.Status.SUPERSEDED,
    ).update(status=MergeCandidate.Status.OPEN, decided_at=None)

    merge.undone_at = timezone.now()
    merge.undone_by = actor
    merge.undo_reason = note
    merge.save(update_fields=["undone_at", "undone_by", "undo_reason"])
    audit_record(
        actor=actor,
        action="product.unmerge",
        entity=loser,
        key=loser.pk,
        detail={
            "from": survivor.pk,
            "merge": merge.pk,
            "note": note,
            "kept": {k: v for k, v in kept.items() if v},
        },
    )
    return merge
