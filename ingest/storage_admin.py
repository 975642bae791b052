"""Console pages of stored objects: read-only metadata; the bytes are never shown here."""

from __future__ import annotations

from django.contrib import admin

from ingest.models import StoredObject
from omnium.console import ReadableAdmin, ReadOnlyAdmin


@admin.register(StoredObject)
class StoredObjectAdmin(ReadableAdmin, ReadOnlyAdmin):
    """Stored objects the person may read (``ingest.readable``): their own, those of the
    batches they may review, all of them for those who review everywhere."""

    list_display = (
        "created_at",
        "original_name",
        "owner",
        "media_type",
        "byte_size",
        "short_sha256",
        "expires_at",
        "retention_state",
    )
    list_filter = ("retention_state", "media_type")
    list_select_related = ("owner",)
    search_fields = ("original_name", "sha256", "owner__username")
    date_hierarchy = "created_at"
    show_full_result_count = False
    readonly_fields = (
        "key",
        "owner",
        "original_name",
        "media_type",
        "byte_size",
        "sha256",
        "created_at",
        "expires_at",
        "retention_state",
        "deleted_at",
    )

    @admin.display(description="SHA-256")
    def short_sha256(self, obj: StoredObject) -> str:
        return f"{obj.sha256[:12]}…"
