"""The ledger of a fixture: commands through its sport's plugin, their corrections and
voids, and the rebuild that folds the live log into the scoreboard, result and stat lines.

The log is append-only. A correction is a new item (status CORRECTED) that ``supersedes``
the item it revises, which becomes SUPERSEDED; a void flips an item to VOIDED. Both stay in
the log, and each is logged with who and why. The *live chain* is what is left: every item
neither superseded nor voided, a correction standing at the position of the item it
replaced. Every rebuild reads only the live chain, so a log with voids and corrections
folds to the same rows as a log that never had the withdrawn items.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from sports.models import (
    Competition,
    Fixture,
    FixtureCompetitor,
    Participant,
    Scoreboard,
    StatLine,
    StatTable,
    TimelineItem,
    TimelineStatus,
)
from sports.plugins.base import Fold, SportPlugin, fixture_day
from sports.plugins.registry import get_plugin
from sports.services.common import Actor, audit_person, fixture_version_check
from sports.services.fixtures import definition_for
from sports.services.timeline import timeline_append

# Items that still say something: a voided or superseded item is history only.
LIVE = (TimelineStatus.ACTIVE, TimelineStatus.CORRECTED)


def _plugin_and_codes(fixture: Fixture) -> tuple[SportPlugin, dict[str, Any]]:
    definition = fixture.definition_version or definition_for(fixture.sport)
    if definition is None:
        raise ValidationError(f"{fixture.sport} has no definition, so it takes no commands.")
    return get_plugin(definition.plugin), definition.status_codes or {}


def _positions(items: list[TimelineItem]) -> dict[int, int]:
    """Each item's place in the fold: the position of the first item of its correction
    chain (a correction stands where the item it revises stood)."""
    by_id = {i.pk: i for i in items}
    places = {}
    for item in items:
        root = item
        while root.supersedes_id is not None and root.supersedes_id in by_id:
            root = by_id[root.supersedes_id]
        places[item.pk] = root.seq
    return places


def effective_items(fixture: Fixture, prefix: str) -> list[TimelineItem]:
    """The live chain of the ``prefix`` commands: items neither voided nor superseded, each
    at the position of its chain's first item."""
    items = list(
        TimelineItem.objects.filter(fixture=fixture, event_type__startswith=f"{prefix}.").order_by(
            "seq"
        )
    )
    places = _positions(items)
    live = [i for i in items if i.status in LIVE]
    return sorted(live, key=lambda i: (places[i.pk], i.seq))


def _fold(
    plugin: SportPlugin,
    fixture: Fixture,
    competitors: list[FixtureCompetitor],
    items: list[TimelineItem],
    codes: dict[str, Any],
) -> Fold:
    """``plugin.fold``, refusing a log that no longer replays (a void or correction that
    took away what later items stand on, such as the kick-off under the goals)."""
    try:
        return plugin.fold(fixture, competitors, items, codes)
    except (KeyError, TypeError, ValueError) as error:
        raise ValidationError(
            f"The log of {fixture} would no longer replay ({type(error).__name__}: {error}); "
            "withdraw the later items first."
        ) from error


def _participants(
    plugin: SportPlugin,
    competitors: list[FixtureCompetitor],
    command: str,
    payload: dict[str, Any],
) -> list[tuple[Participant, str]]:
    pairs = plugin.participants(competitors, command, payload)
    known = {str(p.pk): p for p in Participant.objects.filter(pk__in=[pid for pid, _ in pairs])}
    missing = [pid for pid, _ in pairs if str(pid) not in known]
    if missing:
        raise ValidationError({"payload": [f"No participant {pid}." for pid in missing]})
    return [(known[str(pid)], role) for pid, role in pairs]


