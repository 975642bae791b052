"""League and medal tables, folded from per-fixture result lines under a competition node.

Every sport's table is computed the same way: from the stat lines recorded with results
(finishing place, outcome, goals, medal, country), never from ad-hoc joins over fixtures.
Tables are cached as ``StatTable`` rows; recording a result clears the cache above it.

A league table is one season's: asked of a node above several seasons (the league), it is
the table of one season under it (``table_scope``), never the seasons added together. Only a
caller that asks for ``all_time`` gets the sum over everything under the node.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet

from sports.models import (
    Competition,
    FixtureStatus,
    Participant,
    PointsAdjustment,
    Sport,
    StatLine,
    StatTable,
    TableKind,
)
from sports.querysets import SEASON
from sports.services.common import Actor, actor_user, audit_person

DEFAULT_POINTS = {"win": 3, "draw": 1, "loss": 0}
DEFAULT_TIEBREAKS = ["points", "goal_difference", "goals_for"]
TIEBREAKS = {
    "points",
    "goal_difference",
    "goals_for",
    "won",
    "head_to_head_points",
    "head_to_head_goal_difference",
    "head_to_head_goals_for",
}
MEDALS = ("gold", "silver", "bronze")


@dataclass(frozen=True)
class StandingsProvider:
    """A sport's own league table: ``compute`` folds the node's table from the sport's own
    records (never the generic result lines), ``columns`` are (row key, heading) pairs in
    display order. Its table is folded on every read and never cached here: the sport's
    data change through its own writers, which do not clear this app's cache."""

    compute: Callable[[Competition], list[dict[str, Any]]]
    columns: tuple[tuple[str, str], ...]


_STANDINGS_PROVIDERS: dict[str, StandingsProvider] = {}


def standings_provider_register(
    sport_code: str,
    *,
    compute: Callable[[Competition], list[dict[str, Any]]],
    columns: tuple[tuple[str, str], ...],
) -> None:
    """Called from an upper app's ``AppConfig.ready()`` (this app never imports it): the
    league table of every tree of ``sport_code`` becomes that sport's own table."""
    _STANDINGS_PROVIDERS[sport_code] = StandingsProvider(compute=compute, columns=columns)


def standings_provider_for(node: Competition) -> StandingsProvider | None:
    """The registered table of the node's sport, if it has one (a query only when the
    node's sport is not loaded and some sport registered a table)."""
    if node.sport_id is None or not _STANDINGS_PROVIDERS:
        return None
    if Competition._meta.get_field("sport").is_cached(node):
        code = node.sport.code if node.sport else None
    else:
        code = Sport.objects.filter(pk=node.sport_id).values_list("code", flat=True).first()
    return _STANDINGS_PROVIDERS.get(code or "")


def effective_config(node: Competition) -> dict[str, Any]:
    """The node's config with every ancestor's underneath it (nearest wins, key by key)."""
    merged: dict[str, Any] = {}
    for ancestor in node.get_ancestors(include_self=True):
        merged.update(ancestor.config or {})
    return merged


def table_scope(
    node: Competition, *, kind: str, season: Competition | None = None, all_time: bool = False
) -> Competition:
    """The node a ``kind`` table of ``node`` folds over.

    A medal table folds the node itself (a Games, a sport, an event). A league table folds
    one season: ``node`` itself when it is a season, lies below one or has no season below
    it; otherwise ``season`` when given (it must be a season under ``node``), else the
    latest season under ``node``. ``all_time`` folds ``node`` whole, seasons summed.
    """
    if kind != TableKind.STANDINGS or all_time:
        return node
    if season is not None:
        if not Competition.objects.seasons_under(node).filter(pk=season.pk).exists():
            raise ValidationError(
                {"season": f"{season} is not a season of {node}; pick one listed under it."}
            )
        return season
    if node.type == SEASON:
        return node
    latest: Competition | None = Competition.objects.seasons_under(node).first()
    return latest if latest is not None else node


def stat_tables_over(nodes: Iterable[Competition | None]) -> QuerySet[StatTable]:
    """The cached tables that fold over anything recorded at ``nodes``: each node's own and
    every ancestor's (a table folds its node's whole subtree). Read from the nodes' current
    nested-set columns, so a caller that moves a node asks before and after the move."""
    over = Q()
    for node in {n.pk: n for n in nodes if n is not None}.values():
        over |= Q(
            competition__tree_id=node.tree_id,
            competition__lft__lte=node.lft,
            competition__rght__gte=node.rght,
        )
    return StatTable.objects.filter(over) if over else StatTable.objects.none()


def stat_tables_under(node: Competition) -> QuerySet[StatTable]:
    """The cached tables of ``node`` and every node below it: the tables that fold under
    its config (``effective_config`` inherits it downwards)."""
    return StatTable.objects.filter(
        competition__tree_id=node.tree_id,
        competition__lft__gte=node.lft,
        competition__rght__lte=node.rght,
    )


