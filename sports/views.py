"""Public pages of the sports spine: competitions, tables, fixtures, participants, venues.

Every fixture shown goes through ``Fixture.objects.public()``: a fixture appears only once
the submission that first brought it is accepted. A merged competition, fixture or
participant answers with a permanent redirect to its survivor.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from omnium.charts import Chart, Series
from sports.models import (
    Competition,
    Fixture,
    FixtureCompetitor,
    Participant,
    ParticipantType,
    Sport,
    TableKind,
    Venue,
)
from sports.querysets import follow_merges
from sports.selectors import (
    MedalChart,
    Progression,
    competition_groups,
    countries_by_code,
    country_page,
    fixtures_by_round,
    medal_chart,
    medal_table_of,
    national_side_country,
    participant_page,
    points_progression,
    season_choice,
    venue_page,
)
from sports.services import standings_provider_for, stat_table, table_kind_for

FIXTURES_PER_PAGE = 100


def _node_or_survivor(pk: uuid.UUID) -> Competition | None:
    node: Competition = get_object_or_404(Competition.objects.select_related("sport"), pk=pk)
    if node.merged_into_id:
        return None
    return node


def _crumbs(ancestors: list[Competition], last: str | None = None) -> list[tuple[str, Any]]:
    crumbs: list[tuple[str, Any]] = [("Competitions", reverse("sports:competition-list"))]
    crumbs += [(a.name, reverse("sports:competition-detail", args=[a.pk])) for a in ancestors]
    if last is not None:
        crumbs.append((last, None))
    return crumbs


def _progression_chart(scope: Competition, progression: Progression) -> Chart:
    """A season's points progression: cumulative points after each match played."""
    # Points only grow, so a team's last figure is its largest.
    finals = [
        f"{name} {int(max((v for v in values if v is not None), default=0))} after "
        f"{sum(v is not None for v in values)}"
        for name, values in progression.series
    ]
    return Chart(
        key="points-progression",
        kind="line",
        title=f"Points progression, {scope.name}",
        summary=(
            f"Cumulative league points of the top {progression.teams} teams after each match "
            f"they played: {'; '.join(finals)}."
        ),
        x_label="Matches played",
        y_label="Points",
        labels=progression.labels,
        series=[Series(label=name, values=values) for name, values in progression.series],
    )


def _medals_chart(node: Competition, medals: MedalChart) -> Chart:
    """Medals by country: gold, silver and bronze of the leading countries, stacked."""
    counts = zip(medals.labels, medals.gold, medals.silver, medals.bronze, strict=True)
    leaders = ", ".join(
        f"{label} {int(g or 0)} gold, {int(s or 0)} silver, {int(b or 0)} bronze"
        for label, g, s, b in counts
    )
    return Chart(
        key="medals-by-country",
        kind="bar",
        title=f"Medals by country, {node.name}",
        summary=f"Medals of the first {len(medals.labels)} countries of the table: {leaders}.",
        x_label="Country",
        y_label="Medals",
        stacked=True,
        horizontal=True,
        labels=medals.labels,
        series=[
            Series(label="Gold", values=medals.gold),
            Series(label="Silver", values=medals.silver),
            Series(label="Bronze", values=medals.bronze),
        ],
    )


def competition_list(request: HttpRequest) -> HttpResponse:
    sport = request.GET.get("sport") or None
    return render(
        request,
        "sports/competition_list.html",
        {
            "groups": competition_groups(sport=sport),
            "sport": sport,
            "sports": Sport.objects.filter(competitions__isnull=False).distinct().order_by("name"),
            "crumbs": [("Competitions", None)],
        },
    )


def _league_context(request: HttpRequest, node: Competition) -> dict[str, Any]:
    """One season's table (never the seasons summed), its chooser and its progression."""
    choice = season_choice(node, request.GET.get("season"))
    scope = choice.selected or node
    if scope is not node and scope.sport_id == node.sport_id:
        # A season of the league shares its sport, already loaded: no query to find it.
        scope.sport = node.sport
    rows = stat_table(node=scope, kind=TableKind.STANDINGS)
    provider = standings_provider_for(scope)
    if provider is not None:
        # A sport with its own table (cricket's points table): its headings and cells, so
        # no other sport's columns are ever shown, and no football points progression.
        return {
            "choice": choice,
            "scope": scope,
            "rows": rows,
            "columns": [heading for _, heading in provider.columns],
            "grid": [
                [(row.get(key, ""), key not in ("team", "name")) for key, _ in provider.columns]
                for row in rows
            ],
            "progression": None,
            "progression_chart": None,
        }
    progression = points_progression(scope, rows) if rows else None
    return {
        "choice": choice,
        "scope": scope,
        "rows": rows,
        "progression": progression,
        "progression_chart": _progression_chart(scope, progression) if progression else None,
    }


