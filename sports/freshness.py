"""What the conditional GETs of a fixture, a competition node and a participant compare
(omnium.conditional); cricket's own scorecard, career and leaderboard states live in
``cricket.freshness``.

One aggregate query each, over the rows the response is built from: their ``updated_at``,
the fixture's version and log position, and counts so a deleted row changes the answer too.
The fixture and scorecard queries are the ORM's, compiled once per process
(``CompiledState``) for each gate that does not depend on the reader.
"""

from __future__ import annotations

import uuid
from functools import partial

from django.db import connection
from django.db.models import Count, Max, QuerySet
from rest_framework.request import Request

from omnium.conditional import CompiledState, parse_uuid
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    Participant,
    ParticipantAlias,
    ParticipantSport,
)
from sports.querysets import Visibility, fixture_visibility


def _fixture_state(fixtures: QuerySet, pk) -> QuerySet:
    return (
        fixtures.filter(pk=pk, merged_into__isnull=True)
        .annotate(
            competitors_n=Count("competitors"),
            competitors_changed=Max("competitors__updated_at"),
            participants_changed=Max("competitors__participant__updated_at"),
        )
        .values_list(
            "updated_at",
            "version",
            "last_seq",
            "competition__updated_at",
            "competitors_n",
            "competitors_changed",
            "participants_changed",
        )
    )


def _gated_fixture_state(visibility: str, pk: uuid.UUID) -> QuerySet:
    return _fixture_state(Fixture.objects.gated(visibility), pk)


_FIXTURE_STATE = {
    visibility: CompiledState(partial(_gated_fixture_state, visibility))
    for visibility in (Visibility.ALL, Visibility.PUBLISHED)
}


def fixture_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """The fixture detail: the fixture, its competitors and their participants."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    visibility = fixture_visibility(request.user)
    if visibility in _FIXTURE_STATE:
        return _FIXTURE_STATE[visibility].row(pk)
    return _fixture_state(Fixture.objects.visible_to(request.user), pk).first()


def _one_row(sql: str, params: list) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return tuple(row) if row else None


def competition_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """The node detail: the node, its ancestors (the breadcrumb and the inherited type and
    format) and its children. Their latest ``updated_at``, how many there are and where they
    sit in the tree: a rename, an added or moved child or a move of the node changes it."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    table = Competition._meta.db_table
    return _one_row(
        f"""
        SELECT max(c.updated_at), count(*), sum(c.lft), sum(c.rght),
               string_agg(c.status || c.code, ',' ORDER BY c.lft)
          FROM {table} node
          JOIN {table} c
            ON (c.tree_id = node.tree_id AND c.lft <= node.lft AND c.rght >= node.rght)
            OR c.parent_id = node.id
         WHERE node.id = %s AND node.merged_into_id IS NULL
         GROUP BY node.id
        """,  # noqa: S608 (the table name comes from the model; the id is a parameter)
        [pk],
    )


def participant_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """The participant detail: the record, its aliases, the sports that see it and the
    external ids of it and of everything merged into it."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    participants = Participant._meta.db_table
    aliases, sports = ParticipantAlias._meta.db_table, ParticipantSport._meta.db_table
    ids = ExternalIdMap._meta.db_table
    return _one_row(
        f"""
        WITH RECURSIVE merged(id) AS (
            SELECT id FROM {participants} WHERE id = %s AND merged_into_id IS NULL
            UNION
            SELECT p.id FROM {participants} p JOIN merged ON p.merged_into_id = merged.id
        )
        SELECT p.updated_at,
               (SELECT count(*) FROM merged),
               (SELECT md5(string_agg(a.name || a.source_code || a.last_seen::text, ','
                                      ORDER BY a.id))
                  FROM {aliases} a WHERE a.participant_id = p.id),
               (SELECT string_agg(s.sport_id::text, ',' ORDER BY s.sport_id)
                  FROM {sports} s WHERE s.participant_id = p.id),
               (SELECT count(*) FROM {ids} m
                 WHERE m.entity_type = %s AND m.internal_id IN (SELECT id FROM merged))
          FROM {participants} p
         WHERE p.id = %s AND p.merged_into_id IS NULL
        """,  # noqa: S608 (table names come from the models; values are parameters)
        [pk, EntityType.PARTICIPANT.value, pk],
    )
