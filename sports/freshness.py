"""What the conditional GET of a fixture compares (omnium.conditional); cricket's own
scorecard, career and leaderboard states live in ``cricket.freshness``.

One aggregate query each, over the rows the response is built from: their ``updated_at``,
the fixture's version and log position, and counts so a deleted row changes the answer too.
The fixture and scorecard queries are the ORM's, compiled once per process
(``CompiledState``) for each gate that does not depend on the reader.
"""

from __future__ import annotations

import uuid
from functools import partial

from django.db.models import Count, Max, QuerySet
from rest_framework.request import Request

from omnium.conditional import CompiledState, parse_uuid
from sports.models import Fixture
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
