"""Console pages of cricket statistic lines, and the provenance trace of their figures.

The lines are derived rows (rebuilt from the live deliveries, never edited), so their pages
are read-only; they are here to be traced. Each line's page links every figure to its
trace, and to the same figure over the player's career in the line's format or
competition. The trace pages show what the API answers (``ingest.provenance.selectors``):
the deliveries, their corrections, and the submissions, batches, stored objects, people and
review decisions behind them. The pages live in ``ingest`` because the trace reads batches
and stored objects, and ``sports`` never imports ``ingest``.

Reviewers see the lines and trace figures of the competitions they review; editors and
administrators everything.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from accounts.access import competitions_for, user_can
from accounts.models import Capability
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
)
from cricket.stats.selectors import cricket_player, scope_from_params
from ingest.batches.admin import _may_review as may_review_somewhere
from ingest.provenance.selectors import FIGURES_OF, trace_aggregate, trace_line
from omnium.console import EstimatedCountPaginator, ReadOnlyAdmin

TEMPLATE = "admin/ingest/provenance_trace.html"


def _trace_url(kind: str, pk: int, figure: str) -> str:
    return reverse("admin:cricket_provenance_line", args=[kind, pk]) + f"?figure={figure}"


def _career_url(participant_id, figure: str, **scope) -> str:
    query = urlencode({"figure": figure, **{k: v for k, v in scope.items() if v}})
    return reverse("admin:cricket_provenance_player", args=[participant_id]) + f"?{query}"


class _LineAdmin(ReadOnlyAdmin):
    kind = ""
    figures: tuple[str, ...] = ()
    list_select_related = ("participant", "fixture")
    search_fields = ("^participant__name", "=fixture__code")
    ordering = ("-id",)
    show_full_result_count = False
    paginator = EstimatedCountPaginator

    # "Does this account review anywhere?" is asked for every model on every console page;
    # the batch console's answer is kept for the request, so it is one query per page.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return may_review_somewhere(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        if obj is not None and obj.competition_id is not None:
            return user_can(request.user, Capability.REVIEW, obj.competition)
        return may_review_somewhere(request)

    def get_queryset(self, request: HttpRequest):
        queryset = super().get_queryset(request)
        # A reviewer's list holds their competitions' lines only.
        if not user_can(request.user, Capability.EDIT):
            queryset = queryset.filter(
                competition__in=competitions_for(request.user, Capability.REVIEW)
            )
        return queryset

    def get_urls(self):
        urls = super().get_urls()
        if self.model is not CricketBattingLine:
            return urls
        # The trace pages hang off one of the three line admins (one name each).
        return [
            path(
                "trace/<str:kind>/<int:pk>/",
                self.admin_site.admin_view(self.line_trace_view),
                name="cricket_provenance_line",
            ),
            path(
                "trace/player/<uuid:participant>/",
                self.admin_site.admin_view(self.player_trace_view),
                name="cricket_provenance_player",
            ),
            *urls,
        ]

    @admin.display(description="trace")
    def trace_links(self, line) -> str:
        return format_html_join(
            " · ",
            "<a href='{}'>{}</a>",
            ((_trace_url(self.kind, line.pk, f), f.replace("_", " ")) for f in self.figures),
        )

    @admin.display(description="career traces")
    def career_links(self, line) -> str:
        """The figure over the player's career in this format, and in this competition."""
        rows = []
        for figure in self.figures:
            label = figure.replace("_", " ")
            url = _career_url(line.participant_id, figure, match_type=line.format_code)
            rows.append((label, url, f"career ({line.format_code or 'every format'})"))
            if line.competition_id:
                url = _career_url(line.participant_id, figure, competition=line.competition_id)
                rows.append((label, url, "this competition"))
        return format_html_join(mark_safe("<br>"), "{}: <a href='{}'>{}</a>", rows)

    def _page(self, request: HttpRequest, context: dict) -> TemplateResponse:
        return TemplateResponse(
            request,
            TEMPLATE,
            {**self.admin_site.each_context(request), "opts": self.model._meta, **context},
        )

    def line_trace_view(self, request: HttpRequest, kind: str, pk: int) -> HttpResponse:
        figure = request.GET.get("figure", "")
        try:
            trace = trace_line(user=request.user, kind=kind, pk=pk, figure=figure)
        except ValidationError as error:
            return self._page(request, {"title": "Provenance trace", "errors": error.messages})
        line = trace["line"]
        title = (
            f"Trace: {trace['participant']['name']}'s {trace['figure'].replace('_', ' ')} "
            f"in {line['fixture']['name']}, innings {line['innings']}"
        )
        return self._page(
            request,
            {
                "title": title,
                "trace": trace,
                "groups": [{"fixture": line["fixture"], "deliveries": trace["deliveries"]}],
                "figures": [
                    (f.replace("_", " "), _trace_url(kind, pk, f)) for f in FIGURES_OF[kind]
                ],
            },
        )

    def player_trace_view(self, request: HttpRequest, participant) -> HttpResponse:
        params = request.GET
        try:
            scope = scope_from_params(params)
            fixtures = int(params.get("fixtures") or 10)
            trace = trace_aggregate(
                user=request.user,
                participant=cricket_player(participant),
                figure=params.get("figure", ""),
                scope=scope,
                cursor=params.get("cursor", ""),
                fixtures=fixtures,
            )
        except ValueError:
            return self._page(
                request, {"title": "Provenance trace", "errors": ["fixtures: a whole number"]}
            )
        except ValidationError as error:
            return self._page(request, {"title": "Provenance trace", "errors": error.messages})
        next_url = None
        if trace["next_cursor"]:
            query = params.copy()
            query["cursor"] = trace["next_cursor"]
            next_url = f"{request.path}?{query.urlencode()}"
        scope_text = ", ".join(f"{k} {v}" for k, v in trace["scope"].items() if v) or "all"
        return self._page(
            request,
            {
                "title": f"Trace: {trace['participant']['name']}'s "
                f"{trace['figure'].replace('_', ' ')} ({scope_text})",
                "trace": trace,
                "groups": trace["fixtures"],
                "next_url": next_url,
            },
        )


