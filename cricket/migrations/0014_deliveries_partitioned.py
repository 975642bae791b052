"""Deliveries become a table partitioned by year of ``occurred_on`` (the day the fixture
started), a new column filled here from each innings' fixture.

Every unique rule gains ``occurred_on`` (PostgreSQL requires the partition key in each);
``Delivery``'s statement check and the lineage trigger keep them global (the live balls of
an innings and the revisions of a ball share one day). The primary key becomes
``(id, occurred_on)`` and ``id`` alone is kept unique by the same statement check (a row
trigger would cost the import's COPY more than the COPY itself); the six foreign keys
into deliveries (wickets, review, replacements, both ends of a correction record, and the
deliveries a batch item published) become triggers (``omnium.partitions``). The last one
is the table Django makes for ``ingest.BatchItem.published_deliveries``: its constraint is
dropped here and its model state left alone (the ``ingest`` app's state is not this
migration's to change), so it alone is not declared ``db_constraint=False``.
"""

import django.db.models.deletion
import pgtrigger.compiler
import pgtrigger.migrations
from django.db import migrations, models

from omnium.partitions import Reference, partition_sql, unpartition_sql

# Each referencing row is checked at commit; no trigger on deliveries refuses the delete
# of a referenced one, since ``delivery_no_delete`` refuses every delete and
# ``delivery_content_read_only`` every change of ``id`` (``kept=False``).
REFERENCES = tuple(
    Reference(table, column, kept=False)
    for table, column in (
        ("cricket_deliverywicket", "delivery_id"),
        ("cricket_deliveryreview", "delivery_id"),
        ("cricket_deliveryreplacement", "delivery_id"),
        ("cricket_deliverycorrectionhistory", "previous_delivery_id"),
        ("cricket_deliverycorrectionhistory", "resulting_delivery_id"),
        ("ingest_batchitem_published_deliveries", "delivery_id"),
    )
)

FILL_OCCURRED_ON = """
ALTER TABLE public.cricket_delivery DISABLE TRIGGER USER;
UPDATE public.cricket_delivery d
   SET occurred_on = coalesce((f.scheduled_start AT TIME ZONE 'UTC')::date,
                              (i.created_at AT TIME ZONE 'UTC')::date)
  FROM public.cricket_innings i JOIN public.sports_fixture f ON f.id = i.fixture_id
 WHERE i.id = d.innings_id;
ALTER TABLE public.cricket_delivery ENABLE TRIGGER USER;
"""

