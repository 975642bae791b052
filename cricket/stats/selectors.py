"""Reads for statistics pages and the API: scope parsing, a player's career, the deliveries
behind a figure."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404

from cricket.models import Delivery, DeliveryWicket, DeliveryWicketFielder
from cricket.stats.aggregates import (
    SUPER_OVER_MODES,
    Scope,
    careers,
    expand_merged,
    participant_snapshots,
)
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
)
from sports.models import Competition, EntityType, ExternalIdMap, Participant
from sports.querysets import follow_merges

_Line = TypeVar("_Line", bound=models.Model)
LineModel = type[CricketBattingLine] | type[CricketBowlingLine] | type[CricketFieldingLine]


def scope_from_params(params: Mapping[str, Any]) -> Scope:
    """A scope from query parameters; a bad value is a ValidationError naming it."""

    def date(name: str) -> dt.date | None:
        value = params.get(name)
        if not value:
            return None
        try:
            return dt.date.fromisoformat(value)
        except ValueError as exc:
            raise ValidationError({name: f"{value!r} is not a date (YYYY-MM-DD)"}) from exc

    competition = params.get("competition") or None
    if competition:
        try:
            competition = uuid.UUID(competition)
        except ValueError as exc:
            raise ValidationError({"competition": f"{competition!r} is not an id"}) from exc
    super_overs = params.get("super_overs") or "exclude"
    if super_overs not in SUPER_OVER_MODES:
        raise ValidationError({"super_overs": f"must be one of {', '.join(SUPER_OVER_MODES)}"})
    return Scope(
        format_code=params.get("match_type") or None,
        gender=params.get("gender") or None,
        competition_id=competition,
        season=params.get("season") or None,
        date_from=date("date_from"),
        date_to=date("date_to"),
        super_overs=super_overs,
    )


def cricket_player(pk: uuid.UUID | str) -> Participant:
    """The participant (a merged id answers as its survivor)."""
    survivor = follow_merges(Participant, pk)
    return get_object_or_404(Participant.objects.filter(sport__code="cricket"), pk=survivor)


def registry_ids(participant: Participant) -> list[str]:
    ids = expand_merged([participant.pk])
    return sorted(
        ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.PARTICIPANT, internal_id__in=ids
        ).values_list("external_id", flat=True)
    )


def player_career(participant: Participant) -> dict[str, Any]:
    """Career rows per format (and overall) in the standard scope, plus the super-over
    scope: from the participant's valid snapshots when there are any, folded live if not."""
    stored = participant_snapshots(participant.pk)
    if stored is not None:
        career = [s for s in stored if s["level"] == "career"]
        standard = [
            {**s["row"], "format": s["format_code"] or "all"}
            for s in career
            if s["super_overs"] == "exclude"
        ]
        super_overs = [
            {**s["row"], "format": s["format_code"] or "all"}
            for s in career
            if s["super_overs"] == "only"
        ]
    else:
        standard, super_overs = [], []
        for mode, target in (("exclude", standard), ("only", super_overs)):
            rows = careers(Scope(super_overs=mode), participant_ids=[participant.pk])
            if rows:
                target.append({**rows[0], "format": "all"})
            # A format the player only bowled or fielded in has its row too.
            people = expand_merged([participant.pk])
            formats = {
                code
                for model in (CricketBattingLine, CricketBowlingLine, CricketFieldingLine)
                for code in model._default_manager.filter(participant_id__in=people)
                .values_list("format_code", flat=True)
                .distinct()
            }
            for code in sorted(formats):
                rows = careers(
                    Scope(format_code=code, super_overs=mode), participant_ids=[participant.pk]
                )
                if rows:
                    target.append({**rows[0], "format": code})
    order = {"all": "~"}
    standard.sort(key=lambda r: order.get(r["format"], r["format"]))
    super_overs.sort(key=lambda r: order.get(r["format"], r["format"]))
    return {"formats": standard, "super_overs": super_overs}


def player_innings(participant: Participant, *, limit: int = 50) -> QuerySet[CricketBattingLine]:
    """The participant's batting innings, latest first, with the fixture."""
    return (
        CricketBattingLine.objects.filter(participant_id__in=expand_merged([participant.pk]))
        .select_related("fixture")
        .order_by("-occurred_on", "-innings_ordinal")[:limit]
    )


