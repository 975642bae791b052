"""The console's job pages: the long work, newest first, its progress while it runs (the
pages refresh themselves), a page per job with its result or its reason, and the buttons
that start a collection, a suggest run or a statistics rebuild (``job_start``, the same
service as the command line and the scheduler) or retry a failed job (``job_retry``).

Every staff account in the console sees every job (the API shows others their own). Who
may start which kind is the role table's: a collection or a rebuild needs the editor's
capability, a suggest run the reviewer's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from accounts.access import user_can, user_can_everywhere
from accounts.models import Capability, Job, JobKind, JobState, Role
from accounts.services import job_retry, job_start, job_targets
from omnium.console import (
    HomeItem,
    HomeQueue,
    HomeRows,
    console_actor,
    error_text,
    home_queue_register,
)

# The kinds the console starts by hand, and the capability each needs (everywhere for the
# editor's: a collection or a rebuild is not scoped to a competition).
CONSOLE_STARTS: dict[str, tuple[str, bool]] = {
    JobKind.COLLECT: (Capability.EDIT, True),
    JobKind.SUGGEST: (Capability.REVIEW, False),
    JobKind.STATISTICS_REBUILD: (Capability.EDIT, True),
}
UNFINISHED = (JobState.QUEUED, JobState.RUNNING)
# Seconds between the refreshes of a page showing unfinished work.
REFRESH_SECONDS = 2


def job_may_start(user: Any, kind: str) -> bool:
    """Whether ``user`` may start (or retry) a ``kind`` job from the console. One query."""
    rule = CONSOLE_STARTS.get(kind)
    if rule is None:
        return False
    capability, everywhere = rule
    return (user_can_everywhere if everywhere else user_can)(user, capability)


def progress_text(job: Job) -> str:
    """ "42 % · 420 of 1,000", "420 done" while the total is unknown, "" before any."""
    if job.percent is not None:
        shown = f"{job.percent} %"
        return f"{shown} · {job.done:,} of {job.total:,}" if job.total else shown
    return f"{job.done:,} done" if job.done else ""


def result_rows(job: Job) -> list[tuple[str, str]]:
    """The result's counts as (name, value) rows for a person: no raw JSON."""
    return [(str(k).replace("_", " "), str(v)) for k, v in (job.result or {}).items()]


