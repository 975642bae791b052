"""The balls of a revised Cricsheet file against a fixture's live deliveries: which ball of
the file is which live ball, which balls the file adds and which it no longer has, and the
writes that add and remove them.

Cricsheet revises a match by fixing a ball, and sometimes by adding a ball the scorers
missed or dropping one recorded twice. Within an over the file's balls are matched to the
live ones in order; when the counts differ, the longest run of balls that agree (players,
runs, extras, who was out) is kept as the same balls and the rest are additions or
removals. A ball never moves from one over to another: one that seems to is a removal in
one over and an addition in the other.

An addition is a new live delivery at its position; a removal is a tombstone revision
(never live) behind which the ball's history stays. Either moves the later balls of the
innings (their positions in the over, their sequences, their printed labels): each of
those gets a revision at its new place. All of it runs under the innings lock the caller
holds (``cricket.source_revisions``), after which the content of the balls that are the
same but changed is corrected as usual.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models.functions import Now

from cricket.corrections import (
    _CONTENT_FIELDS,
    PEOPLE_FIELDS,
    CorrectionReview,
    FielderSpec,
    WicketSpec,
    # The revision writer of the correction path: a move or a tombstone is a revision like
    # a correction's (history row included). Only the source-revision modules share it.
    _legal,
    _write_revision,
)
from cricket.delivery_content import delivery_snapshots
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
    DismissalKind,
    Innings,
    delivery_day,
)
from omnium.models import uuid7
from sports.models import Fixture, Submission
from sports.services.common import Actor, actor_label, actor_user, audit_person
from sports.services.timeline import timeline_append


@dataclass
class BallPair:
    """A live ball and the file's ball it is: the file's place (over, position, sequence)."""

    row: Delivery
    ball: dict
    over: int
    position: int
    sequence: int


@dataclass
class AddedBall:
    """A ball only the file has, at its place in the file; ``ordinal`` is its 1-based
    place among the file's deliveries (the event ordinal of the submission carrying it)."""

    over: int
    position: int
    sequence: int
    ordinal: int
    ball: dict


@dataclass
class InningsBalls:
    """One innings' balls: the pairs (in file order), additions and removals."""

    innings: Innings
    pairs: list[BallPair] = field(default_factory=list)
    added: list[AddedBall] = field(default_factory=list)
    removed: list[Delivery] = field(default_factory=list)

    @property
    def restructured(self) -> bool:
        return bool(self.added or self.removed)


def _row_key(row: Delivery) -> tuple:
    return (
        row.batter_id,
        row.bowler_id,
        row.non_striker_id,
        row.runs_batter,
        row.runs_extras,
        row.is_legal,
        tuple(w.player_out_id for w in row.wickets.all()),
    )


def _ball_key(ball: dict, people: Mapping[str, Any]) -> tuple:
    extras = ball.get("extras") or {}
    return (
        *(people[ball[f]].pk or ball[f] for f in PEOPLE_FIELDS),
        ball["runs"]["batter"],
        ball["runs"]["extras"],
        _legal(extras.get("wides"), extras.get("noballs")),
        tuple(people[w["player_out"]].pk or w["player_out"] for w in ball.get("wickets") or []),
    )


def align_innings(
    *,
    innings: Innings,
    live: list[Delivery],
    inning: dict,
    people: Mapping[str, Any],
    first_ordinal: int,
) -> InningsBalls:
    """Match the file's ``inning`` to the innings' ``live`` deliveries (its live rows, with
    wickets prefetched), over by over. ``people`` maps the file's names to anything with
    ``pk``; ``first_ordinal`` is the file ordinal of the innings' first ball less one."""
    plan = InningsBalls(innings=innings)
    by_over: dict[int, list[Delivery]] = {}
    for row in sorted(live, key=lambda d: (d.over_number, d.position)):
        by_over.setdefault(row.over_number, []).append(row)
    sequence, ordinal = 0, first_ordinal
    file_overs = set()
    for over in inning.get("overs", ()):
        number = over["over"]
        file_overs.add(number)
        balls = over["deliveries"]
        rows = by_over.get(number, [])
        places = []
        for position, _ in enumerate(balls):
            sequence += 1
            ordinal += 1
            places.append((position, sequence, ordinal))
        if len(rows) == len(balls):
            matched = [(i, i) for i in range(len(balls))]
        else:
            matcher = difflib.SequenceMatcher(
                None,
                [_row_key(r) for r in rows],
                [_ball_key(b, people) for b in balls],
                autojunk=False,
            )
            matched = []
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag == "equal" or tag == "replace":
                    matched += list(zip(range(i1, i2), range(j1, j2), strict=False))
        paired_rows = {i for i, _ in matched}
        paired_balls = {j for _, j in matched}
        for i, j in matched:
            position, seq, _ = places[j]
            plan.pairs.append(BallPair(rows[i], balls[j], number, position, seq))
        for j, ball in enumerate(balls):
            if j not in paired_balls:
                position, seq, ord_ = places[j]
                plan.added.append(AddedBall(number, position, seq, ord_, ball))
        plan.removed += [r for i, r in enumerate(rows) if i not in paired_rows]
    for number, rows in by_over.items():
        if number not in file_overs:
            plan.removed += rows
    plan.pairs.sort(key=lambda p: p.sequence)
    return plan