TRACEABLE = (
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "outs",
    "legal_balls",
    "runs_conceded",
    "wickets",
    "catches",
    "stumpings",
    "run_outs",
)
_LINE_OF: dict[str, LineModel] = {
    "runs": CricketBattingLine,
    "balls_faced": CricketBattingLine,
    "fours": CricketBattingLine,
    "sixes": CricketBattingLine,
    "outs": CricketBattingLine,
    "legal_balls": CricketBowlingLine,
    "runs_conceded": CricketBowlingLine,
    "wickets": CricketBowlingLine,
    "catches": CricketFieldingLine,
    "stumpings": CricketFieldingLine,
    "run_outs": CricketFieldingLine,
}


def scoped_lines(
    qs: QuerySet[_Line], scope: Scope, *, competition: Competition | None = None
) -> QuerySet[_Line]:
    """Lines (of any of the line tables) in ``scope``; ``competition`` is the scope's node
    when the caller has it loaded already."""
    qs = qs.filter(super_over=scope.super_overs == "only")
    if scope.format_code:
        qs = qs.filter(format_code=scope.format_code)
    if scope.gender:
        qs = qs.filter(gender=scope.gender)
    if scope.season:
        qs = qs.filter(season=scope.season)
    if scope.date_from:
        qs = qs.filter(occurred_on__gte=scope.date_from)
    if scope.date_to:
        qs = qs.filter(occurred_on__lte=scope.date_to)
    if scope.competition_id:
        node = competition or Competition.objects.get(pk=scope.competition_id)
        qs = qs.filter(
            competition__tree_id=node.tree_id,
            competition__lft__gte=node.lft,
            competition__rght__lte=node.rght,
        )
    return qs


def figure_line_model(figure: str) -> LineModel:
    """The line table a traceable figure is a column of; a ValidationError naming the
    figure when it is not traceable."""
    if figure not in TRACEABLE:
        raise ValidationError({"figure": f"must be one of {', '.join(TRACEABLE)}"})
    return _LINE_OF[figure]


def figure_condition(figure: str, people: list[str]) -> Q:
    """Which live deliveries count towards ``figure`` of any of ``people`` (a participant
    and the rows merged into it): the engine's rules, one condition per figure."""
    figure_line_model(figure)
    wide = Q(extra_wides__gt=0)
    legal = ~Q(extra_wides__gt=0) & ~Q(extra_noballs__gt=0)
    wickets = DeliveryWicket.objects.filter(delivery=OuterRef("pk"))
    fielded = DeliveryWicketFielder.objects.filter(
        wicket__delivery=OuterRef("pk"), participant_id__in=people, substitute=False
    )
    if figure == "runs":
        return Q(batter_id__in=people, runs_batter__gt=0)
    if figure == "balls_faced":
        return Q(batter_id__in=people) & ~wide
    if figure == "fours":
        return Q(batter_id__in=people, runs_batter=4, non_boundary=False)
    if figure == "sixes":
        return Q(batter_id__in=people, runs_batter=6, non_boundary=False)
    if figure == "outs":
        # A UUID's text is a valid lookup value; the stubs accept only UUID objects.
        outs = wickets.filter(player_out_id__in=people, kind__is_dismissal=True)  # type: ignore[misc]
        return Q(Exists(outs))
    if figure == "legal_balls":
        return Q(bowler_id__in=people) & legal
    if figure == "runs_conceded":
        return Q(bowler_id__in=people) & (Q(runs_batter__gt=0) | wide | Q(extra_noballs__gt=0))
    if figure == "wickets":
        return Q(bowler_id__in=people) & Q(Exists(wickets.filter(kind__credits_bowler=True)))
    if figure == "catches":
        return Q(Exists(fielded.filter(wicket__kind__code="caught"))) | (
            Q(bowler_id__in=people) & Q(Exists(wickets.filter(kind__code="caught-and-bowled")))
        )
    if figure == "stumpings":
        return Q(Exists(fielded.filter(wicket__kind__code="stumped")))
    return Q(Exists(fielded.filter(wicket__kind__code="run-out")))


def figure_deliveries(participant: Participant, figure: str, scope: Scope) -> QuerySet[Delivery]:
    """The live deliveries that make up one of the participant's figures in ``scope``, in
    occurrence order, with their submissions: the figure's traceability."""
    people = expand_merged([participant.pk])
    # The line models declare no manager of their own: the default one is ``objects``.
    innings = scoped_lines(
        figure_line_model(figure)._default_manager.filter(participant_id__in=people), scope
    ).values("innings_id")
    return (
        Delivery.objects.current()
        .filter(innings_id__in=innings)
        .filter(figure_condition(figure, people))
        .select_related("innings", "innings__fixture", "submission")
        .annotate(occurrence=F("innings__ordinal") * 1_000_000 + F("sequence"))
        .order_by("innings__fixture__scheduled_start", "innings__fixture_id", "occurrence")
    )