@admin.register(CricketBattingLine)
class BattingLineAdmin(_LineAdmin):
    kind = "batting"
    figures = FIGURES_OF["batting"]
    list_display = (
        "participant", "fixture", "innings_ordinal", "runs", "balls_faced", "fours", "sixes",
        "outs", "occurred_on", "trace_links",
    )  # fmt: skip
    fields = (
        "participant", "team", "fixture", "innings_ordinal", "occurred_on", "competition",
        "format_code", "season", "super_over", "runs", "balls_faced", "fours", "sixes", "outs",
        "trace_links", "career_links",
    )  # fmt: skip
    readonly_fields = fields


@admin.register(CricketBowlingLine)
class BowlingLineAdmin(_LineAdmin):
    kind = "bowling"
    figures = FIGURES_OF["bowling"]
    list_display = (
        "participant", "fixture", "innings_ordinal", "legal_balls", "runs_conceded", "wickets",
        "maidens", "occurred_on", "trace_links",
    )  # fmt: skip
    fields = (
        "participant", "fixture", "innings_ordinal", "occurred_on", "competition", "format_code",
        "season", "super_over", "legal_balls", "runs_conceded", "wickets", "maidens", "wides",
        "noballs", "trace_links", "career_links",
    )  # fmt: skip
    readonly_fields = fields


@admin.register(CricketFieldingLine)
class FieldingLineAdmin(_LineAdmin):
    kind = "fielding"
    figures = FIGURES_OF["fielding"]
    list_display = (
        "participant", "fixture", "innings_ordinal", "catches", "stumpings", "run_outs",
        "occurred_on", "trace_links",
    )  # fmt: skip
    fields = (
        "participant", "fixture", "innings_ordinal", "occurred_on", "competition", "format_code",
        "season", "super_over", "catches", "stumpings", "run_outs", "substitute_catches",
        "substitute_stumpings", "substitute_run_outs", "trace_links", "career_links",
    )  # fmt: skip
    readonly_fields = fields
