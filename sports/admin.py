"""The omnium console for the sports spine.

Every write with an invariant goes through ``sports.services``: the competition tree only
changes through ``competition_create`` / ``competition_move`` / ``competition_archive``
(django-mptt corrupts trees under concurrent writes, and the services serialise writers), a
fixture's structure only through ``fixture_create`` / ``fixture_amend`` (which record the
amendment, pin the field and log it), participants only through ``participant_create`` /
``participant_merge``. Append-only and derived tables are read-only here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from omnium.console import (
    EstimatedCountPaginator,
    ReadOnlyAdmin,
    ServiceErrorsMixin,
    admin_link,
    confirm_page,
    confirmed_form,
    error_text,
    request_actor,
)
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureAmendment,
    FixtureCompetitor,
    LedgerStream,
    Participant,
    ParticipantAlias,
    PointsAdjustment,
    Sport,
    SportDefinitionVersion,
    StatLine,
    TimelineItem,
    UnmatchedRow,
    Venue,
)
from sports.services import (
    competition_archive,
    competition_create,
    competition_merge,
    competition_move,
    competition_update,
    fixture_amend,
    fixture_award,
    fixture_enter_by_hand,
    fixture_merge,
    fixture_pin,
    fixture_unpin,
    participant_create,
    participant_merge,
    points_adjustment_create,
    sport_definition_publish,
    stat_table_rebuild,
    table_kind_for,
)
from sports.services.fixtures import AMENDABLE, PINNABLE


class MergeForm(forms.Form):
    survivor = forms.ModelChoiceField(
        queryset=Participant.objects.none(), widget=forms.RadioSelect, empty_label=None
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why these are one record; kept in the log of everything the merge touches.",
    )

    def __init__(self, *args, candidates, describe=str, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["survivor"]
        field.queryset = candidates
        field.label_from_instance = describe


def _merge_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset,
    *,
    merge: Callable[..., Any],
    describe: Callable[[Any], str],
    question: str,
) -> HttpResponse | None:
    """The shared merge flow: at least two rows, a confirmation page choosing the survivor
    among them with a required note, then ``merge(loser=, survivor=, actor=, note=)`` for
    every other row, all or nothing."""
    noun = modeladmin.model._meta.verbose_name_plural
    if queryset.count() < 2:
        modeladmin.message_user(request, f"Choose at least two {noun}.", messages.ERROR)
        return None
    form = confirmed_form(request, MergeForm, candidates=queryset, describe=describe)
    if not form.is_bound or not form.is_valid():
        return confirm_page(
            modeladmin,
            request,
            queryset,
            form=form,
            action="merge",
            title=f"Merge {noun}",
            question=question,
        )
    survivor = form.cleaned_data["survivor"]
    losers = [row for row in queryset if row.pk != survivor.pk]
    try:
        with transaction.atomic():
            for loser in losers:
                merge(
                    loser=loser,
                    survivor=survivor,
                    actor=request_actor(request),
                    note=form.cleaned_data["note"],
                )
    except ValidationError as error:
        modeladmin.message_user(request, f"Nothing merged: {error_text(error)}", messages.ERROR)
        return None
    modeladmin.message_user(request, f"Merged {len(losers)} of them into {survivor}.")
    return None


# --- reference tables -------------------------------------------------------------------


@admin.register(Sport)
class SportAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "parent", "archetype", "competitor_kind", "status")
    list_filter = ("status", "archetype")
    list_select_related = ("parent",)
    search_fields = ("code", "name")

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class DefinitionPublishForm(forms.ModelForm):
    class Meta:
        model = SportDefinitionVersion
        fields = ("sport", "plugin", "meta_schema", "format_schema", "status_codes", "notes")

    def clean_plugin(self) -> str:
        from sports.plugins.registry import get_plugin

        plugin = self.cleaned_data["plugin"]
        try:
            get_plugin(plugin)
        except ImproperlyConfigured as error:
            raise ValidationError(str(error)) from error
        return plugin


@admin.register(SportDefinitionVersion)
class SportDefinitionVersionAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    """A new version is published through the service (the next number, the plugin's
    schemas by default). A published version's schemas stay frozen: fixtures pin the
    version they were made with, so changing it would reinterpret them. Notes stay editable.
    """

    list_display = ("sport", "version", "plugin", "created_at")
    list_filter = ("sport",)
    list_select_related = ("sport",)

    create_form = DefinitionPublishForm
    fields_on_change = (
        "sport",
        "version",
        "plugin",
        "meta_schema",
        "format_schema",
        "status_codes",
        "notes",
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("sport", "version", "plugin", "meta_schema", "format_schema", "status_codes")

    def save_model(self, request, obj, form, change):
        if change:
            obj.save(update_fields=["notes", "updated_at"])
            return
        data = form.cleaned_data
        published = sport_definition_publish(
            sport=data["sport"],
            plugin=data["plugin"],
            actor=request_actor(request),
            meta_schema=data["meta_schema"] or None,
            format_schema=data["format_schema"] or None,
            status_codes=data["status_codes"] or None,
            notes=data["notes"],
        )
        _become(obj, published)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "city", "country")
    search_fields = ("code", "name", "city")
    list_filter = ("country",)


def _become(obj, saved) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's
    own log entry and redirect point at it."""
    obj.pk = saved.pk
    obj.refresh_from_db()
    obj._state.adding = False


