"""Public pages of the sports spine: competitions, tables and fixtures.

Every fixture shown goes through ``Fixture.objects.public()``: a fixture appears only once
the submission that first brought it is accepted.
"""

from __future__ import annotations

import uuid

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from sports.models import Competition, Fixture, FixtureCompetitor, TableKind
from sports.querysets import follow_merges
from sports.services import standings_provider_for, stat_table, table_kind_for

FIXTURES_PER_PAGE = 50


def _node_or_survivor(pk) -> Competition | None:
    node: Competition = get_object_or_404(Competition.objects.select_related("sport"), pk=pk)
    if node.merged_into_id:
        return None
    return node


def _table_context(node: Competition, kind: str) -> dict[str, object]:
    """The rows of the node's table, and for a sport with its own table (cricket's points
    table) its headings and cells, so no other sport's columns are ever shown."""
    rows = stat_table(node=node, kind=kind)
    provider = standings_provider_for(node) if kind == TableKind.STANDINGS else None
    if provider is None:
        return {"kind": kind, "rows": rows}
    return {
        "kind": kind,
        "rows": rows,
        "columns": [heading for _, heading in provider.columns],
        "grid": [
            [(row.get(key, ""), key not in ("team", "name")) for key, _ in provider.columns]
            for row in rows
        ],
    }


def competition_list(request: HttpRequest) -> HttpResponse:
    roots = (
        Competition.objects.canonical()
        .filter(parent__isnull=True)
        .select_related("sport")
        .order_by("name")
    )
    sport = request.GET.get("sport")
    if sport:
        # A sport's own trees, and the multi-sport trees holding a node of that sport.
        trees = Competition.objects.filter(sport__code=sport).values("tree_id")
        roots = roots.filter(tree_id__in=trees)
    return render(request, "sports/competition_list.html", {"roots": roots, "sport": sport})


def competition_detail(request: HttpRequest, pk) -> HttpResponse:
    node = _node_or_survivor(pk)
    if node is None:
        return redirect(
            "sports:competition-detail", pk=follow_merges(Competition, pk), permanent=True
        )
    ancestors = list(node.get_ancestors().only("id", "name", "sport_id"))
    children = node.get_children().filter(merged_into__isnull=True).order_by("ordinal", "name")
    fixtures = (
        Fixture.objects.public().under(node).with_competitors().order_by("scheduled_start", "code")
    )
    page = Paginator(fixtures, FIXTURES_PER_PAGE).get_page(request.GET.get("page"))
    kind = table_kind_for(node)
    return render(
        request,
        "sports/competition_detail.html",
        {
            "node": node,
            "ancestors": ancestors,
            "children": children,
            "page": page,
            **_table_context(node, kind),
        },
    )


def table_page(request: HttpRequest, pk, kind: str) -> HttpResponse:
    node = _node_or_survivor(pk)
    if node is None:
        name = "sports:medal-table" if kind == TableKind.MEDALS else "sports:standings"
        return redirect(name, pk=follow_merges(Competition, pk), permanent=True)
    return render(
        request,
        "sports/table_page.html",
        {
            "node": node,
            "ancestors": list(node.get_ancestors().only("id", "name")),
            **_table_context(node, kind),
        },
    )


def medal_table(request: HttpRequest, pk) -> HttpResponse:
    return table_page(request, pk, TableKind.MEDALS)


def standings(request: HttpRequest, pk) -> HttpResponse:
    return table_page(request, pk, TableKind.STANDINGS)


def fixture_detail(request: HttpRequest, pk) -> HttpResponse:
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
    return render(
        request,
        "sports/fixture_detail.html",
        {
            "fixture": fixture,
            "ancestors": ancestors,
            "sides": sorted(sides, key=lambda c: (c.rank is None, c.rank or 0, c.ordinal or 0)),
            "squads": [(side, members[side.pk]) for side in sides if side.pk in members],
        },
    )
