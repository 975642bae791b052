"""Read-only console pages of logs, external-id maps and derived rows, and the points
adjustments (appended through their service)."""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from omnium.console import (
    EstimatedCountPaginator,
    ReadableAdmin,
    ReadOnlyAdmin,
    ServiceErrorsMixin,
    confirm_page,
    confirmed_form,
    console_actor,
    error_text,
)
from sports.admin.common import become
from sports.models import (
    EntityType,
    ExternalIdMap,
    FixtureAmendment,
    LedgerStream,
    PointsAdjustment,
    StatLine,
    TimelineItem,
    UnmatchedRow,
)
from sports.services import fixture_command_correct, points_adjustment_create, timeline_void
from sports.services.common import may_edit


class CorrectForm(forms.Form):
    payload = forms.JSONField(
        help_text="The command's corrected input, whole; it replaces the item's in the fold."
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why the item is corrected; kept in the log beside it.",
    )


class VoidForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why these items are withdrawn; kept in the log beside them.",
    )


@admin.register(TimelineItem)
class TimelineItemAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = (
        "id",
        "fixture",
        "seq",
        "event_type",
        "status",
        "source_code",
        "actor",
        "created_at",
    )
    # No filter on event_type or source: their choices would be a DISTINCT over the log.
    list_filter = ("status", "unit")
    list_select_related = ("fixture",)
    search_fields = ("=event_type", "=idempotency_key")
    ordering = ("-id",)
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    actions = ("void", "correct")

    def has_void_permission(self, request: HttpRequest) -> bool:
        return may_edit(request.user)

    @admin.action(description="Void (withdraw) the chosen items…", permissions=["void"])
    def void(self, request: HttpRequest, queryset) -> HttpResponse | None:
        """Through ``timeline_void``: each item flips to VOIDED, the void is logged with the
        reason, and a fixture whose command was voided is rebuilt from the rest of its log;
        all of them or none."""
        form = confirmed_form(request, VoidForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action="void",
                title="Void log items",
                question="The items stay in the log, marked voided; each fixture's scoreboard "
                "and statistics are rebuilt from what remains.",
            )
        items = list(queryset.order_by("fixture_id", "seq"))
        try:
            with transaction.atomic():
                for item in items:
                    timeline_void(
                        item=item, actor=console_actor(request), reason=form.cleaned_data["reason"]
                    )
        except ValidationError as error:
            self.message_user(request, f"Nothing voided: {error_text(error)}", messages.ERROR)
            return None
        self.message_user(request, f"Voided {len(items)} item(s).")
        return None

    @admin.action(description="Correct a command (supersede it)…", permissions=["void"])
    def correct(self, request: HttpRequest, queryset) -> HttpResponse | None:
        """Through ``fixture_command_correct``: a new item with the corrected payload
        supersedes the chosen one (both stay) and its fixture is rebuilt. One at a time."""
        if queryset.count() != 1:
            self.message_user(request, "Correct one item at a time.", messages.ERROR)
            return None
        item = queryset.get()
        form = confirmed_form(request, CorrectForm)
        if not form.is_bound:
            form = CorrectForm(initial={"payload": item.payload})
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action="correct",
                title="Correct a log item",
                question="The item stays in the log, superseded by the correction; the "
                "fixture is rebuilt from the live log.",
            )
        try:
            correction = fixture_command_correct(
                item=item,
                payload=form.cleaned_data["payload"],
                actor=console_actor(request),
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            self.message_user(request, f"Nothing corrected: {error_text(error)}", messages.ERROR)
            return None
        self.message_user(request, f"Item {item.seq} is superseded by item {correction.seq}.")
        return None


@admin.register(FixtureAmendment)
class FixtureAmendmentAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("created_at", "fixture", "field", "old_value", "new_value", "reason", "actor")
    list_select_related = ("fixture", "actor")
    search_fields = ("=fixture__code", "field")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(StatLine)
class StatLineAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("fixture", "subject", "subject_role", "segment", "occurred_on", "sport")
    list_filter = ("sport",)
    list_select_related = ("fixture", "subject", "sport")
    search_fields = ("=fixture__code", "=subject__code")
    show_full_result_count = False
    paginator = EstimatedCountPaginator


class ResolvedFilter(admin.SimpleListFilter):
    title = "resolved"
    parameter_name = "resolved"

    def lookups(self, request, model_admin):
        return (("no", "Waiting for review"), ("yes", "Resolved"))

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "yes":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(UnmatchedRow)
class UnmatchedRowAdmin(ReadOnlyAdmin):
    """The operator's review list: what a feed names that the resolver could not match,
    with the sentence saying why. Reviewed before the feed is turned on."""

    list_display = (
        "source_code",
        "batch",
        "external_id",
        "name",
        "country",
        "reason",
        "resolved_at",
    )
    list_filter = ("source_code", ResolvedFilter, "entity_type")
    search_fields = ("name", "=external_id", "=batch")


@admin.register(ExternalIdMap)
class ExternalIdMapAdmin(ReadOnlyAdmin):
    list_display = ("source_code", "entity_type", "external_id", "target", "origin", "created_by")
    # No filter on the source: its choices would be a DISTINCT over the whole map.
    list_filter = ("entity_type", "origin")
    search_fields = ("=source_code", "external_id")
    show_full_result_count = False
    paginator = EstimatedCountPaginator

    # Keyed by the stored value: ``entity_type`` reads back as a plain str.
    TARGETS: ClassVar[dict[str, str]] = {
        EntityType.SPORT: "sport",
        EntityType.COMPETITION: "competition",
        EntityType.FIXTURE: "fixture",
        EntityType.PARTICIPANT: "participant",
        EntityType.VENUE: "venue",
    }

    @admin.display(description="internal id")
    def target(self, obj: ExternalIdMap) -> str:
        model_name = self.TARGETS.get(obj.entity_type)
        if model_name is None:
            return str(obj.internal_id)
        url = reverse(f"admin:sports_{model_name}_change", args=[obj.internal_id])
        return format_html('<a href="{}">{}</a>', url, obj.internal_id)


@admin.register(LedgerStream)
class LedgerStreamAdmin(ReadOnlyAdmin):
    list_display = ("subject_kind", "subject_id", "last_seq")
    list_filter = ("subject_kind",)
    show_full_result_count = False


class PointsAdjustmentForm(forms.ModelForm):
    class Meta:
        model = PointsAdjustment
        fields = ("competition", "participant", "points", "reason")


@admin.register(PointsAdjustment)
class PointsAdjustmentAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    """Deductions and awards of league points: a person's decision, made through the
    service (reason required, audited, tables cleared), then read-only."""

    form = PointsAdjustmentForm
    list_display = ("competition", "participant", "points", "reason", "decided_by", "decided_at")
    list_select_related = ("competition", "participant", "decided_by")
    autocomplete_fields = ("competition", "participant")
    search_fields = ("participant__name", "competition__name", "reason")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        adjustment = points_adjustment_create(
            competition=data["competition"],
            participant=data["participant"],
            points=data["points"],
            reason=data["reason"],
            actor=console_actor(request),
        )
        become(obj, adjustment)
