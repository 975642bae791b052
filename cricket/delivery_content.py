"""A delivery revision's content as values: its complete snapshot (what a correction
history row keeps) and the annotations beside its runs and people (review, replacements,
the 1.2.0 printed label) that a revised source file may change."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet

from cricket.models import (
    Delivery,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
)
from sports.models import Participant

PEOPLE_FIELDS = ("batter", "bowler", "non_striker")


@dataclass(frozen=True)
class BallAnnotations:
    """What a ball carries beside its runs, people and wickets, as a revised source file
    gives it: the review (``DeliveryReview`` field values by attname, or None for none),
    the replacements (``DeliveryReplacement`` field values, in kind and ordinal order) and
    the printed label of 1.2.0 files. Only a revised file changes them (the source path)."""

    review: dict[str, Any] | None
    replacements: tuple[dict[str, Any], ...]
    actual_delivery: str


_REVIEW_FIELDS = ("by_team_id", "batter_id", "umpire", "decision", "type", "umpires_call")
_REPLACEMENT_FIELDS = (
    "kind",
    "ordinal",
    "team_id",
    "player_in_id",
    "player_out_id",
    "role",
    "reason",
)


def ball_annotations(delivery: Delivery) -> BallAnnotations:
    """The live annotations of ``delivery`` (as stored)."""
    review = DeliveryReview.objects.filter(delivery=delivery).first()
    return BallAnnotations(
        review=None if review is None else {f: getattr(review, f) for f in _REVIEW_FIELDS},
        replacements=tuple(
            {f: getattr(r, f) for f in _REPLACEMENT_FIELDS}
            for r in DeliveryReplacement.objects.filter(delivery=delivery).order_by(
                "kind", "ordinal"
            )
        ),
        actual_delivery=delivery.actual_delivery,
    )


def _person(participant: Participant | None) -> dict[str, str] | None:
    if participant is None:
        return None
    return {"id": str(participant.pk), "name": participant.name}


def _snapshot_rows() -> QuerySet[Delivery]:
    return Delivery.objects.select_related(
        "innings", "batter", "bowler", "non_striker"
    ).prefetch_related(
        Prefetch(
            "wickets",
            queryset=DeliveryWicket.objects.select_related("kind", "player_out")
            .prefetch_related(
                Prefetch(
                    "fielders",
                    queryset=DeliveryWicketFielder.objects.select_related("participant").order_by(
                        "ordinal"
                    ),
                )
            )
            .order_by("ordinal"),
        ),
        Prefetch(
            "replacements",
            queryset=DeliveryReplacement.objects.select_related(
                "team", "player_in", "player_out"
            ).order_by("kind", "ordinal"),
        ),
    )


def delivery_snapshot(delivery: Delivery) -> dict[str, Any]:
    """The complete content of one revision as JSON: what a history row keeps."""
    row = _snapshot_rows().get(pk=delivery.pk)
    review = DeliveryReview.objects.select_related("by_team", "batter").filter(delivery=row).first()
    return _snapshot(row, review)


def delivery_snapshots(ids: list[int]) -> dict[int, dict[str, Any]]:
    """``delivery_snapshot`` of many revisions in a handful of queries (the balls a revised
    file moves: an innings of a Test may hold hundreds)."""
    rows = list(_snapshot_rows().filter(pk__in=ids))
    reviews = {
        r.delivery_id: r
        for r in DeliveryReview.objects.select_related("by_team", "batter").filter(delivery__in=ids)
    }
    return {row.pk: _snapshot(row, reviews.get(row.pk)) for row in rows}


def _snapshot(delivery: Delivery, review: DeliveryReview | None) -> dict[str, Any]:
    return {
        "delivery_id": delivery.pk,
        "revision": delivery.revision,
        "innings": delivery.innings.ordinal,
        "over": delivery.over_number,
        "position": delivery.position,
        "sequence": delivery.sequence,
        "ball_label": delivery.ball_label,
        "removed": delivery.removed,
        "actual_delivery": delivery.actual_delivery,
        "batter": _person(delivery.batter),
        "bowler": _person(delivery.bowler),
        "non_striker": _person(delivery.non_striker),
        "runs": {
            "batter": delivery.runs_batter,
            "extras": delivery.runs_extras,
            "total": delivery.runs_total,
            "non_boundary": delivery.non_boundary,
        },
        "extras": {
            "wides": delivery.extra_wides,
            "noballs": delivery.extra_noballs,
            "byes": delivery.extra_byes,
            "legbyes": delivery.extra_legbyes,
            "penalty": delivery.extra_penalty,
        },
        "wickets": [
            {
                "ordinal": w.ordinal,
                "kind": w.kind.name,
                "kind_raw": w.kind_raw,
                "credits_bowler": w.kind.credits_bowler,
                "player_out": _person(w.player_out),
                "fielders": [
                    {
                        "ordinal": f.ordinal,
                        "participant": _person(f.participant),
                        "substitute": f.substitute,
                    }
                    for f in w.fielders.all()
                ],
            }
            for w in delivery.wickets.all()
        ],
        "review": None
        if review is None
        else {
            "by_team": _person(review.by_team),
            "batter": _person(review.batter),
            "umpire": review.umpire,
            "decision": review.decision,
            "type": review.type,
            "umpires_call": review.umpires_call,
        },
        "replacements": [
            {
                "kind": r.kind,
                "ordinal": r.ordinal,
                "team": _person(r.team),
                "player_in": _person(r.player_in),
                "player_out": _person(r.player_out),
                "role": r.role,
                "reason": r.reason,
            }
            for r in delivery.replacements.all()
        ],
        "source_event_id": str(delivery.source_event_id),
        "submission_id": str(delivery.submission_id),
        "submission_event_ordinal": delivery.submission_event_ordinal,
    }


def _snapshot_people(snapshot: dict[str, Any]) -> set[uuid.UUID]:
    ids = {snapshot[k]["id"] for k in PEOPLE_FIELDS}
    for wicket in snapshot["wickets"]:
        ids.add(wicket["player_out"]["id"])
        ids |= {f["participant"]["id"] for f in wicket["fielders"] if f["participant"]}
    return {uuid.UUID(i) for i in ids}
