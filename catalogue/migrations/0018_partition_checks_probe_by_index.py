"""The row checks of catalogue's partitioned tables (an id kept unique, a reference to an id,
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
        ("catalogue", "0017_price_closes"),
    ]

    operations = [
        migrations.RunSQL(sql=probe_setting_sql("catalogue"), reverse_sql=migrations.RunSQL.noop),
    ]
