"""The collection records (Source, CollectionRun, RawRecord, RejectedObservation) join the
catalogue app from ``ingest``: state only.

The tables were created by ``ingest.0001`` and stay exactly as they are (``ingest_`` table,
constraint and index names, no trigger on any of them), so nothing here runs DDL. Catalogue's
own foreign keys into them are re-pointed in state only; their database constraints are named
after tables and columns, which do not change. ``ingest.0008`` then drops the old state.
"""

import django.db.models.deletion
import django.db.models.expressions
import omnium.models
from django.db import migrations, models

state_operations = [
    migrations.CreateModel(
        name='Source',
        fields=[
            ('id', models.UUIDField(default=omnium.models.uuid7, editable=False, primary_key=True, serialize=False)),
            ('created_at', models.DateTimeField(auto_now_add=True)),
            ('updated_at', models.DateTimeField(auto_now=True)),
            ('slug', models.SlugField(max_length=80, unique=True)),
            ('name', models.CharField(max_length=200)),
            ('enabled', models.BooleanField(default=True)),
            ('feed_format', models.CharField(choices=[('rs_maxi', 'Serbian retailer product list (CSV)'), ('ebay_perfume', 'eBay perfume listings (CSV)'), ('alko', 'Alko price list (CSV)'), ('generic_csv', 'Generic CSV with a column mapping'), ('generic_json', 'Generic JSON with a field mapping')], max_length=16)),
            ('feed_path', models.CharField(blank=True, max_length=500)),
            ('mapping', models.JSONField(blank=True, default=dict)),
            ('delay_seconds', models.DecimalField(decimal_places=2, default=1, max_digits=6)),
            ('max_concurrency', models.PositiveSmallIntegerField(default=1)),
            ('notes', models.TextField(blank=True)),
            ('identity_mode', models.CharField(choices=[('gtin_then_key', 'Barcode, then match key'), ('key_only', "Match key only (the source's barcodes are not trusted)"), ('own_only', 'Own products only (never joined to another shop)')], default='gtin_then_key', max_length=16)),
            ('permission_record', models.TextField(blank=True)),
            ('location', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='sources', to='catalogue.location')),
        ],
        options={
            'db_table': 'ingest_source',
            'ordering': ['slug'],
            'constraints': [
                models.CheckConstraint(condition=models.Q(('delay_seconds__gte', 0)), name='ingest_source_delay_not_negative'),
                models.CheckConstraint(condition=models.Q(('max_concurrency__gte', 1)), name='ingest_source_concurrency_positive'),
            ],
        },
    ),
    migrations.CreateModel(
        name='CollectionRun',
        fields=[
            ('id', models.BigAutoField(primary_key=True, serialize=False)),
            ('file_name', models.CharField(blank=True, max_length=500)),
            ('file_sha256', models.CharField(blank=True, max_length=64)),
            ('started_at', models.DateTimeField()),
            ('finished_at', models.DateTimeField(blank=True, null=True)),
            ('status', models.CharField(choices=[('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='running', max_length=16)),
            ('rows_read', models.PositiveIntegerField(default=0)),
            ('products_seen', models.PositiveIntegerField(default=0)),
            ('listings_created', models.PositiveIntegerField(default=0)),
            ('products_created', models.PositiveIntegerField(default=0)),
            ('prices_written', models.PositiveIntegerField(default=0)),
            ('prices_already_known', models.PositiveIntegerField(default=0)),
            ('skipped_no_price', models.PositiveIntegerField(default=0)),
            ('rejected', models.PositiveIntegerField(default=0)),
            ('skip_counts', models.JSONField(blank=True, default=dict)),
            ('error', models.TextField(blank=True)),
            ('fx_source', models.CharField(blank=True, max_length=200)),
            ('fx_fetched_at', models.DateTimeField(blank=True, null=True)),
            ('triggered_by', models.CharField(blank=True, max_length=200)),
            ('source', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='runs', to='catalogue.source')),
        ],
        options={
            'db_table': 'ingest_collectionrun',
            'ordering': ['-started_at'],
            'indexes': [models.Index(fields=['source', '-started_at'], name='ingest_run_source')],
            'constraints': [
                models.CheckConstraint(condition=models.Q(('finished_at__isnull', True), ('finished_at__gte', models.F('started_at')), _connector='OR'), name='ingest_run_finishes_after_start'),
                models.CheckConstraint(condition=models.Q(models.Q(('status', 'failed'), _negated=True), models.Q(('error', ''), _negated=True), _connector='OR'), name='ingest_run_failure_has_error'),
                models.CheckConstraint(condition=models.Q(('status', 'running'), ('rows_read', django.db.models.expressions.CombinedExpression(models.F('products_seen'), '+', models.F('rejected'))), _connector='OR'), name='ingest_run_counts_add_up'),
            ],
        },
    ),
    migrations.CreateModel(
        name='RawRecord',
        fields=[
            ('id', models.BigAutoField(primary_key=True, serialize=False)),
            ('row_number', models.PositiveIntegerField(blank=True, null=True)),
            ('payload', models.JSONField()),
            ('parser_version', models.CharField(max_length=40)),
            ('created_at', models.DateTimeField(auto_now_add=True)),
            ('listing', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='raw_records', to='catalogue.listing')),
            ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='raw_records', to='catalogue.collectionrun')),
        ],
        options={
            'db_table': 'ingest_rawrecord',
            'indexes': [models.Index(fields=['listing', '-created_at'], name='ingest_raw_listing')],
        },
    ),
    migrations.CreateModel(
        name='RejectedObservation',
        fields=[
            ('id', models.BigAutoField(primary_key=True, serialize=False)),
            ('stage', models.CharField(choices=[('collect', 'Reading the feed'), ('ingest', 'Writing the catalogue')], max_length=16)),
            ('reason', models.CharField(max_length=64)),
            ('message', models.TextField()),
            ('source_sku', models.CharField(blank=True, max_length=200)),
            ('url', models.URLField(blank=True, max_length=1000)),
            ('row_number', models.PositiveIntegerField(blank=True, null=True)),
            ('payload', models.JSONField(blank=True, null=True)),
            ('created_at', models.DateTimeField(auto_now_add=True)),
            ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rejections', to='catalogue.collectionrun')),
        ],
        options={
            'db_table': 'ingest_rejectedobservation',
            'indexes': [models.Index(fields=['run', 'reason'], name='ingest_rejection_run_reason')],
            'constraints': [models.CheckConstraint(condition=models.Q(('reason', ''), _negated=True), name='ingest_rejection_has_reason')],
        },
    ),
    migrations.AlterField(
        model_name='listing',
        name='listed_record',
        field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='catalogue.rawrecord'),
    ),
    migrations.AlterField(
        model_name='priceobservation',
        name='run',
        field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='observations', to='catalogue.collectionrun'),
    ),
    migrations.AlterField(
        model_name='verificationcheck',
        name='source',
        field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='catalogue.source'),
    ),
]


class Migration(migrations.Migration):

    dependencies = [
        ('catalogue', '0007_candidate_level_for_participants'),
        # The tables exist once ingest's migrations up to now have run.
        ('ingest', '0007_batch_item_submission'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(database_operations=[], state_operations=state_operations),
    ]
