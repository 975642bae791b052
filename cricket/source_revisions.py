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
from cricket.services import SOURCE, cricket_people_resolve, cricket_sport
from sports.models import EntityType, ExternalIdMap, Fixture, Participant, Submission
from sports.querysets import follow_merges
from sports.services import submission_record, timeline_append
from sports.services.common import Actor

SOURCE_REVISION = "source revision"


@dataclass
class SourceCorrections:
    """The corrections a revised source file applied to one fixture."""

    fixture_id: uuid.UUID
    corrections: list[CorrectionResult] = field(default_factory=list)

    @property
    def participant_ids(self) -> frozenset[uuid.UUID]:
        ids: set[uuid.UUID] = set()
        for correction in self.corrections:
            ids |= correction.participant_ids
        return frozenset(ids)


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


def _review_key(review: dict | None, teams, people) -> tuple | None:
    if not review:
        return None
    batter = people.get(review.get("batter"))
    return (
        teams.get(review["by"]),
        batter.pk if batter else None,
        review.get("umpire") or "",
        review["decision"],
        review.get("type") or "",
        review.get("umpires_call"),
    )


def _replacements_key(replacements: dict | None, teams, people) -> list[tuple]:
    rows = []
    for kind, entries in sorted((replacements or {}).items()):
        for ordinal, entry in enumerate(entries, start=1):
            out = people.get(entry.get("out"))
            rows.append(
                (
                    kind,
                    ordinal,
                    teams.get(entry.get("team")),
                    people[entry["in"]].pk,
                    out.pk if out else None,
                    entry.get("role") or "",
                    entry.get("reason") or "",
                )
            )
    return rows


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
    """One field of one ball a revised file would change: natural key, live → proposed."""

    innings: int
    over: int
    position: int
    ball_label: str
    field: str
    live: str
    proposed: str


