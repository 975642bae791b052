"""A revised Cricsheet file of a known match, applied as corrections (new revisions, never edits).

Cricsheet republishes a match when it fixes a ball. The revised file is compared with the
fixture's live deliveries by natural key (innings ordinal, over number, position) and every
ball that differs becomes one correction through the same write core as a single-ball
correction (``cricket.corrections``), so the revision, history and statistics rules are the
ones stated there. ``source_correction_diff`` shows the plan without writing (the batch
review page); ``fixture_corrections_from_source`` applies it (an approved batch), and
``match_revise`` records a re-imported file and applies it in one transaction.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch

from cricket.corrections import (
    PEOPLE_FIELDS,
    BallAnnotations,
    CorrectionResult,
    CorrectionReview,
    FielderSpec,
    WicketSpec,
    # The write core without its own transaction or refresh: a revised file corrects many
    # balls in one transaction and asks for one refresh. Only this sibling module shares it.
    _correct,
    _request_statistics_refresh,
)
from cricket.loading import MatchSubmission
from cricket.models import (
    Delivery,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
    DismissalKind,
    Innings,
)
from cricket.plugin import cricket_log_check
from cricket.services import SOURCE, cricket_people_resolve, cricket_sport
from cricket.source_revision_balls import (
    InningsBalls,
    align_innings,
    innings_labels,
    innings_restructure,
    prefetched_wicket_specs,
)
from cricket.source_revision_facts import FactChange, facts_apply, facts_plan
from sports.models import EntityType, ExternalIdMap, Fixture, Participant, Submission
from sports.querysets import follow_merges
from sports.services import submission_record, timeline_append
from sports.services.common import Actor

SOURCE_REVISION = "source revision"


def _document_people(document: dict, sport, actor: Actor) -> dict[str, Participant]:
    registry = (document["info"].get("registry") or {}).get("people") or {}
    if not registry:
        return {}
    # Names are seen on the match day (as at import), so alias spans stay the match's.
    first_day = date.fromisoformat(document["info"]["dates"][0])
    seen_at = datetime(first_day.year, first_day.month, first_day.day, tzinfo=UTC)
    return cricket_people_resolve(names=dict(registry), sport=sport, actor=actor, seen_at=seen_at)


def _source_deliveries(document: dict) -> dict[tuple[int, int, int], dict]:
    balls = {}
    for ordinal, inning in enumerate(document["innings"], start=1):
        for over in inning.get("overs", []):
            for position, ball in enumerate(over["deliveries"]):
                balls[(ordinal, over["over"], position)] = ball
    return balls


def _describe(keys: Iterable[tuple[int, int, int]], limit: int = 10) -> str:
    keys = sorted(keys)
    shown = ", ".join(f"innings {i} over {o} position {p}" for i, o, p in keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


@dataclass(frozen=True)
class PersonRef:
    """A person a file names, as the plan compares it: the participant id, or None for
    someone not known yet (only in a preview; the write creates them first)."""

    pk: uuid.UUID | None
    name: str


@dataclass
class PlannedCorrection:
    """One ball of a revised file that differs from the live delivery at its natural key."""

    row: Delivery  # the live revision (as read when planning)
    ball: dict  # the file's delivery
    changes: dict[str, Any]  # correctable field -> new value (participant ids for people)
    wickets: list[WicketSpec] | None  # the new wicket list, when it differs
    # The review, replacements and 1.2.0 label the file gives, when any differs.
    annotations: BallAnnotations | None = None
    live_annotations: BallAnnotations | None = None

    @property
    def wicket_changes(self) -> list[dict] | None:
        if self.wickets is None:
            return None
        return [
            {
                "kind": w.kind,
                "player_out": w.player_out_id,
                "fielders": [
                    {"participant": f.participant_id, "substitute": f.substitute}
                    for f in w.fielders
                ],
            }
            for w in self.wickets
        ]


@dataclass(frozen=True)
class DiffLine:
    """One field of one ball a revised file would change: natural key, live → proposed.
    ``kind`` is "delivery" for a ball (changed, added or removed) and "fact" for an
    innings or match fact (its over and position are then 0)."""

    innings: int
    over: int
    position: int
    ball_label: str
    field: str
    live: str
    proposed: str
    kind: str = "delivery"


@dataclass
class SourcePlan:
    """Everything a revised file changes: the balls that are the same but differ, each
    innings' additions and removals, and the innings and match facts."""

    corrections: list[PlannedCorrection]
    innings: list[InningsBalls]
    facts: list[FactChange]
    teams: dict[str, Any]

    @property
    def deliveries(self) -> int:
        """How many balls change: corrected, added or removed."""
        return len(self.corrections) + sum(len(i.added) + len(i.removed) for i in self.innings)

    def labels(self) -> list[str]:
        """What changes, as the import's summary says it (``2 deliveries, penalty runs``)."""
        words = [f"{self.deliveries} deliver{'y' if self.deliveries == 1 else 'ies'}"]
        words = words if self.deliveries else []
        for fact in self.facts:
            if fact.label not in words:
                words.append(fact.label)
        return words

    def __bool__(self) -> bool:
        return bool(self.deliveries or self.facts)


