"""The price closes (``catalogue.price_closes``): each listing's last observation of each
week (from Monday, UTC), kept by two statement-level triggers on the observations and filled
here from every observation already stored.

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
    (listing_id, starts, first_at, observed_at, price, currency, price_usd)
SELECT DISTINCT ON (o.listing_id, w.starts)
       o.listing_id, w.starts,
       min(o.observed_at) OVER (PARTITION BY o.listing_id, w.starts),
       o.observed_at, o.price, o.currency, o.price_usd
FROM catalogue_priceobservation o
CROSS JOIN LATERAL (SELECT date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date)
     AS w(starts)
ORDER BY o.listing_id, w.starts, o.observed_at DESC
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
                ('starts', models.DateField()),
                ('first_at', models.DateTimeField()),
                ('observed_at', models.DateTimeField()),
                ('price', models.DecimalField(decimal_places=2, max_digits=12)),
                ('currency', models.CharField(max_length=3)),
                ('price_usd', models.DecimalField(blank=True, decimal_places=2, max_digits=12, null=True)),
            ],
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='priceobservation',
            trigger=pgtrigger.compiler.Trigger(name='price_observation_closes_insert', sql=pgtrigger.compiler.UpsertTriggerSql(func="\nINSERT INTO catalogue_priceclose AS c\n    (listing_id, starts, first_at, observed_at, price, currency, price_usd)\nSELECT DISTINCT ON (o.listing_id, w.starts)\n       o.listing_id, w.starts,\n       min(o.observed_at) OVER (PARTITION BY o.listing_id, w.starts),\n       o.observed_at, o.price, o.currency, o.price_usd\nFROM added o\nCROSS JOIN LATERAL (SELECT date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date)\n     AS w(starts)\nORDER BY o.listing_id, w.starts, o.observed_at DESC\nON CONFLICT (listing_id, starts) DO UPDATE SET\n    first_at = least(c.first_at, excluded.first_at),\n    observed_at = greatest(c.observed_at, excluded.observed_at),\n    price = CASE WHEN excluded.observed_at > c.observed_at THEN excluded.price ELSE c.price END,\n    currency = CASE WHEN excluded.observed_at > c.observed_at\n                    THEN excluded.currency ELSE c.currency END,\n    price_usd = CASE WHEN excluded.observed_at > c.observed_at\n                     THEN excluded.price_usd ELSE c.price_usd END\nWHERE excluded.first_at < c.first_at OR excluded.observed_at > c.observed_at;\nRETURN NULL;\n", hash='effa67c727dcb112e8610e5e3f49ddae6aab5dae', level='STATEMENT', operation='INSERT', pgid='pgtrigger_price_observation_closes_insert_fce4b', referencing='REFERENCING NEW TABLE AS added ', table='catalogue_priceobservation', when='AFTER')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='priceobservation',
            trigger=pgtrigger.compiler.Trigger(name='price_observation_closes_update', sql=pgtrigger.compiler.UpsertTriggerSql(func="\nUPDATE catalogue_priceclose c SET price_usd = o.price_usd\nFROM filled o\nWHERE c.listing_id = o.listing_id\n  AND c.starts = date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date\n  AND c.observed_at = o.observed_at AND c.price_usd IS DISTINCT FROM o.price_usd;\nRETURN NULL;\n", hash='206820da8e240244551a9f2b190782144767a6f6', level='STATEMENT', operation='UPDATE', pgid='pgtrigger_price_observation_closes_update_c8052', referencing='REFERENCING NEW TABLE AS filled ', table='catalogue_priceobservation', when='AFTER')),
        ),
        migrations.AddField(
            model_name='priceclose',
            name='listing',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='catalogue.listing'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.UniqueConstraint(fields=('listing', 'starts'), include=('observed_at', 'price', 'currency', 'price_usd', 'first_at'), name='catalogue_priceclose_unique_week'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.CheckConstraint(condition=models.Q(('first_at__lte', models.F('observed_at'))), name='catalogue_priceclose_first_not_after_last'),
        ),
        migrations.AddConstraint(
            model_name='priceclose',
            constraint=models.CheckConstraint(condition=models.Q(('starts__iso_week_day', 1)), name='catalogue_priceclose_week_starts_monday'),
        ),
        migrations.RunSQL(
            sql=FILL_SQL,
            reverse_sql="DELETE FROM catalogue_priceclose",
        ),
    ]
