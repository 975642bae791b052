"""The merge-candidate console: the queue as a list and side by side, and the decision.

Reviewers, editors and administrators accept or reject pairs with a note on a
confirmation page; accepting applies the merge or alias in the same step
(``merge_candidate_resolve``). Each side is shown by the app that owns its level (its
registered description and template), so the console names no other app's model.
"""

from __future__ import annotations

from typing import cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse
from django.urls import path, reverse

from accounts.models import User
from curation.models import MergeCandidate, MergeLevel
from curation.selectors import queue_page
from curation.services import DECIDE_PERMISSION, candidate_sides, merge_candidate_resolve
from omnium.console import ReadOnlyAdmin, confirm_page, confirmed_form, error_text, request_actor


class NoteForm(forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


class DecideForm(NoteForm):
    survivor = forms.ChoiceField(
        widget=forms.RadioSelect, required=False, label="Keep this one (accepting only)"
    )
    confirm_two_barcodes = forms.BooleanField(
        required=False,
        label="They carry different barcodes and I have checked they are one product",
    )

    def __init__(self, *args, sides=(), **kwargs):
        super().__init__(*args, **kwargs)
        if sides:
            self.fields["survivor"].choices = [(str(x.pk), str(x)) for x in sides if x]
        else:
            del self.fields["survivor"]


@admin.register(MergeCandidate)
class MergeCandidateAdmin(ReadOnlyAdmin):
    """The queue, highest score first; a person accepts (the merge or alias is applied in
    the same step) or rejects each pair with a note. The side-by-side page is ``queue/``."""

    list_display = ["level", "left_side", "right_side", "score", "why", "status", "decided_by"]
    list_filter = ["level", "status"]
    list_select_related = ["decided_by"]
    show_full_result_count = False
    actions = ["accept_candidates", "reject_candidates"]
    queue_page_size = 25

    def has_decide_permission(self, request) -> bool:
        return request.user.has_perm(DECIDE_PERMISSION)

    def get_urls(self):
        queue = path(
            "queue/", self.admin_site.admin_view(self.queue_view), name="curation_candidate_queue"
        )
        return [queue, *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "queue_url": reverse("admin:curation_candidate_queue"),
        }
        return super().changelist_view(request, extra_context)

    @admin.display(description="left")
    def left_side(self, obj) -> str:
        return str(obj.left_id)[:8]

    @admin.display(description="right")
    def right_side(self, obj) -> str:
        return str(obj.right_id)[:8]

    def queue_view(self, request):
        """Both sides of each open pair, highest score first, for one level at a time."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        level = request.GET.get("level", "product")
        if level not in MergeLevel.values:
            level = "product"
        try:
            page = max(1, int(request.GET.get("page", "1")))
        except ValueError:
            page = 1
        size = self.queue_page_size
        rows, total = queue_page(level, limit=size, offset=(page - 1) * size)
        return TemplateResponse(
            request,
            "curation/admin/candidate_queue.html",
            {
                **self.admin_site.each_context(request),
                "title": f"Merge candidates: {MergeLevel(level).label.lower()}s",
                "opts": self.model._meta,
                "level": level,
                "levels": MergeLevel.choices,
                "rows": rows,
                "total": total,
                "page": page,
                "previous_page": page - 1 if page > 1 else None,
                "next_page": page + 1 if page * size < total else None,
                "can_decide": self.has_decide_permission(request),
                "changelist_url": reverse("admin:curation_mergecandidate_changelist"),
            },
        )

    def _decide(self, request, queryset, *, accept: bool):
        verb = "Accept" if accept else "Reject"
        candidates = list(queryset[:2])
        sides = candidate_sides(candidates[0]) if accept and len(candidates) == 1 else ()
        form = confirmed_form(request, DecideForm, sides=sides)
        if form.is_bound and form.is_valid():
            # The admin site lets in signed-in staff only, so someone is at the keyboard.
            person = cast(User, request_actor(request))
            decided = 0
            for candidate in queryset:
                try:
                    merge_candidate_resolve(
                        candidate=candidate,
                        accept=accept,
                        actor=person,
                        note=form.cleaned_data["note"],
                        survivor_id=form.cleaned_data.get("survivor") or None,
                        confirm_two_barcodes=form.cleaned_data["confirm_two_barcodes"],
                    )
                    decided += 1
                except ValidationError as error:
                    self.message_user(request, f"{candidate}: {error_text(error)}", messages.ERROR)
            self.message_user(request, f"{verb}ed {decided} candidate(s).", messages.SUCCESS)
            return None
        return confirm_page(
            self,
            request,
            queryset,
            action="accept_candidates" if accept else "reject_candidates",
            title=f"{verb} candidates",
            question=f"{verb} these pairs? A decided pair is never proposed again."
            + (
                " Accepting merges the products (or aliases the brand or line) now."
                if accept
                else ""
            ),
            verb=verb,
            form=form,
        )

    @admin.action(description="Accept the selected pairs…", permissions=["decide"])
    def accept_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=True)

    @admin.action(description="Reject the selected pairs…", permissions=["decide"])
    def reject_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=False)
