"""The price closes (``catalogue.price_closes``): each listing's last observation of each UTC
day and week, kept by two statement-level triggers on the observations and filled here from
every observation already stored.

The triggers come first: creating them locks the observations against writers until this
migration commits, so the fill sees every row and none is appended unseen. The fill is the
triggers' own fold over the whole table; reversed, the table is emptied before it is dropped.
"""

import django.db.models.deletion
import pgtrigger.compiler
import pgtrigger.migrations
from django.db import migrations, models

# The fold of ``catalogue.price_closes.FOLD_SQL`` as of this migration, over every observation.
FILL_SQL = """
INSERT INTO catalogue_priceclose
    (listing_id, period, starts, first_at, observed_at, price, currency, price_usd)
SELECT DISTINCT ON (o.listing_id, b.period, b.starts)
       o.listing_id, b.period, b.starts,
       min(o.observed_at) OVER (PARTITION BY o.listing_id, b.period, b.starts),
       o.observed_at, o.price, o.currency, o.price_usd
FROM catalogue_priceobservation o
CROSS JOIN LATERAL (VALUES ('day', (o.observed_at AT TIME ZONE 'UTC')::date),
                      ('week', date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date))
     AS b(period, starts)
ORDER BY o.listing_id, b.period, b.starts, o.observed_at DESC
"""


class Migration(migrations.Migration):

    dependencies = [
        ('catalogue', '0016_price_observations_partitioned'),
    ]

    operations = [
        migrations.CreateModel(
            name='PriceClose',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('period', models.CharField(choices=[('day', 'UTC day'), ('week', 'Week from Monday (UTC)')], max_length=4)),
                ('starts', models.DateField()),
                ('first_at', models.DateTimeField()),
                ('observed_at', models.DateTimeField()),
                ('price', models.DecimalField(decimal_places=2, max_digits=12)),
                ('currency', models.CharField(max_length=3)),
                ('price_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=12, null=True)),
            ],
        ),
        migrations.AddField(
            model_name='priceclose',
            name='listing',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='catalogue.listing'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.UniqueConstraint(fields=('listing', 'period', 'starts'), include=('observed_at', 'price', 'currency', 'price_usd', 'first_at'), name='catalogue_priceclose_unique_period'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.CheckConstraint(condition=models.Q(('first_at__lte', models.F('observed_at'))), name='catalogue_priceclose_first_not_after_last'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.CheckConstraint(condition=models.Q(('period', 'day'), models.Q(('period', 'week'), ('starts__iso_week_day', 1)), _connector='OR'), name='catalogue_priceclose_period_known'),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='priceobservation',
            trigger=pgtrigger.compiler.Trigger(name='price_observation_closes_insert', sql=pgtrigger.compiler.UpsertTriggerSql(func="\nINSERT INTO catalogue_priceclose AS c\n    (listing_id, period, starts, first_at, observed_at, price, currency, price_usd)\nSELECT DISTINCT ON (o.listing_id, b.period, b.starts)\n       o.listing_id, b.period, b.starts,\n       min(o.observed_at) OVER (PARTITION BY o.listing_id, b.period, b.starts),\n       o.observed_at, o.price, o.currency, o.price_usd\nFROM added o\nCROSS JOIN LATERAL (VALUES ('day', (o.observed_at AT TIME ZONE 'UTC')::date),\n                           ('week', date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date))\n     AS b(period, starts)\nORDER BY o.listing_id, b.period, b.starts, o.observed_at DESC\nON CONFLICT (listing_id, period, starts) DO UPDATE SET\n    first_at = least(c.first_at, excluded.first_at),\n    observed_at = greatest(c.observed_at, excluded.observed_at),\n    price = CASE WHEN excluded.observed_at > c.observed_at THEN excluded.price ELSE c.price END,\n    currency = CASE WHEN excluded.observed_at > c.observed_at\n                    THEN excluded.currency ELSE c.currency END,\n    price_usd = CASE WHEN excluded.observed_at > c.observed_at\n                     THEN excluded.price_usd ELSE c.price_usd END\nWHERE excluded.first_at < c.first_at OR excluded.observed_at > c.observed_at;\nRETURN NULL;\n", hash='554339cadf982c1cca6327c54922f5dba2c486e3', level='STATEMENT', operation='INSERT', pgid='pgtrigger_price_observation_closes_insert_fce4b', referencing='REFERENCING NEW TABLE AS added ', table='catalogue_priceobservation', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='priceobservation',
            trigger=pgtrigger.compiler.Trigger(name='price_observation_closes_update', sql=pgtrigger.compiler.UpsertTriggerSql(func="\nUPDATE catalogue_priceclose c SET price_usd = o.price_usd\nFROM filled o\nCROSS JOIN LATERAL (VALUES ('day', (o.observed_at AT TIME ZONE 'UTC')::date),\n                           ('week', date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date))\n     AS b(period, starts)\nWHERE c.listing_id = o.listing_id AND c.period = b.period AND c.starts = b.starts\n  AND c.observed_at = o.observed_at AND c.price_usd IS DISTINCT FROM o.price_usd;\nRETURN NULL;\n", hash='451a667863ced2cbba7d07f9f4b79de14fd036d5', level='STATEMENT', operation='UPDATE', pgid='pgtrigger_price_observation_closes_update_c8052', referencing='REFERENCING NEW TABLE AS filled ', table='catalogue_priceobservation', when='AFTER')),
        ),
        migrations.RunSQL(
            sql=FILL_SQL,
            reverse_sql="DELETE FROM catalogue_priceclose",
        ),
    ]