class JobAdmin(admin.ModelAdmin):
    list_display = ("job", "state_shown", "progress_shown", "step", "who", "created_at", "eta")
    list_filter = ("state", "kind")
    list_select_related = ("started_by",)
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    change_list_template = "admin/accounts/job/change_list.html"
    search_fields = ()

    # Everyone at the console reads every job; nobody edits one by hand.
    def has_module_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="job", ordering="kind")
    def job(self, job: Job) -> str:
        return str(job)

    @admin.display(description="state", ordering="state")
    def state_shown(self, job: Job) -> str:
        return format_html(
            '<span class="job-state job-{}">{}</span>', job.state, job.get_state_display()
        )

    @admin.display(description="progress")
    def progress_shown(self, job: Job) -> str:
        value = job.percent
        bar = (
            format_html('<progress max="100" value="{}">{} %</progress> ', value, value)
            if value is not None
            else ""
        )
        return format_html("{}{}", bar, progress_text(job))

    @admin.display(description="started by")
    def who(self, job: Job) -> str:
        person = job.started_by.username if job.started_by else "—"
        return f"{person} ({job.via})"

    @admin.display(description="ETA")
    def eta(self, job: Job) -> str:
        eta = job.eta()
        return date_format(timezone.localtime(eta), "H:i:s") if eta else ""

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        wrap = self.admin_site.admin_view
        return [
            path("start/", wrap(require_POST(self.start_view)), name=f"{name}_start"),
            path("<uuid:pk>/retry/", wrap(require_POST(self.retry_view)), name=f"{name}_retry"),
            *super().get_urls(),
        ]

    def _starts(self, request: HttpRequest) -> list[dict[str, Any]]:
        return [
            {
                "kind": kind,
                "label": JobKind(kind).label,
                "targets": job_targets(kind) if kind == JobKind.COLLECT else None,
            }
            for kind in CONSOLE_STARTS
            if job_may_start(request.user, kind)
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):
        context = {
            "starts": self._starts(request),
            "refresh": REFRESH_SECONDS
            if Job.objects.filter(state__in=UNFINISHED).exists()
            else None,
            **(extra_context or {}),
        }
        return super().changelist_view(request, context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        try:
            job = Job.objects.select_related("started_by", "retry_of").get(pk=object_id)
        except (Job.DoesNotExist, ValidationError, ValueError):
            raise Http404(f"No job {object_id}.") from None
        retries = list(job.retries.order_by("-created_at").only("pk", "state", "created_at"))
        context = {
            **self.admin_site.each_context(request),
            "title": str(job),
            "subtitle": None,
            "opts": self.opts,
            "job": job,
            "progress": progress_text(job),
            "result_rows": result_rows(job),
            "retries": retries,
            "may_retry": job.state == JobState.FAILED and job_may_start(request.user, job.kind),
            "refresh": REFRESH_SECONDS if job.state in UNFINISHED else None,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/accounts/job/detail.html", context)

    def start_view(self, request: HttpRequest):
        kind = request.POST.get("kind", "")
        if not job_may_start(request.user, kind):
            raise PermissionDenied(f"Your role may not start a {kind or 'such'} job here.")
        target, label = request.POST.get("target", ""), ""
        if kind == JobKind.COLLECT:
            label = dict(job_targets(kind)).get(target, "")
            if not label:
                self.message_user(
                    request,
                    "Nothing was started: choose one of the enabled sources with a feed file.",
                    messages.ERROR,
                )
                return HttpResponseRedirect(reverse("admin:accounts_job_changelist"))
        try:
            job = job_start(
                kind=kind,
                actor=console_actor(request),
                via="console",
                target=target if kind == JobKind.COLLECT else "",
                target_label=label,
            )
        except ValidationError as error:
            self.message_user(request, f"Nothing was started: {error_text(error)}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:accounts_job_changelist"))
        self.message_user(request, f"{job} queued; this page follows it.")
        return HttpResponseRedirect(reverse("admin:accounts_job_change", args=[job.pk]))

    def retry_view(self, request: HttpRequest, pk):
        job = get_object_or_404(Job, pk=pk)
        if not job_may_start(request.user, job.kind):
            raise PermissionDenied(f"Your role may not start a {job.kind} job here.")
        try:
            again = job_retry(job=job, actor=console_actor(request))
        except ValidationError as error:
            self.message_user(request, f"Nothing was started: {error_text(error)}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:accounts_job_change", args=[job.pk]))
        self.message_user(request, f"{again} queued again.")
        return HttpResponseRedirect(reverse("admin:accounts_job_change", args=[again.pk]))


admin.site.register(Job, JobAdmin)


def _jobs(request: HttpRequest, limit: int) -> HomeRows:
    """The latest jobs, newest first; the count is of those still queued or running."""
    url = reverse("admin:accounts_job_changelist")
    latest = Job.objects.select_related("started_by").order_by("-created_at", "-id")[:limit]
    items = [
        HomeItem(
            label=str(job),
            url=reverse("admin:accounts_job_change", args=[job.pk]),
            since=job.created_at,
            note=" · ".join(filter(None, [job.get_state_display(), progress_text(job)])),
        )
        for job in latest
    ]
    return HomeRows(count=Job.objects.filter(state__in=UNFINISHED).count(), items=items, url=url)


home_queue_register(
    HomeQueue(
        key="jobs",
        title="Long work (queued or running)",
        roles=frozenset({Role.REVIEWER, Role.EDITOR, Role.ADMIN}),
        rows=_jobs,
        order=90,
        help="Collections, suggest runs, rebuilds and batch work, newest first.",
    )
)
