"""The merge-candidate console: the queue as a list and side by side, and the decision.

Reviewers, editors and administrators accept, reject or skip pairs with a note, one row at
a time or many with one note, on the side-by-side page (``queue/``), or with the list's
actions and their confirmation page; accepting applies the merge or alias in the same step
(``merge_candidate_resolve``). Each side is shown by the app that owns its level (its
registered description, facts and template), so the console names no other app's model.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from accounts.models import Role
from curation.models import MergeCandidate, MergeLevel
from curation.registry import level_resolver
from curation.selectors import pair_confirmation, queue_page
from curation.services import DECIDE_PERMISSION, merge_candidate_resolve
from omnium.console import (
    HomeItem,
    HomeQueue,
    HomeRows,
    ReadOnlyAdmin,
    confirm_page,
    confirmed_form,
    console_actor,
    error_text,
    home_queue_register,
)

# Pairs a person skipped stay open for everyone; this session just stops showing them.
SKIPPED_KEY = "curation_skipped_candidates"


class NoteForm(forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


class DecideForm(NoteForm):
    survivor = forms.ChoiceField(
        widget=forms.RadioSelect, required=False, label="Keep this one (accepting only)"
    )
    confirm_two_barcodes = forms.BooleanField(required=False)

    def __init__(self, *args, sides=(), confirmation: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        if sides:
            survivor = cast(forms.ChoiceField, self.fields["survivor"])
            survivor.choices = [(str(x.pk), str(x)) for x in sides if x]
        else:
            del self.fields["survivor"]
        # Asked only when a chosen pair needs it (two different barcodes), in its words.
        if confirmation:
            self.fields["confirm_two_barcodes"].label = confirmation
        else:
            del self.fields["confirm_two_barcodes"]


def described(candidates: list[MergeCandidate]) -> dict[Any, Any]:
    """The sides of ``candidates`` by id, as their levels describe them (a constant number
    of queries per level on the page)."""
    sides: dict[Any, Any] = {}
    for level in {c.level for c in candidates}:
        ids = {x for c in candidates if c.level == level for x in (c.left_id, c.right_id)}
        sides.update(level_resolver(level).describe(ids))
    return sides


def pair_label(candidate: MergeCandidate, sides: dict[Any, Any]) -> str:
    """A pair in names: "Brand X Gin 70cl ~ Brand X Gin 0.7l (product, 0.90)"."""

    def name(pk: Any) -> str:
        side = sides.get(pk)
        return str(side) if side is not None else f"gone ({str(pk)[:8]})"

    score = f", {candidate.score:.2f}" if candidate.score is not None else ""
    level = MergeLevel(candidate.level).label.lower()
    return f"{name(candidate.left_id)} ~ {name(candidate.right_id)} ({level}{score})"


def _change_url(side: Any) -> str:
    """The console page of a described side (no query), "" for a gone one."""
    if side is None:
        return ""
    meta = side._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[side.pk])


class NamedSidesChangeList(ChangeList):
    """The changelist with each page's sides described once, so rows show names."""

    def get_results(self, request):
        super().get_results(request)
        self.sides = described(list(self.result_list))
        for candidate in self.result_list:
            candidate.sides = self.sides


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

    def get_changelist(self, request, **kwargs):
        return NamedSidesChangeList

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "queue_url": reverse("admin:curation_candidate_queue"),
        }
        return super().changelist_view(request, extra_context)

    def _side_name(self, obj, pk) -> str:
        side = getattr(obj, "sides", {}).get(pk)
        return str(side) if side is not None else f"gone ({str(pk)[:8]})"

    @admin.display(description="one side")
    def left_side(self, obj) -> str:
        return self._side_name(obj, obj.left_id)

    @admin.display(description="the other")
    def right_side(self, obj) -> str:
        return self._side_name(obj, obj.right_id)

    # --- the side-by-side queue ---------------------------------------------------------------

    def queue_view(self, request):
        """Both sides of each open pair, highest score first, for one level at a time; a
        POST decides one row or the chosen rows with one note and comes back here."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        level = request.GET.get("level") or request.POST.get("level") or "product"
        if level not in MergeLevel.values:
            level = "product"
        if request.method == "POST":
            if not self.has_decide_permission(request):
                raise PermissionDenied
            self._queue_decide(request)
            return HttpResponseRedirect(request.get_full_path())
        try:
            page = max(1, int(request.GET.get("page", "1")))
        except ValueError:
            page = 1
        size = self.queue_page_size
        skipped = request.session.get(SKIPPED_KEY, [])
        rows, total = queue_page(level, limit=size, offset=(page - 1) * size, skipped=skipped)
        for row in rows:
            for side in ("left", "right"):
                row[f"{side}_url"] = _change_url(row[side])
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
                "skipped": len(skipped),
                "page": page,
                "previous_page": page - 1 if page > 1 else None,
                "next_page": page + 1 if page * size < total else None,
                "can_decide": self.has_decide_permission(request),
                "changelist_url": reverse("admin:curation_mergecandidate_changelist"),
            },
        )

    def _queue_decide(self, request) -> None:
        """One decision (accept, reject, skip) for the row whose button was pressed, or for
        every checked row with the one note given for them all."""
        decision, _, one = request.POST.get("decide", "").partition(":")
        if decision == "unskip":
            request.session[SKIPPED_KEY] = []
            return
        ids = [one] if one else request.POST.getlist("_selected_action")
        note = (request.POST.get(f"note-{one}") if one else request.POST.get("note")) or ""
        chosen = list(MergeCandidate.objects.filter(pk__in=ids, status="open"))
        if not chosen:
            self.message_user(request, "No open pair was chosen.", messages.WARNING)
            return
        if decision == "skip":
            skipped = request.session.get(SKIPPED_KEY, [])
            request.session[SKIPPED_KEY] = [*skipped, *(str(c.pk) for c in chosen)]
            self.message_user(request, f"Skipped {len(chosen)} pair(s) for this session.")
            return
        if decision not in ("accept", "reject"):
            self.message_user(request, "Choose accept, reject or skip.", messages.ERROR)
            return
        sides = described(chosen)
        confirmed = set(request.POST.getlist("confirm_two_barcodes"))
        decided = 0
        for candidate in chosen:
            try:
                merge_candidate_resolve(
                    candidate=candidate,
                    accept=decision == "accept",
                    actor=console_actor(request),
                    note=note,
                    confirm_two_barcodes=str(candidate.pk) in confirmed,
                )
                decided += 1
            except ValidationError as error:
                label = pair_label(candidate, sides)
                self.message_user(request, f"{label}: {error_text(error)}", messages.ERROR)
        if decided:
            verb = "Accepted" if decision == "accept" else "Rejected"
            self.message_user(request, f"{verb} {decided} pair(s).", messages.SUCCESS)

    # --- the list's actions ---------------------------------------------------------------

    def _decide(self, request, queryset, *, accept: bool):
        verb = "Accept" if accept else "Reject"
        candidates = list(queryset)
        sides = described(candidates)
        one = candidates[0] if len(candidates) == 1 else None
        pair = (sides.get(one.left_id), sides.get(one.right_id)) if one else ()
        confirmations = [
            pair_confirmation(c.level, sides.get(c.left_id), sides.get(c.right_id))
            for c in candidates
        ]
        needed = [text for text in confirmations if text]
        confirmation = ""
        if accept and needed:
            confirmation = needed[0] if len(needed) == 1 else (
                f"{len(needed)} of these pairs carry two different barcodes and I have checked "
                "each is one product"
            )  # fmt: skip
        form = confirmed_form(
            request,
            DecideForm,
            sides=tuple(pair) if accept and one else (),
            confirmation=confirmation,
        )
        if form.is_bound and form.is_valid():
            person = console_actor(request)
            decided = 0
            for candidate in candidates:
                try:
                    merge_candidate_resolve(
                        candidate=candidate,
                        accept=accept,
                        actor=person,
                        note=form.cleaned_data["note"],
                        survivor_id=form.cleaned_data.get("survivor") or None,
                        confirm_two_barcodes=form.cleaned_data.get("confirm_two_barcodes", False),
                    )
                    decided += 1
                except ValidationError as error:
                    label = pair_label(candidate, sides)
                    self.message_user(request, f"{label}: {error_text(error)}", messages.ERROR)
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
            labels=[pair_label(c, sides) for c in candidates],
        )

    @admin.action(description="Accept the selected pairs…", permissions=["decide"])
    def accept_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=True)

    @admin.action(description="Reject the selected pairs…", permissions=["decide"])
    def reject_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=False)


# --- the home page's queues: open pairs by level, oldest first --------------------------------


def _open_pairs(level: str):
    def rows(request: HttpRequest, limit: int) -> HomeRows:
        waiting = MergeCandidate.objects.filter(level=level, status="open")
        oldest = list(waiting.order_by("detected_at", "pk")[:limit])
        sides = described(oldest)
        url = reverse("admin:curation_candidate_queue") + f"?level={level}"
        items = [
            HomeItem(label=pair_label(c, sides), url=url, since=c.detected_at, note=c.why[:100])
            for c in oldest
        ]
        return HomeRows(count=waiting.count(), items=items, url=url)

    return rows


for _order, (_level, _label) in enumerate(MergeLevel.choices):
    home_queue_register(
        HomeQueue(
            key=f"merge-candidates-{_level}",
            title=f"Merge candidates: {_label.lower()}s",
            roles=frozenset({Role.REVIEWER, Role.EDITOR, Role.ADMIN}),
            rows=_open_pairs(_level),
            order=20 + _order,
        )
    )