def _plan_source_corrections(
    *, fixture: Fixture, document: dict, people: Mapping[str, Any]
) -> SourcePlan:
    """Compare a revised file with the fixture's live state and return what differs: each
    innings' balls matched to the live ones (``align_innings``: the same ball, changed or
    not, an addition, a removal), the correction of each matched ball whose content
    differs, and the innings and match facts (``facts_plan``). ``people`` maps the file's
    names to anything with ``pk`` (a participant, a ``PersonRef``). Writes nothing. Raises
    a ValidationError naming each place when the file changes what a revision cannot: the
    innings (one added or removed, another batting side, a super over or not), or names an
    unknown dismissal kind."""
    innings_rows = list(
        Innings.objects.filter(fixture=fixture).prefetch_related("miscounted_overs")
    )
    live = list(
        Delivery.objects.current()
        .filter(innings__fixture=fixture)
        .select_related("innings")
        .prefetch_related(
            Prefetch(
                "wickets",
                queryset=DeliveryWicket.objects.select_related("kind")
                .prefetch_related(
                    Prefetch("fielders", queryset=DeliveryWicketFielder.objects.order_by("ordinal"))
                )
                .order_by("ordinal"),
            ),
            "replacements",
        )
    )
    gender = document["info"]["gender"]
    team_ids = dict(
        ExternalIdMap.objects.filter(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            external_id__in=[f"team:{gender}:{name}" for name in document["info"]["teams"]],
        ).values_list("external_id", "internal_id")
    )
    teams = {name: team_ids.get(f"team:{gender}:{name}") for name in document["info"]["teams"]}
    problems = []
    if len(innings_rows) != len(document["innings"]):
        problems.append(
            f"the file has {len(document['innings'])} innings, the fixture {len(innings_rows)}"
        )
    for row, inning in zip(innings_rows, document["innings"], strict=False):
        if teams.get(inning["team"]) != row.batting_team_id:
            problems.append(f"innings {row.ordinal} is batted by another side in the file")
        if bool(inning.get("super_over")) != row.super_over:
            problems.append(f"innings {row.ordinal}: the file says otherwise of its super over")
    if problems:
        raise ValidationError(
            f"fixture {fixture.pk}: the revised file changes the match's innings, which a "
            f"revision cannot: {'; '.join(problems)}. Nothing was changed."
        )
    by_innings: dict[Any, list[Delivery]] = {}
    for d in live:
        by_innings.setdefault(d.innings_id, []).append(d)
    balls, before = [], 0
    for row, inning in zip(innings_rows, document["innings"], strict=True):
        balls.append(
            align_innings(
                innings=row,
                live=by_innings.get(row.pk, []),
                inning=inning,
                people=people,
                first_ordinal=before,
            )
        )
        before += sum(len(over["deliveries"]) for over in inning.get("overs", ()))

    kinds = {k.name: k for k in DismissalKind.objects.all()}
    reviews = {
        r.delivery_id: r for r in DeliveryReview.objects.filter(delivery__in=[d.pk for d in live])
    }
    planned: list[PlannedCorrection] = []
    for plan in balls:
        for added in plan.added:
            for w in added.ball.get("wickets") or []:
                if w["kind"] not in kinds:
                    problems.append(
                        f"innings {plan.innings.ordinal} over {added.over} position "
                        f"{added.position}: {w['kind']!r} is not a known dismissal kind"
                    )
        for pair in plan.pairs:
            place = f"innings {plan.innings.ordinal} over {pair.over} position {pair.position}"
            correction = _plan_ball(
                pair.ball, pair.row, place, people, kinds, teams, reviews, problems
            )
            if correction is not None:
                planned.append(correction)
    if problems:
        raise ValidationError(
            f"fixture {fixture.pk}: the revised file changes what a correction cannot: "
            f"{'; '.join(problems[:20])}"
            + (f" and {len(problems) - 20} more" if len(problems) > 20 else "")
            + ". Nothing was changed."
        )
    facts = facts_plan(
        fixture=fixture, document=document, innings=innings_rows, people=people, teams=teams
    )
    return SourcePlan(corrections=planned, innings=balls, facts=facts, teams=teams)


