"""Console pages of fixtures: created by hand entry, amended (recorded, pinned, logged),
pinned, merged and awarded through ``sports.services``."""

from __future__ import annotations

from typing import Any

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
    ServiceErrorsMixin,
    confirm_page,
    confirmed_form,
    console_actor,
    error_text,
)
from sports.admin.common import become, merge_action
from sports.models import Fixture, FixtureAmendment, FixtureCompetitor
from sports.services import (
    fixture_amend,
    fixture_award,
    fixture_enter_by_hand,
    fixture_merge,
    fixture_pin,
    fixture_unpin,
)
from sports.services.common import Actor
from sports.services.fixtures import AMENDABLE, PINNABLE, fixture_documents_recheck


class FixtureCreateForm(forms.ModelForm):
    """A fixture entered by hand (``fixture_enter_by_hand``: its own accepted hand-entry
    submission, so it is public like any imported one); ``fixture_create`` fills in the
    inherited type and format and pins the sport's definition version."""

    class Meta:
        model = Fixture
        fields = (
            "competition",
            "sport",
            "code",
            "name",
            "archetype",
            "scheduled_start",
            "venue",
            "coverage_tier",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["competition"].required = True
        self.fields["sport"].required = False
        self.fields["sport"].help_text = "Only needed under a node without a sport (a Games root)."
        self.fields["archetype"].required = False
        self.fields["archetype"].help_text = "Defaults to the sport's archetype."

    def clean(self) -> dict[str, Any]:
        # Django's clean() returns cleaned_data (its stub allows None for subclasses that
        # return nothing); read the attribute itself.
        super().clean()
        data = self.cleaned_data
        competition, sport = data.get("competition"), data.get("sport")
        if competition is None:
            return data
        if sport is None:
            sport = competition.sport
            if sport is None:
                self.add_error("sport", f"{competition} has no sport; choose the fixture's sport.")
                return data
        elif competition.sport_id is not None and competition.sport_id != sport.pk:
            self.add_error("sport", f"{competition} is a {competition.sport} node.")
            return data
        data["sport"] = sport
        data["archetype"] = data.get("archetype") or sport.archetype
        if not data["archetype"]:
            self.add_error("archetype", f"{sport} has no default archetype; choose one.")
        return data


class FixtureAmendForm(forms.ModelForm):
    """Changes to the amendable fields, applied by ``fixture_amend`` with the reason."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        help_text="Required when any field changes; kept on each amendment.",
    )
    pin = forms.BooleanField(
        initial=True,
        required=False,
        label="Pin the changed fields",
        help_text="Pinned fields are left alone by every later import.",
    )
    seen_version = forms.IntegerField(widget=forms.HiddenInput)

    class Meta:
        model = Fixture
        fields = AMENDABLE

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seen_version"].initial = self.instance.version

    def amended(self) -> dict[str, Any]:
        changes = {
            name: self.cleaned_data[name]
            for name in self.changed_data
            if name in AMENDABLE and name in self.cleaned_data
        }
        # An emptied meta box is an empty document, and an unchanged one no change.
        if "meta" in changes and (changes["meta"] or {}) == self.initial.get("meta"):
            del changes["meta"]
        return changes

    def clean_meta(self) -> Any:
        value = self.cleaned_data.get("meta")
        return {} if value is None else value

    def clean(self) -> dict[str, Any]:
        # Django's clean() returns cleaned_data (its stub allows None for subclasses that
        # return nothing); read the attribute itself.
        super().clean()
        data = self.cleaned_data
        if self.amended() and not data.get("reason", "").strip():
            self.add_error("reason", "Say why: every amendment keeps its reason.")
        if "meta" in self.amended():
            # The fixture's definition says what ``meta`` may hold; each problem is shown
            # on the field (the service checks it again under the row lock).
            try:
                fixture_documents_recheck(self.instance, meta=data["meta"])
            except ValidationError as error:
                self.add_error("meta", error.message_dict.get("meta", error.messages))
        # The version seen is compared by ``fixture_amend`` under the fixture's row lock;
        # a comparison here would leave a window between it and the write.
        return data


class PinForm(forms.Form):
    names = forms.MultipleChoiceField(
        label="Fields",
        choices=[(name, name) for name in PINNABLE],
        widget=forms.CheckboxSelectMultiple,
    )


class CompetitorInline(admin.TabularInline):
    """The sides and entries, players under their side. Line-ups change only through
    ``fixture_set_competitors`` and results only through the log, so this is read-only."""

    model = FixtureCompetitor
    fields = (
        "side",
        "participant",
        "placeholder_label",
        "alignment",
        "ordinal",
        "slot",
        "rank",
        "result_status",
        "status_code",
        "win_method",
        "pinned",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    @admin.display(description="side")
    def side(self, obj: FixtureCompetitor) -> str | None:
        parent = obj.parent
        if parent is None:
            return "—"
        return str(parent.participant) if parent.participant_id else parent.placeholder_label

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("participant", "parent__participant")
            .order_by("parent_id", "ordinal", "id")
        )

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class AmendmentInline(admin.TabularInline):
    model = FixtureAmendment
    fields = ("created_at", "field", "old_value", "new_value", "reason", "actor")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-id",)
    verbose_name_plural = "amendment history"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("actor")

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


FIXTURE_READ_ONLY = (
    "sport",
    "competition",
    "code",
    "archetype",
    "fixture_type",
    "format_code",
    "definition_version",
    "pinned",
    "version",
    "last_seq",
    "timeline_link",
    "merged_into",
    "format",
    "result",
    "live_state",
)


@admin.register(Fixture)
class FixtureAdmin(ServiceErrorsMixin, ReadableAdmin):
    """Fixtures the person may read (``sports.readable``): the public ones, and for
    submitters and reviewers the unpublished ones of the competitions their grants cover."""

    list_display = (
        "code",
        "name",
        "sport",
        "competition",
        "status",
        "scheduled_start",
        "merged",
    )
    list_filter = ("sport", "status", "archetype", "coverage_tier")
    list_select_related = ("sport", "competition")
    search_fields = ("=code", "name")
    autocomplete_fields = ("competition", "venue")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    inlines = (CompetitorInline, AmendmentInline)
    actions = ("merge", "pin", "unpin", "award")

    @admin.display(description="merged", boolean=True)
    def merged(self, obj: Fixture) -> bool:
        return obj.merged_into_id is not None

    @admin.display(description="log")
    def timeline_link(self, obj: Fixture) -> str:
        url = reverse("admin:sports_timelineitem_changelist")
        return format_html(
            '<a href="{}?fixture__id__exact={}">{} item(s) in the timeline</a>',
            url,
            obj.pk,
            obj.last_seq,
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = FixtureCreateForm if obj is None else FixtureAmendForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else ()

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return ((None, {"fields": FixtureCreateForm.Meta.fields}),)
        if not self.has_change_permission(request, obj):
            # A reader sees the fixture; the amendment's own fields (reason, pin, the version
            # seen) exist only on the form, so there is nothing of them to show read-only.
            return (
                (None, {"fields": AMENDABLE}),
                ("Structure", {"fields": FIXTURE_READ_ONLY}),
            )
        return (
            ("Amend (each change is recorded with the reason)", {"fields": AMENDABLE}),
            (None, {"fields": ("reason", "pin", "seen_version")}),
            ("Structure", {"fields": FIXTURE_READ_ONLY}),
        )

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else FIXTURE_READ_ONLY

    def save_model(self, request, obj, form, change):
        if change:
            changes = form.amended()
            if changes:
                fixture_amend(
                    fixture=obj,
                    changes=changes,
                    actor=console_actor(request),
                    reason=form.cleaned_data["reason"].strip(),
                    pin=form.cleaned_data["pin"],
                    expected_version=form.cleaned_data["seen_version"],
                )
                obj.refresh_from_db()
            return
        data = form.cleaned_data
        fixture = fixture_enter_by_hand(
            competition=data["competition"],
            sport=data["sport"],
            code=data["code"],
            name=data["name"],
            archetype=data["archetype"],
            scheduled_start=data["scheduled_start"],
            venue=data["venue"],
            coverage_tier=data["coverage_tier"],
            actor=console_actor(request),
        )
        become(obj, fixture)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Merge into one of them…", permissions=["change"])
    def merge(self, request: HttpRequest, queryset) -> HttpResponse | None:
        def merge(*, loser: Fixture, survivor: Fixture, actor: Actor, note: str) -> None:
            fixture_merge(loser=loser, survivor=survivor, actor=actor, reason=note)

        return merge_action(
            self,
            request,
            queryset,
            merge=merge,
            describe=lambda f: f"{f} ({f.code}, {f.scheduled_start or 'no start'})",
            question="The others keep their rows and their logs, pointing at the survivor; their "
            "external ids resolve to it.",
        )

    def _pins(self, request: HttpRequest, queryset, *, pin: bool) -> HttpResponse | None:
        verb = "pin" if pin else "unpin"
        form = confirmed_form(request, PinForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action=verb,
                title=f"{verb.capitalize()} fields",
                question="Imports and recomputes leave pinned fields as a person set them."
                if pin
                else "Unpinned fields are set by the next import or recompute again.",
            )
        service = fixture_pin if pin else fixture_unpin
        with transaction.atomic():
            for fixture in queryset:
                service(
                    fixture=fixture, fields=form.cleaned_data["names"], actor=console_actor(request)
                )
        self.message_user(
            request, f"{verb.capitalize()}ned fields on {queryset.count()} fixture(s)."
        )
        return None

    @admin.action(description="Pin fields…", permissions=["change"])
    def pin(self, request: HttpRequest, queryset) -> HttpResponse | None:
        return self._pins(request, queryset, pin=True)

    @admin.action(description="Unpin fields…", permissions=["change"])
    def unpin(self, request: HttpRequest, queryset) -> HttpResponse | None:
        return self._pins(request, queryset, pin=False)

    @admin.action(description="Award the match to a side…", permissions=["change"])
    def award(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, "Award one fixture at a time.", level=messages.ERROR)
            return None
        fixture = queryset.get()
        sides = list(
            fixture.competitors.filter(parent__isnull=True)
            .select_related("participant")
            .order_by("ordinal")
        )
        form = confirmed_form(request, AwardForm, sides=sides)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action="award",
                title="Award the match",
                question="The chosen side wins (win method AWARDED), the other loses; both are "
                "pinned so later imports keep the decision.",
            )
        winner = next(s for s in sides if str(s.pk) == form.cleaned_data["winner"])
        try:
            fixture_award(
                fixture=fixture,
                winner=winner,
                actor=console_actor(request),
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            self.message_user(request, error_text(error), level=messages.ERROR)
            return None
        self.message_user(request, f"Awarded {fixture} to {winner.participant}.")
        return None


class AwardForm(forms.Form):
    winner = forms.ChoiceField(widget=forms.RadioSelect)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=True)

    def __init__(self, *args, sides, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["winner"].choices = [
            (str(side.pk), f"{side.alignment or side.ordinal}: {side.participant}")
            for side in sides
            if side.participant_id
        ]
