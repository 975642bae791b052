"""Jobs: the record of long work and how far it got. The one write path of ``Job`` rows.

- ``job_start`` creates the job (queued) and, once the transaction commits, sends the task
  of its kind (``JOB_TASKS``, by name: this app imports no task of a higher app). The
  console's buttons, the scheduler's entry tasks and the command line all start jobs
  here; the command line asks for no task (``enqueue=False``) and runs the work itself.
- ``job_execute`` runs the work of one job where it is (a worker, or the command line):
  marks it running, hands the work one ``omnium.progress.Progress`` (also drawing the CLI's
  bar when given one), and finishes the job with the work's result or its error. A job
  already finished is not run again: a retry is a new job (``job_retry``).
- While the work runs a heartbeat thread touches ``heartbeat_at`` on a connection of its
  own (so a long transaction in the work does not hide it); ``jobs_sweep_stale`` (the beat
  task ``accounts.jobs_sweep_stale``) marks a running job whose heartbeat stopped failed
  with "worker lost": a worker killed mid-way leaves an honest record behind.
- The job row is the outbox of its task: written in the transaction that asks for the work,
  so the intent commits or vanishes with the change. ``jobs_dispatch_unsent`` (the beat task
  ``accounts.jobs_dispatch_unsent``) sends again any job whose message the broker never
  took, so neither a process killed after its commit nor a broker that was down loses work.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import Job, JobKind, JobState, OutboxMessage, User
from omnium.progress import Progress, ProgressState

logger = logging.getLogger(__name__)

__all__ = [
    "JOB_TASKS",
    "job_execute",
    "job_retry",
    "job_start",
    "job_targets",
    "job_targets_register",
    "jobs_dispatch_unsent",
    "jobs_sweep_stale",
    "task_enqueue",
]

# The Celery task that runs each kind, called as ``task(*([target] if target else []),
# job_id=...)``. Names, not imports: the tasks live in the apps above this one.
JOB_TASKS: Mapping[str, str] = {
    JobKind.COLLECT: "ingest.collect_source",
    JobKind.SUGGEST: "catalogue.suggest_candidates",
    JobKind.STATISTICS_REBUILD: "cricket.statistics_rebuild",
    JobKind.BATCH_VALIDATE: "ingest.batch_validate",
    JobKind.BATCH_PUBLISH: "ingest.batch_publish",
    JobKind.STATISTICS_REFRESH: "cricket.statistics_refresh",
    JobKind.DATASET_RELEASE: "cricket.dataset_release_build",
}
# Kinds whose queued work acts on one row, named by ``target`` (a collection's source, a
# batch, a recorded refresh, a release's request). The command line may run a release
# into a directory of its own, with no row to name.
TARGETED = frozenset(
    {
        JobKind.COLLECT,
        JobKind.BATCH_VALIDATE,
        JobKind.BATCH_PUBLISH,
        JobKind.STATISTICS_REFRESH,
        JobKind.DATASET_RELEASE,
    }
)
VIA = ("console", "cli", "beat", "celery", "api")


# What a kind's job may be started on from the console (a collection: the enabled sources
# with a feed file), registered by the app that owns those rows: (key, label) pairs.
JobTargets = Callable[[], list[tuple[str, str]]]
_targets: dict[str, JobTargets] = {}


def job_targets_register(kind: str, targets: JobTargets) -> None:
    """Register (or, on a repeated import, replace) the rows ``kind`` may be started on."""
    _targets[kind] = targets


def job_targets(kind: str) -> list[tuple[str, str]]:
    """The (key, label) rows a ``kind`` job may be started on; [] when none are registered."""
    found = _targets.get(kind)
    return found() if found else []


def _heartbeat_every() -> float:
    return float(getattr(settings, "JOBS_HEARTBEAT_SECONDS", 30))


def stale_after() -> dt.timedelta:
    """How long a running job may go without a heartbeat before the sweep calls its worker
    lost (``JOBS_STALE_SECONDS``, default ten heartbeats)."""
    return dt.timedelta(seconds=float(getattr(settings, "JOBS_STALE_SECONDS", 300)))


def job_start(
    *,
    kind: str,
    actor: User | None,
    via: str,
    target: object = "",
    target_label: str = "",
    enqueue: bool = True,
    retry_of: Job | None = None,
    **options: Any,
) -> Job:
    """Record a new job of ``kind`` and, unless ``enqueue`` is False, send its task once the
    surrounding transaction commits (``options`` go to ``apply_async``; ``JOBS_QUEUE``
    names the queue when set)."""
    if kind not in JobKind.values:
        raise ValidationError({"kind": f"{kind!r} is no kind of job ({', '.join(JobKind)})."})
    if via not in VIA:
        raise ValidationError({"via": f"{via!r}: must be one of {', '.join(VIA)}."})
    target = "" if target is None else str(target)
    if enqueue and kind not in JOB_TASKS:
        raise ValidationError(
            {"kind": f"A {JobKind(kind).label.lower()} job is run by its command or its task."}
        )
    if enqueue and kind in TARGETED and not target:
        raise ValidationError({"target": f"A {JobKind(kind).label.lower()} job names its row."})
    # The job row names who started it (``started_by``); it is its own record of that.
    # The task's id is chosen here, so the job names it before the task is even sent.
    task_id = str(uuid.uuid4()) if enqueue else ""
    job = Job.objects.create(
        kind=kind,
        started_by=actor,
        via=via,
        target=target,
        target_label=target_label[:200],
        retry_of=retry_of,
        task_id=task_id,
    )
    if enqueue:
        queue = getattr(settings, "JOBS_QUEUE", None)
        if queue and "queue" not in options:
            options["queue"] = queue
        job.send_options = options
        job.save(update_fields=["send_options"])
        transaction.on_commit(lambda: _send(job))
    return job


def _apply(name: str, args: list[Any], kwargs: dict[str, Any], options: dict[str, Any]) -> str:
    """Send task ``name``; the reason it was not sent, or "" when the broker took it. A
    broker that is down or slow is logged and left to ``jobs_dispatch_unsent``: whoever
    asked for the work has committed and must not fail now."""
    try:
        # A task this process has loaded is applied as itself (so eager mode and routes
        # hold); one it has not is sent by name.
        task = current_app.tasks.get(name)
        if task is not None:
            task.apply_async(args=tuple(args), kwargs=kwargs, **options)
        else:
            current_app.send_task(name, args=args, kwargs=kwargs, **options)
    except Exception as exc:  # kombu and redis raise many kinds; all mean "not sent"
        logger.warning("task %s not sent, left for the dispatcher: %s", name, exc)
        return str(exc) or type(exc).__name__
    return ""


def _send(job: Job) -> bool:
    """Send ``job``'s task (its id chosen at ``job_start``) and record when the broker took
    it."""
    failed = _apply(
        JOB_TASKS[job.kind],
        [job.target] if job.target else [],
        {"job_id": str(job.pk)},
        {**job.send_options, "task_id": job.task_id},
    )
    if not failed:
        Job.objects.filter(pk=job.pk).update(sent_at=timezone.now())
    return not failed


def task_enqueue(task: str, *, args: list[Any], queue: str | None = None) -> OutboxMessage:
    """Ask for a short task (by name) in the caller's transaction: an outbox row commits
    with the change and the task is sent once it has; if the sender dies first or the
    broker is down, ``jobs_dispatch_unsent`` sends it. The task must be safe to run twice."""
    message = OutboxMessage.objects.create(
        task=task, args=list(args), options={"queue": queue} if queue else {}
    )
    transaction.on_commit(lambda: _send_message(message))
    return message


def _send_message(message: OutboxMessage) -> bool:
    failed = _apply(message.task, message.args, {}, message.options)
    OutboxMessage.objects.filter(pk=message.pk).update(
        attempts=F("attempts") + 1,
        **({"last_error": failed[:500]} if failed else {"sent_at": timezone.now()}),
    )
    return not failed


def jobs_dispatch_unsent(
    *, now: dt.datetime | None = None, grace: dt.timedelta | None = None, limit: int = 500
) -> int:
    """Send again every queued job (and outbox message) whose task the broker never took
    (the process that asked for it was killed between commit and send, or the broker was
    down): unsent for longer
    than ``grace`` (``JOBS_SEND_GRACE_SECONDS``, so a send on its way is not doubled), or
    sent ``JOBS_RESEND_SECONDS`` ago and still not started (a broker that lost it). The task
    is keyed by the job's id, so a job that has started or finished by the time its second
    message arrives is not run again. Returns how many were sent."""
    now = now or timezone.now()
    grace = grace or dt.timedelta(seconds=settings.JOBS_SEND_GRACE_SECONDS)
    resend = now - dt.timedelta(seconds=settings.JOBS_RESEND_SECONDS)
    due = (
        Job.objects.filter(state=JobState.QUEUED, created_at__lt=now - grace)
        .exclude(task_id="")
        .filter(Q(sent_at__isnull=True) | Q(sent_at__lt=resend, started_at__isnull=True))
        .order_by("created_at")[:limit]
    )
    sent = 0
    for job in due:
        sent += _send(job)
    messages = OutboxMessage.objects.filter(
        sent_at__isnull=True, created_at__lt=now - grace
    ).order_by("created_at")[:limit]
    sent += sum(_send_message(message) for message in messages)
    return sent


def job_retry(*, job: Job, actor: User | None, via: str = "console", **options: Any) -> Job:
    """Start ``job``'s work again as a new job (a failed one only)."""
    if job.state != JobState.FAILED:
        raise ValidationError(
            f"Job {job.pk} is {job.get_state_display().lower()}; only a failed job is retried."
        )
    if job.kind not in JOB_TASKS or (job.kind in TARGETED and not job.target):
        raise ValidationError(
            f"Job {job.pk} ({job.get_kind_display().lower()}) ran from the command line or its "
            "own task; run that again."
        )
    return job_start(
        kind=job.kind,
        actor=actor,
        via=via,
        target=job.target,
        target_label=job.target_label,
        retry_of=job,
        **options,
    )


