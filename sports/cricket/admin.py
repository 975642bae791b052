"""The cricket console: read-only views of imported events.

Events are written only by the import (and, later, by the correction service); nothing here
edits them. The delivery list is millions of rows, so it counts from the planner estimate.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from sports.admin import EstimatedCountPaginator, ReadOnlyAdmin
from sports.cricket.models import Delivery, DismissalKind, FixtureOfficial, Innings

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented recipe): cleans each one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".json"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data]
        return [super(MultipleFileField, self).clean(f, initial) for f in files]


class UploadForm(forms.Form):
    files = MultipleFileField(
        help_text="Cricsheet match files named <match id>.json; each is validated whole and "
        "imported in its own transaction.",
    )

    def clean_files(self):
        uploads = self.cleaned_data["files"]
        for upload in uploads:
            if not upload.name.lower().endswith(".json"):
                raise forms.ValidationError(f"{upload.name}: only .json match files.")
            if upload.size > MAX_UPLOAD_BYTES:
                raise forms.ValidationError(f"{upload.name}: larger than 20 MB.")
        return uploads


@admin.register(DismissalKind)
class DismissalKindAdmin(ReadOnlyAdmin):
    list_display = ("name", "code", "credits_bowler", "is_dismissal")
    list_filter = ("credits_bowler", "is_dismissal")


@admin.register(Innings)
class InningsAdmin(ReadOnlyAdmin):
    list_display = ("fixture", "ordinal", "batting_team", "super_over", "declared", "forfeited")
    list_filter = ("super_over", "declared")
    list_select_related = ("fixture", "batting_team")
    search_fields = ("fixture__name", "fixture__code")
    show_full_result_count = False

    def get_urls(self):
        upload = path(
            "upload/",
            self.admin_site.admin_view(self.upload_view),
            name="cricket_innings_upload",
        )
        return [upload, *super().get_urls()]

    def upload_view(self, request: HttpRequest) -> HttpResponse:
        """Upload Cricsheet files: the same import as the command and the Celery task, with
        the uploading editor recorded on each file's submission."""
        from ingest.cricsheet.importer import import_bytes

        if not request.user.has_perm("cricket.add_delivery"):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            for upload in form.cleaned_data["files"]:
                result = import_bytes(upload.read(), filename=upload.name, actor=request.user)
                if result.error:
                    self.message_user(request, result.error, messages.ERROR)
                else:
                    self.message_user(
                        request,
                        f"{upload.name}: {result.outcome} ({result.deliveries} deliveries)",
                        messages.SUCCESS,
                    )
            return HttpResponseRedirect(reverse("admin:cricket_innings_upload"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Upload Cricsheet files",
            "form": form,
        }
        return TemplateResponse(request, "cricket/admin_upload.html", context)


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = (
        "innings",
        "over_number",
        "position",
        "ball_label",
        "batter",
        "bowler",
        "runs_total",
        "revision",
        "is_current",
    )
    list_filter = ("is_current",)
    list_select_related = ("innings", "batter", "bowler")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    raw_id_fields = ("innings", "batter", "bowler", "non_striker", "submission")


@admin.register(FixtureOfficial)
class FixtureOfficialAdmin(ReadOnlyAdmin):
    list_display = ("fixture", "role", "ordinal", "name", "registry_id")
    list_filter = ("role",)
    list_select_related = ("fixture",)
    search_fields = ("name", "registry_id")
