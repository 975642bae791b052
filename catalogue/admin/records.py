"""Console pages of overrides (withdrawn with a reason) and the read-only records: awards,
reverification queue, verification runs and checks."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from catalogue.admin.common import CuratedHistoryAdmin, CurationPermissions, ReasonForm
from catalogue.models import (
    Award,
    Override,
    Product,
    Reverification,
    VerificationCheck,
    VerificationRun,
)
from catalogue.services import award_record, override_remove, reverification_done
from omnium.console import (
    EntityNamesChangeList,
    ReadOnlyAdmin,
    confirm_page,
    confirmed_form,
    console_actor,
    entity_label,
    error_text,
)


@admin.register(Override)
class OverrideAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    list_display = ["record", "field", "value", "set_by", "set_at", "reason",
                    "collector_disagrees_since"]  # fmt: skip
    entity_default_app = "catalogue"
    list_filter = ["field"]
    list_select_related = ["set_by"]
    search_fields = ["entity_key", "reason"]
    actions = ["withdraw_overrides"]

    def get_changelist(self, request, **kwargs):
        return EntityNamesChangeList

    def get_readonly_fields(self, request, obj=None):
        # The named record first on the change page; the raw type and key stay below it.
        return ("record", *super().get_readonly_fields(request, obj))

    @admin.display(description="record")
    def record(self, obj) -> str:
        return entity_label(obj, default_app=self.entity_default_app)

    @admin.action(description="Withdraw the selected overrides…", permissions=["curate"])
    def withdraw_overrides(self, request, queryset):
        form = confirmed_form(request, ReasonForm)
        if form.is_bound and form.is_valid():
            done = 0
            for override in queryset:
                override_remove(override=override, actor=console_actor(request),
                                reason=form.cleaned_data["reason"])  # fmt: skip
                done += 1
            self.message_user(request, f"Withdrew {done} override(s).", messages.SUCCESS)
            return None
        return confirm_page(
            self, request, queryset, action="withdraw_overrides", title="Withdraw overrides",
            question="Withdraw these values? The rules' own values come back.", verb="Withdraw",
            form=form,
        )  # fmt: skip


class AwardForm(forms.Form):
    product = forms.ModelChoiceField(queryset=Product.objects.canonical(), to_field_name="pk")
    competition = forms.CharField(max_length=200)
    year = forms.IntegerField(required=False, min_value=1800, max_value=2200)
    medal = forms.ChoiceField(choices=[("", "—"), *Award.Medal.choices], required=False)
    score = forms.DecimalField(required=False, max_digits=5, decimal_places=2)
    source = forms.CharField(max_length=500, required=False, label="Where it is published")


@admin.register(Award)
class AwardAdmin(CurationPermissions, ReadOnlyAdmin):
    list_display = ["product", "competition", "year", "medal", "score", "created_at"]
    list_select_related = ["product"]
    search_fields = ["competition", "product__name"]

    def has_add_permission(self, request, obj=None) -> bool:
        return self.has_curate_permission(request)

    def add_view(self, request, form_url="", extra_context=None):
        """Recording an award is a service call with an audit row, not a model form."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        bound = request.method == "POST"
        initial = {"product": request.GET["product"]} if "product" in request.GET else {}
        form = AwardForm(request.POST if bound else None, initial=initial)
        if bound and form.is_valid():
            data = form.cleaned_data
            try:
                award = award_record(
                    product=data["product"],
                    competition=data["competition"],
                    year=data["year"],
                    medal=data["medal"],
                    score=data["score"],
                    source=data["source"],
                    actor=console_actor(request),
                )
            except ValidationError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, f"{award.product}: {award}", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:catalogue_award_changelist"))
        return TemplateResponse(
            request,
            "catalogue/admin/form_page.html",
            {
                **self.admin_site.each_context(request),
                "title": "Record an award",
                "question": "The award is shown on the product's page.",
                "form": form,
                "verb": "Record",
                "opts": self.model._meta,
            },
        )


class ReverifiedForm(forms.Form):
    verdict = forms.ChoiceField(
        choices=VerificationCheck.Verdict.choices,
        initial=VerificationCheck.Verdict.AGREES,
        label="What the shop shows, against the listing",
    )
    result = forms.CharField(max_length=200, label="What the fresh read found")
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="How it was checked")


@admin.register(Reverification)
class ReverificationAdmin(CurationPermissions, ReadOnlyAdmin):
    list_display = ["reason", "product", "listing", "queued_at", "done_at", "result"]
    search_fields = ["product__name", "listing__listed_name", "listing__source_sku"]
    list_filter = [("done_at", admin.EmptyFieldListFilter), "reason"]
    list_select_related = ["product", "listing", "listing__location"]
    actions = ["mark_done"]

    def has_change_permission(self, request, obj=None) -> bool:
        # Actions need the change permission; the form stays read-only (no editable fields).
        return obj is None and self.has_curate_permission(request)

    @admin.action(description="Mark the selected rows done…", permissions=["curate"])
    def mark_done(self, request, queryset):
        form = confirmed_form(request, ReverifiedForm)
        if form.is_bound and form.is_valid():
            done = 0
            for row in queryset.filter(done_at__isnull=True):
                reverification_done(reverification=row, actor=console_actor(request),
                                    **form.cleaned_data)  # fmt: skip
                done += 1
            self.message_user(request, f"Marked {done} row(s) done.", messages.SUCCESS)
            return None
        return confirm_page(
            self, request, queryset, action="mark_done", title="Mark reverifications done",
            question="Say what the fresh read found: each listing read is recorded as a "
            "verification check with your verdict.", verb="Mark done", form=form,
        )  # fmt: skip


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "finished_at", "mode", "n"]
    list_filter = ["mode"]


@admin.register(VerificationCheck)
class VerificationCheckAdmin(ReadOnlyAdmin):
    list_display = ["checked_at", "listing", "verdict", "run", "cleared_at"]
    list_filter = ["verdict"]
    list_select_related = ["listing", "listing__location", "run"]
