"""The suggestion rules: brand, line and product pairs that look like one, for a person.

Pure reads. Each rule returns ``Proposal`` rows (an unordered pair, a score in 0..1 and one
line a person reads); ``curation.services.candidates_suggest`` queues them. No rule ever
merges or aliases anything: that is a person's decision in the console.

The rules (seed 003, "Merges are recorded, never deletes"):

* brand: a known rebrand (Paco Rabanne → Rabanne); one house's name within another's
  (``dior`` in ``christian-dior``) when the two have line names in common;
* line: one line's words within another's under one house (``sauvage men`` in
  ``christian sauvage men``);
* product: the pairs the rules could not settle (one key but two barcodes, or two
  concentrations), the same line and size where one side names no variation (or one the
  rules do not know), the same line, variation and size where one side names no house, and
  one line's words within another's under one house at the same variation and size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from catalogue.identity import houses
from catalogue.identity.keys import UNKNOWN, vetoed
from catalogue.models import Brand, Product, ProductLine
from curation.models import MergeLevel
from curation.registry import Proposal

# Rebrands a person has confirmed happened in the world; the pair still waits for a person
# to alias it in the catalogue.
KNOWN_REBRANDS: tuple[tuple[str, str, str], ...] = (
    ("paco-rabanne", "rabanne", "Paco Rabanne renamed itself Rabanne in 2023"),
)

# Words that say who a bottle is for or join others; a line made only of them says nothing.
FILLER_WORDS = frozenset(
    {"men", "man", "women", "woman", "for", "pour", "homme", "femme", "him", "her", "unisex"}
)
# One line within another: at most this many extra words, or the longer one is another thing.
MAX_EXTRA_WORDS = 3
# A group larger than this pairs each member with its oldest row only (no all-pairs blowup).
ALL_PAIRS_LIMIT = 6


@dataclass(frozen=True)
class Row:
    """A live product as the rules read it: its key parts and what can keep it apart."""

    id: object
    house: str
    line: str
    variation: str
    quantity: str
    rest: str
    gtin: str | None
    attributes: dict
    vertical: str
    name: str
    brand_name: str

    @property
    def size(self) -> str:
        return f"{self.quantity}{' ' + self.rest if self.rest else ''}"


def _rows() -> list[Row]:
    rows = []
    fields = ("id", "match_key", "gtin", "attributes", "vertical", "name", "brand_name")
    for values in (
        Product.objects.canonical().order_by("created_at", "id").values_list(*fields).iterator()
    ):
        pk, key, gtin, attributes, vertical, name, brand_name = values
        parts = key.split("|")
        if len(parts) < 4:
            continue
        house, line, variation, quantity = parts[:4]
        rows.append(
            Row(
                id=pk,
                house=house,
                line=line,
                variation=variation,
                quantity=quantity,
                rest="|".join(parts[4:]),
                gtin=gtin,
                attributes=attributes or {},
                vertical=vertical,
                name=name,
                brand_name=brand_name,
            )
        )
    return rows


def _known(row: Row) -> bool:
    return row.line != UNKNOWN and row.quantity != "unknown"


def _words(line: str) -> frozenset[str]:
    return frozenset(line.split())


def nested(short: str, long: str) -> float | None:
    """How much of ``long`` the line ``short`` is (0..1) when its words are all within it,
    it says something beyond filler and adds at most ``MAX_EXTRA_WORDS``; else None."""
    a, b = _words(short), _words(long)
    if not a or a == b or not a < b or not (a - FILLER_WORDS):
        return None
    if len(b - a) > MAX_EXTRA_WORDS:
        return None
    return len(a) / len(b)


def _pairs(members: list[Row]) -> Iterable[tuple[Row, Row]]:
    if len(members) <= ALL_PAIRS_LIMIT:
        yield from combinations(members, 2)
    else:
        first = members[0]
        for other in members[1:]:
            yield first, other


# --- Products -------------------------------------------------------------------------


def _same_key(rows: list[Row]) -> Iterable[Proposal]:
    """One key, kept apart: two barcodes, a vetoing attribute, or a source that only matches
    itself. The rules could not settle these; a person can."""
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in rows:
        if row.house != UNKNOWN and _known(row):
            groups[(row.house, row.line, row.variation, row.quantity, row.rest)].append(row)
    for members in groups.values():
        for a, b in _pairs(members):
            if _barcodes_settle(a, b):
                continue
            if a.gtin and b.gtin and a.gtin != b.gtin:
                score, why = 0.5, f"one key, two barcodes ({a.gtin} and {b.gtin})"
            elif veto := vetoed(a.vertical, a.attributes, b.attributes):
                score, why = 0.45, f"one key, but {veto}"
            else:
                score, why = 0.9, "one key (house, line, variation, size) but kept apart"
            yield Proposal(MergeLevel.PRODUCT, a.id, b.id, score, why, "same_key")


def _barcodes_settle(a: Row, b: Row) -> bool:
    """Two barcodes and a difference the rules can see (strength, packaging) are two
    products: nothing for a person to decide."""
    if not (a.gtin and b.gtin and a.gtin != b.gtin):
        return False
    packaging = a.attributes.get("packaging") != b.attributes.get("packaging")
    return packaging or vetoed(a.vertical, a.attributes, b.attributes) is not None


def another_line(house: str, short: str, long: str) -> bool:
    """Whether the longer line is another product of the house: a line the house is known
    to sell, or one meaningful word more ("1 Million" and "1 Million Lucky", "Kupka" and
    "Kupka Argan"); a digit, a letter or filler is only another wording."""
    extra = _words(long) - _words(short)
    known = {line.key for line in houses.HOUSES[house].lines} if house in houses.HOUSES else set()
    meaningful = {w for w in extra if w.isalpha() and len(w) > 2 and w not in FILLER_WORDS}
    return long in known or bool(meaningful)


def _no_variation(rows: list[Row]) -> Iterable[Proposal]:
    """The same line and size where one side names no variation (or one the rules do not
    know, which keys apart from every known one)."""
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in rows:
        if row.house != UNKNOWN and _known(row):
            groups[(row.house, row.line, row.quantity, row.rest)].append(row)
    for members in groups.values():
        named = [r for r in members if r.variation and not r.variation.startswith("?")]
        variations = {r.variation for r in named}
        for row in members:
            if row.variation and not row.variation.startswith("?"):
                continue
            for other in named[:ALL_PAIRS_LIMIT]:
                ambiguous = len(variations) > 1
                if row.variation:
                    score = 0.35 if ambiguous else 0.45
                    why = (
                        f"same line '{row.line}' and size {row.size}; the rules do not know "
                        f"the variation '{row.variation[1:]}' (the other is {other.variation})"
                    )
                else:
                    score = 0.4 if ambiguous else 0.6
                    why = (
                        f"same line '{row.line}' and size {row.size}; one names no variation "
                        f"(the other is {other.variation})"
                    )
                yield Proposal(MergeLevel.PRODUCT, row.id, other.id, score, why, "no_variation")


def _no_house(rows: list[Row]) -> Iterable[Proposal]:
    """The same line, variation and size where one side names no house (its brand field was
    a placeholder). Offered only when the housed rows agree on one house."""
    housed: dict[tuple, list[Row]] = defaultdict(list)
    houseless: dict[tuple, list[Row]] = defaultdict(list)
    for row in rows:
        if not _known(row):
            continue
        key = (row.line, row.variation, row.quantity, row.rest)
        (houseless if row.house == UNKNOWN else housed)[key].append(row)
    for key, orphans in houseless.items():
        matches = housed.get(key, [])
        houses = {r.house for r in matches}
        if len(houses) == 1:
            for orphan in orphans:
                for match in matches[:ALL_PAIRS_LIMIT]:
                    why = (
                        f"same line '{key[0]}', variation {key[1] or 'none'} and size "
                        f"{orphan.size}; one names no house (brand field "
                        f"'{orphan.brand_name or 'empty'}')"
                    )
                    yield Proposal(MergeLevel.PRODUCT, orphan.id, match.id, 0.7, why, "no_house")
        elif not houses and len(orphans) > 1:
            why = (
                f"same line '{key[0]}', variation {key[1] or 'none'} and size "
                f"{orphans[0].size}; neither names a house"
            )
            for a, b in _pairs(orphans):
                yield Proposal(MergeLevel.PRODUCT, a.id, b.id, 0.4, why, "no_house")


def _nested_lines(rows: list[Row]) -> Iterable[Proposal]:
    """One line's words within another's under one house, at one variation and size."""
    groups: dict[tuple, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row.house != UNKNOWN and _known(row):
            groups[(row.house, row.variation, row.quantity, row.rest)][row.line].append(row)
    for key, by_line in groups.items():
        if len(by_line) < 2:
            continue
        for short, long, ratio in _line_pairs(by_line):
            if another_line(key[0], short, long):
                continue
            why = (
                f"'{short}' is within '{long}' under {key[0]}, both {key[1] or 'no variation'} "
                f"{by_line[short][0].size}"
            )
            for a in by_line[short][:ALL_PAIRS_LIMIT]:
                for b in by_line[long][:ALL_PAIRS_LIMIT]:
                    yield Proposal(
                        MergeLevel.PRODUCT, a.id, b.id, round(0.3 + 0.5 * ratio, 3), why, "nested"
                    )


def _line_pairs(lines: Iterable[str]) -> Iterable[tuple[str, str, float]]:
    """Each (short, long, ratio) where ``short`` is nested in ``long`` by ``ratio``."""
    lines = sorted(lines, key=lambda x: (len(x.split()), x))
    by_word: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        for word in _words(line):
            by_word[word].add(line)
    for short in lines:
        words = _words(short) - FILLER_WORDS
        if not words:
            continue
        holders = set.intersection(*(by_word[w] for w in words))
        for long in sorted(holders):
            if long == short:
                continue
            ratio = nested(short, long)
            if ratio is not None:
                yield short, long, ratio


def product_proposals(rows: list[Row] | None = None) -> list[Proposal]:
    rows = _rows() if rows is None else rows
    return [
        *_same_key(rows),
        *_no_variation(rows),
        *_no_house(rows),
        *_nested_lines(rows),
    ]


# --- Lines ----------------------------------------------------------------------------


def _live_lines() -> dict[str, list[ProductLine]]:
    """Canonical lines with at least one live product, by the slug of their house."""
    houses = _house_slugs()
    live = set(
        Product.objects.canonical().filter(line__isnull=False).values_list("line_id", flat=True)
    )
    by_house: dict[str, list[ProductLine]] = defaultdict(list)
    for line in ProductLine.objects.filter(canonical__isnull=True, pk__in=live).order_by("key"):
        by_house[houses.get(line.brand_id, "")].append(line)
    return by_house


def line_proposals(by_house: dict[str, list[ProductLine]] | None = None) -> list[Proposal]:
    by_house = _live_lines() if by_house is None else by_house
    names = _house_names()
    proposals = []
    for house, lines in by_house.items():
        by_key: dict[str, list[ProductLine]] = defaultdict(list)
        for line in lines:
            by_key[line.key].append(line)
        for short, long, ratio in _line_pairs(by_key):
            if another_line(house, short, long):
                continue
            why = f"'{short}' is within '{long}' under {names.get(house, house)}"
            for a in by_key[short]:
                for b in by_key[long]:
                    proposals.append(
                        Proposal(MergeLevel.LINE, a.pk, b.pk, round(0.3 + 0.5 * ratio, 3), why,
                                 "nested")
                    )  # fmt: skip
    return proposals


# --- Brands ---------------------------------------------------------------------------


def _house_slugs() -> dict:
    """Every brand id to the slug of its house (following aliases)."""
    brands = {b["id"]: b for b in Brand.objects.values("id", "slug", "canonical_id")}

    def root(pk):
        seen = set()
        while brands[pk]["canonical_id"] and pk not in seen:
            seen.add(pk)
            pk = brands[pk]["canonical_id"]
        return brands[pk]["slug"]

    return {pk: root(pk) for pk in brands}


def _house_names() -> dict[str, str]:
    return dict(Brand.objects.canonical().values_list("slug", "name"))


def brand_proposals(by_house: dict[str, list[ProductLine]] | None = None) -> list[Proposal]:
    by_house = _live_lines() if by_house is None else by_house
    houses = {b.slug: b for b in Brand.objects.canonical()}
    proposals = []
    for old, new, story in KNOWN_REBRANDS:
        if old in houses and new in houses:
            why = f"known rebrand: {story}"
            proposals.append(
                Proposal(MergeLevel.BRAND, houses[old].pk, houses[new].pk, 0.95, why, "rebrand")
            )
    line_keys = {house: {line.key for line in lines} for house, lines in by_house.items()}
    by_part: dict[str, set[str]] = defaultdict(set)
    for slug in line_keys:
        for part in slug.split("-"):
            by_part[part].add(slug)
    for short in sorted(line_keys):
        parts = short.split("-")
        holders = set.intersection(*(by_part[p] for p in parts))
        for long in sorted(holders - {short}):
            if f"-{short}-" not in f"-{long}-" or short not in houses or long not in houses:
                continue
            common = line_keys[short] & line_keys[long]
            if not common:
                continue
            share = len(common) / min(len(line_keys[short]), len(line_keys[long]))
            shown = ", ".join(sorted(common)[:3]) + (" …" if len(common) > 3 else "")
            why = (
                f"'{houses[short].name}' is within '{houses[long].name}' and both have "
                f"{len(common)} line(s) in common ({shown})"
            )
            proposals.append(
                Proposal(MergeLevel.BRAND, houses[short].pk, houses[long].pk,
                         round(0.4 + 0.5 * share, 3), why, "house_within")
            )  # fmt: skip
    return proposals


def all_proposals() -> list[Proposal]:
    """Every rule's proposals, one per pair and level (the highest score wins)."""
    by_house = _live_lines()
    best: dict[tuple, Proposal] = {}
    for proposal in (
        *brand_proposals(by_house),
        *line_proposals(by_house),
        *product_proposals(),
    ):
        if proposal.left_id == proposal.right_id:
            continue
        held = best.get(proposal.pair)
        if held is None or proposal.score > held.score:
            best[proposal.pair] = proposal
    return sorted(best.values(), key=lambda p: (-p.score, p.pair))
