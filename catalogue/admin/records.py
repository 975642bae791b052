"""Console pages of overrides (withdrawn with a reason) and the read-only records: awards,
reverification queue, verification runs and checks."""

from __future__ import annotations

from django.contrib import admin, messages

from catalogue.admin.common import CuratedHistoryAdmin, CurationPermissions, ReasonForm
from catalogue.models import Award, Override, Reverification, VerificationCheck, VerificationRun
from catalogue.services import override_remove
from omnium.console import (
    EntityNamesChangeList,
    ReadOnlyAdmin,
    confirm_page,
    confirmed_form,
    console_actor,
    entity_label,
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


@admin.register(Award)
class AwardAdmin(ReadOnlyAdmin):
    list_display = ["product", "competition", "year", "medal"]
    list_select_related = ["product"]


@admin.register(Reverification)
class ReverificationAdmin(ReadOnlyAdmin):
    list_display = ["reason", "product", "listing", "queued_at", "done_at"]
    list_select_related = ["product", "listing", "listing__location"]


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "finished_at", "mode", "n"]


@admin.register(VerificationCheck)
class VerificationCheckAdmin(ReadOnlyAdmin):
    list_display = ["checked_at", "listing", "verdict", "cleared_at"]
    list_select_related = ["listing", "listing__location"]
