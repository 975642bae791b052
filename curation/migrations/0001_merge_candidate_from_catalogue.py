"""The merge-candidate queue moves from the catalogue to this app: state only.

The table ``catalogue_mergecandidate`` and its constraints and index stay exactly as they
are (their names too); only Django's record of which app owns the model changes. The
catalogue's ``0008`` removes the model from its own state after this one adds it here.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import omnium.models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("catalogue", "0007_candidate_level_for_participants"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="MergeCandidate",
                    fields=[
                        ("id", models.UUIDField(default=omnium.models.uuid7, editable=False, primary_key=True, serialize=False)),
                        ("level", models.CharField(choices=[("brand", "Brand"), ("line", "Line"), ("product", "Product"), ("participant", "Sports participant")], max_length=16)),
                        ("left_id", models.UUIDField()),
                        ("right_id", models.UUIDField()),
                        ("score", models.FloatField(blank=True, null=True)),
                        ("why", models.TextField()),
                        ("status", models.CharField(choices=[("open", "Waiting for a person"), ("accepted", "Accepted"), ("rejected", "Rejected"), ("superseded", "Superseded (one side merged or aliased away)")], default="open", max_length=10)),
                        ("detected_at", models.DateTimeField()),
                        ("decided_at", models.DateTimeField(blank=True, null=True)),
                        ("decision_note", models.TextField(blank=True)),
                        ("decided_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "catalogue_mergecandidate",
                        "ordering": ["-score", "detected_at"],
                        "indexes": [models.Index(models.F("level"), models.OrderBy(models.F("score"), descending=True, nulls_last=True), condition=models.Q(("status", "open")), name="catalogue_candidate_queue")],
                        "constraints": [models.UniqueConstraint(fields=("level", "left_id", "right_id"), name="catalogue_candidate_unique_pair"), models.CheckConstraint(condition=models.Q(("left_id__lt", models.F("right_id"))), name="catalogue_candidate_ordered_pair"), models.CheckConstraint(condition=models.Q(("why", ""), _negated=True), name="catalogue_candidate_says_why"), models.CheckConstraint(condition=models.Q(models.Q(("decided_at__isnull", True), ("decided_by__isnull", True), ("status", "open")), models.Q(("decided_at__isnull", False), ("decided_by__isnull", False), ("status__in", ["accepted", "rejected"]), models.Q(("decision_note", ""), _negated=True)), models.Q(("decided_at__isnull", False), ("status", "superseded")), _connector="OR"), name="catalogue_candidate_decision_is_complete")],
                    },
                ),
            ],
        ),
    ]
