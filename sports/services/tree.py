"""Writes on the competition tree.

django-mptt keeps the tree as nested-set columns (tree_id, lft, rght, level) that it
rewrites with several UPDATEs per insert or move, computed from values read beforehand. Two
writers in one tree at once leave overlapping ranges behind, so every tree write here takes
PostgreSQL transaction-level advisory locks first: the lock of each tree it touches, and the
"new tree" lock when it creates a root or moves a node across trees (tree ids are allocated
as max + 1). Locks are taken in ascending key order so writers cannot deadlock, and node
positions are re-read after the locks are held.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from sports.models import (
    Competition,
    CompetitionStatus,
    Fixture,
    PointsAdjustment,
    Sport,
    StatLine,
)
from sports.services.common import Actor, audit_person
from sports.services.tables import stat_tables_over, stat_tables_under
from sports.services.timeline import LogEntry, timeline_append, timeline_open

_LOCK_NAMESPACE = 0x5EED  # first key of every tree advisory lock
_NEW_TREE = 0  # second key: the lock for allocating tree ids


def _lock(*keys: int) -> None:
    with connection.cursor() as cursor:
        for key in sorted(set(keys)):
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, key])


def _refreshed(node: Competition) -> Competition:
    node.refresh_from_db(fields=["tree_id", "lft", "rght", "level", "parent", "sport"])
    return node


def _lock_trees_of(*nodes: Competition, new_tree: bool = False) -> None:
    """Lock the trees ``nodes`` are in (re-checking after the wait: a concurrent move may
    have carried a node into another tree) and, if asked, the tree-id allocator."""
    while True:
        tree_ids = {
            Competition.objects.filter(pk=n.pk).values_list("tree_id", flat=True).get()
            for n in nodes
        }
        keys = set(tree_ids) | ({_NEW_TREE} if new_tree else set())
        _lock(*keys)
        now = {
            Competition.objects.filter(pk=n.pk).values_list("tree_id", flat=True).get()
            for n in nodes
        }
        if now <= tree_ids:
            for node in nodes:
                _refreshed(node)
            return


def _check_sport(*, parent: Competition | None, sport: Sport | None, code: str) -> Sport | None:
    if parent is not None and parent.sport_id is not None:
        if sport is not None and sport.pk != parent.sport_id:
            raise ValidationError(
                {
                    "sport": f"Competition {code!r} sits below a {parent.sport} node and must "
                    f"carry that sport, not {sport}."
                }
            )
        return parent.sport
    return sport


@transaction.atomic
def competition_create(
    *,
    code: str,
    name: str,
    type: str,
    actor: Actor,
    parent: Competition | None = None,
    sport: Sport | None = None,
    fixture_type: str | None = None,
    format_code: str | None = None,
    ordinal: int | None = None,
    start_date: date | None = None,
    end_date: date | None = None,
    config: dict[str, Any] | None = None,
) -> Competition:
    """Add a node under ``parent`` (or a new root). Below a sport node the sport is taken
    from the parent; giving a different one is an error."""
    if parent is not None:
        _lock_trees_of(parent)
    else:
        _lock(_NEW_TREE)
    sport = _check_sport(parent=parent, sport=sport, code=code)
    node = Competition(
        parent=parent,
        sport=sport,
        code=code,
        name=name,
        type=type,
        fixture_type=fixture_type,
        format_code=format_code,
        ordinal=ordinal,
        start_date=start_date,
        end_date=end_date,
        config=config or {},
    )
    # The id is a fresh UUIDv7: no need to ask the database whether it is taken.
    node.full_clean(exclude=["id", "parent", "lft", "rght", "tree_id", "level"])
    node.save()
    timeline_open(
        competition=node,
        entries=[
            LogEntry(
                "competition.create",
                payload={"code": code, "name": name, "parent": str(parent.pk) if parent else None},
            )
        ],
        actor=actor,
    )
    return node


@transaction.atomic
def competition_ensure(
    *,
    code: str,
    name: str,
    type: str,
    actor: Actor,
    parent: Competition | None = None,
    sport: Sport | None = None,
) -> tuple[Competition, bool]:
    """The node ``code`` of the sport, created under ``parent`` when there is none (an
    import's "event > season > stage" chain); returns (node, created). The tree locks are
    taken before looking, so writers ensuring the same node at once get one node: the
    later one waits for the first to commit and then finds it."""
    if parent is not None:
        _lock_trees_of(parent)
    else:
        _lock(_NEW_TREE)
    effective = _check_sport(parent=parent, sport=sport, code=code)
    existing = Competition.objects.filter(sport=effective, code=code).first()
    if existing is not None:
        return existing, False
    node = competition_create(
        code=code, name=name, type=type, actor=actor, parent=parent, sport=effective
    )
    return node, True


@transaction.atomic
def competition_move(
    *, node: Competition, new_parent: Competition | None, actor: Actor, reason: str = ""
) -> Competition:
    """Move ``node`` and its subtree under ``new_parent`` (None makes it a root).

    The cached tables that fold over the subtree go, at the old place and the new (the
    nodes above lose or gain its results), and so do the subtree's own (the config it
    inherits changes with its ancestors)."""
    nodes = [node] + ([new_parent] if new_parent is not None else [])
    crosses = new_parent is None or new_parent.tree_id != node.tree_id
    _lock_trees_of(*nodes, new_tree=crosses)
    if new_parent is not None:
        if new_parent.tree_id == node.tree_id and node.lft <= new_parent.lft <= node.rght:
            raise ValidationError(
                {"parent": f"Cannot move {node.code!r} under itself or its own descendant."}
            )
        if new_parent.sport_id is not None and node.sport_id != new_parent.sport_id:
            raise ValidationError(
                {
                    "parent": f"{node.code!r} ({node.sport or 'no sport'}) cannot move under a "
                    f"{new_parent.sport} node."
                }
            )
    old_parent_id = node.parent_id
    audit_person(
        actor,
        action="competition.move",
        entity=node,
        key=node.pk,
        detail={
            "from": old_parent_id,
            "to": new_parent.pk if new_parent else None,
            "reason": reason,
        },
    )
    stat_tables_over([node]).delete()
    stat_tables_under(node).delete()
    if new_parent is None:
        node.move_to(None)
    else:
        node.move_to(new_parent, position="last-child")
    stat_tables_over([_refreshed(node)]).delete()
    timeline_append(
        competition=node,
        event_type="competition.move",
        actor=actor,
        payload={
            "from": str(old_parent_id) if old_parent_id else None,
            "to": str(new_parent.pk) if new_parent else None,
            "reason": reason,
        },
    )
    return node


@transaction.atomic
def competition_archive(*, node: Competition, actor: Actor, reason: str = "") -> int:
    """Archive ``node`` and everything below it. Returns how many nodes changed."""
    _lock_trees_of(node)
    changed: int = (
        node.get_descendants(include_self=True)
        .exclude(status=CompetitionStatus.ARCHIVED)
        .update(status=CompetitionStatus.ARCHIVED)
    )
    audit_person(
        actor,
        action="competition.archive",
        entity=node,
        key=node.pk,
        detail={"nodes": changed, "reason": reason},
    )
    timeline_append(
        competition=node,
        event_type="competition.archive",
        actor=actor,
        payload={"nodes": changed, "reason": reason},
    )
    return changed


@transaction.atomic
def competition_merge(
    *, loser: Competition, survivor: Competition, actor: Actor, reason: str
) -> Competition:
    """Fold ``loser`` into ``survivor``: its children, fixtures (with their result lines)
    and points adjustments move under the survivor, and the loser keeps its row pointing
    at the survivor (merge, never delete). The cached tables over both nodes go, and those
    of the moved children (the config they inherit changes)."""
    if loser.pk == survivor.pk:
        raise ValidationError("A competition cannot be merged into itself.")
    if not reason:
        raise ValidationError({"reason": "A merge needs a reason."})
    _lock_trees_of(loser, survivor, new_tree=loser.tree_id != survivor.tree_id)
    if loser.merged_into_id is not None:
        raise ValidationError(f"{loser.code!r} is already merged.")
    if survivor.merged_into_id is not None:
        raise ValidationError(f"{survivor.code!r} is merged itself; merge into its survivor.")
    if loser.sport_id != survivor.sport_id:
        raise ValidationError("Only competitions of the same sport can be merged.")
    if survivor.tree_id == loser.tree_id and loser.lft <= survivor.lft <= loser.rght:
        raise ValidationError("A competition cannot be merged into its own descendant.")
    stat_tables_under(loser).delete()
    stat_tables_over([loser, survivor]).delete()
    for child in list(loser.get_children()):
        _refreshed(child)
        child.move_to(_refreshed(survivor), position="last-child")
    moving = list(Fixture.objects.filter(competition=loser))
    moved = Fixture.objects.filter(competition=loser).update(competition=survivor)
    # The lines carry their fixture's node, so a table finds them without a join.
    StatLine.objects.filter(competition=loser).update(competition=survivor)
    PointsAdjustment.objects.filter(competition=loser).update(competition=survivor)
    for fixture in moving:  # every change to a fixture is in its own log
        timeline_append(
            fixture=fixture,
            event_type="fixture.move",
            actor=actor,
            unit="record",
            payload={"from": str(loser.pk), "to": str(survivor.pk), "reason": reason},
        )
    Competition.objects.filter(pk=loser.pk).update(
        merged_into=survivor, status=CompetitionStatus.MERGED
    )
    loser.refresh_from_db()
    audit_person(
        actor,
        action="competition.merge",
        entity=loser,
        key=loser.pk,
        detail={"survivor": survivor.pk, "fixtures_moved": moved, "reason": reason},
    )
    for subject in (loser, survivor):
        timeline_append(
            competition=subject,
            event_type="competition.merge",
            actor=actor,
            payload={
                "loser": str(loser.pk),
                "survivor": str(survivor.pk),
                "fixtures_moved": moved,
                "reason": reason,
            },
        )
    return survivor


def trees_check() -> list[str]:
    """Compare every node's stored nested-set columns with a rebuild from the parent links.

    The rebuild walks each tree depth-first, visiting siblings in their stored order (a move
    legitimately reorders siblings, so primary-key order would report false damage), and
    numbers the nodes as django-mptt would. Returns one sentence per node that differs; an
    empty list means every tree is sound.
    """
    with transaction.atomic():
        _lock(_NEW_TREE)
        rows = list(
            Competition.objects.values_list("id", "parent_id", "tree_id", "lft", "rght", "level")
        )
    stored = {r[0]: r for r in rows}
    children: dict[uuid.UUID, list[uuid.UUID]] = {}
    roots: list[uuid.UUID] = []
    for node_id, parent_id, *_ in rows:
        if parent_id is None:
            roots.append(node_id)
        else:
            children.setdefault(parent_id, []).append(node_id)
    for siblings in children.values():
        siblings.sort(key=lambda i: (stored[i][3], str(i)))
    roots.sort(key=lambda i: (stored[i][2], str(i)))

    # node -> [tree_id, lft, rght, level]; rght is filled in on leaving the node.
    expected: dict[uuid.UUID, list[int | None]] = {}
    for root in roots:
        tree_id = stored[root][2]
        counter = 1
        # Iterative depth-first walk: (node, level, entering?)
        stack = [(root, 0, True)]
        while stack:
            node_id, level, entering = stack.pop()
            if entering:
                expected[node_id] = [tree_id, counter, None, level]
                counter += 1
                stack.append((node_id, level, False))
                for child in reversed(children.get(node_id, [])):
                    stack.append((child, level + 1, True))
            else:
                expected[node_id][2] = counter
                counter += 1

    problems = []
    root_trees: dict[int, list[uuid.UUID]] = {}
    for root in roots:
        root_trees.setdefault(stored[root][2], []).append(root)
    for tree_id, tree_roots in root_trees.items():
        if len(tree_roots) > 1:
            problems.append(f"tree {tree_id}: {len(tree_roots)} roots share it")
    for node_id, (_i, _p, tree_id, lft, rght, level) in stored.items():
        want = expected.get(node_id)
        if want is None:
            problems.append(f"competition {node_id}: not reachable from any root (a parent loop)")
        elif (tree_id, lft, rght, level) != tuple(want):
            problems.append(
                f"competition {node_id}: stored (tree, lft, rght, level) "
                f"{(tree_id, lft, rght, level)} but the parent links give {tuple(want)}"
            )
    return problems


COMPETITION_EDITABLE = (
    "code",
    "name",
    "type",
    "ordinal",
    "start_date",
    "end_date",
    "fixture_type",
    "format_code",
    "config",
)


@transaction.atomic
def competition_update(*, node: Competition, changes: dict[str, Any], actor: Actor) -> Competition:
    """Edit a node's plain fields (never its place in the tree: that is ``competition_move``).

    Writes only the changed columns, so nested-set columns read earlier are not written
    back over a concurrent move. A change of ``config`` (points rule, tie-breaks) clears
    the cached tables of the node and its subtree, which fold under it (``effective_config``
    inherits downwards); the tables above fold under their own config and stay.
    """

    unknown = set(changes) - set(COMPETITION_EDITABLE)
    if unknown:
        raise ValidationError(f"Not editable here: {', '.join(sorted(unknown))}.")
    node = Competition.objects.select_for_update().get(pk=node.pk)
    changed = {k: v for k, v in changes.items() if getattr(node, k) != v}
    if not changed:
        return node
    before = {k: getattr(node, k) for k in changed}
    for name, value in changed.items():
        setattr(node, name, value)
    node.full_clean(exclude=["parent", "lft", "rght", "tree_id", "level", "sport", "merged_into"])
    node.save(update_fields=[*changed, "updated_at"])
    if "config" in changed:
        stat_tables_under(node).delete()
    audit_person(
        actor,
        action="competition.update",
        entity=node,
        key=node.pk,
        detail={"before": before, "after": changed},
    )
    timeline_append(
        competition=node,
        event_type="competition.update",
        actor=actor,
        payload={"fields": sorted(changed)},
    )
    return node