def innings_labels(plan: InningsBalls) -> dict[tuple[int, int], str]:
    """The printed label at each (over, position) once the innings holds the file's balls:
    the live content of the pairs (their own corrections follow) and the added balls'."""
    legal_at: dict[tuple[int, int], bool] = {
        (p.over, p.position): p.row.is_legal for p in plan.pairs
    }
    for a in plan.added:
        extras = a.ball.get("extras") or {}
        legal_at[(a.over, a.position)] = _legal(extras.get("wides"), extras.get("noballs"))
    labels: dict[tuple[int, int], str] = {}
    counted: dict[int, int] = {}
    for over, position in sorted(legal_at):
        labels[(over, position)] = f"{over}.{counted.get(over, 0) + 1}"
        if legal_at[(over, position)]:
            counted[over] = counted.get(over, 0) + 1
    return labels


def _kept(row: Delivery) -> dict[str, Any]:
    values = {f: getattr(row, f) for f in _CONTENT_FIELDS if not f.endswith("_id")}
    values.update({f"{f}_id": getattr(row, f"{f}_id") for f in PEOPLE_FIELDS})
    return values


def prefetched_wicket_specs(row: Delivery) -> list[WicketSpec]:
    """The wickets of a row, from its prefetched wickets and fielders (no query)."""
    return [
        WicketSpec(
            kind=w.kind,
            kind_raw=w.kind_raw,
            player_out_id=w.player_out_id,
            fielders=tuple(FielderSpec(f.participant_id, f.substitute) for f in w.fielders.all()),
        )
        for w in row.wickets.all()
    ]


@dataclass
class Restructured:
    """What restructuring one innings wrote: new balls, tombstones and moved revisions."""

    added: list[Delivery] = field(default_factory=list)
    tombstones: list[Delivery] = field(default_factory=list)
    moved: list[Delivery] = field(default_factory=list)
    participant_ids: set[Any] = field(default_factory=set)


