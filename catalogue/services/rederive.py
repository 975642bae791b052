"""Rederive: the standard layer recomputed from each product's founding words by today's
rules, a person's overrides read first and never overwritten.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from catalogue.identity import RULES_VERSION
from catalogue.identity.keys import Listed, Standard
from catalogue.identity.quantity import parse_quantity
from catalogue.models import (
    Listing,
    Override,
    Product,
    ProductLine,
    ProductMerge,
)
from catalogue.services.book import identity_book, standard_for
from catalogue.services.common import _by, _root
from catalogue.services.sightings import (
    _brand_for,
    _line_for,
    _product_attributes,
    _standard_fields,
)

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import User


@dataclass
class RederiveReport:
    checked: int = 0
    changed: int = 0
    fields: dict[str, int] = field(default_factory=dict)
    kept_by_override: int = 0
    changed_ids: list[UUID] = field(default_factory=list)

    def line(self) -> str:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(self.fields.items())) or "nothing"
        return (
            f"rederive: {self.checked} products checked, {self.changed} changed ({detail}); "
            f"{self.kept_by_override} values kept by a person's override"
        )


# Keyed by the stored field name (Override.field), which is how rederive looks them up.
_OVERRIDE_FIELDS: dict[str, tuple[str, ...]] = {
    Override.Field.NAME: ("name",),
    Override.Field.LINE: ("line",),
    Override.Field.CATEGORY: ("category",),
    Override.Field.QUANTITY: (
        "quantity_value",
        "quantity_unit",
        "pack_count",
        "pack_unit_value",
        "form",
        "set_contents",
        "quantity_state",
        "size_ml",
    ),
    Override.Field.VARIATION: (),
}


def _note_disagreement(standard: Standard, human: dict[str, Override]) -> None:
    """Date when the rules first read something other than a person's value (and clear it
    when they agree again), so the console can show overrides the collection now disputes.
    The person's value stands either way."""
    ruled: dict[str, object] = {
        Override.Field.VARIATION: standard.variation.canonical,
        Override.Field.QUANTITY: standard.quantity.key(),
    }
    for name, override in human.items():
        if name not in ruled:
            continue
        mine = override.value
        if name == Override.Field.QUANTITY and isinstance(mine, str):
            mine = parse_quantity(mine, dedicated=True).key()
        disagrees = ruled[name] != mine
        if disagrees == (override.collector_disagrees_since is not None):
            continue
        override.collector_disagrees_since = timezone.now() if disagrees else None
        Override.objects.filter(pk=override.pk).update(
            collector_disagrees_since=override.collector_disagrees_since
        )


def _overridden(standard: Standard, human: dict[str, Override]) -> tuple[Standard, set[str]]:
    """The standard layer with a person's quantity and line in place of the rules' own, so
    the key agrees with what the person decided. Returns the fields read from overrides."""
    read: set[str] = set()
    quantity = human.get(Override.Field.QUANTITY)
    if quantity is not None and isinstance(quantity.value, str):
        parsed = parse_quantity(quantity.value, dedicated=True)
        if parsed.state == "stated":
            standard = dataclasses.replace(standard, quantity=parsed)
            read.add(Override.Field.QUANTITY)
    line = human.get(Override.Field.LINE)
    if line is not None and line.value:
        chosen = ProductLine.objects.filter(pk=line.value).first()
        if chosen is not None:
            standard = dataclasses.replace(standard, line_key=_root(ProductLine, chosen).key)
            read.add(Override.Field.LINE)
    return standard, read


def _founding_listed(product: Product) -> Listed:
    own = Listing.objects.filter(product=product, pinned_product__isnull=True)
    if product.merged_into_id:
        # A merged row's listings moved to its survivor; its key is still read from the
        # listings that were its own, as its merge record lists them.
        moved = [
            row["id"]
            for detail in ProductMerge.objects.filter(
                from_product=product, undone_at__isnull=True
            ).values_list("detail", flat=True)
            for row in detail.get("listings", [])
        ]
        if moved:
            own = Listing.objects.filter(pk__in=moved, pinned_product__isnull=True)
    listing = own.order_by("created_at").first()
    if listing is not None:
        return Listed(
            brand=listing.listed_brand,
            name=listing.listed_name,
            variant=listing.listed_variant,
            quantity_text=listing.listed_quantity_text,
            category=listing.listed_category,
            gtin=listing.listed_gtin,
            abv=product.attributes.get("abv"),
        )
    return Listed(brand=product.brand_name, name=product.name, abv=product.attributes.get("abv"))


@transaction.atomic
def products_rederive(
    *,
    rules_version: int | None = None,
    products: QuerySet[Product] | None = None,
    actor: User | None = None,
    reason: str = "",
) -> RederiveReport:
    """Re-resolve products under the current rules and report what changed.

    Safe to repeat: a second run changes nothing. Merged rows are rekeyed too, so ingest can
    follow a person's merge under the current rules. A field a person overrode keeps the
    person's value; a barcode and a human-set name are never touched.
    """
    book = identity_book()
    report = RederiveReport()
    queryset = Product.objects.all() if products is None else products
    if rules_version is not None and products is None:
        queryset = queryset.filter(identity_rules_version=rules_version)
    overrides: dict[str, dict[str, Override]] = {}
    for o in Override.objects.filter(entity_type="product"):
        overrides.setdefault(o.entity_key, {})[o.field] = o
    for product in queryset.select_related("brand").order_by("created_at"):
        report.checked += 1
        standard = standard_for(_founding_listed(product), vertical=product.vertical, book=book)
        human = overrides.get(str(product.pk), {})
        _note_disagreement(standard, human)
        standard, read_from_override = _overridden(standard, human)
        wanted = _standard_fields(standard)
        attributes = {**product.attributes, **_product_attributes(standard)}
        variation_override = human.get(Override.Field.VARIATION)
        if variation_override is not None:
            attributes["variation"] = variation_override.value
            report.kept_by_override += 1
            parts = wanted["match_key"].split("|")
            parts[2] = str(variation_override.value or "")
            wanted["match_key"] = "|".join(parts)
        wanted["attributes"] = attributes
        brand = _brand_for(standard, product.brand_name or None, book)
        if brand is not None:
            wanted["brand"] = brand
            wanted["line"] = _line_for(brand, standard, book)
        for name in human:
            if name not in read_from_override:
                for column in _OVERRIDE_FIELDS.get(name, ()):
                    wanted.pop(column, None)
            if name == Override.Field.QUANTITY:
                report.kept_by_override += 1
            if name == Override.Field.LINE:
                wanted.pop("line", None)
                report.kept_by_override += 1
        changed: list[str] = []
        for column, value in wanted.items():
            current = getattr(product, column)
            if isinstance(current, Decimal) and value is not None:
                same = Decimal(current) == Decimal(value)
            else:
                same = current == value
            if not same:
                setattr(product, column, value)
                changed.append(column)
                report.fields[column] = report.fields.get(column, 0) + 1
        if changed:
            report.changed += 1
            report.changed_ids.append(product.pk)
            _by(product, actor, reason or f"rederive under identity rules v{RULES_VERSION}")
            product.save(update_fields=[*changed, "updated_at"])
    return report