# --- the competition tree ---------------------------------------------------------------

COMPETITION_PLAIN_FIELDS = (
    "code",
    "name",
    "type",
    "ordinal",
    "start_date",
    "end_date",
    "fixture_type",
    "format_code",
    "config",
)


class CompetitionCreateForm(forms.ModelForm):
    class Meta:
        model = Competition
        fields = ("parent", "sport", *COMPETITION_PLAIN_FIELDS)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        parent, sport = data.get("parent"), data.get("sport")
        if parent is not None and parent.sport_id is not None:
            if sport is not None and sport.pk != parent.sport_id:
                self.add_error("sport", f"Below a {parent.sport} node the sport is {parent.sport}.")
            else:
                data["sport"] = parent.sport
                self.instance.sport = parent.sport
        return data


class MoveForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)

    field_order = ("new_parent", "reason")

    def __init__(self, *args, admin_site, **kwargs):
        super().__init__(*args, **kwargs)
        # A select listing every node would be thousands of options for one Games tree.
        self.fields["new_parent"] = forms.ModelChoiceField(
            queryset=Competition.objects.canonical(),
            required=False,
            widget=AutocompleteSelect(Competition._meta.get_field("parent"), admin_site),
            help_text="Leave empty to make each chosen node the root of a tree of its own.",
        )
        self.order_fields(self.field_order)


class RequiredReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))


