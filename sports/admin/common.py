"""What the sports console pages share: the merge flow and adopting a service's row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse

from omnium.console import confirm_page, confirmed_form, error_text, request_actor
from sports.models import Participant


class MergeForm(forms.Form):
    survivor = forms.ModelChoiceField(
        queryset=Participant.objects.none(), widget=forms.RadioSelect, empty_label=None
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why these are one record; kept in the log of everything the merge touches.",
    )

    def __init__(self, *args, candidates, describe=str, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["survivor"]
        field.queryset = candidates
        field.label_from_instance = describe


def merge_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset,
    *,
    merge: Callable[..., Any],
    describe: Callable[[Any], str],
    question: str,
) -> HttpResponse | None:
    """The shared merge flow: at least two rows, a confirmation page choosing the survivor
    among them with a required note, then ``merge(loser=, survivor=, actor=, note=)`` for
    every other row, all or nothing."""
    noun = modeladmin.model._meta.verbose_name_plural
    if queryset.count() < 2:
        modeladmin.message_user(request, f"Choose at least two {noun}.", messages.ERROR)
        return None
    form = confirmed_form(request, MergeForm, candidates=queryset, describe=describe)
    if not form.is_bound or not form.is_valid():
        return confirm_page(
            modeladmin,
            request,
            queryset,
            form=form,
            action="merge",
            title=f"Merge {noun}",
            question=question,
        )
    survivor = form.cleaned_data["survivor"]
    losers = [row for row in queryset if row.pk != survivor.pk]
    try:
        with transaction.atomic():
            for loser in losers:
                merge(
                    loser=loser,
                    survivor=survivor,
                    actor=request_actor(request),
                    note=form.cleaned_data["note"],
                )
    except ValidationError as error:
        modeladmin.message_user(request, f"Nothing merged: {error_text(error)}", messages.ERROR)
        return None
    modeladmin.message_user(request, f"Merged {len(losers)} of them into {survivor}.")
    return None


def become(obj, saved) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's
    own log entry and redirect point at it."""
    obj.pk = saved.pk
    obj.refresh_from_db()
    obj._state.adding = False