BATCH_ITEMS = "public.ingest_batchitem_published_deliveries"
DROP_BATCH_ITEM_KEY = f"""
DO $drop$
DECLARE
    name text;
BEGIN
    SELECT conname INTO STRICT name FROM pg_constraint
     WHERE conrelid = '{BATCH_ITEMS}'::regclass AND contype = 'f'
       AND confrelid = 'public.cricket_delivery'::regclass;
    EXECUTE format('ALTER TABLE {BATCH_ITEMS} DROP CONSTRAINT %I', name);
END;
$drop$;
"""
ADD_BATCH_ITEM_KEY = f"""
ALTER TABLE {BATCH_ITEMS} ADD CONSTRAINT ingest_batchitem_pub_delivery_id_9ad1ff1f_fk_cricket_d
    FOREIGN KEY (delivery_id) REFERENCES public.cricket_delivery (id) DEFERRABLE INITIALLY DEFERRED;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('cricket', '0013_appearance_scope_index'),
        ('ingest', '0006_batch_corrections_publish_through_the_correction_path'),
    ]

    operations = [
        pgtrigger.migrations.RemoveTrigger(
            model_name='delivery',
            name='delivery_references_insert',
        ),
        pgtrigger.migrations.RemoveTrigger(
            model_name='delivery',
            name='delivery_references_update',
        ),
        pgtrigger.migrations.RemoveTrigger(
            model_name='delivery',
            name='delivery_content_read_only',
        ),
        pgtrigger.migrations.RemoveTrigger(
            model_name='delivery',
            name='delivery_revision_lineage',
        ),
        migrations.RemoveConstraint(
            model_name='delivery',
            name='delivery_natural_key_live',
        ),
        migrations.RemoveConstraint(
            model_name='delivery',
            name='delivery_sequence_live',
        ),
        migrations.RemoveConstraint(
            model_name='delivery',
            name='delivery_event_revision',
        ),
        migrations.RemoveConstraint(
            model_name='delivery',
            name='delivery_supersedes_once',
        ),
        migrations.RemoveConstraint(
            model_name='delivery',
            name='delivery_superseded_by_once',
        ),
        migrations.AddField(
            model_name='delivery',
            name='occurred_on',
            field=models.DateField(null=True),
        ),
        # The day of every stored row, from its innings' fixture; the content triggers
        # are lifted for this one statement (the owner runs migrations).
        migrations.RunSQL(
            sql=FILL_OCCURRED_ON,
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name='delivery',
            name='occurred_on',
            field=models.DateField(),
        ),
        migrations.AlterField(
            model_name='deliverycorrectionhistory',
            name='previous_delivery',
            field=models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='correction_made', to='cricket.delivery'),
        ),
        migrations.AlterField(
            model_name='deliverycorrectionhistory',
            name='resulting_delivery',
            field=models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='correction_record', to='cricket.delivery'),
        ),
        migrations.AlterField(
            model_name='deliveryreplacement',
            name='delivery',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='replacements', to='cricket.delivery'),
        ),
        migrations.AlterField(
            model_name='deliveryreview',
            name='delivery',
            field=models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='review', to='cricket.delivery'),
        ),
        migrations.AlterField(
            model_name='deliverywicket',
            name='delivery',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='wickets', to='cricket.delivery'),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='delivery',
            trigger=pgtrigger.compiler.Trigger(name='delivery_content_read_only', sql=pgtrigger.compiler.UpsertTriggerSql(condition='WHEN (OLD."id" IS DISTINCT FROM (NEW."id") OR OLD."innings_id" IS DISTINCT FROM (NEW."innings_id") OR OLD."over_number" IS DISTINCT FROM (NEW."over_number") OR OLD."position" IS DISTINCT FROM (NEW."position") OR OLD."sequence" IS DISTINCT FROM (NEW."sequence") OR OLD."ball_label" IS DISTINCT FROM (NEW."ball_label") OR OLD."actual_delivery" IS DISTINCT FROM (NEW."actual_delivery") OR OLD."batter_id" IS DISTINCT FROM (NEW."batter_id") OR OLD."bowler_id" IS DISTINCT FROM (NEW."bowler_id") OR OLD."non_striker_id" IS DISTINCT FROM (NEW."non_striker_id") OR OLD."runs_batter" IS DISTINCT FROM (NEW."runs_batter") OR OLD."runs_extras" IS DISTINCT FROM (NEW."runs_extras") OR OLD."runs_total" IS DISTINCT FROM (NEW."runs_total") OR OLD."non_boundary" IS DISTINCT FROM (NEW."non_boundary") OR OLD."extra_wides" IS DISTINCT FROM (NEW."extra_wides") OR OLD."extra_noballs" IS DISTINCT FROM (NEW."extra_noballs") OR OLD."extra_byes" IS DISTINCT FROM (NEW."extra_byes") OR OLD."extra_legbyes" IS DISTINCT FROM (NEW."extra_legbyes") OR OLD."extra_penalty" IS DISTINCT FROM (NEW."extra_penalty") OR OLD."revision" IS DISTINCT FROM (NEW."revision") OR OLD."supersedes_id" IS DISTINCT FROM (NEW."supersedes_id") OR OLD."removed" IS DISTINCT FROM (NEW."removed") OR OLD."source_event_id" IS DISTINCT FROM (NEW."source_event_id") OR OLD."submission_id" IS DISTINCT FROM (NEW."submission_id") OR OLD."submission_event_ordinal" IS DISTINCT FROM (NEW."submission_event_ordinal") OR OLD."occurred_on" IS DISTINCT FROM (NEW."occurred_on") OR OLD."created_at" IS DISTINCT FROM (NEW."created_at"))', func="RAISE EXCEPTION 'pgtrigger: Cannot update rows from % table', TG_TABLE_NAME;", hash='0032243be8d28676ca23a90a1348587255b43348', operation='UPDATE', pgid='pgtrigger_delivery_content_read_only_b0054', table='cricket_delivery', when='BEFORE')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='delivery',
            trigger=pgtrigger.compiler.Trigger(name='delivery_revision_lineage', sql=pgtrigger.compiler.UpsertTriggerSql(condition='WHEN (NEW."supersedes_id" IS NOT NULL OR NEW."revision" <> 1)', declare='DECLARE prev cricket_delivery;', func="\n                  IF NEW.supersedes_id IS NULL THEN\n                    RAISE EXCEPTION USING\n                      ERRCODE = 'integrity_constraint_violation',\n                      MESSAGE = format('a delivery of revision %s must name the revision it '\n                                       'supersedes', NEW.revision);\n                  END IF;\n                  SELECT * INTO prev FROM cricket_delivery WHERE id = NEW.supersedes_id;\n                  IF NOT FOUND THEN\n                    RAISE EXCEPTION USING\n                      ERRCODE = 'foreign_key_violation',\n                      MESSAGE = format('cricket_delivery references delivery %s which does '\n                                       'not exist', NEW.supersedes_id);\n                  END IF;\n                  IF prev.is_current OR prev.superseded_by_id IS NOT NULL OR prev.removed THEN\n                    RAISE EXCEPTION USING\n                      ERRCODE = 'integrity_constraint_violation',\n                      MESSAGE = format('delivery %s is not a superseded revision awaiting its '\n                                       'replacement', prev.id);\n                  END IF;\n                  IF NEW.revision <> prev.revision + 1 THEN\n                    RAISE EXCEPTION USING\n                      ERRCODE = 'integrity_constraint_violation',\n                      MESSAGE = format('revision %s cannot follow revision %s: revisions '\n                                       'increase by exactly one', NEW.revision, prev.revision);\n                  END IF;\n                  IF NEW.source_event_id <> prev.source_event_id\n                     OR NEW.submission_id <> prev.submission_id\n                     OR NEW.submission_event_ordinal <> prev.submission_event_ordinal\n                     OR NEW.innings_id <> prev.innings_id\n                     OR NEW.occurred_on <> prev.occurred_on\n                     OR NEW.over_number <> prev.over_number THEN\n                    RAISE EXCEPTION USING\n                      ERRCODE = 'integrity_constraint_violation',\n                      MESSAGE = format('revision %s of delivery %s must keep its innings, '\n                                       'over, day, source event, original submission and '\n                                       'event ordinal', NEW.revision, prev.id);\n                  END IF;\n                  RETURN NULL;\n                ", hash='03461b9665e493a385ebf0f6ed16c77b380cbc81', operation='INSERT', pgid='pgtrigger_delivery_revision_lineage_e3fd8', table='cricket_delivery', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='delivery',
            trigger=pgtrigger.compiler.Trigger(name='delivery_references_insert', sql=pgtrigger.compiler.UpsertTriggerSql(declare='DECLARE missing text;', func='\n    SELECT \'innings \' || n.innings_id INTO missing FROM new_rows n\n     WHERE NOT EXISTS (SELECT 1 FROM cricket_innings i WHERE i.id = n.innings_id) LIMIT 1;\n    IF missing IS NULL THEN\n        SELECT \'participant \' || p.id INTO missing FROM (\n            SELECT batter_id AS id FROM new_rows\n            UNION SELECT bowler_id FROM new_rows\n            UNION SELECT non_striker_id FROM new_rows\n        ) p WHERE NOT EXISTS (SELECT 1 FROM sports_participant s WHERE s.id = p.id) LIMIT 1;\n    END IF;\n    IF missing IS NULL THEN\n        SELECT \'submission \' || n.submission_id INTO missing FROM new_rows n\n         WHERE NOT EXISTS (SELECT 1 FROM sports_submission s WHERE s.id = n.submission_id)\n         LIMIT 1;\n    END IF;\n    IF missing IS NULL THEN\n        SELECT \'delivery \' || r.id INTO missing FROM (\n            SELECT supersedes_id AS id FROM new_rows WHERE supersedes_id IS NOT NULL\n            UNION SELECT superseded_by_id FROM new_rows WHERE superseded_by_id IS NOT NULL\n        ) r WHERE NOT EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.id = r.id) LIMIT 1;\n    END IF;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'cricket_delivery references % which does not exist\', missing\n            USING ERRCODE = \'foreign_key_violation\';\n    END IF;\n    -- The table is partitioned by year of ``occurred_on`` (migration 0014) and a unique\n    -- index holds within one partition only; these make the per-partition rules global.\n    -- An id is on one day (the primary key is (id, occurred_on)); the live balls of an\n    -- innings stand on one day, so the live natural key and sequence rules hold across\n    -- partitions; a new ball\'s source event is in no other partition (a revision\'s is\n    -- its predecessor\'s: ``delivery_revision_lineage``).\n    SELECT n.id::text INTO missing FROM new_rows n\n     WHERE EXISTS (SELECT 1 FROM cricket_delivery d\n                    WHERE d.id = n.id AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'duplicate key value violates the unique rule of \'\n            \'"cricket_delivery".id: %\', missing USING ERRCODE = \'unique_violation\';\n    END IF;\n    SELECT \'innings \' || n.innings_id INTO missing\n      FROM (SELECT DISTINCT innings_id, occurred_on FROM new_rows WHERE is_current) n\n     WHERE EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.innings_id = n.innings_id\n                      AND d.is_current AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    IF missing IS NULL THEN\n        SELECT \'source event \' || n.source_event_id INTO missing FROM new_rows n\n         WHERE n.revision = 1 AND EXISTS (\n               SELECT 1 FROM cricket_delivery d WHERE d.source_event_id = n.source_event_id\n                  AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    END IF;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'cricket_delivery: % already has deliveries on another day\', missing\n            USING ERRCODE = \'unique_violation\';\n    END IF;\n    RETURN NULL;\n', hash='2789432599d260c750a45229a21779dfa868ce5a', level='STATEMENT', operation='INSERT', pgid='pgtrigger_delivery_references_insert_a7641', referencing='REFERENCING NEW TABLE AS new_rows ', table='cricket_delivery', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='delivery',
            trigger=pgtrigger.compiler.Trigger(name='delivery_references_update', sql=pgtrigger.compiler.UpsertTriggerSql(declare='DECLARE missing text;', func='\n    SELECT \'innings \' || n.innings_id INTO missing FROM new_rows n\n     WHERE NOT EXISTS (SELECT 1 FROM cricket_innings i WHERE i.id = n.innings_id) LIMIT 1;\n    IF missing IS NULL THEN\n        SELECT \'participant \' || p.id INTO missing FROM (\n            SELECT batter_id AS id FROM new_rows\n            UNION SELECT bowler_id FROM new_rows\n            UNION SELECT non_striker_id FROM new_rows\n        ) p WHERE NOT EXISTS (SELECT 1 FROM sports_participant s WHERE s.id = p.id) LIMIT 1;\n    END IF;\n    IF missing IS NULL THEN\n        SELECT \'submission \' || n.submission_id INTO missing FROM new_rows n\n         WHERE NOT EXISTS (SELECT 1 FROM sports_submission s WHERE s.id = n.submission_id)\n         LIMIT 1;\n    END IF;\n    IF missing IS NULL THEN\n        SELECT \'delivery \' || r.id INTO missing FROM (\n            SELECT supersedes_id AS id FROM new_rows WHERE supersedes_id IS NOT NULL\n            UNION SELECT superseded_by_id FROM new_rows WHERE superseded_by_id IS NOT NULL\n        ) r WHERE NOT EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.id = r.id) LIMIT 1;\n    END IF;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'cricket_delivery references % which does not exist\', missing\n            USING ERRCODE = \'foreign_key_violation\';\n    END IF;\n    -- The table is partitioned by year of ``occurred_on`` (migration 0014) and a unique\n    -- index holds within one partition only; these make the per-partition rules global.\n    -- An id is on one day (the primary key is (id, occurred_on)); the live balls of an\n    -- innings stand on one day, so the live natural key and sequence rules hold across\n    -- partitions; a new ball\'s source event is in no other partition (a revision\'s is\n    -- its predecessor\'s: ``delivery_revision_lineage``).\n    SELECT n.id::text INTO missing FROM new_rows n\n     WHERE EXISTS (SELECT 1 FROM cricket_delivery d\n                    WHERE d.id = n.id AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'duplicate key value violates the unique rule of \'\n            \'"cricket_delivery".id: %\', missing USING ERRCODE = \'unique_violation\';\n    END IF;\n    SELECT \'innings \' || n.innings_id INTO missing\n      FROM (SELECT DISTINCT innings_id, occurred_on FROM new_rows WHERE is_current) n\n     WHERE EXISTS (SELECT 1 FROM cricket_delivery d WHERE d.innings_id = n.innings_id\n                      AND d.is_current AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    IF missing IS NULL THEN\n        SELECT \'source event \' || n.source_event_id INTO missing FROM new_rows n\n         WHERE n.revision = 1 AND EXISTS (\n               SELECT 1 FROM cricket_delivery d WHERE d.source_event_id = n.source_event_id\n                  AND d.occurred_on <> n.occurred_on) LIMIT 1;\n    END IF;\n    IF missing IS NOT NULL THEN\n        RAISE EXCEPTION \'cricket_delivery: % already has deliveries on another day\', missing\n            USING ERRCODE = \'unique_violation\';\n    END IF;\n    RETURN NULL;\n', hash='cadeab49d02f8d6dd2832734527cc0a805e5358b', level='STATEMENT', operation='UPDATE', pgid='pgtrigger_delivery_references_update_9e881', referencing='REFERENCING NEW TABLE AS new_rows ', table='cricket_delivery', when='AFTER')),
        ),
        migrations.RunSQL(sql=DROP_BATCH_ITEM_KEY, reverse_sql=ADD_BATCH_ITEM_KEY),
        migrations.RunSQL(
            sql=partition_sql(
                "cricket_delivery",
                "occurred_on",
                "year",
                references=REFERENCES,
                id_trigger=False,
            ),
            reverse_sql=unpartition_sql(
                "cricket_delivery", references=REFERENCES, id_trigger=False
            ),
        ),
        # The unique rules last, built once, on the partitioned table.
        migrations.AddConstraint(
            model_name='delivery',
            constraint=models.UniqueConstraint(condition=models.Q(('is_current', True)), fields=('innings', 'over_number', 'position', 'occurred_on'), name='delivery_natural_key_live'),
        ),
        migrations.AddConstraint(
            model_name='delivery',
            constraint=models.UniqueConstraint(condition=models.Q(('is_current', True)), fields=('innings', 'sequence', 'occurred_on'), name='delivery_sequence_live'),
        ),
        migrations.AddConstraint(
            model_name='delivery',
            constraint=models.UniqueConstraint(fields=('source_event_id', 'revision', 'occurred_on'), name='delivery_event_revision'),
        ),
        migrations.AddConstraint(
            model_name='delivery',
            constraint=models.UniqueConstraint(condition=models.Q(('supersedes__isnull', False)), fields=('supersedes', 'occurred_on'), name='delivery_supersedes_once'),
        ),
        migrations.AddConstraint(
            model_name='delivery',
            constraint=models.UniqueConstraint(condition=models.Q(('superseded_by__isnull', False)), fields=('superseded_by', 'occurred_on'), name='delivery_superseded_by_once'),
        ),
    ]
