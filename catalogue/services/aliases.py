"""Aliases at three levels (brand, line, variation): a person's decision, followed by every
reader; products they re-key are folded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.services import audit_record
from catalogue.identity import RULES_VERSION
from catalogue.identity.keys import UNKNOWN, vetoed
from catalogue.models import (
    Brand,
    Product,
    ProductLine,
    VariationAlias,
)
from catalogue.services.common import _by, _root
from catalogue.services.merges import product_merge
from catalogue.services.rederive import RederiveReport, products_rederive
from curation.services import merge_candidates_supersede

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import User


@dataclass
class AliasReport:
    """What applying one alias did, for the person who applied it and the audit row."""

    moved_lines: int = 0
    aliased_lines: int = 0
    moved_products: int = 0
    rekeyed: int = 0
    folded: int = 0
    left_for_a_person: int = 0
    superseded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@transaction.atomic
def products_fold(*, products: Iterable[Product], actor: User, note: str) -> tuple[int, int]:
    """Merge every live product that now agrees on all key parts with one of ``products``
    into the oldest of its key, as the person who applied the alias decided.

    Two different barcodes or a vetoing attribute are never folded by a rule: those pairs
    stay apart for ``suggest`` to offer. Returns (folded, left for a person).
    """
    keys = set(
        Product.objects.canonical()
        .filter(pk__in=[p.pk for p in products])
        .exclude(match_key__startswith=f"{UNKNOWN}|")
        .values_list("match_key", flat=True)
    )
    folded = left = 0
    for key in sorted(keys):
        standard_parts = key.split("|")
        if UNKNOWN in standard_parts[:2] or standard_parts[3] == "unknown":
            continue  # An unknown house, line or quantity never agrees with anything.
        group = list(Product.objects.canonical().filter(match_key=key).order_by("created_at"))
        survivor = group[0]
        for other in group[1:]:
            survivor.refresh_from_db()
            two_barcodes = survivor.gtin and other.gtin and survivor.gtin != other.gtin
            if two_barcodes or vetoed(survivor.vertical, survivor.attributes, other.attributes):
                left += 1
                continue
            product_merge(loser=other, survivor=survivor, actor=actor, note=f"Folded: {note}")
            folded += 1
    return folded, left


@dataclass
class RederiveFoldReport:
    rederived: RederiveReport
    folded: int = 0
    left_for_a_person: int = 0

    def line(self) -> str:
        return (
            f"{self.rederived.line()}; folded {self.folded} product(s) that now share a key, "
            f"{self.left_for_a_person} pair(s) left for a person (two barcodes or a veto)"
        )


@transaction.atomic
def products_rederive_and_fold(
    *, actor: User, rules_version: int | None = None
) -> RederiveFoldReport:
    """Re-key products under the current identity rules, then fold every live product that
    now agrees on all key parts with a re-keyed one (two barcodes or a veto stay apart for
    ``suggest``), each merge recorded under the person who ran it. Safe to repeat: a second
    run re-keys and folds nothing."""
    note = f"identity rules v{RULES_VERSION} give them one key"
    rederived = products_rederive(rules_version=rules_version, actor=actor, reason=note)
    folded, left = products_fold(
        products=Product.objects.filter(pk__in=rederived.changed_ids), actor=actor, note=note
    )
    if folded:
        merge_candidates_supersede()
    return RederiveFoldReport(rederived=rederived, folded=folded, left_for_a_person=left)


def _rekey_and_fold(
    products: QuerySet[Product], *, actor: User, note: str, report: AliasReport
) -> None:
    affected = list(products)
    ids = [p.pk for p in affected]
    report.rekeyed = products_rederive(
        products=Product.objects.filter(pk__in=ids), actor=actor, reason=f"re-keyed: {note}"
    ).changed
    report.folded, report.left_for_a_person = products_fold(
        products=affected, actor=actor, note=note
    )
    report.superseded = merge_candidates_supersede()


def _require_note(note: str) -> None:
    if not (note or "").strip():
        raise ValidationError({"note": "Say why these are one."})


@transaction.atomic
def brand_alias_apply(
    *, alias: Brand, canonical: Brand, actor: User, note: str, preferred_name: str = ""
) -> AliasReport:
    """Make ``alias`` a spelling of ``canonical``'s house, as a person decided.

    Its lines move to the house (a line whose key the house already has becomes an alias of
    that line), its products follow, and every product keyed through it is re-keyed by the
    rules ingest uses; whatever then agrees on all key parts is folded. ``preferred_name``
    renames the house. Holds row locks on both brands.
    """
    _require_note(note)
    locked = {b.pk: b for b in Brand.objects.select_for_update().filter(
        pk__in=[alias.pk, canonical.pk]).order_by("pk")}  # fmt: skip
    alias, canonical = locked[alias.pk], _root(Brand, locked[canonical.pk])
    if alias.pk == canonical.pk:
        raise ValidationError("A brand cannot be an alias of itself (or of one of its aliases).")
    if alias.canonical_id and alias.canonical_id != canonical.pk:
        raise ValidationError(f"{alias} is already an alias of another house.")
    now = timezone.now()
    report = AliasReport()
    spellings = [alias, *Brand.objects.filter(canonical=alias)]
    for brand in spellings:
        brand.canonical, brand.decided_by, brand.decided_at = canonical, actor, now
        _by(brand, actor, note)
        brand.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
    if preferred_name.strip() and preferred_name.strip() != canonical.name:
        canonical.name = preferred_name.strip()
        _by(canonical, actor, note)
        canonical.save(update_fields=["name", "updated_at"])
    house_lines = {line.key: line for line in ProductLine.objects.filter(brand=canonical)}
    for line in ProductLine.objects.filter(brand__in=spellings).order_by("key"):
        _by(line, actor, note)
        target = house_lines.get(line.key)
        if target is None:
            line.brand = canonical
            line.save(update_fields=["brand", "updated_at"])
            house_lines[line.key] = line
            report.moved_lines += 1
        else:
            line.canonical, line.decided_by, line.decided_at = (
                _root(ProductLine, target),
                actor,
                now,
            )
            line.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
            report.aliased_lines += 1
    affected = Product.objects.filter(
        Q(brand__in=spellings) | Q(brand_key__in=[b.slug for b in spellings])
    )
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="brand.alias",
        entity=alias,
        key=alias.pk,
        detail={"canonical": canonical.pk, "note": note, **report.as_dict()},
    )
    return report


@transaction.atomic
def line_alias_apply(
    *, alias: ProductLine, canonical: ProductLine, actor: User, note: str, preferred_name: str = ""
) -> AliasReport:
    """Make ``alias`` another wording of ``canonical`` (one house), as a person decided:
    its products move to the canonical line and are re-keyed under its key; whatever then
    agrees on all key parts is folded. Holds row locks on both lines."""
    _require_note(note)
    locked = {x.pk: x for x in ProductLine.objects.select_for_update().filter(
        pk__in=[alias.pk, canonical.pk]).select_related("brand").order_by("pk")}  # fmt: skip
    alias, canonical = locked[alias.pk], _root(ProductLine, locked[canonical.pk])
    if alias.pk == canonical.pk:
        raise ValidationError("A line cannot be an alias of itself (or of one of its aliases).")
    if _root(Brand, alias.brand).pk != _root(Brand, canonical.brand).pk:
        raise ValidationError(
            f"'{alias}' and '{canonical}' belong to different houses; alias the brands first."
        )
    if alias.canonical_id and alias.canonical_id != canonical.pk:
        raise ValidationError(f"'{alias}' is already an alias of another line.")
    now = timezone.now()
    report = AliasReport()
    wordings = [alias, *ProductLine.objects.filter(canonical=alias)]
    for line in wordings:
        line.canonical, line.decided_by, line.decided_at = canonical, actor, now
        _by(line, actor, note)
        line.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
    if preferred_name.strip() and preferred_name.strip() != canonical.name:
        canonical.name = preferred_name.strip()
        _by(canonical, actor, note)
        canonical.save(update_fields=["name", "updated_at"])
    affected = Product.objects.filter(line__in=wordings)
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="line.alias",
        entity=alias,
        key=alias.pk,
        detail={"canonical": canonical.pk, "note": note, **report.as_dict()},
    )
    return report


@transaction.atomic
def variation_alias_set(
    *,
    vertical: str,
    raw: str,
    canonical: str,
    actor: User,
    note: str,
    display: str = "",
    kind: str = "",
) -> tuple[VariationAlias, AliasReport]:
    """Say what a variation wording means ("elixir parfum intense" → "elixir"), as a person
    decided, and re-key every product of the vertical that names it; whatever then agrees
    on all key parts is folded."""
    _require_note(note)
    raw = " ".join((raw or "").lower().split())
    canonical = " ".join((canonical or "").lower().split())
    if not raw or not canonical:
        raise ValidationError("A variation alias needs the wording and what it means.")
    alias = VariationAlias.objects.select_for_update().filter(vertical=vertical, raw=raw).first()
    alias = alias or VariationAlias(vertical=vertical, raw=raw)
    alias.canonical, alias.display, alias.kind = canonical, display, kind
    alias.decided_by, alias.decided_at = actor, timezone.now()
    _by(alias, actor, note)
    alias.save()
    report = AliasReport()
    affected = (
        Product.objects.filter(vertical=vertical)
        .filter(
            Q(attributes__variation__in=[raw, f"?{raw}"])
            | Q(name_key__icontains=raw)
            | Q(listings__listed_variant__iexact=raw)
        )
        .distinct()
    )
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="variation.alias",
        entity=alias,
        key=alias.pk,
        detail={"raw": raw, "canonical": canonical, "note": note, **report.as_dict()},
    )
    return alias, report
