"""Stat lines become a table partitioned by year of ``occurred_on`` (the seed asks for it).

Their unique rule holds ``occurred_on``, so it stays a constraint; the primary key becomes
``(id, occurred_on)`` and ``id`` alone is kept unique by a trigger; nothing references a stat
line (``omnium.partitions``).
"""

from django.db import migrations

from omnium.partitions import partition_sql, unpartition_sql


class Migration(migrations.Migration):
    dependencies = [
        ("sports", "0005_membership_seasons"),
    ]

    operations = [
        migrations.RunSQL(
            sql=partition_sql("sports_statline", "occurred_on", "year"),
            reverse_sql=unpartition_sql("sports_statline"),
        ),
    ]