def innings_restructure(
    *,
    plan: InningsBalls,
    fixture: Fixture,
    people: Mapping[str, Any],
    teams: Mapping[str, Any],
    kinds: Mapping[str, DismissalKind],
    submission: Submission | None,
    reason: str,
    actor: Actor,
    review: CorrectionReview | None,
) -> Restructured:
    """Add and remove the plan's balls and move the later ones to their new places.

    Precondition: the caller holds the innings lock (``FOR NO KEY UPDATE``), taken before
    the plan was read. Every ball that leaves its slot (a removal, a move) is locked and
    steps aside first, so no new place collides with a ball not yet moved; then the
    tombstones, the moved revisions and the new balls are written. An added ball needs
    the ``submission`` that carries it (its provenance)."""
    done = Restructured()
    if not plan.restructured:
        return done
    if plan.added and submission is None:
        raise ValidationError("A revised file that adds balls needs the submission carrying it.")
    labels = innings_labels(plan)
    movers = [
        p
        for p in plan.pairs
        if (p.row.position, p.row.sequence, p.row.ball_label)
        != (p.position, p.sequence, labels[(p.over, p.position)])
    ]
    leaving = [p.row.pk for p in movers] + [r.pk for r in plan.removed]
    list(Delivery.objects.select_for_update().filter(pk__in=leaving, is_current=True))
    stepped = Delivery.objects.filter(pk__in=leaving, is_current=True).update(
        is_current=False, superseded_at=Now()
    )
    if stepped != len(leaving):
        raise ValidationError(
            f"fixture {fixture.pk}: a ball of innings {plan.innings.ordinal} was corrected "
            "while the revised file was applied; apply it again."
        )
    for row in plan.removed:
        tombstone, _ = _write_revision(
            old=row,
            values=_kept(row),
            wickets=prefetched_wicket_specs(row),
            fixture=fixture,
            reason=f"{reason}: the ball is no longer in the file",
            actor=actor,
            submission=submission,
            review=review,
            vacated=True,
            removed=True,
        )
        done.tombstones.append(tombstone)
        done.participant_ids |= {row.batter_id, row.bowler_id, row.non_striker_id}
        done.participant_ids |= {w.player_out_id for w in row.wickets.all()}
        _log(
            fixture,
            "cricket.delivery.removed",
            actor,
            reason,
            submission,
            {
                "previous": row.pk,
                "tombstone": tombstone.pk,
                "innings": plan.innings.ordinal,
                "over": row.over_number,
                "position": row.position,
                "ball_label": row.ball_label,
            },
        )
    done.moved = _move(
        movers,
        labels,
        fixture=fixture,
        reason=f"{reason}: position, sequence and label follow a ball added or removed before it",
        actor=actor,
        submission=submission,
        review=review,
    )
    # An added ball stands on the day of the innings' other balls (the partition key).
    stored = [*(p.row for p in plan.pairs), *plan.removed]
    day = stored[0].occurred_on if stored else delivery_day(fixture)
    for added in plan.added:
        assert submission is not None  # checked above
        row = _insert_ball(
            innings=plan.innings,
            day=day,
            added=added,
            label=labels[(added.over, added.position)],
            people=people,
            teams=teams,
            kinds=kinds,
            submission=submission,
        )
        done.added.append(row)
        ball = added.ball
        done.participant_ids |= {people[ball[f]].pk for f in PEOPLE_FIELDS}
        done.participant_ids |= {people[w["player_out"]].pk for w in ball.get("wickets") or []}
        _log(
            fixture,
            "cricket.delivery.added",
            actor,
            reason,
            submission,
            {
                "delivery": row.pk,
                "innings": plan.innings.ordinal,
                "over": added.over,
                "position": added.position,
                "ball_label": row.ball_label,
            },
        )
    return done


