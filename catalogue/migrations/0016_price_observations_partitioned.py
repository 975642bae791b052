"""Price observations become a table partitioned by month of ``observed_at``.

The rows move to a partitioned parent with the same columns, checks, unique rule (it holds
``observed_at``, so it stays a constraint), indexes, grants and triggers; one partition per
month from the oldest observation to three months ahead, and a default partition for the
rest (``manage.py partitions_ensure`` adds the months to come). The primary key becomes
``(id, observed_at)``; ``id`` alone is kept unique by a trigger, and the references of
price alerts and verification checks to an observation by triggers (``omnium.partitions``).
"""

import django.db.models.deletion
from django.db import migrations, models

from omnium.partitions import Reference, partition_sql, unpartition_sql

REFERENCES = (
    Reference("catalogue_pricealert", "observation_id"),
    Reference("catalogue_verificationcheck", "observation_id"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0015_reverification_of_changed_listings"),
    ]

    operations = [
        migrations.AlterField(
            model_name="pricealert",
            name="observation",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="catalogue.priceobservation",
            ),
        ),
        migrations.AlterField(
            model_name="verificationcheck",
            name="observation",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="catalogue.priceobservation",
            ),
        ),
        migrations.RunSQL(
            sql=partition_sql(
                "catalogue_priceobservation",
                "observed_at",
                "month",
                timestamp=True,
                references=REFERENCES,
            ),
            reverse_sql=unpartition_sql("catalogue_priceobservation", references=REFERENCES),
        ),
    ]