def _plan_ball(
    ball: dict,
    row: Delivery,
    place: str,
    people: Mapping[str, Any],
    kinds: Mapping[str, DismissalKind],
    teams: Mapping[str, Any],
    reviews: Mapping[int, DeliveryReview],
    problems: list[str],
) -> PlannedCorrection | None:
    """The correction of one live ball to the file's (runs, extras, people, wickets, the
    review, replacements and 1.2.0 label), or None when they agree; an unknown dismissal
    kind is added to ``problems``."""
    extras = ball.get("extras") or {}
    wanted = {
        "runs_batter": ball["runs"]["batter"],
        "non_boundary": bool(ball["runs"].get("non_boundary", False)),
        **{f"extra_{k}": extras.get(k) for k in ("wides", "noballs", "byes", "legbyes")},
        "extra_penalty": extras.get("penalty"),
        **{f: people[ball[f]].pk for f in PEOPLE_FIELDS},
    }
    changes = {
        f: v for f, v in wanted.items() if v != getattr(row, f"{f}_id" if f in PEOPLE_FIELDS else f)
    }
    new_wickets = []
    for w in ball.get("wickets") or []:
        if w["kind"] not in kinds:
            problems.append(f"{place}: {w['kind']!r} is not a known dismissal kind")
            continue
        new_wickets.append(
            WicketSpec(
                kind=kinds[w["kind"]],
                kind_raw=w["kind"],
                player_out_id=people[w["player_out"]].pk,
                fielders=tuple(
                    FielderSpec(
                        people[f["name"]].pk if f.get("name") else None,
                        bool(f.get("substitute")),
                    )
                    for f in w.get("fielders") or []
                ),
            )
        )
    wickets_differ = new_wickets != prefetched_wicket_specs(row)
    old_review = reviews.get(row.pk)
    live_annotations = BallAnnotations(
        review=None
        if old_review is None
        else {
            "by_team_id": old_review.by_team_id,
            "batter_id": old_review.batter_id,
            "umpire": old_review.umpire,
            "decision": old_review.decision,
            "type": old_review.type,
            "umpires_call": old_review.umpires_call,
        },
        replacements=tuple(
            {
                "kind": r.kind,
                "ordinal": r.ordinal,
                "team_id": r.team_id,
                "player_in_id": r.player_in_id,
                "player_out_id": r.player_out_id,
                "role": r.role,
                "reason": r.reason,
            }
            for r in sorted(row.replacements.all(), key=lambda r: (r.kind, r.ordinal))
        ),
        actual_delivery=row.actual_delivery,
    )
    annotations = _file_annotations(ball, teams, people)
    annotated = annotations != live_annotations
    if not changes and not wickets_differ and not annotated:
        return None
    return PlannedCorrection(
        row=row,
        ball=ball,
        changes=changes,
        wickets=new_wickets if wickets_differ else None,
        annotations=annotations if annotated else None,
        live_annotations=live_annotations,
    )


def _file_annotations(
    ball: dict, teams: Mapping[str, Any], people: Mapping[str, Any]
) -> BallAnnotations:
    """A file's ball's review, replacements and 1.2.0 label, as ``BallAnnotations``."""
    review = ball.get("review")
    batter = people.get(review.get("batter")) if review else None
    return BallAnnotations(
        review=None
        if not review
        else {
            "by_team_id": teams.get(review["by"]),
            "batter_id": batter.pk if batter else None,
            "umpire": review.get("umpire") or "",
            "decision": review["decision"],
            "type": review.get("type") or "",
            "umpires_call": review.get("umpires_call"),
        },
        replacements=tuple(
            {
                "kind": kind,
                "ordinal": ordinal,
                "team_id": teams.get(entry.get("team")),
                "player_in_id": people[entry["in"]].pk,
                "player_out_id": people[entry["out"]].pk if entry.get("out") else None,
                "role": entry.get("role") or "",
                "reason": entry.get("reason") or "",
            }
            for kind, entries in sorted((ball.get("replacements") or {}).items())
            for ordinal, entry in enumerate(entries, start=1)
        ),
        actual_delivery=ball.get("actual_delivery") or "",
    )


