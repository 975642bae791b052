"""The cricket console: read-only views of imported events, and delivery corrections.

Events are written only by the import and the correction service; nothing here edits a row.
A delivery's change page is "propose correction": editors and administrators submit changed
values with a required reason, and ``delivery_correct`` inserts the next revision. Reviewers
see the same page (the revisions and correction records) without the form. The delivery
list is millions of rows, so it counts from the planner estimate. The innings list's
Cricsheet upload page is added by ``ingest`` (it runs ingest's import; cricket never
imports ingest).
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import reverse

from cricket.corrections import (
    EXTRA_FIELDS,
    PEOPLE_FIELDS,
    delivery_correct,
    may_correct,
    may_read_history,
)
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryWicket,
    DismissalKind,
    FixtureOfficial,
    Innings,
)
from omnium.auth import signed_in
from omnium.console import EstimatedCountPaginator, ReadableAdmin, ReadOnlyAdmin, request_actor


@admin.register(DismissalKind)
class DismissalKindAdmin(ReadOnlyAdmin):
    list_display = ("name", "code", "credits_bowler", "is_dismissal")
    list_filter = ("credits_bowler", "is_dismissal")


@admin.register(Innings)
class InningsAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("fixture", "ordinal", "batting_team", "super_over", "declared", "forfeited")
    list_filter = ("super_over", "declared")
    list_select_related = ("fixture", "batting_team")
    search_fields = ("fixture__name", "fixture__code")
    show_full_result_count = False


class DeliveryCorrectionForm(forms.Form):
    """A delivery's values, prefilled with the live revision; only what differs is sent to
    the correction service. The form edits the first wicket; any further ones are kept."""

    runs_batter = forms.IntegerField(min_value=0, label="Runs off the bat")
    non_boundary = forms.BooleanField(required=False, help_text="Four or six run, not struck.")
    extra_wides = forms.IntegerField(min_value=0, required=False, label="Wides")
    extra_noballs = forms.IntegerField(min_value=0, required=False, label="No-balls")
    extra_byes = forms.IntegerField(min_value=0, required=False, label="Byes")
    extra_legbyes = forms.IntegerField(min_value=0, required=False, label="Leg byes")
    extra_penalty = forms.IntegerField(min_value=0, required=False, label="Penalty")
    batter = forms.UUIDField(help_text="Participant id.")
    bowler = forms.UUIDField(help_text="Participant id.")
    non_striker = forms.UUIDField(help_text="Participant id.")
    wicket_kind = forms.ChoiceField(required=False, label="Wicket (first)")
    player_out = forms.UUIDField(required=False, help_text="Participant id.")
    fielders = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One per line: a participant id; 'sub <id>' for a substitute; 'sub' for a "
        "substitute the source did not name.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why: kept with the correction in the delivery's history.",
    )

    def __init__(self, data: QueryDict | None = None, *, delivery: Delivery, **kwargs: Any) -> None:
        self.delivery = delivery
        self.wicket = DeliveryWicket.objects.filter(delivery=delivery, ordinal=1).first()
        initial = {f: getattr(delivery, f) for f in ("runs_batter", "non_boundary", *EXTRA_FIELDS)}
        initial.update({f: getattr(delivery, f"{f}_id") for f in PEOPLE_FIELDS})
        if self.wicket is not None:
            initial["wicket_kind"] = self.wicket.kind.name
            initial["player_out"] = self.wicket.player_out_id
            initial["fielders"] = "\n".join(
                ("sub " if f.substitute else "") + (str(f.participant_id or "")).strip()
                for f in self.wicket.fielders.order_by("ordinal")
            )
        super().__init__(data, initial=initial, **kwargs)
        # Declared a ChoiceField above; ``fields`` holds this form's own copy of it.
        kind_field = cast(forms.ChoiceField, self.fields["wicket_kind"])
        kind_field.choices = [("", "(no wicket)")] + [
            (name, name) for name in DismissalKind.objects.values_list("name", flat=True)
        ]

    def clean_fielders(self) -> list[dict]:
        fielders = []
        for line in self.cleaned_data["fielders"].splitlines():
            words = line.split()
            if not words:
                continue
            substitute = words[0] == "sub"
            ids = words[1:] if substitute else words
            if len(ids) > 1:
                raise ValidationError(f"{line!r}: one fielder per line.")
            fielders.append({"participant": ids[0] if ids else None, "substitute": substitute})
        return fielders

    def changes(self) -> dict:
        data = self.cleaned_data
        return {
            f: data[f]
            for f in ("runs_batter", "non_boundary", *EXTRA_FIELDS, *PEOPLE_FIELDS)
            if data[f] != self.initial[f]
        }

    def wicket_changes(self):
        data = self.cleaned_data
        if not data["wicket_kind"]:
            return {1: None} if self.wicket is not None else None
        wanted = {
            "kind": data["wicket_kind"],
            "player_out": data["player_out"],
            "fielders": data["fielders"],
        }
        if self.wicket is None:
            return [wanted]
        before = {
            "kind": self.initial["wicket_kind"],
            "player_out": self.initial["player_out"],
            "fielders": self.clean_initial_fielders(self.wicket),
        }
        change = {k: v for k, v in wanted.items() if v != before[k]}
        return {1: change} if change else None

    def clean_initial_fielders(self, wicket: DeliveryWicket) -> list[dict[str, Any]]:
        return [
            {"participant": str(f.participant_id) if f.participant_id else None,
             "substitute": f.substitute}
            for f in wicket.fielders.order_by("ordinal")
        ]  # fmt: skip


@admin.register(Delivery)
class DeliveryAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = (
        "innings",
        "over_number",
        "position",
        "ball_label",
        "batter",
        "bowler",
        "runs_total",
        "revision",
        "is_current",
        "removed",
    )
    list_filter = ("is_current", "removed")
    list_select_related = ("innings", "batter", "bowler")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    raw_id_fields = ("innings", "batter", "bowler", "non_striker", "submission")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return may_read_history(request.user) or super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return may_read_history(request.user) or super().has_view_permission(request, obj)

    def change_view(self, request: HttpRequest, object_id, form_url="", extra_context=None):
        """Propose a correction: the live values in a form, a required reason, and the
        delivery's revisions and correction records beneath."""
        delivery = self.get_object(request, object_id)
        if delivery is None:
            # Django's own "no such object" redirect; private, so the stubs leave it out.
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)  # type: ignore[attr-defined]
        if not self.has_view_permission(request, delivery):
            raise PermissionDenied
        can_correct = may_correct(request.user) and delivery.is_current
        if request.method == "POST" and not can_correct:
            raise PermissionDenied
        form = None
        if can_correct:
            form = DeliveryCorrectionForm(request.POST or None, delivery=delivery)
            if request.method == "POST" and form.is_valid():
                try:
                    result = delivery_correct(
                        delivery=delivery,
                        changes=form.changes(),
                        wicket_changes=form.wicket_changes(),
                        reason=form.cleaned_data["reason"],
                        actor=signed_in(request_actor(request)),
                    )
                except ValidationError as exc:
                    _form_errors(form, exc)
                else:
                    self.message_user(
                        request,
                        f"Corrected: revision {result.delivery.revision} is now live"
                        + (
                            f"; {len(result.relabelled)} later label(s) moved."
                            if result.relabelled
                            else "."
                        ),
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:cricket_delivery_change", args=[result.delivery.pk])
                    )
        revisions = Delivery.objects.filter(source_event_id=delivery.source_event_id).order_by(
            "revision"
        )
        live = next((r for r in revisions if r.is_current), None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Propose correction" if can_correct else f"Delivery {delivery}",
            "delivery": delivery,
            "live": live,
            "form": form,
            "revisions": revisions,
            "corrections": DeliveryCorrectionHistory.objects.of_lineage(delivery.source_event_id),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "cricket/admin_delivery_correct.html", context)


def _form_errors(form: forms.Form, error: ValidationError) -> None:
    """The service's errors on the form: on their field when the form has it."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error)
        return
    for field, problems in error.message_dict.items():
        target = field if field in form.fields else None
        prefix = "" if target or field == NON_FIELD_ERRORS else f"{field}: "
        for problem in problems:
            form.add_error(target, f"{prefix}{problem}")


@admin.register(DeliveryCorrectionHistory)
class DeliveryCorrectionHistoryAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = (
        "requested_at",
        "requested_by_label",
        "reason",
        "previous_delivery",
        "resulting_delivery",
    )
    list_select_related = ("previous_delivery", "resulting_delivery")
    search_fields = ("reason", "requested_by_label")
    raw_id_fields = (
        "previous_delivery",
        "resulting_delivery",
        "fixture",
        "requested_by",
        "original_submission",
        "correction_submission",
        "reviewed_by",
    )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return may_read_history(request.user) or super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return may_read_history(request.user) or super().has_view_permission(request, obj)


@admin.register(FixtureOfficial)
class FixtureOfficialAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("fixture", "role", "ordinal", "name", "registry_id")
    list_filter = ("role",)
    list_select_related = ("fixture",)
    search_fields = ("name", "registry_id")
