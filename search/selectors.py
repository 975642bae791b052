"""Site search: one query text, grouped answers from every public kind of record.

``site_search`` is what the results page and ``/api/v1/search/`` both answer with; how a name
is matched and ranked is in ``search.sources``.
"""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.urls import NoReverseMatch, reverse

from search.sources import (
    SOURCES,
    TERM_SIMILARITY,
    WORD_SIMILARITY,
    Candidate,
    Source,
    candidates,
    derived_candidates,
    query_terms,
)

MIN_LENGTH = 2
MAX_LENGTH = 100
PER_GROUP = 5
# One group asked for on its own shows this many.
PER_GROUP_ALONE = 50
# The best names of each table ranked first; all of them only when too few of those are
# public records (or they were merged into fewer).
CANDIDATES = 100


@dataclass(frozen=True)
class Group:
    key: str
    title: str


# In this order where scores tie: the kinds a visitor most often means come first (a
# country before the national side named after it).
GROUPS: tuple[Group, ...] = (
    Group("competitions", "Competitions"),
    Group("countries", "Countries"),
    Group("teams", "Teams"),
    Group("people", "Players and athletes"),
    Group("products", "Products"),
    Group("brands", "Brands"),
    Group("venues", "Venues"),
    Group("articles", "Articles"),
)
GROUP_KEYS = tuple(group.key for group in GROUPS)
# Which source answers for each group.
SOURCE_OF = {
    "competitions": "competitions",
    "teams": "participants",
    "people": "participants",
    "countries": "participants",
    "products": "products",
    "brands": "brands",
    "venues": "venues",
    "articles": "articles",
}


@dataclass(frozen=True)
class Hit:
    """One record found. ``matched`` is the other name it was found by (an alias, a merged
    record's name, a brand's other spelling), empty when its own name matched. ``url`` is
    its public page, None where no page exists yet."""

    group: str
    id: str
    name: str
    detail: str
    matched: str
    score: float
    url: str | None


@dataclass
class GroupHits:
    key: str
    title: str
    hits: list[Hit] = field(default_factory=list)

    @property
    def best(self) -> float:
        return self.hits[0].score if self.hits else 0.0


@dataclass(frozen=True)
class SearchAnswer:
    query: str
    groups: list[GroupHits]

    @property
    def top(self) -> Hit | None:
        return self.groups[0].hits[0] if self.groups else None


def search_query_clean(text: str | None) -> str:
    """The query as searched: spaces trimmed and runs of them made one. Rejects (with the
    rule broken) a query shorter than ``MIN_LENGTH`` or longer than ``MAX_LENGTH``
    characters, or one holding control characters."""
    query = " ".join((text or "").split())
    if len(query) < MIN_LENGTH:
        raise ValidationError(
            f"q: type at least {MIN_LENGTH} characters to search.", code="too_short"
        )
    if len(query) > MAX_LENGTH:
        raise ValidationError(
            f"q: at most {MAX_LENGTH} characters, not {len(query)}.", code="too_long"
        )
    if any(unicodedata.category(ch).startswith("C") for ch in query):
        raise ValidationError("q: control and unassigned characters are not searched.")
    return query


def site_search(query: str, *, group: str | None = None) -> SearchAnswer:
    """Every public record ``query`` finds, in groups, best first: the group holding the best
    hit leads, and ties keep the order of ``GROUPS``. ``group`` asks for one group alone, with
    more hits. ``query`` is one ``search_query_clean`` returned.

    In one transaction (its trigram thresholds are set for it alone): one statement for the
    query's terms, one for the names found in every table (``search_name``), then one per
    source ranking its names into public records.
    """
    groups = [g for g in GROUPS if group is None or g.key == group]
    per_group = PER_GROUP if group is None else PER_GROUP_ALONE
    keys = [g.key for g in groups]
    wanted = {SOURCE_OF[g.key] for g in groups}
    sources = [source for source in SOURCES if source.key in wanted]
    found: dict[str, GroupHits] = {g.key: GroupHits(g.key, g.title) for g in groups}
    with transaction.atomic(), connection.cursor() as cursor:
        for row in _rows(cursor, query, sources, per_group=per_group, groups=keys):
            found[row["grp"]].hits.append(_hit(row))
    ordered = sorted(
        (hits for hits in found.values() if hits.hits),
        key=lambda hits: (-hits.best, GROUP_KEYS.index(hits.key)),
    )
    return SearchAnswer(query=query, groups=ordered)


