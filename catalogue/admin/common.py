"""What the catalogue console pages share: the history page of curated rows, the curate
permission and the note and reason forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import PermissionDenied
from django.db import models
from simple_history.admin import SimpleHistoryAdmin

from catalogue.services import EDIT_PERMISSION


class CuratedHistoryAdmin(SimpleHistoryAdmin):
    """History of a curated row, with who and why. Reverting is off: it would write the
    row around the services (no audit row, no re-key, no fold)."""

    # The history page already has its one "Change reason" column; listing the field again
    # would show the reason twice.
    history_list_display: ClassVar[list[str]] = []
    # The read-only history form is still a model form; say which scheme a bare URL means.
    formfield_overrides: ClassVar[Mapping[type[models.Field[Any, Any]], Mapping[str, Any]]] = {
        models.URLField: {"assume_scheme": "https"}
    }

    def revert_disabled(self, request, obj=None) -> bool:
        return True

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        if request.method == "POST":
            raise PermissionDenied("History is read-only; change the row through its actions.")
        return super().history_form_view(request, object_id, version_id, extra_context)


class CurationPermissions:
    def has_curate_permission(self, request) -> bool:
        return request.user.has_perm(EDIT_PERMISSION)


class NoteForm(forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")
