"""What site search reads, and the one SQL statement per source that finds and ranks it.

A source is a kind of public record (competitions, participants, venues, products, brands,
articles) and the names it can be found by: its own name, and rows that point at it (a
participant's aliases; a merged participant, competition or product; a brand spelling a
person aliased to its house). A name that belongs to a merged or aliased row finds the row it
was merged into, however long the chain.

Matching and ranking, on text folded by ``search_fold`` (lower case, accents removed):

- a name is a candidate when the query is similar to some run of its words (pg_trgm's
  ``%>``, word similarity above ``WORD_SIMILARITY``) or when every query word begins one of
  its words (full text, ``search_words``); both are answered by the GIN indexes of the
  migration ``0001_folding_and_name_indexes``, whose expressions these must repeat exactly;
- its score is the trigram similarity of the whole name, plus the word similarity, plus
  ``WORDS_BONUS`` when every word matched: a name equal to the query scores highest, a
  misspelling of it next, a longer name holding it after that.

Only rows the public pages show come back: each source filters its survivors through the
owning app's public queryset (``Product.objects.visible()``, ``Article.objects.published()``,
...), so the rule is written once, where the pages read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from django.db.models import Exists, OuterRef, Q

from catalogue.models import Brand, Product
from discussions.models import Article
from sports.models import Competition, Fixture, Participant, ParticipantType, Venue

# Word similarity at or above which a name is a candidate: low enough for a swapped pair
# of letters in a short word ("sauvgae" is 0.5 of "sauvage"), high enough to keep unrelated
# names out of the candidates the indexes hand over.
WORD_SIMILARITY = 0.35
# What a name gains when every query word begins one of its words.
WORDS_BONUS = 0.3
# Merge and alias chains are short; a longer one is a loop and is cut here.
CHAIN_LIMIT = 32


@dataclass(frozen=True)
class Names:
    """A column of text that finds entities: ``text`` is an SQL expression over ``t`` (a row
    of ``table``), ``owner`` the column of ``t`` naming the entity (or the row that leads to
    it). ``words`` is the full-text document, the folded text itself unless given."""

    table: str
    text: str
    owner: str = "id"
    words: str = ""
    shown: str = ""
    # False for a small derived set of names read without an index of its own.
    indexed: bool = True

    @property
    def document(self) -> str:
        return self.words or f"to_tsvector('simple', search_fold({self.text}))"


@dataclass(frozen=True)
class Source:
    """One kind of record. ``group`` is an SQL expression over ``e`` (the entity row) giving
    the result group of each row; ``follows`` the column that points a merged or aliased
    row to the one it joined; ``columns`` what the answer needs to show and link a row."""

    model: type[models.Model]
    names: tuple[Names, ...]
    public: Callable[[], models.QuerySet[Any]]
    columns: tuple[str, ...]
    label: str = "name"
    group: str = ""
    follows: str = ""
    key: str = field(default="")

    @property
    def table(self) -> str:
        return self.model._meta.db_table

    def statement(self, query: str, *, per_group: int, groups: list[str]) -> tuple[str, list]:
        """The statement finding ``query`` in this source: at most ``per_group`` rows for
        each of ``groups``, best first, as rows of ``columns`` plus ``grp``, ``matched``
        (the name that matched) and ``score``."""
        params: list[Any] = []
        hits = []
        for names in self.names:
            folded = f"search_fold({names.text})"
            hits.append(
                # The fragments are this module's constants; the query is a parameter.
                f"SELECT t.{names.owner} AS id, {names.shown or names.text} AS matched,"  # noqa: S608
                f" similarity({folded}, search_fold(%s))"
                f" + word_similarity(search_fold(%s), {folded})"
                f" + CASE WHEN {names.document} @@ search_words(%s) THEN {WORDS_BONUS} ELSE 0 END"
                f" AS score"
                f" FROM {names.table} t"
                f" WHERE {folded} %%> search_fold(%s) OR {names.document} @@ search_words(%s)"
            )
            params += [query] * 5
        ctes = [f"hits AS ({' UNION ALL '.join(hits)})"]
        if self.follows:
            ctes.append(
                "chain AS ("  # noqa: S608 - constant fragments
                f"SELECT e.id, e.{self.follows} AS next, h.matched, h.score, 0 AS depth"
                f" FROM hits h JOIN {self.table} e ON e.id = h.id"
                " UNION ALL"
                f" SELECT e.id, e.{self.follows}, c.matched, c.score, c.depth + 1"
                f" FROM chain c JOIN {self.table} e ON e.id = c.next"
                f" WHERE c.depth < {CHAIN_LIMIT})"
            )
            ctes.append("found AS (SELECT id, matched, score FROM chain WHERE next IS NULL)")
        else:
            ctes.append("found AS (SELECT id, matched, score FROM hits)")
        ctes.append(
            "best AS (SELECT DISTINCT ON (id) id, matched, score FROM found"
            " ORDER BY id, score DESC, matched)"
        )
        public_sql, public_params = self.public().order_by().values("pk").query.sql_with_params()
        params += list(public_params)
        columns = ", ".join(self.columns)
        # A source of one group names it by its key, a constant of this module.
        group = self.group or f"'{self.key}'"
        ctes.append(
            f"ranked AS (SELECT {columns}, {group} AS grp, best.matched, best.score,"  # noqa: S608
            f" row_number() OVER (PARTITION BY {group} ORDER BY best.score DESC,"
            f" e.{self.label}, e.id) AS place"
            f" FROM best JOIN {self.table} e ON e.id = best.id"
            f" WHERE best.id IN ({public_sql}))"
        )
        params += [groups, per_group]
        sql = (
            f"WITH RECURSIVE {', '.join(ctes)}"  # noqa: S608
            " SELECT * FROM ranked WHERE grp = ANY(%s) AND place <= %s ORDER BY grp, place"
        )
        return sql, params


def _public_participants() -> models.QuerySet[Participant]:
    # Countries are reference rows every sport shares; anyone else is shown once a public
    # fixture shows them (a name first seen in a submission not yet accepted stays hidden).
    appears = Fixture.objects.public().filter(competitors__participant=OuterRef("pk"))
    return Participant.objects.canonical().filter(Q(type=ParticipantType.COUNTRY) | Exists(appears))


def _public_venues() -> models.QuerySet[Venue]:
    return Venue.objects.filter(Exists(Fixture.objects.public().filter(venue=OuterRef("pk"))))


PARTICIPANT_GROUP = (
    "CASE e.type"
    f" WHEN '{ParticipantType.PERSON}' THEN 'people' WHEN '{ParticipantType.HORSE}' THEN 'people'"
    f" WHEN '{ParticipantType.COUNTRY}' THEN 'countries' ELSE 'teams' END"
)

ARTICLE_DOCUMENT = (
    "setweight(to_tsvector('simple', search_fold(title)), 'A')"
    " || setweight(to_tsvector('simple', search_fold(standfirst)), 'B')"
    " || setweight(to_tsvector('simple', search_fold(body_md)), 'C')"
)

BRAND_ALIAS_NAMES = (
    "(SELECT p.id, p.name, a.name || ' ' || p.name AS alias_name"
    " FROM catalogue_product p JOIN catalogue_brand a ON a.canonical_id = p.brand_id)"
)

SOURCES: tuple[Source, ...] = (
    Source(
        key="competitions",
        model=Competition,
        names=(Names("sports_competition", "name"),),
        public=lambda: Competition.objects.canonical(),
        follows="merged_into_id",
        columns=(
            "e.id",
            "e.name",
            "e.type",
            "(SELECT s.name FROM sports_sport s WHERE s.id = e.sport_id) AS sport",
            "(SELECT p.name FROM sports_competition p WHERE p.id = e.parent_id) AS parent",
        ),
    ),
    Source(
        key="participants",
        model=Participant,
        names=(
            Names("sports_participant", "name"),
            Names("sports_participantalias", "name", owner="participant_id"),
        ),
        public=_public_participants,
        follows="merged_into_id",
        group=PARTICIPANT_GROUP,
        columns=(
            "e.id",
            "e.name",
            "e.type",
            "e.country",
            "(SELECT s.code FROM sports_sport s WHERE s.id = e.sport_id) AS sport_code",
            "(SELECT s.name FROM sports_sport s WHERE s.id = e.sport_id) AS sport",
        ),
    ),
    Source(
        key="venues",
        model=Venue,
        names=(Names("sports_venue", "name"),),
        public=_public_venues,
        columns=("e.id", "e.name", "e.city", "e.country"),
    ),
    Source(
        key="products",
        model=Product,
        # The brand as collected leads the name, so "dior sauvage" reads as one phrase.
        names=(
            Names("catalogue_product", "brand_name || ' ' || name", shown="name"),
            # A spelling a person aliased to the product's house leads the name too ("J.
            # Walker red"): few rows (only aliased brands), so no index of its own.
            Names(BRAND_ALIAS_NAMES, "alias_name", shown="name", indexed=False),
        ),
        public=lambda: Product.objects.visible(),
        follows="merged_into_id",
        columns=(
            "e.id",
            "e.name",
            "e.category",
            "(SELECT b.name FROM catalogue_brand b WHERE b.id = e.brand_id) AS brand",
        ),
    ),
    Source(
        key="brands",
        model=Brand,
        names=(Names("catalogue_brand", "name"),),
        public=lambda: Brand.objects.canonical(),
        # A spelling a person aliased to a house points at it through ``canonical``.
        follows="canonical_id",
        columns=("e.id", "e.name", "e.slug"),
    ),
    Source(
        key="articles",
        model=Article,
        names=(Names("discussions_article", "title", words=ARTICLE_DOCUMENT),),
        public=lambda: Article.objects.published(),
        label="title",
        columns=("e.id", "e.title AS name", "e.slug", "e.standfirst"),
    ),
)