def _rows(
    cursor: Any, query: str, sources: list[Source], *, per_group: int, groups: list[str]
) -> list[dict[str, Any]]:
    """The ranked rows of ``sources`` that ``query`` finds, at most ``per_group`` a group."""
    # The statements are quick and planned anew each time: compiling them (JIT, which
    # their cost estimates over large tables would ask for) takes longer than running.
    cursor.execute(
        "SELECT set_config('pg_trgm.word_similarity_threshold', %s, true),"
        " set_config('pg_trgm.similarity_threshold', %s, true),"
        " set_config('jit', 'off', true)",
        [str(WORD_SIMILARITY), str(TERM_SIMILARITY)],
    )
    terms = query_terms(cursor, query)
    tables = [table for source in sources for table in source.tables]
    names = candidates(cursor, query, terms=terms, tables=tables, limit=CANDIDATES)
    loose = [table for table in tables if len(names[table]) < per_group]
    if terms is not None and terms.loose and loose:
        names.update(
            candidates(cursor, query, terms=terms, tables=loose, limit=CANDIDATES, loose=True)
        )
    for source in sources:
        if source.derived:
            names[_derived(source)] = derived_candidates(
                cursor, query, names=source.derived, terms=terms, limit=CANDIDATES
            )
    rows: list[dict[str, Any]] = []
    for source in sources:
        ranked = _ranked(cursor, source, names, per_group=per_group, groups=groups)
        if len(ranked) < per_group and any(
            len(names[table]) >= CANDIDATES for table in source.tables
        ):
            # The best names were all hidden or merged into one: rank every name found.
            for table in source.tables:
                names.update(
                    candidates(
                        cursor,
                        query,
                        terms=terms,
                        tables=[table],
                        limit=None,
                        loose=bool(terms and terms.loose) and table in loose,
                    )
                )
            ranked = _ranked(cursor, source, names, per_group=per_group, groups=groups)
        rows += ranked
    return rows


def _derived(source: Source) -> str:
    return f"{source.key}:derived"


def _ranked(
    cursor: Any,
    source: Source,
    names: dict[str, list[Candidate]],
    *,
    per_group: int,
    groups: list[str],
) -> list[dict[str, Any]]:
    hits = [hit for table in source.tables for hit in names[table]]
    hits += names.get(_derived(source), [])
    if not hits:
        return []
    sql, params = source.statement(hits, per_group=per_group, groups=groups)
    cursor.execute(sql, params)
    columns = [column.name for column in cursor.description]
    return [dict(zip(columns, values, strict=True)) for values in cursor.fetchall()]


def _url(name: str, *args: Any) -> str | None:
    # Some kinds get their public page later than search does: link to it once it exists.
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _hit(row: dict[str, Any]) -> Hit:
    group = row["grp"]
    pk = row["id"]
    detail: list[str] = []
    url: str | None = None
    if group == "competitions":
        detail = [row["sport"] or "", f"in {row['parent']}" if row["parent"] else ""]
        url = _url("sports:competition-detail", pk)
    elif group in ("teams", "people", "countries"):
        detail = [row["sport"] or "", row["country"] or ""]
        url = _url("sports:participant-detail", pk)
        if not url and group == "people" and row["sport_code"] == "cricket":
            url = _url("cricket_stats:player", pk)
    elif group == "venues":
        detail = [row["city"], row["country"]]
        url = _url("sports:venue-detail", pk)
    elif group == "products":
        detail = [row["brand"] or "", row["category"]]
        url = _url("catalogue:product-detail", pk)
    elif group == "brands":
        url = _url("catalogue:brand-detail", row["slug"])
    elif group == "articles":
        detail = [row["standfirst"]]
        url = _url("discussions:article-detail", row["slug"])
    matched = row["matched"]
    return Hit(
        group=group,
        id=str(pk) if isinstance(pk, uuid.UUID) else pk,
        name=row["name"],
        detail=" · ".join(part for part in detail if part),
        matched="" if matched == row["name"] else matched,
        score=round(float(row["score"]), 4),
        url=url,
    )


# The most products one catalogue list query takes from the search; a list filtered
# further (an airport, a price range) narrows these.
PRODUCTS_FOUND_LIMIT = 500


def products_found(text: str) -> list[uuid.UUID]:
    """The ids of the public products ``text`` finds, best first (the products group of
    ``site_search``, up to ``PRODUCTS_FOUND_LIMIT``); empty for a text the search refuses."""
    try:
        query = search_query_clean(text)
    except ValidationError:
        return []
    return site_search_products(query, limit=PRODUCTS_FOUND_LIMIT)


def site_search_products(query: str, *, limit: int) -> list[uuid.UUID]:
    source = next(source for source in SOURCES if source.key == "products")
    with transaction.atomic(), connection.cursor() as cursor:
        rows = _rows(cursor, query, [source], per_group=limit, groups=["products"])
    return [row["id"] for row in rows]