def _known_people(document: dict) -> dict[str, PersonRef]:
    """The file's names as they resolve now, without creating anyone: registry ids known
    to the external-id map (merged participants answer as their survivor), else None."""
    registry = (document["info"].get("registry") or {}).get("people") or {}
    links = dict(
        ExternalIdMap.objects.filter(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            external_id__in=set(registry.values()),
        ).values_list("external_id", "internal_id")
    )
    rows = {p.pk: p for p in Participant.objects.filter(pk__in=links.values())}
    people = {}
    for name, external_id in registry.items():
        internal_id = links.get(external_id)
        participant = rows.get(internal_id) if internal_id is not None else None
        if participant is not None and participant.merged_into_id is not None:
            participant = Participant.objects.get(pk=follow_merges(Participant, participant.pk))
        people[name] = PersonRef(participant.pk if participant else None, name)
    return people


def _wickets_text(wickets: Iterable[WicketSpec], names: Mapping[Any, str]) -> str:
    def fielders(w: WicketSpec) -> str:
        shown = [
            ("sub " if f.substitute else "")
            + (names.get(f.participant_id) or ("unnamed" if f.participant_id is None else "new"))
            for f in w.fielders
        ]
        return f" ({', '.join(shown)})" if shown else ""

    return (
        "; ".join(
            f"{w.kind_raw}: {names.get(w.player_out_id) or 'a new person'}{fielders(w)}"
            for w in wickets
        )
        or "none"
    )


def _ball_text(ball: dict) -> str:
    runs = ball["runs"]
    out = ", ".join(w["player_out"] for w in ball.get("wickets") or [])
    return f"{ball['bowler']} to {ball['batter']}: {runs['total']} run(s)" + (
        f", out: {out}" if out else ""
    )


def _row_text(row: Delivery, names: Mapping[Any, str]) -> str:
    out = ", ".join(names.get(w.player_out_id, "") for w in row.wickets.all())
    return (
        f"{names.get(row.bowler_id, '')} to {names.get(row.batter_id, '')}: "
        f"{row.runs_total} run(s)" + (f", out: {out}" if out else "")
    )


def source_correction_diff(*, fixture: Fixture, document: dict) -> list[DiffLine]:
    """What ``fixture_corrections_from_source`` would change for ``document``, computed
    from the same plan and writing nothing: each changed field of a ball (natural key, the
    field, the live value and the proposed one; people by name, someone not known yet
    marked new), each ball added or removed, and each innings or match fact. Raises the
    same ValidationError the write would when the file cannot be applied."""
    plan = _plan_source_corrections(
        fixture=fixture, document=document, people=_known_people(document)
    )
    planned = plan.corrections
    ids = set()
    for correction in planned:
        ids |= {getattr(correction.row, f"{f}_id") for f in PEOPLE_FIELDS}
        ids |= {v for f, v in correction.changes.items() if f in PEOPLE_FIELDS}
        for w in (*prefetched_wicket_specs(correction.row), *(correction.wickets or ())):
            ids |= {w.player_out_id, *(f.participant_id for f in w.fielders)}
    for balls in plan.innings:
        for row in balls.removed:
            ids |= {row.batter_id, row.bowler_id, *(w.player_out_id for w in row.wickets.all())}
    ids.discard(None)
    names = dict(Participant.objects.filter(pk__in=ids).values_list("pk", "name"))
    lines = []
    for correction in planned:
        row = correction.row
        key = (row.innings.ordinal, row.over_number, row.position, row.ball_label)
        for field_name, proposed in correction.changes.items():
            if field_name in PEOPLE_FIELDS:
                live = names.get(getattr(row, f"{field_name}_id"), "")
                shown = names[proposed] if proposed else f"{correction.ball[field_name]} (new)"
            else:
                live, shown = getattr(row, field_name), proposed
            lines.append(DiffLine(*key, field=field_name, live=str(live), proposed=str(shown)))
        if correction.wickets is not None:
            lines.append(
                DiffLine(
                    *key,
                    field="wickets",
                    live=_wickets_text(prefetched_wicket_specs(row), names),
                    proposed=_wickets_text(correction.wickets, names),
                )
            )
        if correction.annotations is not None and correction.live_annotations is not None:
            for name in ("review", "replacements", "actual_delivery"):
                was = getattr(correction.live_annotations, name)
                now = getattr(correction.annotations, name)
                if was != now:
                    lines.append(
                        DiffLine(
                            *key,
                            field=name,
                            live=json.dumps(was, sort_keys=True, default=str),
                            proposed=json.dumps(now, sort_keys=True, default=str),
                        )
                    )
    for balls in plan.innings:
        ordinal = balls.innings.ordinal
        for row in balls.removed:
            lines.append(
                DiffLine(
                    ordinal,
                    row.over_number,
                    row.position,
                    row.ball_label,
                    field="ball",
                    live=_row_text(row, names),
                    proposed="removed",
                )
            )
        labels = innings_labels(balls)
        for added in balls.added:
            lines.append(
                DiffLine(
                    ordinal,
                    added.over,
                    added.position,
                    labels[(added.over, added.position)],
                    field="ball",
                    live="",
                    proposed=f"added: {_ball_text(added.ball)}",
                )
            )
    for fact in plan.facts:
        lines.append(
            DiffLine(
                fact.innings_ordinal or 0,
                0,
                0,
                "",
                field=f"{fact.scope} {fact.field}",
                live=json.dumps(fact.live, sort_keys=True, default=str),
                proposed=json.dumps(fact.proposed, sort_keys=True, default=str),
                kind="fact",
            )
        )
    return lines


