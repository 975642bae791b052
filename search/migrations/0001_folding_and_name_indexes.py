"""Site search: the two extensions, the folding functions, and a trigram and a word index on
every name the search reads.

The indexes sit on other apps' tables because search is the only reader that needs them;
their expressions must stay exactly those ``search.sources`` queries with, or the planner
cannot use them (``search/tests/test_plans.py`` checks that it does).
"""

from django.db import migrations

FUNCTIONS = """
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE, because the dictionary it reads by default could be changed
-- with a setting. Naming the dictionary fixes the answer, so the wrapper can be IMMUTABLE,
-- which an expression index requires.
CREATE FUNCTION search_fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;

-- Every word of the folded text as a prefix, all required: 'glenfid 18' matches
-- 'glenfiddich 18 year old'. NULL when the text has no word (nothing matches NULL).
CREATE FUNCTION search_words(value text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
  SELECT to_tsquery('simple', string_agg(word || ':*', ' & '))
    FROM regexp_split_to_table(search_fold(value), '[^[:alnum:]]+') AS word
   WHERE word <> ''
$$;
"""

FUNCTIONS_REVERSE = """
DROP FUNCTION IF EXISTS search_words(text);
DROP FUNCTION IF EXISTS search_fold(text);
DROP EXTENSION IF EXISTS pg_trgm;
DROP EXTENSION IF EXISTS unaccent;
"""

# (index name stem, table, the text searched)
NAMES = [
    ("search_competition_name", "sports_competition", "name"),
    ("search_participant_name", "sports_participant", "name"),
    ("search_participantalias_name", "sports_participantalias", "name"),
    ("search_venue_name", "sports_venue", "name"),
    ("search_product_name", "catalogue_product", "brand_name || ' ' || name"),
    ("search_brand_name", "catalogue_brand", "name"),
    ("search_article_title", "discussions_article", "title"),
]

# An article is found by any word of its text, its title weighing most.
ARTICLE_WORDS = (
    "setweight(to_tsvector('simple', search_fold(title)), 'A')"
    " || setweight(to_tsvector('simple', search_fold(standfirst)), 'B')"
    " || setweight(to_tsvector('simple', search_fold(body_md)), 'C')"
)


def _indexes() -> tuple[str, str]:
    create, drop = [], []
    for stem, table, text in NAMES:
        words = ARTICLE_WORDS if table == "discussions_article" else (
            f"to_tsvector('simple', search_fold({text}))"
        )
        create.append(
            f"CREATE INDEX {stem}_trgm ON {table} USING gin (search_fold({text}) gin_trgm_ops);"
        )
        create.append(f"CREATE INDEX {stem}_words ON {table} USING gin (({words}));")
        drop.append(f"DROP INDEX IF EXISTS {stem}_trgm;")
        drop.append(f"DROP INDEX IF EXISTS {stem}_words;")
    return "\n".join(create), "\n".join(drop)


INDEXES, INDEXES_REVERSE = _indexes()


class Migration(migrations.Migration):
    dependencies = [
        ("sports", "0002_provenance_and_tables"),
        ("catalogue", "0009_merge_candidate_to_curation"),
        ("discussions", "0002_email_sends_moved_to_accounts"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, FUNCTIONS_REVERSE),
        migrations.RunSQL(INDEXES, INDEXES_REVERSE),
    ]
