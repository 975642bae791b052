"""``match_load`` writes a whole Cricsheet match through cricket alone, without the
importer that reads files: the document, its submission and an actor are all it needs."""

import hashlib
import json

import pytest
from django.db import IntegrityError

from cricket.loading import MatchLoader, MatchSubmission, match_load
from cricket.models import Delivery, Innings
from cricket.tests.factories import seed_dismissal_kinds
from omnium.testing import REPO_ROOT
from sports.models import Fixture, Submission, SubmissionKind

SAMPLE = REPO_ROOT / "ingest" / "samples" / "cricket" / "1075507.json"
ACTOR = "integration:cricsheet"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _load(raw: bytes, *, loader: MatchLoader | None = None):
    return match_load(
        document=json.loads(raw),
        match_id="1075507",
        sha256=hashlib.sha256(raw).hexdigest(),
        submission=MatchSubmission(
            kind=SubmissionKind.CORPUS_IMPORT, content=raw, original_filename="1075507.json"
        ),
        actor=ACTOR,
        loader=loader,
    )


def test_match_load_writes_the_fixture_its_innings_and_every_delivery():
    raw = SAMPLE.read_bytes()
    document = json.loads(raw)
    balls = sum(len(o["deliveries"]) for i in document["innings"] for o in i.get("overs", []))
    loaded = _load(raw)
    assert loaded.deliveries == balls
    assert Delivery.objects.filter(innings__fixture=loaded.fixture).count() == balls
    assert Innings.objects.filter(fixture=loaded.fixture).count() == len(document["innings"])


def test_match_load_records_the_file_as_the_fixtures_first_accepted_submission():
    raw = SAMPLE.read_bytes()
    submission = _load(raw).fixture.first_seen_in
    assert (submission.original_filename, submission.accepted) == ("1075507.json", True)
    assert submission.sha256 == hashlib.sha256(raw).hexdigest()


def test_a_match_id_loaded_twice_is_refused_and_the_second_load_writes_nothing():
    raw = SAMPLE.read_bytes()
    loader = MatchLoader()
    _load(raw, loader=loader)
    # The match id is the fixture's external id, unique per source.
    with pytest.raises(IntegrityError, match="uq_external_id"):
        _load(raw, loader=loader)
    assert (Fixture.objects.count(), Submission.objects.count()) == (1, 1)