@dataclass
class SourceCorrections:
    """What a revised source file changed in one fixture: the corrections of balls that
    are the same but differ, the balls added (new live rows) and removed (tombstones),
    the later balls moved to their new places, and the facts amended."""

    fixture_id: uuid.UUID
    corrections: list[CorrectionResult] = field(default_factory=list)
    added: list[Delivery] = field(default_factory=list)
    tombstones: list[Delivery] = field(default_factory=list)
    moved: list[Delivery] = field(default_factory=list)
    facts: list[FactChange] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    extra_participants: set[uuid.UUID] = field(default_factory=set)

    @property
    def participant_ids(self) -> frozenset[uuid.UUID]:
        ids: set[uuid.UUID] = set(self.extra_participants)
        for correction in self.corrections:
            ids |= correction.participant_ids
        return frozenset(ids)

    @property
    def changed(self) -> bool:
        return bool(self.corrections or self.added or self.tombstones or self.facts)

    @property
    def revisions(self) -> list[int]:
        """Every delivery row the revision wrote (live rows and tombstones)."""
        return [
            *(d.pk for c in self.corrections for d in (c.delivery, *c.relabelled)),
            *(d.pk for d in self.added),
            *(d.pk for d in self.tombstones),
            *(d.pk for d in self.moved),
        ]


@transaction.atomic
def fixture_corrections_from_source(
    *,
    fixture: Fixture,
    document: dict,
    submission: Submission | None,
    actor: Actor,
    reason: str = SOURCE_REVISION,
    review: CorrectionReview | None = None,
) -> SourceCorrections:
    """Apply a revised Cricsheet file of a known match whole.

    ``document`` is a validated match (what ``ingest.cricsheet.validate.load`` returns),
    compared with the fixture's live state by content, never by whether the bytes were
    seen before (an older file is a revision like any other). Each innings' balls are
    matched to its live deliveries (``cricket.source_revision_balls``): a ball the file
    adds becomes a new live delivery at its position and one it no longer has a tombstone
    revision, the later balls of the innings getting revisions at their new positions,
    sequences and labels; each matched ball whose content differs gets one correction.
    Then the innings and match facts that differ (``cricket.source_revision_facts``) are
    amended. Everything carries ``reason`` ("source revision" unless the caller names its
    source, e.g. a batch) and lands on the fixture's log; ``review``, for a reviewed
    submission, is written on each history row; the statistics of exactly the fixture and
    the participants it touched are refreshed once. People are resolved through the
    file's registry (a renamed player is the same participant, so a rename alone changes
    nothing); a matched ball's review, replacements and 1.2.0 label are part of its
    content and corrected with it. A file that changes what a revision cannot (an innings
    added or removed, another batting side) is refused with a message naming each place,
    and nothing is written. ``source_correction_diff`` shows the same plan without
    writing.
    """
    # Every innings of the fixture, in order, before reading: the plan stays true until
    # commit, and the lock order (innings, then the fixture's log) is the one a single
    # correction takes, so the two never deadlock. A refused file rolls back whole (people
    # the file would have added included).
    innings = list(
        Innings.objects.select_for_update(no_key=True).filter(fixture=fixture).order_by("ordinal")
    )
    fixture = Fixture.objects.get(pk=fixture.pk)  # the live facts, read under those locks
    people = _document_people(document, cricket_sport(), actor)
    plan = _plan_source_corrections(fixture=fixture, document=document, people=people)
    result = SourceCorrections(fixture_id=fixture.pk, labels=plan.labels())
    kinds = {k.name: k for k in DismissalKind.objects.all()}
    for balls in plan.innings:
        done = innings_restructure(
            plan=balls,
            fixture=fixture,
            people=people,
            teams=plan.teams,
            kinds=kinds,
            submission=submission,
            reason=reason,
            actor=actor,
            review=review,
        )
        result.added += done.added
        result.tombstones += done.tombstones
        result.moved += done.moved
        result.extra_participants |= done.participant_ids
    for correction in plan.corrections:
        # The ball may have moved, or been relabelled by an earlier correction in its over
        # (a new revision): correct whatever revision of it is live now.
        current = (
            Delivery.objects.current()
            .filter(source_event_id=correction.row.source_event_id)
            .values_list("pk", flat=True)
            .get()
        )
        result.corrections.append(
            _correct(
                delivery=current,
                changes=correction.changes,
                wicket_changes=correction.wicket_changes,
                reason=reason,
                actor=actor,
                submission=submission,
                review=review,
                annotations=correction.annotations,
            )
        )
    result.facts = plan.facts
    result.extra_participants |= facts_apply(
        fixture=fixture,
        document=document,
        changes=plan.facts,
        innings=innings,
        people=people,
        teams=plan.teams,
        reason=reason,
        actor=actor,
        submission_id=submission.pk if submission else None,
    )
    if result.changed:
        _request_statistics_refresh(
            fixture_ids=[fixture.pk],
            participant_ids=result.participant_ids,
            reason=reason,
            actor=actor,
            submission=submission,
        )
    return result


