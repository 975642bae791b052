"""A batch carrying a revised file of a known match goes through the same diff as the
import: balls added or removed and innings and match facts are shown for review and, once
approved, applied with the batch's reason (947101: a committed Cricsheet sample)."""

import json

import pytest

from cricket.models import Delivery, Innings
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import ItemOutcome, PublicationOutcome
from ingest.batches.selectors import correction_diff
from ingest.cricsheet.importer import Importer
from omnium.testing import REPO_ROOT
from sports.models import Fixture, FixtureAmendment

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
MATCH = "947101"
SAMPLE = REPO_ROOT / "ingest" / "samples" / "cricket" / f"{MATCH}.json"


@pytest.fixture
def match():
    seed_dismissal_kinds()
    result = Importer().import_file(SAMPLE.read_bytes(), filename=f"{MATCH}.json")
    assert result.outcome == "new", result.error
    return Fixture.objects.get(pk=result.fixture_id)


def _revised() -> bytes:
    doc = json.loads(SAMPLE.read_bytes())
    doc["innings"][0]["overs"][0]["deliveries"].pop(0)
    doc["innings"][0]["penalty_runs"] = {"post": 8}
    doc["info"]["outcome"]["by"] = {"runs": 3}
    return json.dumps(doc).encode()


def test_a_batch_revision_shows_and_applies_a_removed_ball_penalty_runs_and_the_outcome(
    match, submitter, reviewer
):
    batch, _ = services.batch_submit(
        submitter=submitter, files=[(f"{MATCH}.json", _revised())], idempotency_key="revision"
    )
    batch = services.batch_validate(batch=batch)
    item = batch.items.get()
    assert item.outcome == ItemOutcome.VALID, item.problems
    diff = correction_diff(item)
    assert [(d.innings, d.over, d.position) for d in diff if d.proposed == "removed"] == [(1, 0, 0)]
    assert {d.field for d in diff if d.kind == "fact"} == {
        "innings 1 penalty_runs_post",
        "match result",
    }
    live = Delivery.objects.current().filter(innings__fixture=match).count()

    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="checked")
    batch = services.batch_publish(batch=batch, worker="w1")
    item = batch.items.get()
    assert item.publication == PublicationOutcome.PUBLISHED, item.publication_error
    assert Delivery.objects.current().filter(innings__fixture=match).count() == live - 1
    assert Innings.objects.get(fixture=match, ordinal=1).penalty_runs_post == 8
    match.refresh_from_db()
    assert match.result["by"] == {"runs": 3}
    reasons = set(FixtureAmendment.objects.filter(fixture=match).values_list("reason", flat=True))
    assert reasons == {f"batch {batch.pk}: source revision"}
    tombstone = Delivery.objects.get(innings__fixture=match, removed=True)
    assert item.published_deliveries.filter(pk=tombstone.pk).exists()
