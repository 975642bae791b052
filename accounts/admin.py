from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.http import HttpRequest

from accounts.models import AuditEntry, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "display_name", "email", "role", "status", "is_staff")
    list_filter = ("role", "status", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("omnium", {"fields": ("display_name", "role", "status", "invited_by", "disabled_at")}),
    )
    readonly_fields = ("invited_by", "disabled_at")


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Browse and filter the audit log. Rows are written only by services, never here."""

    list_display = ("at", "actor", "acting_as", "action", "entity_type", "entity_key")
    list_filter = ("action", "entity_type", ("actor", admin.RelatedOnlyFieldListFilter))
    search_fields = ("action", "entity_type", "entity_key", "actor__username")
    list_select_related = ("actor", "acting_as")
    date_hierarchy = "at"
    show_full_result_count = False
    readonly_fields = ("at", "actor", "acting_as", "action", "entity_type", "entity_key", "detail")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