def _move(
    movers: list[BallPair],
    labels: Mapping[tuple[int, int], str],
    *,
    fixture: Fixture,
    reason: str,
    actor: Actor,
    submission: Submission | None,
    review: CorrectionReview | None,
) -> list[Delivery]:
    """The next revision of each ball in ``movers`` (already stepped aside) at its new
    place and label, content unchanged, with its wickets, review and replacements copied
    and a history row each: the rows ``_write_revision`` writes, in a few statements for
    all of them (an early ball added to a Test moves hundreds)."""
    if not movers:
        return []
    before = delivery_snapshots([p.row.pk for p in movers])
    new = Delivery.objects.bulk_create(
        Delivery(
            innings_id=p.row.innings_id,
            over_number=p.row.over_number,
            position=p.position,
            sequence=p.sequence,
            actual_delivery=p.row.actual_delivery,
            revision=p.row.revision + 1,
            supersedes_id=p.row.pk,
            source_event_id=p.row.source_event_id,
            occurred_on=p.row.occurred_on,
            submission_id=p.row.submission_id,
            submission_event_ordinal=p.row.submission_event_ordinal,
            **{**_kept(p.row), "ball_label": labels[(p.over, p.position)]},
        )
        for p in movers
    )
    olds = [p.row for p in movers]
    for old, row in zip(olds, new, strict=True):
        old.superseded_by_id = row.pk
    Delivery.objects.bulk_update(olds, ["superseded_by"])
    wickets = [
        (
            DeliveryWicket(
                delivery=row,
                ordinal=w.ordinal,
                player_out_id=w.player_out_id,
                kind_id=w.kind_id,
                kind_raw=w.kind_raw,
            ),
            list(w.fielders.all()),
        )
        for old, row in zip(olds, new, strict=True)
        for w in old.wickets.all()
    ]
    DeliveryWicket.objects.bulk_create([w for w, _ in wickets])
    DeliveryWicketFielder.objects.bulk_create(
        DeliveryWicketFielder(
            wicket=w, ordinal=f.ordinal, participant_id=f.participant_id, substitute=f.substitute
        )
        for w, fielders in wickets
        for f in fielders
    )
    moved_to = {old.pk: row for old, row in zip(olds, new, strict=True)}
    reviews = list(DeliveryReview.objects.filter(delivery__in=moved_to))
    for r in reviews:
        r.pk, r.delivery = None, moved_to[r.delivery_id]
    DeliveryReview.objects.bulk_create(reviews)
    replacements = list(DeliveryReplacement.objects.filter(delivery__in=moved_to))
    for replacement in replacements:
        replacement.pk, replacement.delivery = None, moved_to[replacement.delivery_id]
    DeliveryReplacement.objects.bulk_create(replacements)
    user, label = actor_user(actor), actor_label(actor)
    DeliveryCorrectionHistory.objects.bulk_create(
        DeliveryCorrectionHistory(
            previous_delivery=old,
            resulting_delivery=row,
            source_event_id=old.source_event_id,
            fixture=fixture,
            requested_by=user,
            requested_by_label=label,
            reason=reason,
            previous_snapshot=before[old.pk],
            # The same content at its new place: only these keys of the snapshot move.
            resulting_snapshot={
                **before[old.pk],
                "delivery_id": row.pk,
                "revision": row.revision,
                "position": row.position,
                "sequence": row.sequence,
                "ball_label": row.ball_label,
            },
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
        for old, row in zip(olds, new, strict=True)
    )
    return new


def _log(
    fixture: Fixture,
    event_type: str,
    actor: Actor,
    reason: str,
    submission: Submission | None,
    detail: dict[str, Any],
) -> None:
    detail = {**detail, "reason": reason}
    audit_person(actor, action=event_type, entity=fixture, key=fixture.pk, detail=detail)
    timeline_append(
        fixture=fixture,
        event_type=event_type,
        actor=actor,
        payload={**detail, "submission": str(submission.pk) if submission else None},
        moves_version=True,
    )


def _insert_ball(
    *,
    innings: Innings,
    day: date,
    added: AddedBall,
    label: str,
    people: Mapping[str, Any],
    teams: Mapping[str, Any],
    kinds: Mapping[str, DismissalKind],
    submission: Submission,
) -> Delivery:
    """A ball the file adds: revision 1 of a new source event, carried by ``submission``,
    with its wickets, review and replacements as an import writes them."""
    ball = added.ball
    extras = ball.get("extras") or {}
    runs = ball["runs"]
    row = Delivery.objects.create(
        innings=innings,
        over_number=added.over,
        position=added.position,
        sequence=added.sequence,
        ball_label=label,
        actual_delivery=ball.get("actual_delivery") or "",
        batter_id=people[ball["batter"]].pk,
        bowler_id=people[ball["bowler"]].pk,
        non_striker_id=people[ball["non_striker"]].pk,
        runs_batter=runs["batter"],
        runs_extras=runs["extras"],
        runs_total=runs["total"],
        non_boundary=bool(runs.get("non_boundary", False)),
        extra_wides=extras.get("wides"),
        extra_noballs=extras.get("noballs"),
        extra_byes=extras.get("byes"),
        extra_legbyes=extras.get("legbyes"),
        extra_penalty=extras.get("penalty"),
        source_event_id=uuid7(),
        occurred_on=day,
        submission=submission,
        submission_event_ordinal=added.ordinal,
    )
    for ordinal, w in enumerate(ball.get("wickets") or [], start=1):
        wicket = DeliveryWicket.objects.create(
            delivery=row,
            ordinal=ordinal,
            player_out_id=people[w["player_out"]].pk,
            kind=kinds[w["kind"]],
            kind_raw=w["kind"],
        )
        DeliveryWicketFielder.objects.bulk_create(
            DeliveryWicketFielder(
                wicket=wicket,
                ordinal=i,
                # A substitute may be recorded with no name.
                participant_id=people[f["name"]].pk if f.get("name") else None,
                substitute=bool(f.get("substitute")),
            )
            for i, f in enumerate(w.get("fielders") or [], start=1)
        )
    review = ball.get("review")
    if review:
        batter = people.get(review.get("batter"))
        DeliveryReview.objects.create(
            delivery=row,
            by_team_id=teams[review["by"]],
            batter_id=batter.pk if batter else None,
            umpire=review.get("umpire") or "",
            decision=review["decision"],
            type=review.get("type") or "",
            umpires_call=review.get("umpires_call"),
        )
    DeliveryReplacement.objects.bulk_create(
        DeliveryReplacement(
            delivery=row,
            kind=kind,
            ordinal=r,
            team_id=teams.get(entry.get("team")),
            player_in_id=people[entry["in"]].pk,
            player_out_id=people[entry["out"]].pk if entry.get("out") else None,
            role=entry.get("role") or "",
            reason=entry.get("reason") or "",
        )
        for kind, entries in (ball.get("replacements") or {}).items()
        for r, entry in enumerate(entries, start=1)
    )
    return row
