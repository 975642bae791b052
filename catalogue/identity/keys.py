"""The standard layer: everything the rules make of one listing, and the match key.

``match_key`` = ``house | line | variation | quantity`` (+ a fifth part for a set, a
refill, a pack or a tester). The house and the variation are resolved through what people
decided (brand aliases, variation aliases) before the key is composed; per-vertical
attributes such as a fragrance's concentration or a spirit's strength veto a match when
both sides declare them and they differ, and never key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from catalogue.identity import RULES_VERSION
from catalogue.identity import houses as house_rules
from catalogue.identity.brands import brand_key
from catalogue.identity.gtin import GtinReading, gtin_in_text, read_gtin
from catalogue.identity.lines import Variation, read_line, read_variation
from catalogue.identity.quantity import Quantity, parse_quantity
from catalogue.identity.text import fold as fold_text
from catalogue.identity.text import name_key

UNKNOWN = "?"
_PLASTIC = re.compile(r"\b(?:muovipullo|pet|plastic|plastikflasche)\b")
# Attributes that keep two products apart when both declare them and they differ.
VETO_ATTRIBUTES = {"fragrance": ("concentration",), "beauty": ("concentration",)}
ABV_TOLERANCE = Decimal("0.5")


@dataclass(frozen=True)
class Listed:
    """The listed layer as the shop showed it (any field may be None)."""

    brand: str | None = None
    name: str | None = None
    variant: str | None = None
    quantity_text: str | None = None
    category: str | None = None
    gtin: str | None = None
    abv: str | None = None


@dataclass(frozen=True)
class House:
    """A brand fold resolved through aliases: the canonical slug and every spelling."""

    slug: str
    spellings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standard:
    vertical: str
    brand_key: str | None
    house: House | None
    line_key: str
    variation: Variation
    quantity: Quantity
    gtin: GtinReading
    name_key: str
    abv: Decimal | None
    rules_version: int = RULES_VERSION
    attributes: dict = field(default_factory=dict)

    @property
    def match_key(self) -> str:
        return match_key(
            house=self.house.slug if self.house else None,
            line=self.line_key,
            variation=self.variation.canonical,
            quantity=self.quantity,
            marks=tuple(m for m in KEY_MARKS if self.attributes.get(m)),
        )

    @property
    def keyable(self) -> bool:
        """Whether the key may join this listing to another shop's product at all.

        A missing house, an empty line or an unknown quantity never agrees with anything.
        """
        return bool(self.house and self.line_key and self.quantity.key() != "unknown")


# Marks that make a listing another product than the line's own bottle, in the fifth part.
KEY_MARKS = ("sample", "body", "lookalike")


def match_key(
    *, house: str | None, line: str, variation: str, quantity: Quantity, marks: tuple = ()
) -> str:
    parts = [house or UNKNOWN, line or UNKNOWN, variation, quantity.key()]
    fifth = ",".join(p for p in (quantity.form_part(), *marks) if p)
    if fifth:
        parts.append(fifth)
    return "|".join(parts)


def _abv(text: str | None) -> Decimal | None:
    if not text:
        return None
    try:
        value = Decimal(str(text).replace(",", ".").replace("%", "").strip())
    except InvalidOperation:
        return None
    return value if 0 <= value <= 100 else None


def listed_quantity(listed: Listed, *, vertical: str = "") -> Quantity:
    """The quantity a listing states: its quantity column, else its name (a tester or
    sample in the name marks the column's reading). Its ``rule`` is set when the amount is
    one no purchase can have."""
    quantity = parse_quantity(listed.quantity_text, dedicated=True)
    if quantity.state == "none" or (quantity.state == "unparsed" and not listed.quantity_text):
        return parse_quantity(listed.name, bare_ounces=vertical == "fragrance")
    if listed.quantity_text:
        named = parse_quantity(listed.name)
        if quantity.state == "stated" and (named.tester or named.sample):
            return Quantity(**{**quantity.__dict__, "tester": named.tester, "sample": named.sample})
    return quantity


def derive(
    listed: Listed,
    *,
    vertical: str,
    houses: Mapping[str, House] | None = None,
    variation_aliases: Mapping[str, str] | None = None,
) -> Standard:
    """Apply every identity rule to one listing.

    ``houses`` maps a brand fold to its house as people decided it (a fold with no entry is
    its own house); ``variation_aliases`` maps a raw variation wording to its canonical one.
    """
    houses = houses or {}
    fold = brand_key(listed.brand)
    house = _house(listed, fold, houses)
    rule = house_rules.HOUSES.get(house.slug) if house else None
    # A house the rules know is stripped by its own names and its spellings as people
    # decided them, never by a brand field that names no house ("Acqua Di Gio", "Elixir"
    # are line words); any other house by its spellings and the brand field.
    spellings: Sequence[str | None] = (
        *(" ".join(name) for name in (rule.names if rule else ())),
        *(house.spellings if house else ()),
        *((listed.brand,) if rule is None else ()),
    )

    quantity = listed_quantity(listed, vertical=vertical)
    gtin = read_gtin(listed.gtin)
    if not listed.gtin:
        embedded = gtin_in_text(listed.name)
        if embedded is not None:
            gtin = embedded

    variation = read_variation(
        listed.name, vertical=vertical, listed_variant=listed.variant, aliases=variation_aliases
    )
    line = read_line(
        listed.name,
        vertical=vertical,
        brand_spellings=spellings,
        house=house.slug if house else None,
    )
    if line.variation and not variation.unknown:
        # The line's name states its strength: one variation whatever each seller typed.
        variation = Variation(canonical=line.variation, raw=variation.raw, concentration=None,
                              kind="concentration")  # fmt: skip
    attributes: dict = {}
    if variation.canonical:
        attributes["variation"] = variation.canonical
        if variation.kind:
            attributes["variation_kind"] = variation.kind
    if variation.concentration:
        attributes["concentration"] = variation.concentration
    if quantity.tester:
        attributes["tester"] = True
    if vertical == "fragrance":
        if house_rules.lookalike(listed.name):
            attributes["lookalike"] = True
        if house_rules.body_product(listed.name):
            attributes["body"] = True
    if vertical == "drinks" and _PLASTIC.search(fold_text(listed.name)):
        attributes["packaging"] = "plastic"
    if quantity.sample:
        attributes["sample"] = True
    if quantity.promo_extra is not None:
        attributes["promo_extra"] = str(quantity.promo_extra)
    if gtin.status == "float_artifact":
        attributes["gtin_float_artifact"] = gtin.raw
    if gtin.status == "placeholder":
        # Kept as listed (the listing's listed_gtin) and flagged; it keys and joins nothing.
        attributes["gtin_placeholder"] = gtin.raw

    return Standard(
        vertical=vertical,
        brand_key=fold,
        house=house,
        line_key=line.key,
        variation=variation,
        quantity=quantity,
        gtin=gtin,
        name_key=name_key(listed.name),
        abv=_abv(listed.abv),
        attributes=attributes,
    )


def _house(listed: Listed, fold: str | None, houses: Mapping[str, House]) -> House | None:
    """The house of a listing: a person's alias of its brand first, then the house the rules
    read from the brand field and the name (``houses.read_house``), then the brand's fold."""
    decided = houses.get(fold) if fold else None
    if decided is not None and decided.slug != fold:
        return decided
    ruled = house_rules.read_house(listed.brand, listed.name, placeholder=fold is None)
    if ruled:
        return houses.get(ruled) or House(slug=ruled)
    if not fold:
        return None
    return houses.get(fold) or House(slug=fold, spellings=(listed.brand or "",))


def vetoed(vertical: str, left: Mapping, right: Mapping) -> str | None:
    """Why two products with one key must stay apart, or None.

    A declared attribute that differs is a veto; a missing one never splits a product.
    """
    for name in VETO_ATTRIBUTES.get(vertical, ()):
        a, b = left.get(name), right.get(name)
        if (
            name == "concentration"
            and left.get("variation")
            and (left.get("variation") == right.get("variation"))
        ):
            # One canonical variation subsumes the parsed concentration (two Elixirs, one
            # typed as parfum and one as edp, are one variation).
            continue
        if a and b and a != b:
            return f"{name} differs ({a} vs {b})"
    a_abv, b_abv = left.get("abv"), right.get("abv")
    if (
        a_abv is not None
        and b_abv is not None
        and abs(Decimal(str(a_abv)) - Decimal(str(b_abv))) > ABV_TOLERANCE
    ):
        return f"strength differs ({a_abv}% vs {b_abv}%)"
    return None
