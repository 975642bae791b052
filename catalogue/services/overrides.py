"""Overrides: a person's value over a rule's."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import audit_record
from catalogue.identity.quantity import parse_quantity
from catalogue.models import (
    Brand,
    Override,
    Product,
    ProductLine,
)
from catalogue.services.aliases import products_fold
from catalogue.services.common import _by, _root
from catalogue.services.rederive import products_rederive

if TYPE_CHECKING:
    from accounts.models import User


def _override_value(product: Product, field_name: str, value: object) -> str:
    """Check and normalise a person's value for ``field_name`` of ``product``."""
    text = "" if value is None else str(value).strip()
    if field_name == Override.Field.NAME:
        if not text:
            raise ValidationError({"value": "A product needs a name."})
        return " ".join(text.split())[:300]
    if field_name == Override.Field.CATEGORY:
        return text[:200]
    if field_name == Override.Field.VARIATION:
        return " ".join(text.lower().split())
    if field_name == Override.Field.QUANTITY:
        if parse_quantity(text, dedicated=True).state != "stated":
            raise ValidationError({"value": f"No quantity can be read from {text!r}."})
        return text
    if field_name == Override.Field.LINE:
        line = ProductLine.objects.filter(brand=product.brand_id, key=text.lower()).first()
        if line is None:
            try:
                line = ProductLine.objects.filter(pk=uuid.UUID(text)).first()
            except ValueError:
                line = None
        if line is None or product.brand is None:
            raise ValidationError({"value": f"No line {text!r} under {product.brand or '—'}."})
        if _root(Brand, line.brand).pk != _root(Brand, product.brand).pk:
            raise ValidationError({"value": f"'{line}' belongs to another house."})
        return str(_root(ProductLine, line).pk)
    raise ValidationError({"field": f"{field_name!r} cannot be overridden."})


def _collected(product: Product, field_name: str) -> object:
    """What the collection holds for ``field_name``, as the JSON the override keeps."""
    if field_name == Override.Field.NAME:
        return product.name
    if field_name == Override.Field.CATEGORY:
        return product.category
    if field_name == Override.Field.VARIATION:
        return product.attributes.get("variation")
    if field_name == Override.Field.LINE:
        return str(product.line_id) if product.line_id else None
    if field_name == Override.Field.QUANTITY:
        return product.match_key.split("|")[3] if product.match_key.count("|") >= 3 else None
    return None


def _apply_override(product: Product, field_name: str, value: str) -> list[str]:
    """Write a person's value onto the product columns rederive leaves to people."""
    if field_name == Override.Field.NAME:
        product.name = value
        return ["name"]
    if field_name == Override.Field.CATEGORY:
        product.category = value
        return ["category"]
    if field_name == Override.Field.LINE:
        product.line_id = uuid.UUID(value)
        return ["line"]
    return []  # Variation and quantity are written by the rederive that follows.


@transaction.atomic
def override_set(
    *, product: Product, field: str, value: object, actor: User, reason: str
) -> Override:
    """Record a person's value for one field of a product, apply it, re-key the product by
    the rules with the override read first, and fold it into whatever it then agrees with.

    One override per product and field: setting it again replaces the value and reason and
    keeps the value first collected. Holds a row lock on the product.
    """
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the collected value is wrong."})
    product = Product.objects.select_for_update().get(pk=product.pk)
    if product.merged_into_id:
        raise ValidationError(f"{product} is merged; set the value on the product it joined.")
    if field not in Override.Field.values:
        raise ValidationError({"field": f"{field!r} cannot be overridden."})
    value = _override_value(product, field, value)
    held = (
        Override.objects.select_for_update()
        .filter(entity_type="product", entity_key=str(product.pk), field=field)
        .first()
    )
    override = held or Override(
        entity_type="product",
        entity_key=str(product.pk),
        field=field,
        collected_value=_collected(product, field),
    )
    override.value, override.set_by, override.set_at = value, actor, timezone.now()
    override.reason, override.collector_disagrees_since = reason, None
    _by(override, actor, reason).save()
    changed = _apply_override(product, field, value)
    if changed:
        _by(product, actor, f"override of {field}: {reason}")
        product.save(update_fields=[*changed, "updated_at"])
    products_rederive(
        products=Product.objects.filter(pk=product.pk),
        actor=actor,
        reason=f"override of {field}: {reason}",
    )
    folded, _ = products_fold(products=[product], actor=actor, note=f"override of {field}")
    audit_record(
        actor=actor,
        action="override.set",
        entity="catalogue.product",
        key=product.pk,
        detail={
            "field": field,
            "value": value,
            "collected": override.collected_value,
            "reason": reason,
            "folded": folded,
        },
    )
    return override


@transaction.atomic
def override_remove(*, override: Override, actor: User, reason: str) -> None:
    """Withdraw a person's value: the rules' own value comes back (a name or category goes
    back to the value first collected). The history keeps the override as it was."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the override is withdrawn."})
    override = Override.objects.select_for_update().get(pk=override.pk)
    product = Product.objects.select_for_update().filter(pk=override.entity_key).first()
    _by(override, actor, reason).delete()
    if product is not None:
        if override.field in (Override.Field.NAME, Override.Field.CATEGORY):
            restored = override.collected_value or ""
            if override.field == Override.Field.NAME and not restored:
                restored = product.name
            setattr(product, override.field, restored)
            _by(product, actor, f"override of {override.field} withdrawn: {reason}")
            product.save(update_fields=[override.field, "updated_at"])
        products_rederive(
            products=Product.objects.filter(pk=product.pk),
            actor=actor,
            reason=f"override of {override.field} withdrawn: {reason}",
        )
    audit_record(
        actor=actor,
        action="override.remove",
        entity="catalogue.product",
        key=override.entity_key,
        detail={"field": override.field, "value": override.value, "reason": reason},
    )
