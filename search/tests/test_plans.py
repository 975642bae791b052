"""The statements of ``search.sources`` can use the search tables' indexes, and the triggers
keep a row of ``search_name`` for every searched row: nothing else would notice a drift
(the answers would stay right, only slow, or miss names)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone

from catalogue.models import Brand, Product
from discussions.models import Article
from omnium.dbroles import OWNER_ROLE, url_with_user
from omnium.testing import _database_url_for_test_db
from search.sources import (
    CANDIDATES_STATEMENT,
    CONDITIONS,
    SOURCES,
    TERM_ALTERNATIVES,
    TERMS_STATEMENT,
)
from sports.models import Competition, Participant, ParticipantAlias, Venue

pytestmark = pytest.mark.django_db

# Every table whose rows site search finds.
TABLES = [
    "sports_competition",
    "sports_participant",
    "sports_participantalias",
    "sports_venue",
    "catalogue_product",
    "catalogue_brand",
    "discussions_article",
]


ROWS = 1000


@pytest.fixture
def names():
    """Enough rows in every searched table, analysed, that the planner weighs an index
    against a scan as it would on real data (on empty tables a scan always wins)."""
    at = timezone.now()
    people = Participant.objects.bulk_create(
        Participant(code=f"p{n}", type="PERSON", name=f"Person {n}") for n in range(ROWS)
    )
    ParticipantAlias.objects.bulk_create(
        ParticipantAlias(participant=p, name=f"Alias {n}", source_code="t", first_seen=at,
                         last_seen=at)
        for n, p in enumerate(people)
    )  # fmt: skip
    Competition.objects.bulk_create(
        Competition(code=f"c{n}", type="league", name=f"League {n}", tree_id=n + 1, lft=1,
                    rght=2, level=0)
        for n in range(ROWS)
    )  # fmt: skip
    Venue.objects.bulk_create(Venue(code=f"v{n}", name=f"Ground {n}") for n in range(ROWS))
    Brand.objects.bulk_create(Brand(slug=f"b{n}", name=f"House {n}") for n in range(ROWS))
    Product.objects.bulk_create(
        Product(match_key=f"k{n}", name=f"Bottle {n}", vertical="spirits",
                identity_rules_version=1)
        for n in range(ROWS)
    )  # fmt: skip
    Article.objects.bulk_create(
        Article(slug=f"a{n}", title=f"Note {n}", body_md="text") for n in range(ROWS)
    )
    # Only the tables' owner may ANALYZE; the rows are committed (the test using this is
    # transactional), so the owner's session sees them.
    owner = url_with_user(_database_url_for_test_db(), OWNER_ROLE)
    with psycopg.connect(owner, autocommit=True) as conn:
        for table in [*TABLES, "search_name", "search_word"]:
            conn.execute(f"ANALYZE {table}")


def _plan(sql: str, params) -> str:
    with transaction.atomic(), connection.cursor() as cursor:
        # A thousand rows a table keep the test quick; at that size reading the whole table
        # (or walking its primary key) is still the cheapest, so both are ruled out: the
        # question is whether the search indexes can serve the conditions.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def _candidates_plan(condition: str, terms: str | None) -> str:
    sql = CANDIDATES_STATEMENT.format(condition=CONDITIONS[condition])
    tables = [table for source in SOURCES for table in source.tables]
    return _plan(sql, {"q": "premier leage", "tables": tables, "limit": 100, "terms": terms})


@pytest.mark.django_db(transaction=True)
def test_every_searched_table_keeps_its_names_in_the_search_table(names):
    with connection.cursor() as cursor:
        cursor.execute("SELECT tbl, count(*) FROM search_name GROUP BY tbl")
        counts = dict(cursor.fetchall())
    searched = {table for source in SOURCES for table in source.tables}
    assert searched == set(TABLES)
    assert all(counts.get(table, 0) >= ROWS for table in TABLES), counts


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("condition", "terms", "indexes"),
    [
        ("terms", "'person':* & '1':*", ["search_name_words"]),
        # All words but one and like the whole query: either index narrows it.
        ("loose", "'person':* | '1':*", ["search_name_"]),
        ("similar", None, ["search_name_trgm", "search_name_words"]),
    ],
)
def test_names_are_found_through_the_search_tables_indexes(names, condition, terms, indexes):
    plan = _candidates_plan(condition, terms)

    for index in indexes:
        assert index in plan, plan
    assert "Seq Scan" not in plan, plan


@pytest.mark.django_db(transaction=True)
def test_query_words_are_looked_up_through_the_word_lists_indexes(names):
    plan = _plan(TERMS_STATEMENT, [TERM_ALTERNATIVES, "premier leage"])

    assert "search_word_trgm" in plan, plan
    assert "search_word_prefix" in plan, plan


def test_folding_lowers_case_and_removes_accents():
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_fold(%s)", ["Lancôme Crème Ölfäß"])
        assert cursor.fetchone()[0] == "lancome creme olfass"


def test_a_query_without_words_matches_nothing_rather_than_failing():
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_words(%s), search_words(%s)::text", ["--", "Glen-fid 18"])
        assert cursor.fetchone() == (None, "'glen':* & 'fid':* & '18':*")