@admin.register(Competition)
class CompetitionAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    """The tree, indented by depth, in tree order. No drag and drop: a move is an action
    that goes through ``competition_move`` under the tree lock."""

    list_display = (
        "indented_name",
        "code",
        "sport",
        "type",
        "status",
        "fixture_type",
        "format_code",
    )
    list_filter = ("sport", "type", "status")
    list_select_related = ("sport",)
    search_fields = ("code", "name")
    ordering = ("tree_id", "lft")
    # Sorting by a column would scatter the indented rows; the tree order is the point.
    sortable_by = ()
    autocomplete_fields = ("parent",)
    actions = ("move", "archive", "merge", "rebuild_tables")
    list_per_page = 200

    @admin.display(description="name")
    def indented_name(self, obj: Competition) -> str:
        return format_html('<span style="padding-left: {}em">{}</span>', obj.level * 1.5, obj.name)

    @admin.display(description="path")
    def breadcrumb(self, obj: Competition) -> str:
        return format_html_join(
            " / ", "{}", ((admin_link(node, node.name),) for node in obj.get_ancestors())
        )

    create_form = CompetitionCreateForm
    fields_on_change = (
        "breadcrumb",
        "parent",
        "sport",
        "status",
        "merged_into",
        "level",
        *COMPETITION_PLAIN_FIELDS,
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # The tree is written only by the services: parent, sport (follows the parent) and
        # status (archive/merge cascade down the subtree) are shown, never edited here.
        return ("breadcrumb", "parent", "sport", "status", "merged_into", "level")

    def save_model(self, request, obj, form, change):
        if change:
            changed = [name for name in form.changed_data if name in COMPETITION_PLAIN_FIELDS]
            if changed:
                # The service writes only the edited columns (a full save would write back
                # the nested-set columns read when the page was opened, undoing a concurrent
                # move), logs and audits the edit, and clears tables a config change affects.
                competition_update(
                    node=obj,
                    changes={name: getattr(obj, name) for name in changed},
                    actor=request_actor(request),
                )
            return
        data = form.cleaned_data
        node = competition_create(
            parent=data["parent"],
            sport=data["sport"],
            actor=request_actor(request),
            **{name: data[name] for name in COMPETITION_PLAIN_FIELDS},
        )
        _become(obj, node)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Move under another node…", permissions=["change"])
    def move(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = confirmed_form(request, MoveForm, admin_site=self.admin_site)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action="move",
                title="Move competitions",
                question="Each node moves with everything below it, as the last child of the "
                "new parent.",
            )
        new_parent, reason = form.cleaned_data["new_parent"], form.cleaned_data["reason"]
        try:
            # All or nothing: a refused move (under its own descendant, another sport's
            # node) leaves the others where they were too.
            with transaction.atomic():
                for node in queryset:
                    competition_move(
                        node=node,
                        new_parent=new_parent,
                        actor=request_actor(request),
                        reason=reason,
                    )
        except ValidationError as error:
            self.message_user(request, f"Nothing moved: {error_text(error)}", messages.ERROR)
            return None
        target = new_parent.name if new_parent else "a new root"
        self.message_user(request, f"Moved {queryset.count()} node(s) under {target}.")
        return None

    @admin.action(description="Archive with everything below…", permissions=["change"])
    def archive(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = confirmed_form(request, RequiredReasonForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                form=form,
                action="archive",
                title="Archive competitions",
                question="Each node and every node below it is archived.",
            )
        with transaction.atomic():
            changed = sum(
                competition_archive(
                    node=node, actor=request_actor(request), reason=form.cleaned_data["reason"]
                )
                for node in queryset
            )
        self.message_user(request, f"Archived {changed} node(s).")
        return None

    @admin.action(description="Rebuild league or medal tables", permissions=["change"])
    def rebuild_tables(self, request: HttpRequest, queryset) -> None:
        # Tables are derived caches: rebuilding changes no decision, so no confirmation.
        for node in queryset:
            stat_table_rebuild(node=node, kind=table_kind_for(node))
        self.message_user(request, f"Rebuilt the tables of {queryset.count()} node(s).")

    @admin.action(description="Merge into one of them…", permissions=["change"])
    def merge(self, request: HttpRequest, queryset) -> HttpResponse | None:
        def merge(*, loser, survivor, actor, note):
            competition_merge(loser=loser, survivor=survivor, actor=actor, reason=note)

        return _merge_action(
            self,
            request,
            queryset,
            merge=merge,
            describe=lambda c: f"{c.name} ({c.code}, {c.sport or 'no sport'}, {c.type})",
            question="The others keep their rows, pointing at the survivor; their children and "
            "fixtures move under it.",
        )


# --- fixtures ---------------------------------------------------------------------------


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
        data = super().clean()
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
        return {name: self.cleaned_data[name] for name in self.changed_data if name in AMENDABLE}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.amended() and not data.get("reason", "").strip():
            self.add_error("reason", "Say why: every amendment keeps its reason.")
        seen = data.get("seen_version")
        current = Fixture.objects.filter(pk=self.instance.pk).values_list("version", flat=True)
        if seen is not None and current.first() != seen:
            raise ValidationError(
                "This fixture changed since you opened it; reload the page and amend again."
            )
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
    def side(self, obj: FixtureCompetitor) -> str:
        if obj.parent_id is None:
            return "—"
        parent = obj.parent
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
    "meta",
    "result",
    "live_state",
)


@admin.register(Fixture)
class FixtureAdmin(ServiceErrorsMixin, admin.ModelAdmin):
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
                    actor=request_actor(request),
                    reason=form.cleaned_data["reason"].strip(),
                    pin=form.cleaned_data["pin"],
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
            actor=request_actor(request),
        )
        _become(obj, fixture)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Merge into one of them…", permissions=["change"])
    def merge(self, request: HttpRequest, queryset) -> HttpResponse | None:
        def merge(*, loser, survivor, actor, note):
            fixture_merge(loser=loser, survivor=survivor, actor=actor, reason=note)

        return _merge_action(
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
                    fixture=fixture, fields=form.cleaned_data["names"], actor=request_actor(request)
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
                actor=request_actor(request),
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


# --- participants -----------------------------------------------------------------------


class ParticipantCreateForm(forms.ModelForm):
    class Meta:
        model = Participant
        fields = ("type", "name", "country", "born_on", "sport", "code", "meta")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["code"].required = False
        self.fields["code"].help_text = "Made from the name when left empty."


class AliasInline(admin.TabularInline):
    model = ParticipantAlias
    fields = ("name", "source_code", "first_seen", "last_seen")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class MergedFilter(admin.SimpleListFilter):
    title = "merged"
    parameter_name = "merged"

    def lookups(self, request, model_admin):
        return (("no", "Canonical rows"), ("yes", "Merged into another"))

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(merged_into__isnull=True)
        if self.value() == "yes":
            return queryset.filter(merged_into__isnull=False)
        return queryset


PARTICIPANT_IDENTITY = ("type", "name", "country", "born_on", "sport", "identity_hash")


@admin.register(Participant)
class ParticipantAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    list_display = ("name", "code", "type", "country", "sport", "survivor")
    list_filter = ("type", MergedFilter, "sport")
    list_select_related = ("sport", "merged_into")
    search_fields = ("name", "=code", "aliases__name")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    inlines = (AliasInline,)
    actions = ("merge",)

    @admin.display(description="merged into")
    def survivor(self, obj: Participant) -> str:
        return admin_link(obj.merged_into) if obj.merged_into_id else ""

    @admin.display(description="external ids")
    def external_ids(self, obj: Participant) -> str:
        """The map rows naming this participant and those naming rows merged into it
        (they resolve here through the merge chain)."""
        ids = [obj.pk]
        frontier = [obj.pk]
        while frontier:  # merge chains are short: one query per generation of losers
            frontier = list(
                Participant.objects.filter(merged_into__in=frontier).values_list("pk", flat=True)
            )
            ids.extend(frontier)
        rows = ExternalIdMap.objects.filter(
            entity_type=EntityType.PARTICIPANT, internal_id__in=ids
        ).order_by("source_code", "external_id")
        if not rows:
            return "none"
        return format_html(
            "<table><tr><th>source</th><th>external id</th><th>origin</th><th>via</th></tr>"
            "{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        row.source_code,
                        row.external_id,
                        row.origin or "",
                        "" if row.internal_id == obj.pk else f"merged row {row.internal_id}",
                    )
                    for row in rows
                ),
            ),
        )

    @admin.display(description="seen by sports")
    def seen_by(self, obj: Participant) -> str:
        names = [str(link.sport) for link in obj.sports.select_related("sport")]
        return ", ".join(names) or "every sport (the Commons)"

    create_form = ParticipantCreateForm
    fields_on_change = (
        *PARTICIPANT_IDENTITY,
        "survivor",
        "seen_by",
        "external_ids",
        "code",
        "meta",
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # The identity fields feed the duplicate fingerprint: changing them by hand would
        # leave ``identity_hash`` describing someone else.
        return (*PARTICIPANT_IDENTITY, "survivor", "seen_by", "external_ids")

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else ()

    def save_model(self, request, obj, form, change):
        if change:
            changed = [name for name in form.changed_data if name in ("code", "meta")]
            if changed:
                obj.save(update_fields=[*changed, "updated_at"])
            return
        data = form.cleaned_data
        participant, created = participant_create(
            type=data["type"],
            name=data["name"],
            country=data["country"] or None,
            born_on=data["born_on"],
            sport=data["sport"],
            code=data["code"] or None,
            meta=data["meta"],
            actor=request_actor(request),
        )
        if not created:
            self.message_user(
                request,
                f"{participant} already exists with the same identity; nothing was added.",
                messages.WARNING,
            )
        _become(obj, participant)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Merge into one of them…", permissions=["change"])
    def merge(self, request: HttpRequest, queryset) -> HttpResponse | None:
        return _merge_action(
            self,
            request,
            queryset,
            merge=participant_merge,
            describe=lambda p: f"{p.name} ({p.code}, {p.type}, {p.country or '-'})",
            question="The others keep their rows, pointing at the survivor; their appearances, "
            "entries, names and external ids move to it.",
        )


# --- logs, maps and derived rows (read-only) --------------------------------------------


@admin.register(TimelineItem)
class TimelineItemAdmin(ReadOnlyAdmin):
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


@admin.register(FixtureAmendment)
class FixtureAmendmentAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "fixture", "field", "old_value", "new_value", "reason", "actor")
    list_select_related = ("fixture", "actor")
    search_fields = ("=fixture__code", "field")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(StatLine)
class StatLineAdmin(ReadOnlyAdmin):
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

    TARGETS = {
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
            actor=request_actor(request),
        )
        _become(obj, adjustment)
