"""Console pages of the competition tree: written only through the tree services, which
serialise writers (django-mptt corrupts trees under concurrent writes)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join

from omnium.console import (
    ReadableAdmin,
    ServiceErrorsMixin,
    admin_link,
    confirm_page,
    confirmed_form,
    console_actor,
    error_text,
)
from sports.admin.common import become, merge_action
from sports.models import Competition
from sports.services import (
    competition_archive,
    competition_create,
    competition_merge,
    competition_move,
    competition_update,
    stat_table_rebuild,
    table_kind_for,
)
from sports.services.common import Actor

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
        # Django's clean() returns cleaned_data (its stub allows None for subclasses that
        # return nothing); read the attribute itself.
        super().clean()
        data = self.cleaned_data
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
class CompetitionAdmin(ServiceErrorsMixin, ReadableAdmin):
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
                    actor=console_actor(request),
                )
            return
        data = form.cleaned_data
        node = competition_create(
            parent=data["parent"],
            sport=data["sport"],
            actor=console_actor(request),
            **{name: data[name] for name in COMPETITION_PLAIN_FIELDS},
        )
        become(obj, node)

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
                        actor=console_actor(request),
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
                    node=node, actor=console_actor(request), reason=form.cleaned_data["reason"]
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
        def merge(*, loser: Competition, survivor: Competition, actor: Actor, note: str) -> None:
            competition_merge(loser=loser, survivor=survivor, actor=actor, reason=note)

        return merge_action(
            self,
            request,
            queryset,
            merge=merge,
            describe=lambda c: f"{c.name} ({c.code}, {c.sport or 'no sport'}, {c.type})",
            question="The others keep their rows, pointing at the survivor; their children and "
            "fixtures move under it.",
        )
