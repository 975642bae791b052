from django.contrib import admin  # noqa: F401

# Retailer collectors, stored objects, staged batches, the Cricsheet upload and provenance
# traces register their console pages in their own modules; the home page queues theirs.
from ingest import (
    home_queues,  # noqa: F401
    storage_admin,  # noqa: F401
)
from ingest.batches import admin as batches_admin  # noqa: F401
from ingest.collectors import admin as collectors_admin  # noqa: F401
from ingest.cricsheet import admin as cricsheet_admin  # noqa: F401
from ingest.provenance import admin as provenance_admin  # noqa: F401