def _plan_source_corrections(
    *, fixture: Fixture, document: dict, people: Mapping[str, Any]
) -> list[PlannedCorrection]:
    """Compare a revised file's balls with the fixture's live deliveries by natural key
    (innings ordinal, over number, position) and return each ball that differs. ``people``
    maps the file's names to anything with ``pk`` (a participant, a ``PersonRef``). Writes
    nothing. Raises a ValidationError naming each place when the file changes what a
    correction cannot: the structure (balls or innings added or removed), a review, a
    replacement, ``actual_delivery``, or names an unknown dismissal kind."""
    innings_count = Innings.objects.filter(fixture=fixture).count()
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
    stored = {(d.innings.ordinal, d.over_number, d.position): d for d in live}
    source = _source_deliveries(document)
    problems = []
    if innings_count != len(document["innings"]):
        problems.append(
            f"the file has {len(document['innings'])} innings, the fixture {innings_count}"
        )
    if source.keys() - stored.keys():
        problems.append(f"balls only in the file: {_describe(source.keys() - stored.keys())}")
    if stored.keys() - source.keys():
        problems.append(f"balls only in the fixture: {_describe(stored.keys() - source.keys())}")
    if problems:
        raise ValidationError(
            f"fixture {fixture.pk}: the revised file changes the match's structure, which a "
            f"correction cannot: {'; '.join(problems)}. Nothing was changed."
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
    kinds = {k.name: k for k in DismissalKind.objects.all()}
    reviews = {
        r.delivery_id: r for r in DeliveryReview.objects.filter(delivery__in=[d.pk for d in live])
    }
    planned: list[PlannedCorrection] = []
    for key in sorted(source):
        ball, row = source[key], stored[key]
        place = f"innings {key[0]} over {key[1]} position {key[2]}"
        extras = ball.get("extras") or {}
        wanted = {
            "runs_batter": ball["runs"]["batter"],
            "non_boundary": bool(ball["runs"].get("non_boundary", False)),
            **{f"extra_{k}": extras.get(k) for k in ("wides", "noballs", "byes", "legbyes")},
            "extra_penalty": extras.get("penalty"),
            **{f: people[ball[f]].pk for f in PEOPLE_FIELDS},
        }
        changes = {
            f: v
            for f, v in wanted.items()
            if v != getattr(row, f"{f}_id" if f in PEOPLE_FIELDS else f)
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
        old_wickets = [
            WicketSpec(
                kind=w.kind,
                kind_raw=w.kind_raw,
                player_out_id=w.player_out_id,
                fielders=tuple(
                    FielderSpec(f.participant_id, f.substitute) for f in w.fielders.all()
                ),
            )
            for w in row.wickets.all()
        ]
        wickets_differ = new_wickets != old_wickets
        old_review = reviews.get(row.pk)
        old_review_key = (
            None
            if old_review is None
            else (
                old_review.by_team_id,
                old_review.batter_id,
                old_review.umpire,
                old_review.decision,
                old_review.type,
                old_review.umpires_call,
            )
        )
        if _review_key(ball.get("review"), teams, people) != old_review_key:
            problems.append(f"{place}: the review differs")
        old_replacements = sorted(
            (r.kind, r.ordinal, r.team_id, r.player_in_id, r.player_out_id, r.role, r.reason)
            for r in row.replacements.all()
        )
        if _replacements_key(ball.get("replacements"), teams, people) != old_replacements:
            problems.append(f"{place}: the replacements differ")
        if (ball.get("actual_delivery") or "") != row.actual_delivery:
            problems.append(f"{place}: actual_delivery differs")
        if changes or wickets_differ:
            planned.append(
                PlannedCorrection(
                    row=row,
                    ball=ball,
                    changes=changes,
                    wickets=new_wickets if wickets_differ else None,
                )
            )
    if problems:
        raise ValidationError(
            f"fixture {fixture.pk}: the revised file changes what a correction cannot: "
            f"{'; '.join(problems[:20])}"
            + (f" and {len(problems) - 20} more" if len(problems) > 20 else "")
            + ". Nothing was changed."
        )
    return planned


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


def source_correction_diff(*, fixture: Fixture, document: dict) -> list[DiffLine]:
    """What ``fixture_corrections_from_source`` would change for ``document``, field by
    field, computed from the same plan and writing nothing: natural key, the field, the
    live value and the proposed one (people by name; someone not known yet is marked new).
    Raises the same ValidationError the write would when the file cannot be applied."""
    planned = _plan_source_corrections(
        fixture=fixture, document=document, people=_known_people(document)
    )
    ids = set()
    for plan in planned:
        ids |= {getattr(plan.row, f"{f}_id") for f in PEOPLE_FIELDS}
        ids |= {v for f, v in plan.changes.items() if f in PEOPLE_FIELDS}
        for w in (*_row_wicket_specs(plan.row), *(plan.wickets or ())):
            ids |= {w.player_out_id, *(f.participant_id for f in w.fielders)}
    ids.discard(None)
    names = dict(Participant.objects.filter(pk__in=ids).values_list("pk", "name"))
    lines = []
    for plan in planned:
        row = plan.row
        key = (row.innings.ordinal, row.over_number, row.position, row.ball_label)
        for field_name, proposed in plan.changes.items():
            if field_name in PEOPLE_FIELDS:
                live = names.get(getattr(row, f"{field_name}_id"), "")
                shown = names[proposed] if proposed else f"{plan.ball[field_name]} (new)"
            else:
                live, shown = getattr(row, field_name), proposed
            lines.append(DiffLine(*key, field=field_name, live=str(live), proposed=str(shown)))
        if plan.wickets is not None:
            lines.append(
                DiffLine(
                    *key,
                    field="wickets",
                    live=_wickets_text(_row_wicket_specs(row), names),
                    proposed=_wickets_text(plan.wickets, names),
                )
            )
    return lines


def _row_wicket_specs(row: Delivery) -> list[WicketSpec]:
    """The wickets of a planned row, from its prefetched rows (no query)."""
    return [
        WicketSpec(
            kind=w.kind,
            kind_raw=w.kind_raw,
            player_out_id=w.player_out_id,
            fielders=tuple(FielderSpec(f.participant_id, f.substitute) for f in w.fielders.all()),
        )
        for w in row.wickets.all()
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
    """Apply a revised Cricsheet file of a known match as corrections.

    ``document`` is a validated match (what ``ingest.cricsheet.validate.load`` returns). Its
    deliveries are matched to the fixture's live deliveries by natural key (innings ordinal,
    over number, position) and every ball whose content differs gets one correction with
    ``reason`` ("source revision" unless the caller names its source, e.g. a batch);
    identical balls are not touched. ``review``, for a reviewed submission, is written on
    each history row. People are resolved through the file's registry (a renamed player is
    the same participant, so a rename alone changes nothing). A file whose structure
    differs (balls or innings added or removed) or that changes what a correction cannot
    (a review, a replacement, ``actual_delivery``) is refused with a message naming each
    place, and nothing is written. Innings- and match-level facts (penalty runs, targets,
    outcome) are not compared here. ``source_correction_diff`` shows the same plan without
    writing.
    """
    # Every innings of the fixture, in order, before reading: the plan stays true until
    # commit, and the lock order (innings, then the fixture's log) is the one a single
    # correction takes, so the two never deadlock. A refused file rolls back whole (people
    # the file would have added included).
    list(Innings.objects.select_for_update(no_key=True).filter(fixture=fixture).order_by("ordinal"))
    people = _document_people(document, cricket_sport(), actor)
    planned = _plan_source_corrections(fixture=fixture, document=document, people=people)

    result = SourceCorrections(fixture_id=fixture.pk)
    for plan in planned:
        row = plan.row
        # An earlier correction in this over may have relabelled this ball (a new revision):
        # correct whatever is live at its natural key now.
        current = (
            Delivery.objects.current()
            .filter(innings_id=row.innings_id, over_number=row.over_number, position=row.position)
            .values_list("pk", flat=True)
            .get()
        )
        result.corrections.append(
            _correct(
                delivery=current,
                changes=plan.changes,
                wicket_changes=plan.wicket_changes,
                reason=reason,
                actor=actor,
                submission=submission,
                review=review,
            )
        )
    if result.corrections:
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
    """What ``match_revise`` wrote: the revised file's submission and its corrections."""

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
    """Record a revised file of an imported match and apply it as corrections.

    ``fixture_id`` is the fixture the match id maps to (a merged fixture answers as its
    survivor); ``document`` is the validated file. The file is recorded as a submission
    (so the same bytes are known next time, and a rename alone makes the new name an
    alias), its balls become corrections through ``fixture_corrections_from_source``
    (``reason``, ``review``), and the fixture's log gets a ``cricket.import`` item keyed
    by the match id and ``sha256``. All or nothing: a file that changes what a correction
    cannot raises the ValidationError of ``fixture_corrections_from_source`` and nothing,
    not even the submission, is written.
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
    timeline_append(
        fixture=fixture,
        event_type="cricket.import",
        actor=actor,
        source_code=SOURCE,
        unit="record",
        idempotency_key=f"{match_id}:{sha256[:40]}",
        payload={
            "submission": str(recorded.pk),
            "sha256": sha256,
            "data_version": document["meta"]["data_version"],
            "revision": document["meta"].get("revision"),
            "corrections": len(result.corrections),
        },
    )
    return RevisedMatch(fixture=fixture, submission=recorded, corrections=result)