def competition_detail(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    node = _node_or_survivor(pk)
    if node is None:
        return redirect(
            "sports:competition-detail", pk=follow_merges(Competition, pk), permanent=True
        )
    ancestors = list(node.get_ancestors().only("id", "name", "sport_id"))
    kind = table_kind_for(node)
    context: dict[str, Any] = {"node": node, "ancestors": ancestors, "kind": kind}
    if kind == TableKind.MEDALS:
        rows = medal_table_of(node)
        medals = medal_chart(rows) if rows else None
        context.update(
            rows=rows,
            medals=medals,
            medal_chart=_medals_chart(node, medals) if medals else None,
            scope=node,
        )
    else:
        context.update(_league_context(request, node))
    scope = context["scope"]
    if kind == TableKind.MEDALS or context["choice"].selected is None:
        context["children"] = (
            node.get_children().filter(merged_into__isnull=True).order_by("ordinal", "name")
        )
    context["page"] = Paginator(fixtures_by_round(scope), FIXTURES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context["crumbs"] = _crumbs(ancestors, node.name)
    return render(request, "sports/competition_detail.html", context)


def table_page(request: HttpRequest, pk: uuid.UUID, kind: str) -> HttpResponse:
    node = _node_or_survivor(pk)
    if node is None:
        name = "sports:medal-table" if kind == TableKind.MEDALS else "sports:standings"
        return redirect(name, pk=follow_merges(Competition, pk), permanent=True)
    ancestors = list(node.get_ancestors().only("id", "name"))
    context: dict[str, Any] = {"node": node, "ancestors": ancestors, "kind": kind}
    if kind == TableKind.MEDALS:
        rows = medal_table_of(node)
        medals = medal_chart(rows) if rows else None
        context.update(
            rows=rows, medals=medals, medal_chart=_medals_chart(node, medals) if medals else None
        )
    else:
        context.update(_league_context(request, node))
    label = "Medal table" if kind == TableKind.MEDALS else "Table"
    context["crumbs"] = _crumbs([*ancestors, node], label)
    return render(request, "sports/table_page.html", context)


def medal_table(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    return table_page(request, pk, TableKind.MEDALS)


def standings(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    return table_page(request, pk, TableKind.STANDINGS)


def fixture_detail(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    fixture = Fixture.objects.public().with_competitors().filter(pk=pk).first()
    if fixture is None:
        survivor = follow_merges(Fixture, pk)
        if survivor != pk and Fixture.objects.public().filter(pk=survivor).exists():
            return redirect("sports:fixture-detail", pk=survivor, permanent=True)
        # What get_object_or_404 says for a missing fixture.
        raise Http404("No Fixture matches the given query.")
    competitors = list(fixture.competitors.all())
    sides = [c for c in competitors if c.parent_id is None]
    members: dict[uuid.UUID, list[FixtureCompetitor]] = {}
    for c in competitors:
        if c.parent_id is not None:
            members.setdefault(c.parent_id, []).append(c)
    ancestors = []
    # competition_id first: a fixture without a node needs no query.
    if fixture.competition_id and fixture.competition is not None:
        ancestors = list(fixture.competition.get_ancestors(include_self=True).only("id", "name"))
    flags = sorted({str(c.entry["country"]) for c in sides if (c.entry or {}).get("country")})
    countries = countries_by_code(flags)
    for side in sides:
        # The entry's flag (the country it competed for) links to that country's page.
        country = countries.get(str((side.entry or {}).get("country", "")))
        side.country_page_id = country.pk if country else None
    return render(
        request,
        "sports/fixture_detail.html",
        {
            "fixture": fixture,
            "ancestors": ancestors,
            "sides": sorted(sides, key=lambda c: (c.rank is None, c.rank or 0, c.ordinal or 0)),
            "squads": [(side, members[side.pk]) for side in sides if side.pk in members],
            "crumbs": _crumbs(ancestors, fixture.name or fixture.code),
        },
    )


def participant_detail(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    participant = get_object_or_404(Participant.objects.all(), pk=pk)
    if participant.merged_into_id is not None:
        survivor = follow_merges(Participant, pk)
        target = reverse("sports:participant-detail", args=[survivor])
        query = request.GET.urlencode()
        return redirect(f"{target}?{query}" if query else target, permanent=True)
    crumbs: list[tuple[str, Any]] = [("Competitions", reverse("sports:competition-list"))]
    if participant.type == ParticipantType.COUNTRY:
        crumbs.append((participant.name, None))
        return render(
            request,
            "sports/country_detail.html",
            {"page": country_page(participant), "crumbs": crumbs},
        )
    crumbs.append((participant.name, None))
    page = participant_page(participant, vs=request.GET.get("vs"))
    if participant.country:
        nation = countries_by_code([participant.country]).get(participant.country)
    elif participant.type == ParticipantType.TEAM:
        # A national side carries no code of its own: its country is the one it plays for.
        nation = national_side_country(participant)
    else:
        nation = None
    return render(
        request,
        "sports/participant_detail.html",
        {
            "page": page,
            "p": participant,
            "nation": nation,
            "crumbs": crumbs,
        },
    )


def venue_detail(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    venue = get_object_or_404(Venue.objects.all(), pk=pk)
    return render(
        request,
        "sports/venue_detail.html",
        {
            "page": venue_page(venue),
            "crumbs": [
                ("Competitions", reverse("sports:competition-list")),
                (venue.name, None),
            ],
        },
    )