@dataclass(frozen=True)
class RevisedMatch:
    """What ``match_revise`` wrote: the revised file's submission and what it changed."""

    fixture: Fixture
    submission: Submission
    corrections: SourceCorrections


@transaction.atomic
def match_revise(
    *,
    fixture_id: uuid.UUID,
    document: dict,
    match_id: str,
    sha256: str,
    submission: MatchSubmission,
    actor: Actor,
    reason: str = SOURCE_REVISION,
    review: CorrectionReview | None = None,
) -> RevisedMatch:
    """Record a revised file of an imported match and apply it whole.

    ``fixture_id`` is the fixture the match id maps to (a merged fixture answers as its
    survivor); ``document`` is the validated file. The file is recorded as a submission
    (a rename alone makes the new name an alias), it is applied through
    ``fixture_corrections_from_source`` (``reason``, ``review``), and the fixture's log
    gets a ``cricket.import`` item with ``sha256``: the file the live state now follows,
    which the importer reads to know a file it need not compare again. The item is keyed
    by the match id, the digest and the fixture's version, so the same file applied again
    after another (a revert) is a new item, while a resend is not. All or nothing: a file
    that changes what a revision cannot raises the ValidationError of
    ``fixture_corrections_from_source`` and nothing, not even the submission, is written.
    """
    recorded = submission_record(
        kind=submission.kind,
        note=submission.note,
        source_code=SOURCE,
        actor=actor,
        content=submission.content,
        original_filename=submission.original_filename,
        media_type="application/json",
    )
    fixture = Fixture.objects.get(pk=follow_merges(Fixture, fixture_id))
    result = fixture_corrections_from_source(
        fixture=fixture,
        document=document,
        submission=recorded,
        actor=actor,
        reason=reason,
        review=review,
    )
    version = Fixture.objects.filter(pk=fixture.pk).values_list("version", flat=True).get()
    payload = {
        "submission": str(recorded.pk),
        "sha256": sha256,
        "data_version": document["meta"]["data_version"],
        "revision": document["meta"].get("revision"),
        "corrections": len(result.corrections),
        "added": len(result.added),
        "removed": len(result.tombstones),
        "changes": result.labels,
    }
    cricket_log_check("cricket.import", payload)
    timeline_append(
        fixture=fixture,
        event_type="cricket.import",
        actor=actor,
        source_code=SOURCE,
        unit="record",
        idempotency_key=f"{match_id}:{sha256[:40]}:v{version}",
        payload=payload,
    )
    fixture.refresh_from_db()
    return RevisedMatch(fixture=fixture, submission=recorded, corrections=result)
