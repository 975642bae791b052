"""The row checks of sports's partitioned tables (an id kept unique, a reference to an id,
a referenced row kept) probe by index whatever the statistics say: each function gets
``enable_seqscan = off`` (``omnium.partitions.PROBE_SETTING``). A check planned on an
empty partition that statistics call empty scanned the rows its own statement was adding,
so a bulk insert grew quadratic. Checks made by a later ``partition_sql`` carry the
setting already. Going back leaves the setting: it changes no rule, only the plan.
"""

from django.db import migrations

from omnium.partitions import probe_setting_sql


class Migration(migrations.Migration):
    dependencies = [
        ("sports", "0009_timeline_items_partitioned"),
    ]

    operations = [
        migrations.RunSQL(sql=probe_setting_sql("sports"), reverse_sql=migrations.RunSQL.noop),
    ]
