from django.contrib import admin  # noqa: F401

# Retailer collectors and stored objects register their console pages in their own modules.
from ingest import storage_admin  # noqa: F401
from ingest.collectors import admin as collectors_admin  # noqa: F401
