"""Console pages of the reference tables: sports, their definition versions, venues."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.http import HttpRequest

from omnium.console import ServiceErrorsMixin, request_actor
from sports.admin.common import become
from sports.models import Sport, SportDefinitionVersion, Venue
from sports.plugins.registry import get_plugin
from sports.services import sport_definition_notes_set, sport_definition_publish


@admin.register(Sport)
class SportAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "parent", "archetype", "competitor_kind", "status")
    list_filter = ("status", "archetype")
    list_select_related = ("parent",)
    search_fields = ("code", "name")

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class DefinitionPublishForm(forms.ModelForm):
    class Meta:
        model = SportDefinitionVersion
        fields = ("sport", "plugin", "meta_schema", "format_schema", "status_codes", "notes")

    def clean_plugin(self) -> str:
        plugin = self.cleaned_data["plugin"]
        try:
            get_plugin(plugin)
        except ImproperlyConfigured as error:
            raise ValidationError(str(error)) from error
        return plugin


@admin.register(SportDefinitionVersion)
class SportDefinitionVersionAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    """A new version is published through the service (the next number, the plugin's
    schemas by default). A published version's schemas stay frozen: fixtures pin the
    version they were made with, so changing it would reinterpret them. Notes stay editable.
    """

    list_display = ("sport", "version", "plugin", "created_at")
    list_filter = ("sport",)
    list_select_related = ("sport",)

    create_form = DefinitionPublishForm
    fields_on_change = (
        "sport",
        "version",
        "plugin",
        "meta_schema",
        "format_schema",
        "status_codes",
        "notes",
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("sport", "version", "plugin", "meta_schema", "format_schema", "status_codes")

    def save_model(self, request, obj, form, change):
        if change:
            saved = sport_definition_notes_set(
                definition=obj, notes=form.cleaned_data["notes"], actor=request_actor(request)
            )
            become(obj, saved)
            return
        data = form.cleaned_data
        published = sport_definition_publish(
            sport=data["sport"],
            plugin=data["plugin"],
            actor=request_actor(request),
            meta_schema=data["meta_schema"] or None,
            format_schema=data["format_schema"] or None,
            status_codes=data["status_codes"] or None,
            notes=data["notes"],
        )
        become(obj, published)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "city", "country")
    search_fields = ("code", "name", "city")
    list_filter = ("country",)
