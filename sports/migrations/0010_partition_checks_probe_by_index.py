"""The sports partition checks probe by index (``omnium.partitions.probe_setting_sql``)."""

from django.db import migrations

from omnium.partitions import probe_setting_sql


class Migration(migrations.Migration):
    dependencies = [
        ("sports", "0009_timeline_items_partitioned"),
    ]

    operations = [
        migrations.RunSQL(sql=probe_setting_sql("sports"), reverse_sql=migrations.RunSQL.noop),
    ]
