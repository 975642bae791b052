"""The job table: long work (a collection, suggest, a rebuild, a batch phase) and how far
it got. Loaded by ``accounts.models``, so the models belong to the accounts app."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from omnium.models import UUIDModel


class JobKind(models.TextChoices):
    """The long work a job records. A kind in ``accounts.services.jobs.JOB_TASKS`` is run by
    that Celery task, named by string (this app imports none of them); the imports are
    recorded by whatever runs them (their command or their task), and are not queued here."""

    COLLECT = "collect", "Collection"
    SUGGEST = "suggest", "Suggest merge candidates"
    STATISTICS_REBUILD = "statistics_rebuild", "Statistics rebuild"
    BATCH_VALIDATE = "batch_validate", "Batch validation"
    BATCH_PUBLISH = "batch_publish", "Batch publication"
    STATISTICS_REFRESH = "statistics_refresh", "Statistics refresh"
    DATASET_RELEASE = "dataset_release", "Dataset release"
    CRICSHEET_IMPORT = "cricsheet_import", "Cricsheet import"
    GAMES_IMPORT = "games_import", "Games import"
    LEAGUE_IMPORT = "league_import", "League import"


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


JOB_ENDS = [JobState.SUCCEEDED, JobState.FAILED]


class Job(UUIDModel):
    """One run of long work (a collection, suggest, a rebuild, a batch's validation) and
    how far it got: written by ``accounts.services.jobs`` only (started, progress at most
    about once a second, finished), read by the console's job pages and ``/api/v1/jobs/``."""

    kind = models.CharField(max_length=32, choices=JobKind.choices)
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="jobs",
        help_text="Who asked for it; empty for the scheduler and the command line.",
    )
    via = models.CharField(max_length=32, help_text="console, cli, beat or celery")
    target = models.CharField(max_length=200, blank=True, help_text="e.g. a source's id")
    target_label = models.CharField(max_length=200, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    step = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    # The job row is its task's outbox entry: written in the transaction that asked for the
    # work, sent after it commits; ``sent_at`` is when the broker took the message (null
    # until then), ``send_options`` how it is sent again by ``jobs_dispatch_unsent``.
    sent_at = models.DateTimeField(null=True, blank=True)
    send_options = models.JSONField(default=dict, blank=True)
    retry_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="retries"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["state", "heartbeat_at"], name="accounts_job_state_beat_idx"),
            models.Index(fields=["started_by", "created_at"], name="accounts_job_owner_idx"),
            models.Index(fields=["kind", "created_at"], name="accounts_job_kind_idx"),
            models.Index(
                fields=["created_at"],
                condition=Q(state="queued") & ~Q(task_id=""),
                name="accounts_job_outbox_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    state__in=[JobState.SUCCEEDED, JobState.FAILED], finished_at__isnull=False
                )
                | (
                    ~Q(state__in=[JobState.SUCCEEDED, JobState.FAILED])
                    & Q(finished_at__isnull=True)
                ),
                name="accounts_job_finished_iff_done",
            ),
            models.CheckConstraint(
                condition=~Q(state=JobState.FAILED) | ~Q(error=""),
                name="accounts_job_failed_has_reason",
            ),
            models.CheckConstraint(
                condition=Q(total__isnull=True) | Q(done__lte=models.F("total")),
                name="accounts_job_done_within_total",
            ),
        ]

    def __str__(self) -> str:
        what = self.get_kind_display()
        return f"{what} {self.target_label}".strip() if self.target_label else what

    @property
    def percent(self) -> int | None:
        """Whole percent done; 100 once succeeded; None while the total is unknown."""
        if self.state == JobState.SUCCEEDED:
            return 100
        if not self.total:
            return None
        return min(100, self.done * 100 // self.total)

    def eta(self, now=None):
        """When a running job should finish, from its pace so far; None when unknown."""
        if self.state != JobState.RUNNING or not self.total or not self.done or not self.started_at:
            return None
        now = now or timezone.now()
        elapsed = now - self.started_at
        return now + elapsed * ((self.total - self.done) / self.done)


class OutboxMessage(models.Model):
    """A short task asked for in a transaction (a notification's mail, a price-alert check):
    written with the change that asks for it, sent after that commits (``sent_at``), and
    sent again by ``accounts.services.jobs_dispatch_unsent`` when the sender died first or
    the broker was down. The task is named by string (this app imports none) and must be
    safe to run twice; jobs are their own outbox and are not written here."""

    task = models.CharField(max_length=200)
    args = models.JSONField(default=list, blank=True)
    options = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(sent_at__isnull=True),
                name="accounts_outbox_unsent_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.task}{self.args} ({'sent' if self.sent_at else 'unsent'})"
