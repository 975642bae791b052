"""Console pages of retailers and their locations (shown on or hidden from the site), and
airport opening hours."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from catalogue.models import AirportHours, Location, Retailer
from catalogue.services import location_set_visible
from omnium.console import ReadOnlyAdmin, confirm_page, request_actor


@admin.register(Retailer)
class RetailerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "operator"]
    search_fields = ["name", "slug"]


def _set_visible(modeladmin, request, queryset, *, visible: bool):
    verb = "Show" if visible else "Hide"
    if "confirm" not in request.POST:
        return confirm_page(
            modeladmin,
            request,
            queryset,
            action="show_on_site" if visible else "hide_from_site",
            title=f"{verb} locations",
            question=f"{verb} these locations on the public site? "
            "Collection carries on either way.",
            verb=verb,
        )
    changed = 0
    for location in queryset:
        try:
            location_set_visible(location=location, visible=visible, actor=request_actor(request))
            changed += 1
        except ValidationError as exc:
            modeladmin.message_user(request, f"{location}: {exc.messages[0]}", messages.ERROR)
    modeladmin.message_user(request, f"{verb}: {changed} location(s).", messages.SUCCESS)
    return None


@admin.register(Location)
class LocationAdmin(ReadOnlyAdmin):
    list_display = ["name", "code", "iata", "retailer", "currency", "visible", "is_catalogue_only"]
    list_filter = ["visible", "is_catalogue_only", "retailer"]
    list_select_related = ["retailer"]
    search_fields = ["name", "code", "iata"]
    actions = ["show_on_site", "hide_from_site"]

    def has_change_permission(self, request, obj=None) -> bool:
        # Actions need the change permission; the form stays read-only (no editable fields).
        return obj is None and request.user.has_perm("catalogue.change_location")

    @admin.action(description="Show the selected locations on the public site")
    def show_on_site(self, request, queryset):
        return _set_visible(self, request, queryset, visible=True)

    @admin.action(description="Hide the selected locations from the public site")
    def hide_from_site(self, request, queryset):
        return _set_visible(self, request, queryset, visible=False)


@admin.register(AirportHours)
class AirportHoursAdmin(ReadOnlyAdmin):
    list_display = ["location", "text", "source_kind", "observed_at", "entered_by"]
    list_select_related = ["location", "entered_by"]
