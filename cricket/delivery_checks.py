"""The statement check of ``cricket_delivery`` (``Delivery``'s ``delivery_references_insert``
and ``delivery_references_update`` triggers): its references, and the unique rules that a
partitioned table's indexes hold per partition only, made global."""

# Referential integrity of cricket_delivery, checked once per statement over the rows it
# wrote (a transition table) instead of by seven foreign-key triggers per row. A corpus
# import writes millions of deliveries by COPY; the per-row checks (one lookup and one
# KEY SHARE row lock per reference per row) cost more than the COPY itself. Here one COPY
# of a match costs a few index probes per *distinct* referenced row, and, for the rules
# made global across partitions, one probe per partition per new row in one semi-join
# (``docs/scaling.md``, "The import's cost"). The referenced side
# is guarded too: innings are never deleted (trigger), submissions and participants that a
# delivery names cannot be deleted (``delivery_referenced_delete_guard``, migration 0004).
REFERENCES_CHECK = """
    SELECT 'innings ' || n.innings_id INTO missing FROM new_rows n
     WHERE NOT EXISTS (SELECT 1 FROM cricket_innings i WHERE i.id = n.innings_id) LIMIT 1;
    IF missing IS NULL THEN
        SELECT 'participant ' || p.id INTO missing FROM (
            SELECT batter_id AS id FROM new_rows
            UNION SELECT bowler_id FROM new_rows
            UNION SELECT non_striker_id FROM new_rows
        ) p WHERE NOT EXISTS (SELECT 1 FROM sports_participant s WHERE s.id = p.id) LIMIT 1;
    END IF;
    IF missing IS NULL THEN
        SELECT 'submission ' || n.submission_id INTO missing FROM new_rows n
         WHERE NOT EXISTS (SELECT 1 FROM sports_submission s WHERE s.id = n.submission_id)
         LIMIT 1;
    END IF;
    IF missing IS NULL THEN
        SELECT 'delivery ' || r.id INTO missing FROM (
            SELECT supersedes_id AS id FROM new_rows WHERE supersedes_id IS NOT NULL
            UNION SELECT superseded_by_id FROM new_rows WHERE superseded_by_id IS NOT NULL
        ) r WHERE NOT EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.id = r.id) LIMIT 1;
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'cricket_delivery references % which does not exist', missing
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    -- The table is partitioned by year of ``occurred_on`` (migration 0014) and a unique
    -- index holds within one partition only; these make the per-partition rules global.
    -- An id is on one day (the primary key is (id, occurred_on)); the live balls of an
    -- innings stand on one day, so the live natural key and sequence rules hold across
    -- partitions; a new ball's source event is in no other partition (a revision's is
    -- its predecessor's: ``delivery_revision_lineage``).
    SELECT n.id::text INTO missing FROM new_rows n
     WHERE EXISTS (SELECT 1 FROM cricket_delivery d
                    WHERE d.id = n.id AND d.occurred_on <> n.occurred_on) LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'duplicate key value violates the unique rule of '
            '"cricket_delivery".id: %', missing USING ERRCODE = 'unique_violation';
    END IF;
    SELECT 'innings ' || n.innings_id INTO missing
      FROM (SELECT DISTINCT innings_id, occurred_on FROM new_rows WHERE is_current) n
     WHERE EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.innings_id = n.innings_id
                      AND d.is_current AND d.occurred_on <> n.occurred_on) LIMIT 1;
    IF missing IS NULL THEN
        SELECT 'source event ' || n.source_event_id INTO missing FROM new_rows n
         WHERE n.revision = 1 AND EXISTS (
               SELECT 1 FROM cricket_delivery d WHERE d.source_event_id = n.source_event_id
                  AND d.occurred_on <> n.occurred_on) LIMIT 1;
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'cricket_delivery: % already has deliveries on another day', missing
            USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NULL;
"""
