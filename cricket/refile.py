"""Re-file cricket fixtures under the node their own file names (``competition_path``).

Before node codes could carry a hash, codes were cut to 64 characters, so events and
seasons whose paths share their first characters shared a node; and every longer path's
node now has a new code. A fixture keeps what the path is read from: its ``meta`` holds
the file's event (name, stage, group), season and dates, its ``format`` the match type,
gender and team type. The old nodes are left as they are (merge, never delete): emptied,
they stay in the tree with their history."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from cricket.cricsheet_match import competition_path
from cricket.services import cricket_sport
from cricket.stats.refresh import statistics_refresh
from sports.models import Competition, Fixture, Sport
from sports.services.common import Actor
from sports.services.fixtures import fixture_competition_move
from sports.services.tree import competition_ensure

REASON = "re-filed under the node its file names (node codes no longer collide)"


@dataclass(frozen=True)
class Refile:
    """What ``cricket_fixtures_refile`` did: fixtures moved and nodes created for them."""

    moved: int
    nodes: int

    def line(self) -> str:
        return f"{self.moved} fixture(s) re-filed, {self.nodes} competition node(s) created"


def _node_for(
    info: dict, sport: Sport, nodes: dict[str, Competition], actor: Actor
) -> tuple[Competition, int]:
    """The path's last node, ensuring each step by code as the import does (a root that
    already exists keeps its place); returns it and how many nodes were created."""
    node: Competition | None = None
    created = 0
    for step in competition_path(info):
        found = nodes.get(step.code)
        if found is None:
            parent = node
            found, made = competition_ensure(
                code=step.code, name=step.name, type=step.type, parent=parent, sport=sport,
                actor=actor,
            )  # fmt: skip
            nodes[step.code] = found
            created += made
        node = found
    assert node is not None  # a path always has a root and a season
    return node, created


@transaction.atomic
def cricket_fixtures_refile(
    *, actor: Actor, progress: Callable[[int, int], None] | None = None
) -> Refile:
    """Move every cricket fixture whose node is not the one its stored file facts name
    (``competition_path`` of its meta and format) to that node, creating missing nodes as
    the import would. Each move is the spine's ``fixture_competition_move`` (audited,
    logged, cached tables dropped); the moved fixtures' statistics are queued for refresh
    in one ``statistics_refresh``. Idempotent: a second run moves nothing. ``progress``
    hears (done, total) per fixture looked at."""
    sport = cricket_sport()
    nodes = {node.code: node for node in Competition.objects.filter(sport=sport)}
    # Keyed by a fixture's node id, which may be None (a fixture on no node).
    codes: dict[uuid.UUID | None, str] = {node.pk: node.code for node in nodes.values()}
    fixtures = list(
        Fixture.objects.filter(sport=sport, merged_into__isnull=True, meta__has_key="dates")
        .order_by("scheduled_start", "code")
        .only("pk", "competition_id", "meta", "format")
    )
    moved: list[str] = []
    created = 0
    for done, fixture in enumerate(fixtures, start=1):
        info = {**fixture.meta, **fixture.format}
        if "gender" in info and "match_type" in info:
            wanted = competition_path(info)[-1].code
            if codes.get(fixture.competition_id) != wanted:
                node, made = _node_for(info, sport, nodes, actor)
                created += made
                codes[node.pk] = node.code
                fixture_competition_move(
                    fixture=fixture, competition=node, actor=actor, reason=REASON
                )
                moved.append(str(fixture.pk))
        if progress:
            progress(done, len(fixtures))
    if moved:
        statistics_refresh(fixture_ids=moved, reason=f"competition: {REASON}", actor=actor)
    return Refile(moved=len(moved), nodes=created)
