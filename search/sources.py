"""What site search reads, and the one SQL statement per source that finds and ranks it.

A source is a kind of public record (competitions, participants, venues, products, brands,
articles) and the names it can be found by: its own name, and rows that point at it (a
participant's aliases; a merged participant, competition or product; a brand spelling a
person aliased to its house). A name that belongs to a merged or aliased row finds the row it
was merged into, however long the chain.

Matching and ranking, on text folded by ``search_fold`` (lower case, accents removed):

- each query word is first looked up in the list of every word a name holds (the table
  ``search_word``): the words it may be a misspelling of (trigram similarity at least
  ``TERM_SIMILARITY``, or a couple of edits away) and the words it begins. A name is a
  candidate when, for every query word found there, it holds that word, one it may stand
  for, or a word the query word begins (full text). Where that finds fewer than a group's
  worth of names, a name holding all the words but one will do if it is like the whole
  query (pg_trgm's ``%>``, word similarity above ``WORD_SIMILARITY``). A query word found
  nowhere in the list asks nothing of the names. Looking words up among a few thousand
  distinct words rather than testing the similarity of every name keeps a search quick on
  a large catalogue;
- only when no query word is in the list at all is a name a candidate by similarity to the
  whole query alone, or by holding every query word as a prefix (``search_words``);
- names are read from ``search_name`` (migration ``0002_name_table``), one row per searched
  row of the other apps' tables, folded once when written and kept by triggers; its GIN
  indexes, led by the table, answer every condition above;
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
# A query word may stand for the listed words at least this similar to it (pg_trgm's
# similarity of the two words) or within a few edits of it (one for a word of four letters,
# two from five: a swapped pair of letters is two), beginning with the same letter; the
# closest few of them.
TERM_SIMILARITY = 0.3
TERM_ALTERNATIVES = 8
# What a name gains when every query word begins one of its words.
WORDS_BONUS = 0.3
# Merge and alias chains are short; a longer one is a loop and is cut here.
CHAIN_LIMIT = 32


@dataclass(frozen=True)
class Terms:
    """What a candidate name must hold, as ``to_tsquery('simple', …)`` texts: ``strict``
    every query word found in the word list (each as itself, a prefix, or a word it may be a
    misspelling of); ``loose`` all but one of them, with two such words or more."""

    strict: str
    loose: str | None = None


TERMS_STATEMENT = """
SELECT q.word,
       EXISTS (SELECT 1 FROM search_word s
                WHERE s.word ~>=~ q.word AND s.word ~<~ (q.word || chr(1114111))) AS begins,
       ARRAY(SELECT a.word FROM (
               SELECT s.word, 0 AS edits, similarity(s.word, q.word) AS alike
                 FROM search_word s WHERE s.word %% q.word
               UNION
               SELECT s.word, levenshtein_less_equal(s.word, q.word, q.edits),
                      similarity(s.word, q.word)
                 FROM search_word s
                WHERE q.edits > 0
                  AND s.word ~>=~ left(q.word, 1) AND s.word ~<~ (left(q.word, 1) || chr(1114111))
                  AND length(s.word) BETWEEN length(q.word) - q.edits AND length(q.word) + q.edits
                  AND levenshtein_less_equal(s.word, q.word, q.edits) <= q.edits) a
             GROUP BY a.word ORDER BY max(a.alike) DESC, a.word LIMIT %s) AS similar
  FROM (SELECT word, CASE WHEN length(word) >= 5 THEN 2 WHEN length(word) = 4 THEN 1 ELSE 0 END
          AS edits FROM search_text_words(%s) AS word) q
"""


def _lexeme(word: str) -> str:
    # Words of the list hold only letters and digits (its check constraint).
    return f"'{word}'"


def query_terms(cursor: Any, query: str) -> Terms | None:
    """The terms ``query`` asks of a name, or None when none of its words is in the word
    list (then a name is found by similarity to the whole query). ``cursor`` is in the
    search's transaction, whose trigram threshold is ``TERM_SIMILARITY``."""
    cursor.execute(TERMS_STATEMENT, [TERM_ALTERNATIVES, query])
    groups = []
    for word, begins, similar in sorted(cursor.fetchall()):
        if not begins and not similar:
            continue
        alternatives = [f"{_lexeme(word)}:*"] + [_lexeme(s) for s in similar if s != word]
        groups.append("(" + " | ".join(alternatives) + ")")
    if not groups:
        return None
    loose = None
    if len(groups) >= 2:
        loose = " | ".join(
            "(" + " & ".join(g for j, g in enumerate(groups) if j != i) + ")"
            for i in range(len(groups))
        )
    return Terms(strict=" & ".join(groups), loose=loose)


SCORE = (
    "similarity(n.folded, search_fold(%(q)s)) + word_similarity(search_fold(%(q)s), n.folded)"
    f" + CASE WHEN n.words @@ search_words(%(q)s) THEN {WORDS_BONUS} ELSE 0 END"
)
# The names of ``tables`` that a condition finds, scored, the best ``limit`` of each table.
CANDIDATES_STATEMENT = (
    "SELECT tbl, owner_id, shown, score FROM ("  # noqa: S608 - constant fragments
    " SELECT *, row_number() OVER (PARTITION BY tbl ORDER BY score DESC, row_id) AS place"
    f" FROM (SELECT n.tbl, n.row_id, n.owner_id, n.shown, {SCORE} AS score"
    " FROM search_name n WHERE n.tbl = ANY(%(tables)s) AND ({condition})) scored) s"
    " WHERE %(limit)s::int IS NULL OR place <= %(limit)s::int"
)
CONDITIONS = {
    "terms": "n.words @@ to_tsquery('simple', %(terms)s)",
    # All words but one, in a name like the whole query.
    "loose": "n.words @@ to_tsquery('simple', %(terms)s) AND n.folded %%> search_fold(%(q)s)",
    # Folded in the statement, so the planner reads the query as a constant the indexes
    # can be asked about.
    "similar": "n.folded %%> search_fold(%(q)s) OR n.words @@ search_words(%(q)s)",
}


