"""The cricket partition checks probe by index (``omnium.partitions.probe_setting_sql``)."""

from django.db import migrations

from omnium.partitions import probe_setting_sql


class Migration(migrations.Migration):
    dependencies = [
        ("cricket", "0014_deliveries_partitioned"),
    ]

    operations = [
        migrations.RunSQL(sql=probe_setting_sql("cricket"), reverse_sql=migrations.RunSQL.noop),
    ]
