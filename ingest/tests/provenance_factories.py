"""Published batches for provenance tests: staged, validated, approved and published through
the batch services, then the statistic lines built (the refresh task's work, done inline).

The batch's submitter and reviewer act on every competition (a grant on "*"); tests of who
may trace use another reviewer, ``reviewer_without_grants``, and give it grants of their
own."""

from __future__ import annotations

from accounts.access import competition_grant_set
from accounts.models import Role
from accounts.tests.factories import StaffFactory
from cricket.stats.engine import lines_rebuild
from cricket.stats.models import CricketBattingLine
from ingest.batches import services
from ingest.batches.models import Batch
from ingest.tests.batch_factories import BatchFactory, sample
from sports.models import EntityType, ExternalIdMap

REASON = "checked against the printed scorecard"
# Two county T20s a season apart in which CD Nash made 30 and then 112.
NASH_MATCHES = ("947101", "947121")
NASH_REGISTRY_ID = "6f049d41"


def published_batch(*, submitter, reviewer, match_ids=(), files=()) -> Batch:
    """A batch of the sample matches ``match_ids`` and any other ``files`` (name, bytes),
    published; a file of a match already published from other bytes is a correction."""
    for user in (submitter, reviewer):
        competition_grant_set(user=user, competition=None, role=user.role, actor=None)
    files = [*(sample(m) for m in match_ids), *files]
    batch = BatchFactory(submitter=submitter, files=files)
    services.batch_validate(batch=batch)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason=REASON)
    batch = services.batch_publish(batch=batch, worker="provenance-test")
    lines_rebuild(fixture_ids=list(batch.items.values_list("fixture_id", flat=True)))
    return batch


def top_batting_line(fixture_id) -> CricketBattingLine:
    """The fixture's highest score: a line with runs to trace."""
    return (
        CricketBattingLine.objects.filter(fixture_id=fixture_id)
        .select_related("participant", "competition")
        .order_by("-runs", "participant__name")
        .first()
    )


def participant_of(registry_id: str):
    from sports.models import Participant

    internal = ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id=registry_id
    ).internal_id
    return Participant.objects.get(pk=internal)


def reviewer_without_grants():
    """A reviewer who has reviewed nothing here and holds no grant yet."""
    return StaffFactory(username="scoped-reviewer", role=Role.REVIEWER)
