"""The catalogue partition checks probe by index (``omnium.partitions.probe_setting_sql``)."""

from django.db import migrations

from omnium.partitions import probe_setting_sql


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0017_price_closes"),
    ]

    operations = [
        migrations.RunSQL(sql=probe_setting_sql("catalogue"), reverse_sql=migrations.RunSQL.noop),
    ]
