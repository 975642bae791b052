"""Console pages of participants: created and merged through ``sports.services``; aliases
and identity fields change only through them."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join

from omnium.console import EstimatedCountPaginator, ServiceErrorsMixin, admin_link, request_actor
from sports.admin.common import become, merge_action
from sports.models import EntityType, ExternalIdMap, Participant, ParticipantAlias
from sports.services import participant_create, participant_merge, participant_update
from sports.services.participants import PARTICIPANT_EDITABLE


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
            changes = {
                name: form.cleaned_data[name]
                for name in form.changed_data
                if name in PARTICIPANT_EDITABLE
            }
            become(
                obj,
                participant_update(participant=obj, changes=changes, actor=request_actor(request)),
            )
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
        become(obj, participant)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Merge into one of them…", permissions=["change"])
    def merge(self, request: HttpRequest, queryset) -> HttpResponse | None:
        return merge_action(
            self,
            request,
            queryset,
            merge=participant_merge,
            describe=lambda p: f"{p.name} ({p.code}, {p.type}, {p.country or '-'})",
            question="The others keep their rows, pointing at the survivor; their appearances, "
            "entries, names and external ids move to it.",
        )