@transaction.atomic
def fixture_command(
    *,
    fixture: Fixture,
    command: str,
    payload: dict[str, Any],
    actor: Actor,
    idempotency_key: str | None = None,
    source_code: str | None = None,
    expected_version: int | None = None,
) -> TimelineItem:
    """Validate a command against the sport's plugin and definition, append it to the log
    and rebuild everything derived from the log; the fixture's version moves on. A resent
    command (same idempotency key) returns the first item and changes nothing, whatever
    version it names. Holds the fixture's row lock; ``expected_version`` as in
    ``fixture_amend``."""
    plugin, codes = _plugin_and_codes(fixture)
    plugin.validate_payload(command, payload)
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    if idempotency_key is not None:
        existing = TimelineItem.objects.filter(
            fixture=fixture, source_code=source_code, idempotency_key=idempotency_key
        ).first()
        if existing is not None:
            return existing
    fixture_version_check(fixture, expected_version)
    competitors = list(fixture.competitors.all())
    state = _fold(
        plugin, fixture, competitors, effective_items(fixture, plugin.key), codes
    ).scoreboard
    plugin.check(fixture, competitors, command, payload, state, codes)
    item = timeline_append(
        fixture=fixture,
        event_type=f"{plugin.key}.{command}",
        actor=actor,
        payload=payload,
        source_code=source_code,
        idempotency_key=idempotency_key,
        participants=_participants(plugin, competitors, command, payload),
    )
    _rebuild(fixture, written=True)
    return item


def _lock_live_item(item: TimelineItem, expected_version: int | None) -> TimelineItem:
    """The item under its row lock, after its fixture's (fixture first: the order every
    fixture writer takes), checked live and the fixture at ``expected_version``."""
    if item.fixture_id is not None:
        fixture = Fixture.objects.select_for_update().get(pk=item.fixture_id)
        fixture_version_check(fixture, expected_version)
    elif expected_version is not None:
        raise ValidationError("Only a fixture's log is written against a version.")
    locked = TimelineItem.objects.select_for_update().get(pk=item.pk)
    if locked.status not in LIVE:
        raise ValidationError(
            f"Item {locked.seq} ({locked.event_type}) is {locked.get_status_display().lower()}; "
            "only a live item is voided or corrected."
        )
    return locked


@transaction.atomic
def fixture_command_correct(
    *,
    item: TimelineItem,
    payload: dict[str, Any],
    actor: Actor,
    reason: str,
    expected_version: int | None = None,
) -> TimelineItem:
    """Correct a command on a fixture's log: a new item of the same command with the
    corrected ``payload`` supersedes ``item``, which becomes SUPERSEDED; both stay. The
    correction is checked against the state just before the item's position, the whole
    live chain must still replay, and the fixture is rebuilt from it in this transaction.
    The correction is logged with who and why (``timeline.correct``). Holds the fixture's
    and the item's row locks; ``expected_version`` as in ``fixture_amend``."""
    if not reason:
        raise ValidationError({"reason": "Correcting a log item needs a reason."})
    locked = _lock_live_item(item, expected_version)
    if locked.fixture_id is None:
        raise ValidationError("Only a command on a fixture's log is corrected this way.")
    fixture = Fixture.objects.get(pk=locked.fixture_id)
    plugin, codes = _plugin_and_codes(fixture)
    if not locked.event_type.startswith(f"{plugin.key}."):
        raise ValidationError(
            f"Item {locked.seq} ({locked.event_type}) is not a {plugin.key} command; "
            "only commands are corrected."
        )
    command = locked.event_type.removeprefix(f"{plugin.key}.")
    plugin.validate_payload(command, payload)
    competitors = list(fixture.competitors.all())
    chain = effective_items(fixture, plugin.key)
    at = chain.index(next(i for i in chain if i.pk == locked.pk))
    before = _fold(plugin, fixture, competitors, chain[:at], codes).scoreboard
    plugin.check(fixture, competitors, command, payload, before, codes)
    locked.status = TimelineStatus.SUPERSEDED
    locked.save(update_fields=["status"])
    correction = timeline_append(
        fixture=fixture,
        event_type=locked.event_type,
        actor=actor,
        payload=payload,
        supersedes=locked,
        participants=_participants(plugin, competitors, command, payload),
    )
    timeline_append(
        fixture=fixture,
        event_type="timeline.correct",
        actor=actor,
        unit="record",
        payload={"corrected": locked.pk, "seq": locked.seq, "by": correction.pk, "reason": reason},
    )
    audit_person(
        actor,
        action="timeline.correct",
        entity=fixture,
        key=fixture.pk,
        detail={"before": locked.payload, "after": payload, "item": locked.pk, "reason": reason},
    )
    _rebuild(fixture, written=True)
    return correction