# Names no table holds, made by joining rows (a product under a spelling a person aliased to
# its house): few rows, folded as they are read. ``{names}`` yields (id, shown, text).
DERIVED_STATEMENT = (
    "SELECT owner_id, shown, score FROM ("  # noqa: S608 - constant fragments
    f" SELECT n.owner_id, n.shown, {SCORE} AS score FROM ("
    " SELECT d.id AS owner_id, d.shown, search_fold(d.text) AS folded,"
    " to_tsvector('simple', search_fold(d.text)) AS words FROM {names} d) n"
    " WHERE {condition}) s ORDER BY score DESC, owner_id LIMIT %(limit)s"
)


def derived_candidates(
    cursor: Any, query: str, *, names: str, terms: Terms | None, limit: int | None
) -> list[Candidate]:
    """The derived ``names`` that ``query`` finds, as ``candidates`` finds a table's."""
    condition = CONDITIONS["similar" if terms is None else "terms"]
    cursor.execute(
        DERIVED_STATEMENT.format(names=names, condition=condition),
        {"q": query, "limit": limit, "terms": None if terms is None else terms.strict},
    )
    return [Candidate(owner_id, shown, score) for owner_id, shown, score in cursor.fetchall()]


@dataclass(frozen=True)
class Candidate:
    owner_id: Any
    matched: str
    score: float


def candidates(
    cursor: Any,
    query: str,
    *,
    terms: Terms | None,
    tables: list[str],
    limit: int | None,
    loose: bool = False,
) -> dict[str, list[Candidate]]:
    """The names of ``tables`` that ``query`` finds, best first, at most ``limit`` a table
    (None: all): by ``terms`` (their loose form with ``loose``) or, without them, by
    similarity to the whole query."""
    condition = CONDITIONS["similar" if terms is None else "loose" if loose else "terms"]
    cursor.execute(
        CANDIDATES_STATEMENT.format(condition=condition),
        {
            "q": query,
            "tables": tables,
            "limit": limit,
            "terms": None if terms is None else (terms.loose if loose else terms.strict),
        },
    )
    found: dict[str, list[Candidate]] = {table: [] for table in tables}
    for table, owner_id, shown, score in cursor.fetchall():
        found[table].append(Candidate(owner_id, shown, score))
    return found


@dataclass(frozen=True)
class Source:
    """One kind of record, found by the names of ``tables`` (their rows of ``search_name``).
    ``group`` is an SQL expression over ``e`` (the entity row) giving the result group of
    each row; ``follows`` the column that points a merged or aliased row to the one it
    joined; ``columns`` what the answer needs to show and link a row."""

    model: type[models.Model]
    tables: tuple[str, ...]
    public: Callable[[], models.QuerySet[Any]]
    columns: tuple[str, ...]
    label: str = "name"
    group: str = ""
    follows: str = ""
    key: str = field(default="")
    # A subquery of derived names (id, shown, text) that find this source's rows too.
    derived: str = ""

    @property
    def table(self) -> str:
        return self.model._meta.db_table

    def statement(
        self, hits: list[Candidate], *, per_group: int, groups: list[str]
    ) -> tuple[str, list]:
        """The statement ranking ``hits`` (candidates from this source's tables): at most
        ``per_group`` rows for each of ``groups``, best first, as rows of ``columns`` plus
        ``grp``, ``matched`` (the name that matched) and ``score``. A hit on a merged or
        aliased row counts for the row it joined; rows the public may not see are left out."""
        params: list[Any] = [
            [hit.owner_id for hit in hits],
            [hit.matched for hit in hits],
            [hit.score for hit in hits],
        ]
        ctes = [
            "hits (id, matched, score) AS"
            " (SELECT * FROM unnest(%s::uuid[], %s::text[], %s::float8[]))"
        ]
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


SOURCES: tuple[Source, ...] = (
    Source(
        key="competitions",
        model=Competition,
        tables=("sports_competition",),
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
        tables=("sports_participant", "sports_participantalias"),
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
        tables=("sports_venue",),
        public=_public_venues,
        columns=("e.id", "e.name", "e.city", "e.country"),
    ),
    Source(
        key="products",
        model=Product,
        tables=("catalogue_product",),
        # A spelling a person aliased to the product's house leads its name too ("J. Walker
        # red"), as the brand as collected does.
        derived=(
            "(SELECT p.id, p.name AS shown, a.name || ' ' || p.name AS text"
            " FROM catalogue_product p JOIN catalogue_brand a ON a.canonical_id = p.brand_id)"
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
        tables=("catalogue_brand",),
        public=lambda: Brand.objects.canonical(),
        # A spelling a person aliased to a house points at it through ``canonical``.
        follows="canonical_id",
        columns=("e.id", "e.name", "e.slug"),
    ),
    Source(
        key="articles",
        model=Article,
        tables=("discussions_article",),
        public=lambda: Article.objects.published(),
        label="title",
        columns=("e.id", "e.title AS name", "e.slug", "e.standfirst"),
    ),
)
