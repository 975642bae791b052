"""What the conditional GETs of fixtures and cricket scorecards compare (omnium.conditional).

One aggregate query each, over the rows the response is built from: their ``updated_at``,
the fixture's version and log position, and counts so a deleted row changes the answer too.
"""

from __future__ import annotations

from django.db.models import Count, Max
from rest_framework.request import Request

from omnium.conditional import parse_uuid
from sports.models import Fixture


def fixture_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """The fixture detail: the fixture, its competitors and their participants."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    return (
        Fixture.objects.visible_to(request.user)
        .filter(pk=pk, merged_into__isnull=True)
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
        .first()
    )


def scorecard_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    """A cricket scorecard: the fixture, its innings and its deliveries. Deliveries are
    append-only revisions, so the newest row and the latest supersession date every change."""
    pk = parse_uuid(pk)
    if pk is None:
        return None
    return (
        Fixture.objects.public()
        .filter(sport__code="cricket", pk=pk)
        .annotate(
            innings_n=Count("innings", distinct=True),
            innings_changed=Max("innings__updated_at"),
            deliveries_n=Count("innings__deliveries"),
            deliveries_added=Max("innings__deliveries__created_at"),
            deliveries_superseded=Max("innings__deliveries__superseded_at"),
        )
        .values_list(
            "updated_at",
            "innings_n",
            "innings_changed",
            "deliveries_n",
            "deliveries_added",
            "deliveries_superseded",
        )
        .first()
    )
