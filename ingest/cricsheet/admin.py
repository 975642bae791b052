"""The console's Cricsheet upload page, on the innings list (``/admin/cricket/innings/upload/``).

The page lives here because it runs ingest's import, and ``cricket`` never imports
``ingest``: this module replaces cricket's innings admin with a subclass that adds the
upload URL. Imported by ``ingest/admin.py``; importing ``cricket.admin`` first guarantees
the innings admin is registered before it is replaced, whatever the autodiscovery order.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from cricket.admin import InningsAdmin
from cricket.models import Innings
from ingest.cricsheet.importer import import_bytes
from omnium.auth import signed_in
from omnium.console import request_actor


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
    # The form's metaclass moves declared fields into ``base_fields``, so this field does
    # not replace ``Form.files`` (the upload dict) at run time; the stubs cannot tell.
    files = MultipleFileField(  # type: ignore[assignment]
        help_text="Cricsheet match files named <match id>.json; each is validated whole and "
        "imported in its own transaction.",
    )

    def clean_files(self):
        uploads = self.cleaned_data["files"]
        for upload in uploads:
            if not upload.name.lower().endswith(".json"):
                raise forms.ValidationError(f"{upload.name}: only .json match files.")
            limit = settings.INGEST_MAX_FILE_BYTES
            if upload.size > limit:
                raise forms.ValidationError(
                    f"{upload.name}: {upload.size} bytes; the limit is "
                    f"INGEST_MAX_FILE_BYTES = {limit}."
                )
        return uploads


class InningsUploadAdmin(InningsAdmin):
    """Cricket's innings list, plus the upload page."""

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
        if not request.user.has_perm("cricket.add_delivery"):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            for upload in form.cleaned_data["files"]:
                result = import_bytes(
                    upload.read(), filename=upload.name, actor=signed_in(request_actor(request))
                )
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
        return TemplateResponse(request, "admin/ingest/cricsheet_upload.html", context)


admin.site.unregister(Innings)
admin.site.register(Innings, InningsUploadAdmin)
