"""Corrections of published deliveries (a fix is a new revision): the one path that changes a ball.

Delivery content is immutable. A correction inserts the next revision (revision + 1) of the
live row and marks that row superseded, linking the two both ways; the new revision keeps the
ball's source event, original submission, event ordinal and within-innings sequence, so an
innings never reorders beneath a reader. Every correction appends one
``DeliveryCorrectionHistory`` row with the complete content before and after. The database
enforces all of it (triggers on ``cricket_delivery``); this module is the only caller that
writes revisions, and the admin, the API, ``manage.py correct_delivery`` and a re-imported
source file all come through ``delivery_correct`` or, for a revised file,
``cricket.source_revisions.fixture_corrections_from_source`` (which shares the write core).

Concurrency: a correction locks the innings row (``FOR NO KEY UPDATE``, so imports that only
reference it are not blocked), then the delivery row ``FOR UPDATE``, and checks that the row
is still live. Two corrections of one ball therefore run one after the other and the second
finds its row superseded: it fails with ``CorrectionConflict`` and changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.db.models.functions import Now

from accounts.models import Capability
from accounts.roles import role_may
from cricket.delivery_content import (
    PEOPLE_FIELDS,
    BallAnnotations,
    # Everyone a snapshot names: the correction's share of the statistics refresh.
    _snapshot_people,
    ball_annotations,
    delivery_snapshot,
)
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
    DismissalKind,
    Innings,
    ReviewDecision,
)
from cricket.plugin import cricket_log_check
from cricket.stats.refresh import statistics_refresh
from sports.models import (
    Fixture,
    Participant,
    ParticipantType,
    Submission,
)
from sports.services.common import Actor, actor_label, actor_user, audit_person
from sports.services.timeline import timeline_append

EXTRA_FIELDS = ("extra_wides", "extra_noballs", "extra_byes", "extra_legbyes", "extra_penalty")
CORRECTABLE_FIELDS = ("runs_batter", "non_boundary", *EXTRA_FIELDS, *PEOPLE_FIELDS)
_CONTENT_FIELDS = (
    "runs_batter",
    "runs_extras",
    "runs_total",
    "non_boundary",
    *EXTRA_FIELDS,
    "batter_id",
    "bowler_id",
    "non_striker_id",
    "ball_label",
)
_WICKET_KEYS = {"kind", "player_out", "fielders"}
_FIELDER_KEYS = {"participant", "substitute"}
# Runs are small counts; the bound only stops a typo (400 for 4) reaching the scorecard.
MAX_RUNS = 99


class CorrectionConflict(ValidationError):
    """The delivery was corrected by someone else first: it is no longer the live revision."""


def may_correct(user) -> bool:
    """Those who edit (editors and administrators, by the role table) correct deliveries."""
    return bool(
        user
        and user.is_authenticated
        and user.is_active
        and (user.is_superuser or role_may(user.role, Capability.EDIT))
    )


def may_read_history(user) -> bool:
    """Correction history (snapshots, who asked, why) is for editors, reviewers and
    administrators (the roles that review, by the role table); the public reads the live
    deliveries only."""
    return bool(
        user
        and user.is_authenticated
        and user.is_active
        and (user.is_superuser or role_may(user.role, Capability.REVIEW))
    )


# --- wickets as values -----------------------------------------------------------------------


@dataclass(frozen=True)
class FielderSpec:
    participant_id: uuid.UUID | None
    substitute: bool = False


@dataclass(frozen=True)
class WicketSpec:
    """One wicket of a revision, as a comparable value (ordinal = its place in the list)."""

    kind: DismissalKind  # model instances compare by primary key
    kind_raw: str
    player_out_id: uuid.UUID
    fielders: tuple[FielderSpec, ...] = ()


def _wicket_specs(delivery: Delivery) -> list[WicketSpec]:
    wickets = (
        DeliveryWicket.objects.filter(delivery=delivery)
        .select_related("kind")
        .prefetch_related(
            Prefetch("fielders", queryset=DeliveryWicketFielder.objects.order_by("ordinal"))
        )
        .order_by("ordinal")
    )
    return [
        WicketSpec(
            kind=w.kind,
            kind_raw=w.kind_raw,
            player_out_id=w.player_out_id,
            fielders=tuple(FielderSpec(f.participant_id, f.substitute) for f in w.fielders.all()),
        )
        for w in wickets
    ]


# --- the result ------------------------------------------------------------------------------


@dataclass
class CorrectionResult:
    """What a correction wrote, and what the statistics refresh needs to know."""

    delivery: Delivery  # the new live revision
    previous: Delivery  # the revision it superseded
    history: DeliveryCorrectionHistory
    fixture_id: uuid.UUID
    participant_ids: frozenset[uuid.UUID]
    # Later balls of the over whose printed label moved because this one's legality did:
    # each got a revision of its own (labels are display only; no statistic reads them).
    relabelled: list[Delivery] = field(default_factory=list)


@dataclass(frozen=True)
class CorrectionReview:
    """A reviewer's approval of the corrections a reviewed submission carries (a batch):
    written on each correction history row."""

    reviewer: Any
    reviewed_at: datetime
    reason: str
    decision: str = ReviewDecision.APPROVED


# --- the statistics hook ---------------------------------------------------------------------


def _request_statistics_refresh(
    *,
    fixture_ids: Iterable[uuid.UUID],
    participant_ids: Iterable[uuid.UUID],
    reason: str,
    actor: Actor,
    submission: Submission | None = None,
) -> None:
    """Ask for the statistics that read these fixtures and participants to be rebuilt.

    The single place a correction reaches the statistics engine. It is called inside the
    correction's transaction with the fixture and every participant the old or new revision
    names (batter, bowler, non-striker, players out, fielders), which is the dependency set
    of a refresh (fixture, season, competition, careers). It delegates to the one refresh path,
    ``cricket.stats.refresh.statistics_refresh``, which records the dependencies,
    bumps the participants' data versions and schedules the rebuild on commit.
    """
    statistics_refresh(
        fixture_ids=fixture_ids,
        participant_ids=participant_ids,
        reason=reason,
        actor=actor,
        submission=submission,
    )


# --- validation --------------------------------------------------------------------------------


def _count(value: Any, name: str, *, nullable: bool) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        allowed = "a whole number of 0 or more" + (" or empty" if nullable else "")
        raise ValidationError({name: f"{value!r} is not {allowed}."})
    if value < 0:
        raise ValidationError({name: f"{value} is negative; runs are counted from 0."})
    if value > MAX_RUNS:
        raise ValidationError({name: f"{value} is more than {MAX_RUNS} runs off one ball."})
    return value


def _participant_id(value: Any, name: str) -> uuid.UUID:
    if isinstance(value, Participant):
        return value.pk
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        raise ValidationError({name: f"{value!r} is not a participant id."}) from None


def _check_people(ids: Mapping[str, uuid.UUID | None]) -> None:
    """Every named participant exists, is a person and is not merged away."""
    wanted = {pk for pk in ids.values() if pk is not None}
    rows = {p.pk: p for p in Participant.objects.filter(pk__in=wanted)}
    for name, pk in ids.items():
        if pk is None:
            continue
        person = rows.get(pk)
        if person is None:
            raise ValidationError({name: f"no participant has id {pk}."})
        if person.merged_into_id is not None:
            raise ValidationError(
                {name: f"{person} is merged into {person.merged_into_id}; name the survivor."}
            )
        if person.type != ParticipantType.PERSON:
            raise ValidationError({name: f"{person} is a {person.type}, not a player."})


def _kind(value: Any, name: str) -> DismissalKind:
    if isinstance(value, DismissalKind):
        return value
    kind = DismissalKind.objects.filter(name=value).first()
    if kind is None:
        kind = DismissalKind.objects.filter(code=value).first()
    if kind is None:
        known = ", ".join(DismissalKind.objects.values_list("name", flat=True))
        raise ValidationError({name: f"{value!r} is not a dismissal kind (known: {known})."})
    return kind


def _fielders(value: Any, name: str, people: dict[str, uuid.UUID | None]) -> tuple:
    if not isinstance(value, list | tuple):
        raise ValidationError({name: "must be a list of fielders."})
    fielders = []
    for i, entry in enumerate(value, start=1):
        place = f"{name}[{i}]"
        if isinstance(entry, FielderSpec):
            entry = {"participant": entry.participant_id, "substitute": entry.substitute}
        if not isinstance(entry, Mapping) or set(entry) - _FIELDER_KEYS:
            raise ValidationError(
                {place: "a fielder is {'participant': id or None, 'substitute': bool}."}
            )
        substitute = entry.get("substitute", False)
        if not isinstance(substitute, bool):
            raise ValidationError({place: "substitute must be true or false."})
        raw = entry.get("participant")
        if raw is None:
            if not substitute:
                raise ValidationError({place: "only a substitute may be recorded without a name."})
            fielders.append(FielderSpec(None, True))
            continue
        pk = _participant_id(raw, place)
        people[place] = pk
        fielders.append(FielderSpec(pk, substitute))
    return tuple(fielders)


def _wicket(
    entry: Any, name: str, base: WicketSpec | None, people: dict[str, uuid.UUID | None]
) -> WicketSpec:
    if not isinstance(entry, Mapping):
        raise ValidationError({name: "a wicket is {'kind', 'player_out', 'fielders'} or None."})
    unknown = set(entry) - _WICKET_KEYS
    if unknown:
        raise ValidationError(
            {name: f"unknown keys {sorted(unknown)}; use {sorted(_WICKET_KEYS)}."}
        )
    if base is None and ("kind" not in entry or "player_out" not in entry):
        raise ValidationError({name: "a new wicket needs its kind and the player out."})
    # From here a missing kind or player out comes from ``base`` (a new wicket has both).
    if "kind" in entry:
        kind = _kind(entry["kind"], f"{name}.kind")
        kind_raw = kind.name
    else:
        assert base is not None
        kind, kind_raw = base.kind, base.kind_raw
    if "player_out" in entry:
        player_out = _participant_id(entry["player_out"], f"{name}.player_out")
        people[f"{name}.player_out"] = player_out
    else:
        assert base is not None
        player_out = base.player_out_id
    if "fielders" in entry:
        fielders = _fielders(entry["fielders"], f"{name}.fielders", people)
    else:
        fielders = base.fielders if base is not None else ()
    return WicketSpec(kind=kind, kind_raw=kind_raw, player_out_id=player_out, fielders=fielders)


def _apply_wicket_changes(
    existing: list[WicketSpec], changes: Any, people: dict[str, uuid.UUID | None]
) -> list[WicketSpec]:
    """``changes`` is either a list (the delivery's whole new wicket list; ``[]`` removes
    every wicket) or a mapping of 1-based wicket ordinal to a change: ``None`` removes that
    wicket, a mapping alters it (keys left out stay as they were) or, at an ordinal past the
    last, adds one. Wickets not named are kept as they are."""
    if changes is None:
        return existing
    if isinstance(changes, list | tuple):
        return [_wicket(e, f"wickets[{i}]", None, people) for i, e in enumerate(changes, 1)]
    if not isinstance(changes, Mapping):
        raise ValidationError({"wickets": "must be a list of wickets or {ordinal: change}."})
    result: list[WicketSpec | None] = list(existing)
    for ordinal in sorted(changes, key=lambda o: (not isinstance(o, int), o)):
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 1:
            raise ValidationError({"wickets": f"{ordinal!r} is not a wicket number (1, 2, ...)."})
        change = changes[ordinal]
        name = f"wickets[{ordinal}]"
        if ordinal <= len(existing):
            result[ordinal - 1] = (
                None if change is None else _wicket(change, name, existing[ordinal - 1], people)
            )
        elif change is None:
            raise ValidationError({name: f"the delivery has {len(existing)} wicket(s)."})
        else:
            result.append(_wicket(change, name, None, people))
    return [w for w in result if w is not None]


# --- reading and writing revisions -------------------------------------------------------------


def _legal(wides: int | None, noballs: int | None) -> bool:
    # A wide or no-ball only when the extra is > 0; an explicit 0 is no extra (never test for NULL).
    return (wides or 0) <= 0 and (noballs or 0) <= 0


def _write_revision(
    *,
    old: Delivery,
    values: dict[str, Any],
    wickets: list[WicketSpec],
    fixture: Fixture,
    reason: str,
    actor: Actor,
    submission: Submission | None,
    review: CorrectionReview | None = None,
    place: tuple[int, int] | None = None,
    vacated: bool = False,
    removed: bool = False,
    annotations: BallAnnotations | None = None,
) -> tuple[Delivery, DeliveryCorrectionHistory]:
    """Supersede ``old`` (locked, live) with a revision holding ``values`` and ``wickets``;
    its review and replacements are copied unchanged. Appends the history row (with the
    reviewer's decision when the correction was reviewed).

    For a revised source file that adds or removes balls (``cricket.source_revisions``):
    ``place`` is the new revision's (position, sequence) when it moves; ``vacated`` says
    the caller already marked ``old`` superseded (every moving ball of an innings steps
    aside before any takes its new place); ``removed`` writes a tombstone, a revision that
    is never live, so the ball leaves the live state while its history stays. ``annotations``
    replaces the review, replacements and printed 1.2.0 label instead of copying them."""
    previous_snapshot = delivery_snapshot(old)
    # Live to superseded first: the partial unique index admits one live row per ball, so
    # the replacement can only be inserted once this one has stepped aside.
    if not vacated:
        Delivery.objects.filter(pk=old.pk).update(is_current=False, superseded_at=Now())
    position, sequence = place or (old.position, old.sequence)
    new = Delivery.objects.create(
        innings_id=old.innings_id,
        over_number=old.over_number,
        position=position,
        sequence=sequence,
        actual_delivery=old.actual_delivery if annotations is None else annotations.actual_delivery,
        revision=old.revision + 1,
        supersedes_id=old.pk,
        source_event_id=old.source_event_id,
        occurred_on=old.occurred_on,
        submission_id=old.submission_id,
        submission_event_ordinal=old.submission_event_ordinal,
        **({"is_current": False, "superseded_at": Now(), "removed": True} if removed else {}),
        **values,
    )
    Delivery.objects.filter(pk=old.pk).update(superseded_by=new)
    for ordinal, spec in enumerate(wickets, start=1):
        wicket = DeliveryWicket.objects.create(
            delivery=new,
            ordinal=ordinal,
            player_out_id=spec.player_out_id,
            kind=spec.kind,
            kind_raw=spec.kind_raw,
        )
        DeliveryWicketFielder.objects.bulk_create(
            DeliveryWicketFielder(
                wicket=wicket, ordinal=i, participant_id=f.participant_id, substitute=f.substitute
            )
            for i, f in enumerate(spec.fielders, start=1)
        )
    if annotations is not None:
        if annotations.review is not None:
            DeliveryReview.objects.create(delivery=new, **annotations.review)
        DeliveryReplacement.objects.bulk_create(
            DeliveryReplacement(delivery=new, **values) for values in annotations.replacements
        )
    else:
        ball_review = DeliveryReview.objects.filter(delivery=old).first()
        if ball_review is not None:
            ball_review.pk = None
            ball_review.delivery = new
            ball_review.save(force_insert=True)
        replacements = list(DeliveryReplacement.objects.filter(delivery=old))
        for replacement in replacements:
            replacement.pk = None
            replacement.delivery = new
        DeliveryReplacement.objects.bulk_create(replacements)
    history = DeliveryCorrectionHistory.objects.create(
        previous_delivery=old,
        resulting_delivery=new,
        source_event_id=old.source_event_id,
        fixture=fixture,
        requested_by=actor_user(actor),
        requested_by_label=actor_label(actor),
        reason=reason,
        previous_snapshot=previous_snapshot,
        resulting_snapshot=delivery_snapshot(new),
        original_submission_id=old.submission_id,
        correction_submission=submission,
        **(
            {
                "reviewed_by": review.reviewer,
                "review_decision": review.decision,
                "reviewed_at": review.reviewed_at,
                "review_reason": review.reason,
            }
            if review is not None
            else {}
        ),
    )
    # requested_at comes back from the insert (RETURNING): the database's time.
    return new, history


def _lock_live(delivery: Delivery | int) -> tuple[Delivery, Innings]:
    """The innings (no-key update lock) and then the delivery row (update lock), re-read;
    refuses a revision that is no longer live."""
    pk = delivery.pk if isinstance(delivery, Delivery) else delivery
    innings_id = Delivery.objects.filter(pk=pk).values_list("innings_id", flat=True).first()
    if innings_id is None:
        raise ValidationError(f"delivery {pk} does not exist.")
    innings = (
        Innings.objects.select_for_update(no_key=True).select_related("fixture").get(pk=innings_id)
    )
    live = Delivery.objects.select_for_update().get(pk=pk)
    if not live.is_current:
        raise CorrectionConflict(
            f"delivery {pk} (revision {live.revision}) was already corrected: it is superseded "
            f"by delivery {live.superseded_by_id}. Review the live revision and correct that "
            "one instead.",
            code="conflict",
        )
    return live, innings


def _over_labels(innings_id, over_number: int, legal_at: dict[int, bool]) -> dict[int, str]:
    """The printed label of every live ball of one over, with legality overridden for the
    positions in ``legal_at``: wides and no-balls do not advance the count, so labels repeat."""
    labels = {}
    legal_count = 0
    rows = (
        Delivery.objects.current()
        .filter(innings_id=innings_id, over_number=over_number)
        .order_by("position")
        .values_list("position", "extra_wides", "extra_noballs")
    )
    for position, wides, noballs in rows:
        labels[position] = f"{over_number}.{legal_count + 1}"
        if legal_at.get(position, _legal(wides, noballs)):
            legal_count += 1
    return labels


def _correct(
    *,
    delivery: Delivery | int,
    changes: Mapping[str, Any],
    wicket_changes: Any,
    reason: str,
    actor: Actor,
    submission: Submission | None,
    review: CorrectionReview | None = None,
    expected_version: int | None = None,
    annotations: BallAnnotations | None = None,
) -> CorrectionResult:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "A correction needs a reason."})
    actor_label(actor)
    if not isinstance(changes, Mapping):
        raise ValidationError({"changes": "must be a mapping of field to new value."})
    unknown = sorted(set(changes) - set(CORRECTABLE_FIELDS))
    if unknown:
        raise ValidationError(
            {
                name: f"cannot be corrected; correctable fields: {', '.join(CORRECTABLE_FIELDS)}."
                for name in unknown
            }
        )
    live, innings = _lock_live(delivery)

    values: dict[str, Any] = {f: getattr(live, f) for f in ("runs_batter", "non_boundary")}
    values.update({f: getattr(live, f) for f in EXTRA_FIELDS})
    values.update({f"{f}_id": getattr(live, f"{f}_id") for f in PEOPLE_FIELDS})
    people: dict[str, uuid.UUID | None] = {}
    for name, value in changes.items():
        if name == "runs_batter":
            values[name] = _count(value, name, nullable=False)
        elif name in EXTRA_FIELDS:
            values[name] = _count(value, name, nullable=True)
        elif name == "non_boundary":
            if not isinstance(value, bool):
                raise ValidationError({name: f"{value!r} is not true or false."})
            values[name] = value
        else:
            values[f"{name}_id"] = people[name] = _participant_id(value, name)
    old_wickets = _wicket_specs(live)
    wickets = _apply_wicket_changes(old_wickets, wicket_changes, people)
    _check_people(people)
    if len({values["batter_id"], values["non_striker_id"]}) == 1:
        raise ValidationError({"non_striker": "the batter and the non-striker must differ."})
    values["runs_extras"] = sum(values[f] or 0 for f in EXTRA_FIELDS)
    values["runs_total"] = values["runs_batter"] + values["runs_extras"]
    if values["runs_extras"] > MAX_RUNS:
        raise ValidationError({"extras": f"extras add up to more than {MAX_RUNS} runs."})

    legal_before = live.is_legal
    legal_after = _legal(values["extra_wides"], values["extra_noballs"])
    labels = _over_labels(live.innings_id, live.over_number, {live.position: legal_after})
    values["ball_label"] = labels[live.position]

    unchanged = all(values[f] == getattr(live, f) for f in _CONTENT_FIELDS)
    old_annotations = ball_annotations(live) if annotations is not None else None
    annotated = sorted(
        name
        for name in ("review", "replacements", "actual_delivery")
        if annotations is not None and getattr(annotations, name) != getattr(old_annotations, name)
    )
    if unchanged and wickets == old_wickets and not annotated:
        raise ValidationError("The correction changes nothing: the values equal the live ones.")

    fixture = innings.fixture
    new, history = _write_revision(
        old=live,
        values=values,
        wickets=wickets,
        fixture=fixture,
        reason=reason,
        actor=actor,
        submission=submission,
        review=review,
        annotations=annotations if annotated else None,
    )
    relabelled = []
    if legal_before != legal_after:
        later = (
            Delivery.objects.current()
            .select_for_update()
            .filter(
                innings_id=live.innings_id,
                over_number=live.over_number,
                position__gt=live.position,
            )
            .order_by("position")
        )
        for row in later:
            if row.ball_label == labels[row.position]:
                continue
            keep = {f: getattr(row, f) for f in _CONTENT_FIELDS if not f.endswith("_id")}
            keep.update({f"{f}_id": getattr(row, f"{f}_id") for f in PEOPLE_FIELDS})
            keep["ball_label"] = labels[row.position]
            moved, _ = _write_revision(
                old=row,
                values=keep,
                wickets=_wicket_specs(row),
                fixture=fixture,
                reason=f"printed ball label follows the correction of {live.ball_label} "
                f"(delivery {live.pk}): {reason}",
                actor=actor,
                submission=submission,
                review=review,
            )
            relabelled.append(moved)

    participant_ids = frozenset(
        _snapshot_people(history.previous_snapshot) | _snapshot_people(history.resulting_snapshot)
    )
    changed = sorted(
        {f.removesuffix("_id") for f in _CONTENT_FIELDS if values[f] != getattr(live, f)}
        | ({"wickets"} if wickets != old_wickets else set())
        | set(annotated)
    )
    detail = {
        "previous": live.pk,
        "revision": new.revision,
        "changed": changed,
        "reason": reason,
        "relabelled": [d.pk for d in relabelled],
    }
    audit_person(actor, action="cricket.delivery.correct", entity=new, key=new.pk, detail=detail)
    payload = {
        **detail,
        "delivery": new.pk,
        "innings": innings.ordinal,
        "over": live.over_number,
        "position": live.position,
        "submission": str(submission.pk) if submission else None,
    }
    cricket_log_check("cricket.delivery.corrected", payload)
    timeline_append(
        fixture=fixture,
        event_type="cricket.delivery.corrected",
        actor=actor,
        payload=payload,
        # The fixture's row lock is taken here, after the innings and the delivery (the
        # order every correction takes), so the version is compared here too; a stale one
        # rolls the revisions above back with the rest of the transaction.
        expected_version=expected_version,
        moves_version=True,
    )
    return CorrectionResult(
        delivery=new,
        previous=live,
        history=history,
        fixture_id=fixture.pk,
        participant_ids=participant_ids,
        relabelled=relabelled,
    )


@transaction.atomic
def delivery_correct(
    *,
    delivery: Delivery | int,
    changes: Mapping[str, Any],
    wicket_changes: Any = None,
    reason: str,
    actor: Actor,
    submission: Submission | None = None,
    expected_version: int | None = None,
) -> CorrectionResult:
    """Correct one delivery: insert its next revision and supersede the live one.

    ``changes`` maps any of ``CORRECTABLE_FIELDS`` to its new value: ``runs_batter`` and
    ``non_boundary``, the five ``extra_*`` columns (None = absent), and ``batter``,
    ``bowler``, ``non_striker`` (a participant or its id). ``runs_extras``, ``runs_total``
    and the printed ball label are recomputed; when the ball's legality changes, the later
    balls of the over whose label moves get revisions of their own. ``wicket_changes`` (see
    ``_apply_wicket_changes``) adds, removes or alters wickets and their fielders; wickets,
    the review and replacements not changed are copied to the new revision.

    ``delivery`` must be the live revision: if someone corrected it first, this raises
    ``CorrectionConflict`` and changes nothing; bad values raise ``ValidationError`` naming
    the field, also changing nothing. ``submission`` is the submission that carried the
    correction, if any (the revision keeps its original one). Returns the new revision with
    the fixture and participant ids the statistics refresh needs.

    A correction moves its fixture's version on. ``expected_version`` is the fixture's
    version the correction was made against (the API's ``If-Match`` on the scorecard's
    ETag): when the fixture is at another, this raises ``FixtureVersionConflict`` under the
    fixture's row lock and changes nothing.
    """
    result = _correct(
        delivery=delivery,
        changes=changes,
        wicket_changes=wicket_changes,
        reason=reason,
        actor=actor,
        submission=submission,
        expected_version=expected_version,
    )
    _request_statistics_refresh(
        fixture_ids=[result.fixture_id],
        participant_ids=result.participant_ids,
        reason=reason.strip(),
        actor=actor,
        submission=submission,
    )
    return result