def _lines_under(node: Competition, role: str) -> QuerySet[StatLine]:
    return StatLine.objects.filter(
        subject_role=role,
        competition__tree_id=node.tree_id,
        competition__lft__gte=node.lft,
        competition__rght__lte=node.rght,
        fixture__merged_into__isnull=True,
        # Tables are public reads: only fixtures first seen in an accepted submission count.
        fixture__first_seen_in__accepted=True,
    )


def _empty_row() -> dict[str, int]:
    return {
        "played": 0,
        "won": 0,
        "drawn": 0,
        "lost": 0,
        "goals_for": 0,
        "goals_against": 0,
        "points": 0,
    }


def _add(row: dict[str, int], values: dict[str, Any], points: dict[str, int]) -> None:
    outcome = values["outcome"]
    row["played"] += 1
    row[{"win": "won", "draw": "drawn", "loss": "lost"}[outcome]] += 1
    row["goals_for"] += values.get("goals_for", 0)
    row["goals_against"] += values.get("goals_against", 0)
    row["points"] += points[outcome]


def standings_compute(node: Competition) -> list[dict[str, Any]]:
    """played, won, drawn, lost, goals, goal difference and points per team over the
    completed fixtures under ``node``, ordered by the tie-breaks its config names. A sport
    with its own table (``standings_provider_register``) gets that table instead.

    This folds everything under ``node``: callers pass one season (``table_scope``); only an
    all-time table passes a league."""
    provider = standings_provider_for(node)
    if provider is not None:
        return provider.compute(node)
    config = effective_config(node)
    points = {**DEFAULT_POINTS, **config.get("points", {})}
    tiebreaks = config.get("tiebreaks", DEFAULT_TIEBREAKS)
    unknown = set(tiebreaks) - TIEBREAKS
    if unknown:
        raise ValidationError(
            f"{node}: unknown tie-break(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(TIEBREAKS))}."
        )
    lines = list(
        _lines_under(node, "side")
        .filter(segment="match", fixture__status=FixtureStatus.COMPLETED)
        .values_list("fixture_id", "subject_id", "values")
    )
    rows: dict[Any, dict[str, int]] = defaultdict(_empty_row)
    by_fixture: dict[Any, list[tuple[Any, dict[str, Any]]]] = defaultdict(list)
    for fixture_id, team, values in lines:
        _add(rows[team], values, points)
        by_fixture[fixture_id].append((team, values))
    adjustments = PointsAdjustment.objects.filter(
        competition__tree_id=node.tree_id,
        competition__lft__gte=node.lft,
        competition__rght__lte=node.rght,
    ).values_list("participant_id", "points")
    for team, delta in adjustments:
        rows[team]["points"] += delta
        rows[team]["adjustment"] = rows[team].get("adjustment", 0) + delta
    for row in rows.values():
        row["goal_difference"] = row["goals_for"] - row["goals_against"]

    names = dict(Participant.objects.filter(pk__in=rows).values_list("pk", "name"))

    def mini_table(group: list[Any]) -> dict[Any, dict[str, int]]:
        members = set(group)
        mini: dict[Any, dict[str, int]] = {t: _empty_row() for t in group}
        for sides in by_fixture.values():
            if len(sides) == 2 and {t for t, _ in sides} <= members:
                for team, values in sides:
                    _add(mini[team], values, points)
        for row in mini.values():
            row["goal_difference"] = row["goals_for"] - row["goals_against"]
        return mini

    def order(group: list[Any], keys: list[str]) -> list[Any]:
        if len(group) <= 1 or not keys:
            return sorted(group, key=lambda t: names.get(t, ""))
        key, rest = keys[0], keys[1:]
        if key.startswith("head_to_head_"):
            mini = mini_table(group)
            stat = key.removeprefix("head_to_head_")

            def value(t: Any) -> int:
                return mini[t][stat]
        else:

            def value(t: Any) -> int:
                return rows[t][key]

        ordered: list[Any] = []
        for _, members in groupby(sorted(group, key=value, reverse=True), key=value):
            ordered.extend(order(list(members), rest))
        return ordered

    table: list[dict[str, Any]] = []
    for position, team in enumerate(order(list(rows), list(tiebreaks)), start=1):
        row = rows[team]
        table.append(
            {
                "position": position,
                "team": names.get(team, ""),
                "team_id": str(team),
                "played": row["played"],
                "won": row["won"],
                "drawn": row["drawn"],
                "lost": row["lost"],
                "goals_for": row["goals_for"],
                "goals_against": row["goals_against"],
                "goal_difference": row["goal_difference"],
                "points": row["points"],
                **({"adjustment": row["adjustment"]} if "adjustment" in row else {}),
            }
        )
    return table


