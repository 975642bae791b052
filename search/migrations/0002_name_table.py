"""Site search reads its own table of names, kept by triggers, and a list of their words.

``search_name`` holds one row per searched row of another app's table (a competition, a
participant or one of its aliases, a venue, a product, a brand, an article): the entity it
finds (``owner_id``: the row itself, or the participant an alias names), the name as shown,
the name folded (``search_fold``) and its full-text words. Folding a name once, when it is
written, rather than at every search, and reading one table, keeps a search quick on a large
catalogue. ``search_word`` lists every word of those names: a misspelled query word is
looked up among a few thousand distinct words first (``search.sources.query_terms``).

The triggers are statement-level with transition tables, so a bulk insert adds its names in
one statement. An update writes only the rows whose searched text or owner changed; a delete
removes the row. The word list only grows: a word no name holds any more finds nothing.

The first migration's indexes on the other apps' tables are dropped: nothing reads them now.
"""

from importlib import import_module

from django.db import migrations

# The first migration's indexes, to drop here and to create again when this one is reversed.
FIRST = import_module("search.migrations.0001_folding_and_name_indexes")

# (table, the name shown, the searched text, the entity found, the full-text words), each
# an expression over a row ``r`` of the table; words NULL: the folded text's own words.
SOURCES = [
    ("sports_competition", "r.name", "r.name", "r.id", None),
    ("sports_participant", "r.name", "r.name", "r.id", None),
    ("sports_participantalias", "r.name", "r.name", "r.participant_id", None),
    ("sports_venue", "r.name", "r.name", "r.id", None),
    ("catalogue_product", "r.name", "r.brand_name || ' ' || r.name", "r.id", None),
    ("catalogue_brand", "r.name", "r.name", "r.id", None),
    (
        "discussions_article",
        "r.title",
        "r.title",
        "r.id",
        # An article is found by any word of its text, its title weighing most.
        "setweight(to_tsvector('simple', search_fold(r.title)), 'A')"
        " || setweight(to_tsvector('simple', search_fold(r.standfirst)), 'B')"
        " || setweight(to_tsvector('simple', search_fold(r.body_md)), 'C')",
    ),
]

