"""The reviewer's console for staged batches: the queue, each batch item by item with its
validation result and resolution evidence, approve / reject with a required reason, and
onboarding tasks. Read-only otherwise: batches change only through their services."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from accounts.forms import ReasonForm
from ingest.batches import services
from ingest.batches.models import (
    Batch,
    BatchItem,
    BatchParticipantOnboardingTask,
    BatchReviewDecision,
    BatchStateTransition,
    ItemOperation,
    OnboardingDecision,
    PublicationOutcome,
)
from ingest.batches.permissions import may_review_batches, reviewable_batches
from ingest.batches.review_page import review_context
from ingest.batches.selectors import correction_diff
from ingest.batches.tasks import publish_after_commit
from omnium.console import confirm_page, confirmed_form, error_text
from sports.models import Participant

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _BatchCounts(TypedDict):
    """What the batch changelist annotates on each row (``BatchAdmin.get_queryset``)."""

    file_count: int
    open_tasks: int


class ReviewersOnly:
    """Reviewers (and editors, administrators) read the batches of the competitions they
    may review; nobody edits or deletes in place."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _may_review(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        if not _may_review(request):
            return False
        batch = _batch_of(obj)
        return batch is None or _reviewable(request).filter(pk=batch.pk).exists()

    def has_review_permission(self, request: HttpRequest) -> bool:
        return _may_review(request)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# The admin asks the same question many times per page; the answer holds for one request.
# Kept in the request's own attributes (HttpRequest declares no slot for them).
def _may_review(request: HttpRequest) -> bool:
    memo = vars(request)
    if "_may_review_batches" not in memo:
        memo["_may_review_batches"] = may_review_batches(request.user)
    return bool(memo["_may_review_batches"])


def _reviewable(request: HttpRequest) -> QuerySet[Batch]:
    memo = vars(request)
    if "_reviewable_batches" not in memo:
        memo["_reviewable_batches"] = reviewable_batches(request.user, Batch.objects.all())
    queryset: QuerySet[Batch] = memo["_reviewable_batches"]
    return queryset


def _batch_of(obj) -> Batch | None:
    if obj is None or isinstance(obj, Batch):
        return obj
    return obj.batch


def _pretty(value) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=1, ensure_ascii=False))