class _Heartbeat(threading.Thread):
    """Touches the job's ``heartbeat_at`` every few seconds on a connection of its own, and
    writes the progress the work offers from inside a transaction of its own (on the work's
    connection that write would stay invisible, and the row locked, until the commit)."""

    def __init__(self, pk: Any, every: float) -> None:
        super().__init__(name=f"job-heartbeat-{pk}", daemon=True)
        self.pk, self.every = pk, every
        self.wake, self.stopped = threading.Event(), False
        self.pending: ProgressState | None = None

    def offer(self, state: ProgressState) -> None:
        self.pending = state
        self.wake.set()

    def stop(self) -> None:
        self.stopped = True
        self.wake.set()
        self.join()

    def run(self) -> None:
        try:
            while not self.stopped:
                self.wake.wait(self.every)
                self.wake.clear()
                if self.stopped:
                    break
                state, self.pending = self.pending, None
                if state is None:
                    Job.objects.filter(pk=self.pk, state=JobState.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                else:
                    _write_progress(self.pk, state)
        finally:
            connection.close()


def _write_progress(pk: Any, state: ProgressState) -> None:
    done = state.done if state.total is None else min(state.done, state.total)
    Job.objects.filter(pk=pk, state=JobState.RUNNING).update(
        done=done, total=state.total, step=state.step[:200], heartbeat_at=timezone.now()
    )


def _record(pk: Any, heartbeat: _Heartbeat) -> Callable[[ProgressState], None]:
    """The job row's writer for ``Progress`` (done, total, step, the heartbeat): on the
    work's connection, or, inside a transaction of the work, through the heartbeat thread."""

    def write(state: ProgressState) -> None:
        if connection.in_atomic_block:
            heartbeat.offer(state)
        else:
            _write_progress(pk, state)

    return write


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def job_execute(
    job_id: Any,
    work: Callable[[Progress], Mapping[str, Any] | None],
    *,
    bar: Any = None,
    retry_on: tuple[type[BaseException], ...] = (),
) -> Job | None:
    """Run ``work(progress)`` as job ``job_id`` and record the outcome: its returned dict as
    the result, or an exception's text as the error (the exception is raised again). With
    ``job_id`` None the work runs with a bare progress (the bar only) and None is returned.
    A finished job (or none with that id) is left alone and returned as it is. An exception
    in ``retry_on`` (the task retries later) puts the job back in the queue instead."""
    if job_id is None:
        progress = Progress(bar=bar)
        try:
            work(progress)
        finally:
            progress.close()
        return None
    now = timezone.now()
    started = Job.objects.filter(pk=job_id, state__in=[JobState.QUEUED, JobState.RUNNING]).update(
        state=JobState.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=_worker_name(),
        error="",
    )
    if not started:
        return Job.objects.filter(pk=job_id).first()
    heartbeat = _Heartbeat(job_id, _heartbeat_every())
    heartbeat.start()
    progress = Progress(bar=bar, record=_record(job_id, heartbeat))
    try:
        result = work(progress)
    except BaseException as exc:
        progress.close()
        heartbeat.stop()
        if retry_on and isinstance(exc, retry_on):
            Job.objects.filter(pk=job_id).update(
                state=JobState.QUEUED, step=f"waiting to retry: {exc}"[:200]
            )
            raise
        reason = f"{type(exc).__name__}: {exc}"[:2000] or type(exc).__name__
        _finish(job_id, state=JobState.FAILED, error=reason, progress=progress)
        raise
    progress.close()
    heartbeat.stop()
    _finish(job_id, state=JobState.SUCCEEDED, result=dict(result or {}), progress=progress)
    return Job.objects.get(pk=job_id)


def _finish(
    pk: Any,
    *,
    state: str,
    progress: Progress,
    result: Mapping[str, Any] | None = None,
    error: str = "",
) -> None:
    last = progress.state
    done = last.done
    total = last.total
    if state == JobState.SUCCEEDED:
        # Finished means all of it, whatever the last count said.
        total = max(done, total or 0)
        done = total
    elif total is not None:
        done = min(done, total)
    Job.objects.filter(pk=pk).update(
        state=state,
        finished_at=timezone.now(),
        done=done,
        total=total,
        step=last.step[:200],
        result=result or {},
        error=error,
    )


def jobs_sweep_stale(*, now: dt.datetime | None = None, after: dt.timedelta | None = None) -> int:
    """Mark failed every running job whose heartbeat is older than ``after`` (its worker was
    killed or lost): "worker lost", with the worker and when it was last heard of. Rows
    a live transaction holds are skipped. Returns how many were marked."""
    now = now or timezone.now()
    cutoff = now - (after or stale_after())
    marked = 0
    with transaction.atomic():
        for job in (
            Job.objects.select_for_update(skip_locked=True)
            .filter(state=JobState.RUNNING, heartbeat_at__lt=cutoff)
            .only("pk", "worker", "heartbeat_at")
        ):
            heard = job.heartbeat_at.isoformat(timespec="seconds") if job.heartbeat_at else "never"
            marked += Job.objects.filter(pk=job.pk, state=JobState.RUNNING).update(
                state=JobState.FAILED,
                finished_at=now,
                error=f"worker lost: {job.worker or 'a worker'} last heard of at {heard}",
            )
    return marked
