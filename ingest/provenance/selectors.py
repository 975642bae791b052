"""The provenance trace: from a published cricket statistic back to the balls, files and
people behind it (issue 9, item 8).

A figure is named either as one column of one per-fixture statistic line (a batting,
bowling or fielding line and a figure such as ``runs``) or as a participant's aggregate in
a scope (their career runs in T20s, say). The trace answers with:

- the contributing deliveries: live revisions only, each with its natural key (innings,
  over, position), the values the figure reads and how much it adds to the figure;
- each delivery's correction history (who asked, why, when, what changed, the review);
- the sources: every submission those deliveries and corrections came from, with the
  batch item and batch that carried it (a corpus import has none, and says so), the stored
  object's checksum and retention state (expired bytes are reported, not an error), the
  submitter, and the reviewer's decisions.

People are shown by display name, or as a deleted account once tombstoned: the rows stay,
so the trace still resolves, but nothing personal is repeated.

Query budget, whatever the number of deliveries: a line's trace reads the line, the
merged ids, the deliveries (with their people and submissions), their wickets, fielders and
correction rows, the batch items and the review decisions, at most eight queries (a look-up
with nothing to find is skipped; a scoped reviewer's grant check is one more). An aggregate
reads the figure's total, the page's fixtures and their lines instead of the line, and the
scope's competition when named. It is paged by fixture with a keyset cursor, so a career of
thousands of balls is read a few matches at a time.

Lives in ``ingest`` because the chain ends in batches and stored objects; ``sports`` never
imports ``ingest``.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.shortcuts import get_object_or_404

from accounts.access import user_can, user_can_everywhere
from accounts.models import Capability, User
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryWicket,
    DeliveryWicketFielder,
)
from cricket.stats.aggregates import Scope, expand_merged
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
)
from cricket.stats.selectors import (
    TRACEABLE,
    figure_condition,
    figure_line_model,
    scoped_lines,
)
from ingest.batches.models import BatchItem, BatchReviewDecision
from ingest.models import RetentionState, StoredObject
from sports.models import Competition, Fixture, Participant, Submission, SubmissionKind

LINE_KINDS: dict[str, type[CricketBattingLine | CricketBowlingLine | CricketFieldingLine]] = {
    "batting": CricketBattingLine,
    "bowling": CricketBowlingLine,
    "fielding": CricketFieldingLine,
}
FIGURES_OF: dict[str, tuple[str, ...]] = {
    kind: tuple(f for f in TRACEABLE if figure_line_model(f) is model)
    for kind, model in LINE_KINDS.items()
}
DEFAULT_FIXTURES = 10
MAX_FIXTURES = 50
DELETED_ACCOUNT = "deleted account"


# --- who may trace --------------------------------------------------------------------------


def may_trace(user: User | AnonymousUser, competition: Competition | None) -> bool:
    """Reviewers within their grants, editors and administrators. A figure that spans every
    competition (``competition`` None) is for those who reach every competition: editors,
    administrators and reviewers granted ``"*"``."""
    if competition is None:
        return user_can_everywhere(user, Capability.REVIEW)
    return user_can(user, Capability.REVIEW, competition)


def _require(user: User | AnonymousUser, competition: Competition | None) -> None:
    if may_trace(user, competition):
        return
    if competition is None:
        raise PermissionDenied(
            "Tracing a figure over every competition needs a reviewer's grant on every "
            "competition, or an editor's role; name a competition you review."
        )
    raise PermissionDenied(f"You do not review {competition.name}.")


# --- the figure -----------------------------------------------------------------------------


def trace_line(
    *, user: User | AnonymousUser, kind: str, pk: int, figure: str = ""
) -> dict[str, Any]:
    """The trace of one figure of one statistic line (``kind`` batting, bowling or
    fielding; ``figure`` one of that line's columns, the first one when empty).

    Raises ``Http404`` for an unknown line, ``ValidationError`` naming a wrong kind or
    figure, ``PermissionDenied`` when ``user`` may not trace the line's competition."""
    model = LINE_KINDS.get(kind)
    if model is None:
        raise ValidationError({"kind": f"must be one of {', '.join(LINE_KINDS)}"})
    figure = figure or FIGURES_OF[kind][0]
    if figure not in FIGURES_OF[kind]:
        raise ValidationError(
            {"figure": f"a {kind} line's figures are {', '.join(FIGURES_OF[kind])}"}
        )
    line = get_object_or_404(
        model.objects.select_related("participant", "fixture", "competition"), pk=pk
    )
    _require(user, line.competition)
    people = expand_merged([line.participant_id])
    deliveries = _deliveries([line.innings_id], figure_condition(figure, people))
    corrections = _corrections(deliveries)
    rows = [_delivery_row(d, figure, set(people), corrections) for d in deliveries]
    return {
        "figure": figure,
        "participant": _participant(line.participant),
        "value": getattr(line, figure),
        "contributed": sum(r["contribution"] for r in rows),
        "line": {
            "kind": kind,
            "id": line.pk,
            "innings": line.innings_ordinal,
            "super_over": line.super_over,
            "fixture": _fixture(line.fixture, line.occurred_on, line.competition),
        },
        "deliveries": rows,
        "sources": _sources(deliveries, corrections),
    }


def trace_aggregate(
    *,
    user: User | AnonymousUser,
    participant: Participant,
    figure: str,
    scope: Scope,
    cursor: str = "",
    fixtures: int = DEFAULT_FIXTURES,
) -> dict[str, Any]:
    """The trace of a participant's aggregate ``figure`` in ``scope``, one page of fixtures
    at a time (``fixtures`` per page, oldest first; ``cursor`` is the previous page's
    ``next_cursor``). ``value`` is the whole figure; each fixture group carries its share.

    Raises ``ValidationError`` naming a bad figure, competition or cursor, and
    ``PermissionDenied`` when ``user`` may not trace the scope's competition (or, with no
    competition in the scope, every competition)."""
    model = figure_line_model(figure)
    competition = None
    if scope.competition_id:
        competition = Competition.objects.filter(pk=scope.competition_id).first()
        if competition is None:
            raise ValidationError({"competition": f"no competition {scope.competition_id}"})
    _require(user, competition)
    if not 1 <= fixtures <= MAX_FIXTURES:
        raise ValidationError({"fixtures": f"between 1 and {MAX_FIXTURES} fixtures a page"})
    people = expand_merged([participant.pk])
    # The line models declare no manager of their own: the default one is ``objects``.
    lines = scoped_lines(
        model._default_manager.filter(participant_id__in=people), scope, competition=competition
    )
    totals = lines.aggregate(value=Sum(figure), fixtures=Count("fixture_id", distinct=True))
    after = _after(cursor)
    if after is not None:
        on, fixture_id = after
        lines = lines.filter(Q(occurred_on__gt=on) | Q(occurred_on=on, fixture_id__gt=fixture_id))
    page_fixtures = [
        fixture_id
        for _, fixture_id in lines.values_list("occurred_on", "fixture_id")
        .distinct()
        .order_by("occurred_on", "fixture_id")[: fixtures + 1]
    ]
    page_lines = list(
        lines.filter(fixture_id__in=page_fixtures)
        .select_related("fixture", "competition")
        .order_by("occurred_on", "fixture_id", "innings_ordinal")
    )
    groups: OrderedDict[Any, dict[str, Any]] = OrderedDict()
    for line in page_lines:
        group = groups.setdefault(
            line.fixture_id,
            {
                "fixture": _fixture(line.fixture, line.occurred_on, line.competition),
                "value": 0,
                "innings": [],
                "deliveries": [],
            },
        )
        group["value"] += getattr(line, figure)
        group["innings"].append(line.innings_id)
    keys = list(groups)
    next_cursor = None
    if len(keys) > fixtures:
        del groups[keys[fixtures]]
        last = groups[keys[fixtures - 1]]["fixture"]
        next_cursor = _cursor(last["occurred_on"], last["id"])
    innings = [pk for group in groups.values() for pk in group.pop("innings")]
    deliveries = _deliveries(innings, figure_condition(figure, people)) if innings else []
    corrections = _corrections(deliveries)
    person_ids = set(people)
    for delivery in deliveries:
        groups[delivery.innings.fixture_id]["deliveries"].append(
            _delivery_row(delivery, figure, person_ids, corrections)
        )
    for group in groups.values():
        group["contributed"] = sum(r["contribution"] for r in group["deliveries"])
    return {
        "figure": figure,
        "participant": _participant(participant),
        "scope": scope.as_dict(),
        "value": totals["value"] or 0,
        "fixtures_total": totals["fixtures"],
        "fixtures": list(groups.values()),
        "next_cursor": next_cursor,
        "sources": _sources(deliveries, corrections),
    }


def _cursor(occurred_on: dt.date, fixture_id: Any) -> str:
    raw = json.dumps([occurred_on.isoformat(), str(fixture_id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _after(cursor: str) -> tuple[dt.date, uuid.UUID] | None:
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        on, fixture_id = json.loads(raw)
        return dt.date.fromisoformat(on), uuid.UUID(fixture_id)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise ValidationError({"cursor": "not a cursor this trace returned"}) from exc


# --- the chain --------------------------------------------------------------------------------


def _deliveries(innings_ids: Iterable[Any], condition: Q) -> list[Delivery]:
    """The live deliveries of these innings that meet ``condition``, in occurrence order,
    with everything the trace shows of them: three queries however many there are."""
    fielders = DeliveryWicketFielder.objects.select_related("participant").order_by("ordinal")
    wickets = (
        DeliveryWicket.objects.select_related("kind", "player_out")
        .prefetch_related(Prefetch("fielders", queryset=fielders))
        .order_by("ordinal")
    )
    queryset: QuerySet[Delivery] = (
        Delivery.objects.current()
        .filter(innings_id__in=list(innings_ids))
        .filter(condition)
        .select_related("innings", "batter", "bowler", "non_striker", "submission__submitted_by")
        .prefetch_related(Prefetch("wickets", queryset=wickets))
        .order_by("innings__ordinal", "sequence")
    )
    return list(queryset)


def _corrections(deliveries: list[Delivery]) -> dict[uuid.UUID, list[DeliveryCorrectionHistory]]:
    """Every correction of the revised balls among ``deliveries`` (a first revision has
    none, so it is not looked up), oldest first, by source event."""
    revised = [d.source_event_id for d in deliveries if d.revision > 1]
    found: dict[uuid.UUID, list[DeliveryCorrectionHistory]] = {}
    if not revised:
        return found
    rows = (
        DeliveryCorrectionHistory.objects.filter(source_event_id__in=revised)
        .select_related("requested_by", "reviewed_by", "correction_submission__submitted_by")
        .order_by("requested_at", "id")
    )
    for row in rows:
        found.setdefault(row.source_event_id, []).append(row)
    return found


def _sources(
    deliveries: list[Delivery], corrections: dict[uuid.UUID, list[DeliveryCorrectionHistory]]
) -> list[dict[str, Any]]:
    """One entry per submission behind the deliveries or their corrections: the file, who
    sent it, and the batch, stored object and review that brought it in (two queries)."""
    submissions: dict[uuid.UUID, Submission] = {}
    for delivery in deliveries:
        submissions.setdefault(delivery.submission_id, delivery.submission)
    for rows in corrections.values():
        for row in rows:
            # Loaded with the row (select_related); None reads without a query.
            correction = row.correction_submission
            if correction is not None:
                submissions.setdefault(correction.pk, correction)
    if not submissions:
        return []
    items = {
        item.submission_id: item
        for item in BatchItem.objects.filter(submission_id__in=list(submissions)).select_related(
            "batch__submitter", "batch__competition", "stored_object"
        )
    }
    decisions: dict[Any, list[BatchReviewDecision]] = {}
    if items:
        for decision in (
            BatchReviewDecision.objects.filter(batch_id__in={i.batch_id for i in items.values()})
            .select_related("reviewer")
            .order_by("created_at", "id")
        ):
            decisions.setdefault(decision.batch_id, []).append(decision)
    ordered = sorted(submissions.values(), key=lambda s: (s.submitted_at, str(s.pk)))
    return [_source(s, items.get(s.pk), decisions) for s in ordered]


def _source(
    submission: Submission,
    item: BatchItem | None,
    decisions: dict[Any, list[BatchReviewDecision]],
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "submission": {
            "id": submission.pk,
            "kind": submission.kind,
            "source_code": submission.source_code,
            "original_filename": submission.original_filename,
            "sha256": submission.sha256,
            "byte_size": submission.byte_size,
            "submitted_at": submission.submitted_at,
            "accepted": submission.accepted,
            "accepted_at": submission.accepted_at,
            "note": submission.note,
        },
        "submitter": _person(submission.submitted_by),
        "batch_item": None,
        "batch": None,
        "stored_object": None,
        "review_decisions": [],
        "explanation": "",
    }
    if item is None:
        entry["explanation"] = _no_batch(submission)
        return entry
    batch = item.batch
    entry["batch_item"] = {
        "id": item.pk,
        "ordinal": item.ordinal,
        "source_identity": item.source_identity,
        "filename": item.filename,
        "sha256": item.sha256,
        "byte_size": item.byte_size,
        "operation": item.operation,
        "publication": item.publication,
        "published_at": item.published_at,
    }
    entry["batch"] = {
        "id": batch.pk,
        "state": batch.state,
        "competition": _competition(batch.competition),
        "idempotency_key": batch.idempotency_key,
        "package_sha256": batch.sha256,
        "created_at": batch.created_at,
        "submitter": _person(batch.submitter),
    }
    entry["stored_object"] = _stored(item.stored_object)
    entry["review_decisions"] = [
        {
            "reviewer": _person(d.reviewer),
            "decision": d.decision,
            "reason": d.reason,
            "decided_at": d.created_at,
        }
        for d in decisions.get(batch.pk, [])
    ]
    if item.stored_object.retention_state == RetentionState.EXPIRED:
        entry["explanation"] = (
            "The file's bytes have expired under the retention policy; its checksum and "
            "metadata remain."
        )
    return entry


def _no_batch(submission: Submission) -> str:
    if submission.kind == SubmissionKind.CORPUS_IMPORT:
        return "Corpus import: no batch, no review; the file's checksum is the submission's."
    if submission.kind == SubmissionKind.BATCH:
        return "No batch item records this submission (published before batch items kept it)."
    return f"{submission.get_kind_display()}: no batch, no review."


def _stored(stored: StoredObject) -> dict[str, Any]:
    return {
        "id": stored.pk,
        "sha256": stored.sha256,
        "byte_size": stored.byte_size,
        "media_type": stored.media_type,
        "original_name": stored.original_name,
        "created_at": stored.created_at,
        "expires_at": stored.expires_at,
        "retention_state": stored.retention_state,
        "bytes_available": stored.retention_state == RetentionState.RETAINED,
        "deleted_at": stored.deleted_at,
    }


# --- rows ---------------------------------------------------------------------------------------


def _contribution(figure: str, d: Delivery, people: set[str]) -> int:
    """How much ``d`` adds to ``figure`` of ``people``: the engine's rules, per ball."""
    wides, noballs = d.extra_wides or 0, d.extra_noballs or 0
    batter, bowler = str(d.batter_id) in people, str(d.bowler_id) in people
    wickets = list(d.wickets.all())
    if figure == "runs":
        return d.runs_batter if batter else 0
    if figure == "balls_faced":
        return int(batter and wides <= 0)
    if figure in ("fours", "sixes"):
        return int(
            batter and not d.non_boundary and d.runs_batter == (4 if figure == "fours" else 6)
        )
    if figure == "outs":
        return sum(1 for w in wickets if w.kind.is_dismissal and str(w.player_out_id) in people)
    if figure == "legal_balls":
        return int(bowler and wides <= 0 and noballs <= 0)
    if figure == "runs_conceded":
        off_wide = (d.extra_byes or 0) + (d.extra_legbyes or 0) if wides > 0 else 0
        return d.runs_batter + wides + noballs + off_wide if bowler else 0
    if figure == "wickets":
        return sum(1 for w in wickets if w.kind.credits_bowler) if bowler else 0
    kind = {"catches": "caught", "stumpings": "stumped", "run_outs": "run-out"}[figure]
    credited = sum(
        1
        for w in wickets
        if w.kind.code == kind
        for f in w.fielders.all()
        if not f.substitute and str(f.participant_id) in people
    )
    if figure == "catches" and bowler:
        credited += sum(1 for w in wickets if w.kind.code == "caught-and-bowled")
    return credited


def _delivery_row(
    d: Delivery,
    figure: str,
    people: set[str],
    corrections: dict[uuid.UUID, list[DeliveryCorrectionHistory]],
) -> dict[str, Any]:
    return {
        "id": d.pk,
        "revision": d.revision,
        "source_event_id": d.source_event_id,
        "fixture_id": d.innings.fixture_id,
        "innings": d.innings.ordinal,
        "over": d.over_number,
        "position": d.position,
        "sequence": d.sequence,
        "ball_label": d.ball_label,
        "batter": _participant(d.batter),
        "bowler": _participant(d.bowler),
        "non_striker": _participant(d.non_striker),
        "runs_batter": d.runs_batter,
        "runs_extras": d.runs_extras,
        "runs_total": d.runs_total,
        "non_boundary": d.non_boundary,
        "extras": {
            "wides": d.extra_wides,
            "noballs": d.extra_noballs,
            "byes": d.extra_byes,
            "legbyes": d.extra_legbyes,
            "penalty": d.extra_penalty,
        },
        "wickets": [
            {
                "kind": w.kind.code,
                "player_out": _participant(w.player_out),
                "fielders": [
                    {"participant": _participant(f.participant), "substitute": f.substitute}
                    for f in w.fielders.all()
                ],
            }
            for w in d.wickets.all()
        ],
        "contribution": _contribution(figure, d, people),
        "submission_id": d.submission_id,
        "corrections": [_correction(c) for c in corrections.get(d.source_event_id, [])],
    }


def _correction(c: DeliveryCorrectionHistory) -> dict[str, Any]:
    review = None
    if c.review_decision:
        review = {
            "reviewer": _person(c.reviewed_by),
            "decision": c.review_decision,
            "reason": c.review_reason,
            "decided_at": c.reviewed_at,
        }
    return {
        "id": c.pk,
        "requested_at": c.requested_at,
        "requested_by": _person(c.requested_by),
        # The label names an automated writer; a person's is their username at the time,
        # which a deleted account must not keep showing.
        "requested_by_label": "" if c.requested_by_id else c.requested_by_label,
        "reason": c.reason,
        "previous_revision": c.previous_snapshot.get("revision"),
        "resulting_revision": c.resulting_snapshot.get("revision"),
        "previous_delivery_id": c.previous_delivery_id,
        "resulting_delivery_id": c.resulting_delivery_id,
        "changes": snapshot_changes(c.previous_snapshot, c.resulting_snapshot),
        "correction_submission_id": c.correction_submission_id,
        "review": review,
    }


def _flat(snapshot: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key in ("batter", "non_striker", "bowler"):
        flat[key] = (snapshot.get(key) or {}).get("name")
    for key, value in (snapshot.get("runs") or {}).items():
        flat[f"runs.{key}"] = value
    for key, value in (snapshot.get("extras") or {}).items():
        flat[f"extras.{key}"] = value
    flat["ball_label"] = snapshot.get("ball_label")
    flat["wickets"] = "; ".join(
        f"{w['kind']}: {(w.get('player_out') or {}).get('name')}"
        + "".join(
            f", {(f.get('participant') or {}).get('name') or 'unnamed'}"
            + (" (sub)" if f.get("substitute") else "")
            for f in w.get("fielders", ())
        )
        for w in snapshot.get("wickets", ())
    )
    return flat


def snapshot_changes(previous: dict[str, Any], resulting: dict[str, Any]) -> list[dict[str, Any]]:
    """What a correction changed, field by field (runs, extras, people, label, wickets)."""
    before, after = _flat(previous), _flat(resulting)
    return [
        {"field": key, "previous": before.get(key), "resulting": after.get(key)}
        for key in after
        if before.get(key) != after.get(key)
    ]


def _person(user: User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    if user.tombstoned_at is not None:
        return {
            "id": user.pk,
            "name": DELETED_ACCOUNT,
            "tombstoned": True,
            "tombstoned_at": user.tombstoned_at,
        }
    return {"id": user.pk, "name": str(user), "tombstoned": False, "tombstoned_at": None}


def _participant(participant: Participant | None) -> dict[str, Any] | None:
    if participant is None:
        return None
    return {"id": participant.pk, "name": participant.name}


def _competition(competition: Competition | None) -> dict[str, Any] | None:
    if competition is None:
        return None
    return {"id": competition.pk, "name": competition.name}


def _fixture(
    fixture: Fixture, occurred_on: dt.date, competition: Competition | None
) -> dict[str, Any]:
    return {
        "id": fixture.pk,
        "name": fixture.name,
        "occurred_on": occurred_on,
        "competition": _competition(competition),
    }
