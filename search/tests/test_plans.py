"""The statements of ``search.sources`` can use the migration's indexes: an index serves a
query only when the query repeats its expression exactly, and nothing else would notice a
drift between the two (the answers stay right, only slow)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone

from catalogue.models import Brand, Product
from discussions.models import Article
from omnium.dbroles import OWNER_ROLE, url_with_user
from omnium.testing import _database_url_for_test_db
from search.selectors import GROUP_KEYS
from search.sources import SOURCES
from sports.models import Competition, Participant, ParticipantAlias, Venue

pytestmark = pytest.mark.django_db

# Each searched table and the stem of its two index names (the migration's).
TABLES = {
    "sports_competition": "search_competition_name",
    "sports_participant": "search_participant_name",
    "sports_participantalias": "search_participantalias_name",
    "sports_venue": "search_venue_name",
    "catalogue_product": "search_product_name",
    "catalogue_brand": "search_brand_name",
    "discussions_article": "search_article_title",
}


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
        for table in TABLES:
            conn.execute(f"ANALYZE {table}")


def _plan(source) -> str:
    sql, params = source.statement("premier leage", per_group=5, groups=list(GROUP_KEYS))
    with transaction.atomic(), connection.cursor() as cursor:
        # A thousand rows a table keep the test quick; at that size reading the whole table
        # (or walking its primary key) is still the cheapest, so both are ruled out: the
        # question is whether the search indexes can serve the conditions.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_every_name_is_matched_through_its_trigram_and_word_indexes(names):
    for source in SOURCES:
        plan = _plan(source)
        for column in source.names:
            if not column.indexed:  # a brand's aliased spellings: a few rows, no index
                continue
            stem = TABLES[column.table]
            assert f"{stem}_trgm" in plan, plan
            assert f"{stem}_words" in plan, plan


def test_folding_lowers_case_and_removes_accents():
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_fold(%s)", ["Lancôme Crème Ölfäß"])
        assert cursor.fetchone()[0] == "lancome creme olfass"


def test_a_query_without_words_matches_nothing_rather_than_failing():
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_words(%s), search_words(%s)::text", ["--", "Glen-fid 18"])
        assert cursor.fetchone() == (None, "'glen':* & 'fid':* & '18':*")