@transaction.atomic
def timeline_void(
    *, item: TimelineItem, actor: Actor, reason: str, expected_version: int | None = None
) -> TimelineItem:
    """Void a live item (the one change of a log row besides superseding it). The voiding
    is logged as a new item (``timeline.void``), so the log says who voided what and why.

    On a fixture's log this holds the fixture's row lock, then the item's; the fixture's
    version moves on, and when the item is one of its sport's commands the scoreboard,
    result and stat lines are rebuilt from the remaining live chain in this transaction
    (refused if that chain no longer replays). ``expected_version`` (a fixture's item only)
    is checked under the lock. Voiding a correction withdraws the fact altogether; the
    item it superseded stays superseded."""
    if not reason:
        raise ValidationError({"reason": "Voiding a log item needs a reason."})
    locked = _lock_live_item(item, expected_version)
    locked.status = TimelineStatus.VOIDED
    locked.save(update_fields=["status"])
    payload = {"voided": locked.pk, "seq": locked.seq, "reason": reason}
    if locked.fixture_id is None:
        timeline_append(
            event_type="timeline.void",
            actor=actor,
            payload=payload,
            competition=Competition.objects.get(pk=locked.stream.subject_id),
        )
        return locked
    fixture = Fixture.objects.get(pk=locked.fixture_id)
    timeline_append(fixture=fixture, event_type="timeline.void", actor=actor, payload=payload)
    audit_person(
        actor,
        action="timeline.void",
        entity=fixture,
        key=fixture.pk,
        detail={"item": locked.pk, "seq": locked.seq, "reason": reason},
    )
    definition = fixture.definition_version or definition_for(fixture.sport)
    if definition is not None and locked.event_type.startswith(
        f"{get_plugin(definition.plugin).key}."
    ):
        _rebuild(fixture, written=True)
    else:
        Fixture.objects.filter(pk=fixture.pk).update(version=F("version") + 1)
    return locked


@transaction.atomic
def fixture_rebuild(*, fixture: Fixture) -> Fixture:
    """Fold the fixture's live chain into its scoreboard, status, result, competitor
    results and stat lines. Pinned fields (on the fixture or a competitor) are left as a
    person set them. Running it twice gives identical rows (a rebuild writes no new fact,
    so the fixture's version stays)."""
    return _rebuild(fixture, written=False)


def _rebuild(fixture: Fixture, *, written: bool) -> Fixture:
    """``fixture_rebuild``; ``written``: the caller changed the log in this transaction,
    so the fixture's version moves on in the same update as the derived fields."""
    plugin, codes = _plugin_and_codes(fixture)
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    competitors = list(fixture.competitors.all())
    fold = _fold(plugin, fixture, competitors, effective_items(fixture, plugin.key), codes)
    last_seq = fixture.last_seq

    Scoreboard.objects.update_or_create(
        fixture=fixture, defaults={"state": fold.scoreboard, "seq": last_seq}
    )
    pinned = set(fixture.pinned)
    updates: dict[str, Any] = {"live_state": fold.scoreboard}
    if written:
        updates["version"] = F("version") + 1
    if fold.status and "status" not in pinned:
        updates["status"] = fold.status
    if "result" not in pinned:
        updates["result"] = fold.result
    if fold.results_official is not None and "results_official" not in pinned:
        updates["results_official"] = fold.results_official
    Fixture.objects.filter(pk=fixture.pk).update(**updates)

    for competitor in competitors:
        outcome = fold.competitors.get(competitor.pk)
        if outcome is None:
            continue
        values = {
            "rank": outcome.rank,
            "result_status": outcome.result_status or competitor.result_status,
            "status_code": outcome.status_code or "",
            "result": outcome.result,
        }
        changed = [
            k
            for k, v in values.items()
            if k not in competitor.pinned and getattr(competitor, k) != v
        ]
        if changed:
            for k in changed:
                setattr(competitor, k, values[k])
            competitor.save(update_fields=[*changed, "updated_at"])

    day = fixture_day(fixture)
    StatLine.objects.filter(fixture=fixture).delete()
    StatLine.objects.bulk_create(
        [
            StatLine(
                fixture=fixture,
                subject_id=line.subject_id,
                subject_role=line.subject_role,
                segment=line.segment,
                occurred_on=day,
                values=line.values,
                sport_id=fixture.sport_id,
                competition_id=fixture.competition_id,
                format_code=fixture.format_code,
            )
            for line in fold.stat_lines
        ]
    )
    # The cached tables that fold over this fixture go in the same transaction; the next
    # read folds them afresh from the rebuilt lines.
    if fixture.competition is not None:
        StatTable.objects.filter(
            competition__in=fixture.competition.get_ancestors(include_self=True)
        ).delete()
    fixture.refresh_from_db()
    return fixture
