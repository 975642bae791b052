"""The collection records now belong to the catalogue (``catalogue.0008``): drop them from
ingest's state only. No table, constraint or index is touched; the rows stay as they are."""

from django.db import migrations

state_operations = [
    # Foreign keys first, so no state model points at a deleted one.
    migrations.RemoveField(model_name='collectionrun', name='source'),
    migrations.RemoveField(model_name='rawrecord', name='run'),
    migrations.RemoveField(model_name='rawrecord', name='listing'),
    migrations.RemoveField(model_name='rejectedobservation', name='run'),
    migrations.RemoveField(model_name='source', name='location'),
    migrations.DeleteModel(name='RejectedObservation'),
    migrations.DeleteModel(name='RawRecord'),
    migrations.DeleteModel(name='CollectionRun'),
    migrations.DeleteModel(name='Source'),
]


class Migration(migrations.Migration):

    dependencies = [
        ('ingest', '0007_batch_item_submission'),
        # Catalogue's foreign keys are re-pointed at its own copies before these go.
        ('catalogue', '0008_collection_records_move_in'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(database_operations=[], state_operations=state_operations),
    ]
