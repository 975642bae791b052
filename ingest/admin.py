from django.contrib import admin  # noqa: F401

# Retailer collectors register their console pages in their own module.
from ingest.collectors import admin as collectors_admin  # noqa: F401