TABLES = """
-- Edit distance between a query word and the listed words (a swapped pair of letters).
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
-- GIN indexes led by a plain column.
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE search_name (
    tbl text NOT NULL,
    row_id text NOT NULL,
    owner_id uuid NOT NULL,
    shown text NOT NULL,
    folded text NOT NULL,
    words tsvector NOT NULL,
    CONSTRAINT search_name_pkey PRIMARY KEY (tbl, row_id)
);
-- Searched within the tables asked for (btree_gin lets the table lead a GIN index), and
-- without a pending list (fastupdate): a search never scans names not yet merged into the
-- index, and the cost of writing a name is paid when it is written.
CREATE INDEX search_name_trgm ON search_name USING gin (tbl, folded gin_trgm_ops)
  WITH (fastupdate = off);
CREATE INDEX search_name_words ON search_name USING gin (tbl, words) WITH (fastupdate = off);

CREATE TABLE search_word (
    word text PRIMARY KEY,
    CONSTRAINT search_word_folded_word CHECK (word <> '' AND word !~ '[^[:alnum:]]')
);
CREATE INDEX search_word_trgm ON search_word USING gin (word gin_trgm_ops)
  WITH (fastupdate = off);
-- A query's last word may be typed only in part: the words it begins.
CREATE INDEX search_word_prefix ON search_word (word text_pattern_ops);

-- The words of a text as search_words() splits a query: folded, split at anything that is
-- not a letter or a digit. A run longer than 40 characters is not a word a visitor types.
CREATE FUNCTION search_text_words(value text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
  SELECT DISTINCT word FROM regexp_split_to_table(search_fold(value), '[^[:alnum:]]+') AS word
   WHERE word <> '' AND length(word) <= 40
$$;

-- The arguments: the name shown, the searched text, the entity found and the full-text
-- words (empty: the folded text's), each an SQL expression over a row r of the table.
CREATE FUNCTION search_names_write() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  words text := coalesce(nullif(TG_ARGV[3], ''),
                         format('to_tsvector(''simple'', search_fold(%s))', TG_ARGV[1]));
  changed text := '';
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_name n USING old_rows r
     WHERE n.tbl = TG_TABLE_NAME AND n.row_id = r.id::text;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- Only rows whose searched text, words or owner changed.
    changed := format(
      ' WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = r.id'
      ' AND (%1$s) IS NOT DISTINCT FROM (%2$s) AND (%3$s) IS NOT DISTINCT FROM (%4$s)'
      ' AND (%5$s) IS NOT DISTINCT FROM (%6$s) AND (%7$s) IS NOT DISTINCT FROM (%8$s))',
      TG_ARGV[0], replace(TG_ARGV[0], 'r.', 'o.'),
      TG_ARGV[1], replace(TG_ARGV[1], 'r.', 'o.'),
      TG_ARGV[2], replace(TG_ARGV[2], 'r.', 'o.'),
      words, replace(words, 'r.', 'o.'));
  END IF;
  EXECUTE format(
    'INSERT INTO search_name AS n (tbl, row_id, owner_id, shown, folded, words)'
    ' SELECT %1$L, r.id::text, %2$s, coalesce(%3$s, ''''), coalesce(search_fold(%4$s), ''''),'
    ' coalesce(%5$s, ''''::tsvector) FROM new_rows r%6$s'
    ' ON CONFLICT (tbl, row_id) DO UPDATE SET owner_id = excluded.owner_id,'
    ' shown = excluded.shown, folded = excluded.folded, words = excluded.words',
    TG_TABLE_NAME, TG_ARGV[2], TG_ARGV[0], TG_ARGV[1], words, changed);
  RETURN NULL;
END;
$$;

CREATE FUNCTION search_words_write() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO search_word (word)
  SELECT DISTINCT w FROM new_rows r, search_text_words(r.folded) AS w
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

CREATE TRIGGER search_words_insert AFTER INSERT ON search_name
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_write();
CREATE TRIGGER search_words_update AFTER UPDATE ON search_name
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_write();
"""

TABLES_REVERSE = """
DROP TABLE IF EXISTS search_word;
DROP TABLE IF EXISTS search_name;
DROP FUNCTION IF EXISTS search_words_write();
DROP FUNCTION IF EXISTS search_names_write() CASCADE;
DROP FUNCTION IF EXISTS search_text_words(text);
DROP EXTENSION IF EXISTS btree_gin;
DROP EXTENSION IF EXISTS fuzzystrmatch;
"""


def _quoted(expression: str | None) -> str:
    return "'" + (expression or "").replace("'", "''") + "'"


def _triggers() -> tuple[str, str]:
    create, drop = [], []
    for table, shown, text, owner, words in SOURCES:
        arguments = ", ".join(_quoted(part) for part in (shown, text, owner, words))
        for event, tables in (
            ("INSERT", "NEW TABLE AS new_rows"),
            ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
            ("DELETE", "OLD TABLE AS old_rows"),
        ):
            name = f"search_names_{event.lower()}"
            create.append(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {tables}"
                f" FOR EACH STATEMENT EXECUTE FUNCTION search_names_write({arguments});"
            )
            drop.append(f"DROP TRIGGER IF EXISTS {name} ON {table};")
        document = words or f"to_tsvector('simple', search_fold({text}))"
        create.append(
            "INSERT INTO search_name (tbl, row_id, owner_id, shown, folded, words)"  # noqa: S608
            f" SELECT '{table}', r.id::text, {owner}, coalesce({shown}, ''),"
            f" coalesce(search_fold({text}), ''), coalesce({document}, ''::tsvector)"
            f" FROM {table} r;"
        )
    return "\n".join(create), "\n".join(drop)


TRIGGERS, TRIGGERS_REVERSE = _triggers()


class Migration(migrations.Migration):
    dependencies = [("search", "0001_folding_and_name_indexes")]

    operations = [
        migrations.RunSQL(TABLES, TABLES_REVERSE),
        migrations.RunSQL(TRIGGERS, TRIGGERS_REVERSE),
        migrations.RunSQL(FIRST.INDEXES_REVERSE, FIRST.INDEXES),
    ]
