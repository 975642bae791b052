"""The cricket console: read-only views of imported events.

Events are written only by the import (and, later, by the correction service); nothing here
edits them. The delivery list is millions of rows, so it counts from the planner estimate.
"""

from __future__ import annotations

from django.contrib import admin

from sports.admin import EstimatedCountPaginator, ReadOnlyAdmin
from sports.cricket.models import Delivery, DismissalKind, FixtureOfficial, Innings


@admin.register(DismissalKind)
class DismissalKindAdmin(ReadOnlyAdmin):
    list_display = ("name", "code", "credits_bowler", "is_dismissal")
    list_filter = ("credits_bowler", "is_dismissal")


@admin.register(Innings)
class InningsAdmin(ReadOnlyAdmin):
    list_display = ("fixture", "ordinal", "batting_team", "super_over", "declared", "forfeited")
    list_filter = ("super_over", "declared")
    list_select_related = ("fixture", "batting_team")
    search_fields = ("fixture__name", "fixture__code")
    show_full_result_count = False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
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
    )
    list_filter = ("is_current",)
    list_select_related = ("innings", "batter", "bowler")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    raw_id_fields = ("innings", "batter", "bowler", "non_striker", "submission")


@admin.register(FixtureOfficial)
class FixtureOfficialAdmin(ReadOnlyAdmin):
    list_display = ("fixture", "role", "ordinal", "name", "registry_id")
    list_filter = ("role",)
    list_select_related = ("fixture",)
    search_fields = ("name", "registry_id")