class ItemInline(ReviewersOnly, admin.TabularInline):
    model = BatchItem
    fields = (
        "ordinal",
        "source_identity",
        "filename",
        "stored_object",
        "outcome",
        "problems_shown",
        "resolution_shown",
        "operation",
        "corrects_source_identity",
        "correction_target",
        "correction_diff_shown",
        "publication",
        "publication_error",
        "fixture",
        "published_deliveries_shown",
    )
    readonly_fields = fields
    extra = 0

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("stored_object", "correction_target", "fixture")
            .prefetch_related("published_deliveries")
        )

    @admin.display(description="correction diff (live → proposed)")
    def correction_diff_shown(self, item: BatchItem) -> str:
        if item.operation != ItemOperation.CORRECT:
            return "-"
        if item.publication != PublicationOutcome.PENDING:
            return "published" if item.publication == PublicationOutcome.PUBLISHED else "-"
        try:
            lines = correction_diff(item)
        except ValidationError as error:
            return "; ".join(error.messages)
        if not lines:
            return "no ball differs from the live deliveries"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"innings {d.innings} over {d.over} position {d.position}",
                    d.ball_label,
                    d.field,
                    d.live,
                    d.proposed,
                )
                for d in lines
            ),
        )
        return format_html(
            "<table class='correction-diff'><thead><tr><th>ball (natural key)</th>"
            "<th>label</th><th>field</th><th>live</th><th>proposed</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="published delivery revisions")
    def published_deliveries_shown(self, item: BatchItem) -> str:
        ids = [d.pk for d in item.published_deliveries.all()]
        return ", ".join(str(pk) for pk in ids) if ids else "-"

    @admin.display(description="problems")
    def problems_shown(self, item: BatchItem) -> str:
        return _pretty(item.problems) if item.problems else "-"

    @admin.display(description="resolution evidence")
    def resolution_shown(self, item: BatchItem) -> str:
        return _pretty(item.resolution) if item.resolution else "-"


class TaskInline(ReviewersOnly, admin.TabularInline):
    model = BatchParticipantOnboardingTask
    fields = ("task_reference", "name", "registry_id", "reason", "candidates", "decision")
    readonly_fields = fields
    extra = 0


class DecisionInline(ReviewersOnly, admin.TabularInline):
    model = BatchReviewDecision
    fields = ("decision", "reviewer", "reason", "created_at")
    readonly_fields = fields
    extra = 0


class TransitionInline(ReviewersOnly, admin.TabularInline):
    model = BatchStateTransition
    fields = ("from_state", "to_state", "actor", "reason", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(Batch)
class BatchAdmin(ReviewersOnly, admin.ModelAdmin):
    list_display = (
        "__str__",
        "submitter",
        "competition",
        "state",
        "files",
        "outstanding_tasks",
        "created_at",
    )
    list_filter = ("state",)
    search_fields = ("id", "submitter__username", "idempotency_key")
    readonly_fields = (
        "submitter",
        "competition",
        "idempotency_key",
        "package_version",
        "sha256",
        "state",
        "superseded_by",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields
    inlines = (ItemInline, TaskInline, DecisionInline, TransitionInline)
    actions = ("approve", "reject")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(pk__in=_reviewable(request).values("pk"))
            .select_related("submitter", "competition")
            .annotate(
                file_count=Count("items", distinct=True),
                open_tasks=Count(
                    "onboarding_tasks",
                    filter=Q(onboarding_tasks__decision=OnboardingDecision.OUTSTANDING),
                    distinct=True,
                ),
            )
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The readable review page above the raw rows (``ingest.batches.review_page``)."""
        batch = self.get_object(request, object_id)
        review = review_context(batch) if batch is not None else {}
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), **review}
        )

    @admin.display(description="files", ordering="file_count")
    def files(self, batch: WithAnnotations[Batch, _BatchCounts]) -> int:
        return batch.file_count

    @admin.display(description="onboarding tasks outstanding", ordering="open_tasks")
    def outstanding_tasks(self, batch: WithAnnotations[Batch, _BatchCounts]) -> int:
        return batch.open_tasks

    @admin.action(description="Approve and publish (with a reason)", permissions=["review"])
    def approve(self, request, queryset):
        return self._decide(request, queryset, approve=True)

    @admin.action(description="Reject (with a reason)", permissions=["review"])
    def reject(self, request, queryset):
        return self._decide(request, queryset, approve=False)

    def _decide(self, request, queryset, *, approve: bool):
        action = "approve" if approve else "reject"
        form = confirmed_form(request, ReasonForm)
        if not form.is_bound or not form.is_valid():
            title = "Approve and publish these batches" if approve else "Reject these batches"
            return confirm_page(self, request, queryset, action=action, title=title, form=form)
        done = 0
        for batch in queryset:
            try:
                with transaction.atomic():
                    batch = services.batch_review(
                        batch=batch,
                        reviewer=request.user,
                        approve=approve,
                        reason=form.cleaned_data["reason"],
                    )
                    if approve:
                        publish_after_commit(batch, actor=request.user, via="console")
                done += 1
            except (PermissionDenied, ValidationError) as error:
                text = error_text(error) if isinstance(error, ValidationError) else str(error)
                self.message_user(request, f"{batch}: {text}", messages.ERROR)
        if done:
            verb = "approved (publishing)" if approve else "rejected"
            self.message_user(request, f"{done} batch(es) {verb}.")
        return None


class RegistryIdForm(forms.Form):
    registry_id = forms.CharField(
        max_length=64,
        help_text="The person's Cricsheet registry id (a known id is that person; a new one "
        "makes a new person when the batch publishes).",
    )


class TeamForm(forms.Form):
    def __init__(self, *args: Any, teams: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["team"] = forms.ChoiceField(
            choices=[(t, t) for t in teams], help_text="The match's team they played for."
        )


@admin.register(BatchParticipantOnboardingTask)
class OnboardingTaskAdmin(ReviewersOnly, admin.ModelAdmin):
    list_display = (
        "task_reference",
        "batch",
        "name",
        "registry_id",
        "team",
        "reason",
        "candidates",
        "decision",
    )
    list_filter = ("reason", "decision")
    search_fields = ("task_reference", "name", "registry_id")
    readonly_fields = (
        "task_reference",
        "batch",
        "item",
        "participant_key",
        "name",
        "registry_id",
        "team",
        "reason",
        "candidates",
        "decision",
        "participant",
        "placed_in",
        "resolved_by",
        "resolved_at",
    )
    fields = readonly_fields
    actions = ("link_to_candidate", "accept_creation", "give_registry_id", "place_in_team")

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset.filter(batch__in=_reviewable(request).values("pk")).select_related("batch")

    @admin.action(
        description="Link to the participant of the same name (one candidate only)",
        permissions=["review"],
    )
    def link_to_candidate(self, request, queryset):
        for task in queryset:
            if len(task.candidates) != 1:
                self.message_user(
                    request,
                    f"{task.task_reference}: {len(task.candidates)} candidates; answer it "
                    "through the API naming the participant",
                    messages.ERROR,
                )
                continue
            self._resolve(request, task, participant=Participant.objects.get(pk=task.candidates[0]))

    @admin.action(description="Accept as a new participant", permissions=["review"])
    def accept_creation(self, request, queryset):
        for task in queryset:
            self._resolve(request, task, create=True)

    @admin.action(
        description="Give the registry id (a player listed with none)", permissions=["review"]
    )
    def give_registry_id(self, request, queryset):
        form = confirmed_form(request, RegistryIdForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                action="give_registry_id",
                title="Give the registry id of this person",
                form=form,
            )
        for task in queryset:
            self._resolve(request, task, registry_id=form.cleaned_data["registry_id"])
        return None

    @admin.action(
        description="Place in one of the match's teams (a team not recognised)",
        permissions=["review"],
    )
    def place_in_team(self, request, queryset):
        teams = sorted({team for task in queryset for team in task.candidates})
        form = confirmed_form(request, TeamForm, teams=teams)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                action="place_in_team",
                title="Place these players in a team",
                form=form,
            )
        for task in queryset:
            self._resolve(request, task, team=form.cleaned_data["team"])
        return None

    def _resolve(self, request, task, **answer) -> None:
        try:
            services.onboarding_task_resolve(
                task_reference=task.task_reference, reviewer=request.user, **answer
            )
        except (PermissionDenied, ValidationError) as error:
            text = error_text(error) if isinstance(error, ValidationError) else str(error)
            self.message_user(request, f"{task.task_reference}: {text}", messages.ERROR)
        else:
            self.message_user(request, f"{task.task_reference}: answered.")