def medal_table_compute(node: Competition) -> list[dict[str, Any]]:
    """Gold, silver and bronze per country over every result line under ``node`` that
    carries a medal, ranked by gold, then silver, then bronze, with shared ranks."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(MEDALS, 0))
    for role in ("entrant", "side"):
        for values in (
            _lines_under(node, role)
            .filter(values__has_key="medal")
            .values_list("values", flat=True)
        ):
            medal, country = values.get("medal"), values.get("country")
            if medal in MEDALS and country:
                counts[country][medal] += 1

    def key(country: str) -> tuple[int, ...]:
        return tuple(counts[country][m] for m in MEDALS)

    ordered = sorted(counts, key=lambda c: (tuple(-n for n in key(c)), c))
    table: list[dict[str, Any]] = []
    for index, country in enumerate(ordered):
        rank = index + 1
        if table and key(ordered[index - 1]) == key(country):
            rank = table[-1]["rank"]  # equal counts share a rank
        c = counts[country]
        table.append(
            {
                "rank": rank,
                "country": country,
                "gold": c["gold"],
                "silver": c["silver"],
                "bronze": c["bronze"],
                "total": c["gold"] + c["silver"] + c["bronze"],
            }
        )
    return table


COMPUTE: dict[str, Callable[[Competition], list[dict[str, Any]]]] = {
    TableKind.STANDINGS: standings_compute,
    TableKind.MEDALS: medal_table_compute,
}


@transaction.atomic
def stat_table_rebuild(*, node: Competition, kind: str) -> StatTable:
    """Fold the table afresh and store it as the cached table of the node it folds over
    (``table_scope``: for a league, its latest season)."""
    scope = table_scope(node, kind=kind)
    rows = COMPUTE[kind](scope)
    table, _ = StatTable.objects.update_or_create(
        competition=scope, kind=kind, defaults={"rows": rows}
    )
    return table


def stat_table(
    *,
    node: Competition,
    kind: str,
    season: Competition | None = None,
    all_time: bool = False,
) -> list[dict[str, Any]]:
    """The ``kind`` table of ``node``: of one season for a league table (``table_scope``),
    the cached fold or a fresh one stored for the next reader. An ``all_time`` table sums
    every season under ``node``; it is folded on each call and never cached. A sport's own
    league table is folded on every read (see ``StandingsProvider``)."""
    if all_time and kind == TableKind.STANDINGS:
        return COMPUTE[kind](node)
    scope = table_scope(node, kind=kind, season=season)
    if kind == TableKind.STANDINGS:
        # A season shares its league's sport, which the caller may have loaded.
        provider = standings_provider_for(node if scope.sport_id == node.sport_id else scope)
        if provider is not None:
            return provider.compute(scope)
    cached: list[dict[str, Any]] | None = (
        StatTable.objects.filter(competition=scope, kind=kind)
        .values_list("rows", flat=True)
        .first()
    )
    if cached is not None:
        return cached
    rows = COMPUTE[kind](scope)
    StatTable.objects.update_or_create(competition=scope, kind=kind, defaults={"rows": rows})
    return rows


@transaction.atomic
def points_adjustment_create(
    *, competition: Competition, participant: Participant, points: int, reason: str, actor: Actor
) -> PointsAdjustment:
    """A deduction (negative) or award of league points decided by a person; the tables
    above the competition are cleared so the next read folds it in."""
    if not reason:
        raise ValidationError({"reason": "A points adjustment needs a reason."})
    if points == 0:
        raise ValidationError({"points": "An adjustment of zero points changes nothing."})
    adjustment = PointsAdjustment.objects.create(
        competition=competition,
        participant=participant,
        points=points,
        reason=reason,
        decided_by=actor_user(actor),
    )
    stat_tables_over([competition]).delete()
    audit_person(
        actor,
        action="standings.adjust",
        entity=adjustment,
        key=adjustment.pk,
        detail={
            "competition": competition.pk,
            "participant": participant.pk,
            "points": points,
            "reason": reason,
        },
    )
    return adjustment


def table_kind_for(node: Competition) -> str:
    """The table kind that fits the node's sport. A sport with its own table
    (``standings_provider_register``: cricket's points table) always gets it, even inside a
    Games tree; otherwise a tree whose root has no sport is a multi-sport Games and folds
    into a medal table, and every other tree folds into a league table."""
    if standings_provider_for(node) is not None:
        return TableKind.STANDINGS
    root_sport = (
        Competition.objects.filter(tree_id=node.tree_id, parent__isnull=True)
        .values_list("sport_id", flat=True)
        .first()
    )
    return TableKind.MEDALS if root_sport is None else TableKind.STANDINGS
