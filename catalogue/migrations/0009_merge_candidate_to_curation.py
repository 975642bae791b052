"""The merge-candidate queue now belongs to the ``curation`` app: state only.

Runs after ``curation.0001`` has taken the model into its state, so no state ever lacks
it; the table ``catalogue_mergecandidate`` is left exactly as it is.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0008_collection_records_move_in"),
        ("curation", "0001_merge_candidate_from_catalogue"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[migrations.DeleteModel(name="MergeCandidate")],
        ),
    ]
