"""What people decided, loaded once per run (the identity book), and the standard values the
rules make of a listing's words under it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from uuid import UUID

from django.db.models import Q

from catalogue.identity.keys import House, Listed, Standard, derive
from catalogue.models import (
    Brand,
    ProductLine,
    VariationAlias,
)

# --- What people decided, loaded once per run -------------------------------------------


@dataclass
class IdentityBook:
    """Brand houses and variation aliases as people decided them, held for one run."""

    houses: dict[str, House] = field(default_factory=dict)
    brands: dict[str, Brand] = field(default_factory=dict)
    variation_aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    lines: dict[tuple[UUID, str], ProductLine | None] = field(default_factory=dict)
    # (house slug, line key) of an aliased line -> the key of its canonical line.
    line_aliases: dict[tuple[str, str], str] = field(default_factory=dict)

    def house_brand(self, slug: str) -> Brand | None:
        return self.brands.get(slug)


def identity_book() -> IdentityBook:
    """Load every brand (with its alias chain) and variation alias; both tables are small."""
    brands = {b.slug: b for b in Brand.objects.all()}
    by_id = {b.pk: b for b in brands.values()}

    def root(brand: Brand) -> Brand:
        seen = set()
        while brand.canonical_id and brand.canonical_id not in seen:
            seen.add(brand.pk)
            brand = by_id[brand.canonical_id]
        return brand

    members: dict[str, list[Brand]] = {}
    for brand in brands.values():
        members.setdefault(root(brand).slug, []).append(brand)
    houses = {}
    for brand in brands.values():
        house = root(brand)
        # Every member's name and the fold it was first written as: a preferred name on the
        # house renames it, and its old spelling must still be read as the house.
        spellings = tuple(
            sorted(
                {m.name for m in members[house.slug]}
                | {m.slug.replace("-", " ") for m in members[house.slug]}
            )
        )
        houses[brand.slug] = House(slug=house.slug, spellings=spellings)
    aliases: dict[str, dict[str, str]] = {}
    for alias in VariationAlias.objects.all():
        aliases.setdefault(alias.vertical, {})[" ".join(alias.raw.lower().split())] = (
            alias.canonical
        )
    line_aliases = {}
    aliased = ProductLine.objects.filter(canonical__isnull=False).select_related("brand")
    if aliased:
        line_by_id = {line.pk: line for line in ProductLine.objects.filter(
            Q(canonical__isnull=False) | Q(aliases__isnull=False)).distinct()}  # fmt: skip
        for line in aliased:
            target, seen = line, set()
            while target.canonical_id and target.pk not in seen:
                seen.add(target.pk)
                target = line_by_id[target.canonical_id]
            line_aliases[(houses[line.brand.slug].slug, line.key)] = target.key
    return IdentityBook(
        houses=houses, brands=brands, variation_aliases=aliases, line_aliases=line_aliases
    )


def standard_for(listed: Listed, *, vertical: str, book: IdentityBook) -> Standard:
    """The standard layer of one listing under what people decided: the house through brand
    aliases, the variation through variation aliases, then the line through line aliases.
    Ingest, rederive and every alias service call this one function."""
    standard = derive(
        listed,
        vertical=vertical,
        houses=book.houses,
        variation_aliases=book.variation_aliases.get(vertical, {}),
    )
    if standard.house and book.line_aliases:
        canonical = book.line_aliases.get((standard.house.slug, standard.line_key))
        if canonical:
            standard = dataclasses.replace(standard, line_key=canonical)
    return standard
