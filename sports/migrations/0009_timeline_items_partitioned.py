"""Timeline items become a table partitioned by hash of ``stream_id`` (8 partitions).

Both unique rules (a stream's positions, a stream's idempotency keys) hold ``stream_id``, so
they stay constraints, and every read of a log names its stream; a hash key needs no future
partitions. The primary key becomes ``(id, stream_id)``, ``id`` alone is kept unique by a
trigger, and the references to an item (its actors, the item a correction supersedes) by
triggers (``omnium.partitions``).
"""

import django.db.models.deletion
from django.db import migrations, models

from omnium.partitions import Reference, partition_sql, unpartition_sql

REFERENCES = (
    Reference("sports_timelineactor", "item_id"),
    Reference("sports_timelineitem", "supersedes_id"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("sports", "0008_stat_lines_partitioned"),
    ]

    operations = [
        migrations.AlterField(
            model_name="timelineactor",
            name="item",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="actors",
                to="sports.timelineitem",
            ),
        ),
        migrations.AlterField(
            model_name="timelineitem",
            name="supersedes",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="superseded_by",
                to="sports.timelineitem",
            ),
        ),
        migrations.RunSQL(
            sql=partition_sql(
                "sports_timelineitem", "stream_id", "hash", modulus=8, references=REFERENCES
            ),
            reverse_sql=unpartition_sql("sports_timelineitem", references=REFERENCES),
        ),
    ]
