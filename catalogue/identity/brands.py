"""Brand folds. Spelling variants fold by rule; different names join only through an alias."""

from __future__ import annotations

from catalogue.identity.text import slug_fold

# What sellers type into a brand field when they have no brand to give. A placeholder is
# no house at all: it must never become a brand that unrelated listings then share.
PLACEHOLDER_BRANDS = frozenset(
    {
        "unbranded",
        "as-show",
        "as-shown",
        "as-picture",
        "as-picture-show",
        "as-pictured",
        "as-picture-shown",
        "as-showed",
        "as-photos",
        "as-photo",
        "assorted",
        "branded",
        "limited-edition",
        "as-described",
        "cologne",
        "perfume",
        "fragrance",
        "fragrances",
        "multiple-brands",
        "various",
        "generic",
        "unknown",
        "does-not-apply",
        "n-a",
        "na",
        "none",
        "no-brand",
        "rm-nije-definisana",
        "nije-definisano",
    }
)


# Legal-form words are how a company registers, not how a house is called: "Altia Oyj",
# "Diageo Plc" and "Bumbu Rum Co." fold to the name alone.
LEGAL_SUFFIXES = frozenset(
    [
        "oy",
        "oyj",
        "ab",
        "as",
        "asa",
        "plc",
        "ltd",
        "limited",
        "inc",
        "co",
        "corp",
        "company",
        "llc",
        "gmbh",
        "ag",
        "sa",
        "srl",
        "spa",
        "bv",
        "nv",
    ]
)


def brand_key(text: str | None) -> str | None:
    """The fold key of a brand spelling, or None when it names no house.

    ``L'Oreal``, ``LOreal`` and ``Loreal`` fold to ``loreal``; ``Dolce&Gabbana`` and
    ``Dolce & Gabbana`` to ``dolce-and-gabbana``; ``D&G`` stays ``d-and-g`` until a person
    says it is the same house.
    """
    parts = slug_fold(text).split("-")
    while len(parts) > 1 and parts[-1] in LEGAL_SUFFIXES:
        parts.pop()
    if len(parts) > 1 and parts[0] == "the":
        parts.pop(0)
    key = "-".join(p for p in parts if p)
    if not key or key in PLACEHOLDER_BRANDS:
        return None
    return key


def display_name(spellings: list[str]) -> str:
    """The spelling to show: mixed case over capitals, then the most common, then the first."""
    if not spellings:
        return ""
    counts: dict[str, int] = {}
    for s in spellings:
        counts[s.strip()] = counts.get(s.strip(), 0) + 1
    return sorted(counts, key=lambda s: (s.isupper() or s.islower(), -counts[s]))[0]
