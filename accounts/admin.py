from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "display_name", "email", "role", "status", "is_staff")
    list_filter = ("role", "status", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("omnium", {"fields": ("display_name", "role", "status")}),
    )
