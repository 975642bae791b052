"""The console home page's queues of ingest's rows: batches awaiting review in the
competitions the person reviews, onboarding tasks, a submitter's own batches in progress,
and the collection's data-quality queues (failed runs, refused feed rows).

Registered with ``omnium.console.home_queue_register`` when the admin loads
(``ingest/admin.py``); ``accounts.console_home`` shows them by role.
"""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest
from django.urls import reverse

from accounts.models import Role
from catalogue.collection_records import CollectionRun, RejectedObservation, RunStatus
from ingest.batches.models import (
    Batch,
    BatchParticipantOnboardingTask,
    BatchState,
    OnboardingDecision,
)
from ingest.batches.permissions import reviewable_batches
from omnium.console import HomeItem, HomeQueue, HomeRows, home_queue_register


def _batches_awaiting_review(request: HttpRequest, limit: int) -> HomeRows:
    waiting = reviewable_batches(
        request.user, Batch.objects.filter(state=BatchState.AWAITING_REVIEW)
    ).order_by("created_at", "pk")
    rows = waiting.select_related("submitter", "competition").annotate(files=Count("items"))
    items = [
        HomeItem(
            label=f"{batch.competition or 'no single competition'}: {batch.files} file(s)",
            url=reverse("admin:ingest_batch_change", args=[batch.pk]),
            since=batch.created_at,
            note=f"from {batch.submitter}",
        )
        for batch in rows[:limit]
    ]
    url = reverse("admin:ingest_batch_changelist") + f"?state__exact={BatchState.AWAITING_REVIEW}"
    return HomeRows(count=waiting.count(), items=items, url=url)


def _onboarding_tasks(request: HttpRequest, limit: int) -> HomeRows:
    batches = reviewable_batches(request.user, Batch.objects.all())
    waiting = BatchParticipantOnboardingTask.objects.filter(
        decision=OnboardingDecision.OUTSTANDING, batch__in=batches
    ).order_by("created_at", "pk")
    items = [
        HomeItem(
            label=task.name,
            url=reverse("admin:ingest_batchparticipantonboardingtask_change", args=[task.pk]),
            since=task.created_at,
            note=task.get_reason_display(),
        )
        for task in waiting[:limit]
    ]
    url = reverse("admin:ingest_batchparticipantonboardingtask_changelist")
    return HomeRows(count=waiting.count(), items=items, url=url + "?decision__exact=outstanding")


def _own_batches(request: HttpRequest, limit: int) -> HomeRows:
    mine = Batch.objects.filter(submitter=request.user.pk).exclude(
        state__in=[BatchState.PUBLISHED, BatchState.REJECTED]
    )
    mine = mine.select_related("competition").order_by("created_at", "pk")
    items = [
        HomeItem(
            label=f"{batch.competition or 'no single competition'}",
            url=reverse("admin:ingest_batch_change", args=[batch.pk]),
            since=batch.created_at,
            note=batch.get_state_display(),
        )
        for batch in mine[:limit]
    ]
    return HomeRows(count=mine.count(), items=items, url=reverse("admin:ingest_batch_changelist"))


_REVIEWING = frozenset({Role.REVIEWER, Role.EDITOR, Role.ADMIN})
home_queue_register(
    HomeQueue(
        key="batches-awaiting-review",
        title="Batches awaiting review",
        roles=_REVIEWING,
        rows=_batches_awaiting_review,
        order=10,
        help="In the competitions you review.",
    )
)
home_queue_register(
    HomeQueue(
        key="onboarding-tasks",
        title="Onboarding tasks",
        roles=_REVIEWING,
        rows=_onboarding_tasks,
        order=30,
    )
)
home_queue_register(
    HomeQueue(
        key="own-batches",
        title="Your batches in progress",
        roles=frozenset({Role.SUBMITTER}),
        rows=_own_batches,
        order=10,
    )
)


def _failed_runs(request: HttpRequest, limit: int) -> HomeRows:
    failed = CollectionRun.objects.filter(status=RunStatus.FAILED).order_by("-started_at", "-pk")
    items = [
        HomeItem(
            label=f"{run.source}: {run.file_name or 'run'}",
            url=reverse("admin:catalogue_collectionrun_change", args=[run.pk]),
            since=run.started_at,
            note=(run.error or "")[:120],
        )
        for run in failed.select_related("source")[:limit]
    ]
    url = reverse("admin:catalogue_collectionrun_changelist") + "?status__exact=failed"
    return HomeRows(count=failed.count(), items=items, url=url)


def _refused_rows(request: HttpRequest, limit: int) -> HomeRows:
    refused = RejectedObservation.objects.order_by("-created_at", "-pk")
    items = [
        HomeItem(
            label=f"{row.reason}: {row.source_sku or row.message[:60]}",
            url=reverse("admin:catalogue_rejectedobservation_change", args=[row.pk]),
            since=row.created_at,
            note=row.get_stage_display(),
        )
        for row in refused[:limit]
    ]
    url = reverse("admin:catalogue_rejectedobservation_changelist")
    return HomeRows(count=refused.count(), items=items, url=url)


_CURATING = frozenset({Role.EDITOR, Role.ADMIN})
home_queue_register(
    HomeQueue(
        key="failed-collection-runs",
        title="Failed collection runs",
        roles=_CURATING,
        rows=_failed_runs,
        order=60,
        help="Newest first; the source's page shows its kill switch.",
    )
)
home_queue_register(
    HomeQueue(
        key="refused-feed-rows",
        title="Feed rows the collectors refused",
        roles=_CURATING,
        rows=_refused_rows,
        order=70,
        help="Newest first.",
    )
)
