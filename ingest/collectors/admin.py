"""Console pages for the retailer collectors: sources with their kill switch, runs,
rejections and raw records. Imported by ``ingest/admin.py``."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from accounts.job_admin import job_may_start
from accounts.models import JobKind
from accounts.services import job_start, job_targets_register
from catalogue.collection_records import CollectionRun, RawRecord, RejectedObservation, Source
from ingest.collectors.services import source_set_enabled
from omnium.console import (
    EstimatedCountPaginator,
    ReadOnlyAdmin,
    admin_link,
    confirm_page,
    confirmed_form,
    console_actor,
    request_actor,
)


class SwitchForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), help_text="Why (kept in the source's notes)."
    )


def _switch(modeladmin, request, queryset, *, enabled: bool):
    verb = "Enable" if enabled else "Disable"
    form = confirmed_form(request, SwitchForm)
    if form.is_bound and form.is_valid():
        for source in queryset:
            source_set_enabled(
                source=source,
                enabled=enabled,
                note=form.cleaned_data["note"],
                actor=request_actor(request),
            )
        modeladmin.message_user(
            request, f"{verb}d {queryset.count()} source(s).", level=messages.SUCCESS
        )
        return None
    return confirm_page(
        modeladmin,
        request,
        queryset,
        action="enable_sources" if enabled else "disable_sources",
        title=f"{verb} sources",
        question=f"{verb} these sources?",
        verb=verb,
        form=form,
    )


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "enabled", "feed_format", "location", "last_run"]
    list_filter = ["enabled", "feed_format"]
    list_select_related = ["location"]
    search_fields = ["slug", "name"]
    readonly_fields = ["enabled"]
    actions = ["enable_sources", "disable_sources", "collect_sources"]

    def has_moderate_permission(self, request) -> bool:
        """Starting a collection is an editor's (``accounts.job_admin.job_may_start``)."""
        return job_may_start(request.user, JobKind.COLLECT)

    @admin.action(
        description="Collect the selected sources now (a job each)",
        permissions=["moderate"],
    )
    def collect_sources(self, request, queryset):
        """Start a collection job for each chosen enabled source with a feed file, through
        ``job_start`` as the jobs page's button and the scheduler do."""
        started, skipped = 0, []
        for source in queryset:
            if not source.enabled or not source.feed_path:
                skipped.append(source.slug)
                continue
            job_start(
                kind=JobKind.COLLECT,
                actor=console_actor(request),
                via="console",
                target=source.pk,
                target_label=f"{source.name} ({source.slug})",
            )
            started += 1
        if skipped:
            self.message_user(
                request,
                f"Not started (disabled, or no feed file): {', '.join(skipped)}.",
                messages.WARNING,
            )
        if started:
            jobs = reverse("admin:accounts_job_changelist")
            self.message_user(
                request,
                format_html(
                    '{} collection(s) queued; <a href="{}">follow them</a>.', started, jobs
                ),
            )

    @admin.action(description="Enable the selected sources (kill switch off)")
    def enable_sources(self, request, queryset):
        return _switch(self, request, queryset, enabled=True)

    @admin.action(description="Disable the selected sources (kill switch on)")
    def disable_sources(self, request, queryset):
        return _switch(self, request, queryset, enabled=False)

    @admin.display(description="last run")
    def last_run(self, obj) -> str:
        run = obj.runs.order_by("-started_at").first()
        if run is None:
            return "never"
        return admin_link(run, f"{run.started_at.date()} ({run.status})")


@admin.register(CollectionRun)
class CollectionRunAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "source",
        "started_at",
        "status",
        "rows_read",
        "products_seen",
        "listings_created",
        "products_created",
        "prices_written",
        "rejected",
    ]
    list_filter = ["status", "source"]
    list_select_related = ["source"]


@admin.register(RejectedObservation)
class RejectedObservationAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "run", "row_number", "reason", "source_sku", "message"]
    list_filter = ["reason", "stage"]
    list_select_related = ["run", "run__source"]
    search_fields = ["source_sku", "message"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator


@admin.register(RawRecord)
class RawRecordAdmin(ReadOnlyAdmin):
    list_display = ["id", "listing", "run", "row_number", "parser_version", "created_at"]
    list_select_related = ["listing", "listing__location", "run", "run__source"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator


def _collectable() -> list[tuple[str, str]]:
    """The sources the console may start a collection job on: enabled, with a feed file."""
    rows = Source.objects.filter(enabled=True).exclude(feed_path="").order_by("slug")
    return [
        (str(pk), f"{name} ({slug})") for pk, slug, name in rows.values_list("pk", "slug", "name")
    ]


job_targets_register(JobKind.COLLECT, _collectable)
