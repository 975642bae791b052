"""submit_batch and review_batch: the services from a shell, with clear refusals."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches.models import Batch, BatchState
from ingest.tests.batch_factories import SAMPLES, SMALL
from sports.models import Fixture

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
PATHS = [str(SAMPLES / f"{m}.json") for m in SMALL]


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _submit(*args) -> str:
    out, err = StringIO(), StringIO()
    call_command("submit_batch", *args, stdout=out, stderr=err)
    return out.getvalue().strip()


def test_submit_batch_prints_the_id_of_a_validated_batch(submitter):
    batch_id = _submit(*PATHS, "--as", "submitter")
    batch = Batch.objects.get(pk=batch_id)
    assert (batch.submitter, batch.state) == (submitter, BatchState.AWAITING_REVIEW)
    assert batch.items.count() == 2


def test_submitting_the_same_files_again_gives_the_same_batch(submitter):
    assert _submit(*PATHS, "--as", "submitter") == _submit(*PATHS, "--as", "submitter")
    assert Batch.objects.count() == 1


def test_a_viewer_is_refused_with_a_message(viewer):
    with pytest.raises(CommandError, match="may not submit"):
        _submit(*PATHS, "--as", "viewer")


def test_an_unknown_competition_is_named(submitter):
    with pytest.raises(CommandError, match="nowhere"):
        _submit(*PATHS, "--as", "submitter", "--competition", "nowhere")


def test_review_batch_refuses_the_submitter_their_own_batch(editor):
    batch_id = _submit(*PATHS, "--as", "editor")
    with pytest.raises(CommandError, match="own batch"):
        call_command("review_batch", batch_id, "--approve", "--reason", "mine", "--as", "editor")
    assert Batch.objects.get(pk=batch_id).state == BatchState.AWAITING_REVIEW


def test_review_batch_approval_publishes(submitter, reviewer):
    batch_id = _submit(*PATHS, "--as", "submitter")
    out = StringIO()
    call_command(
        "review_batch", batch_id, "--approve", "--reason", "ok", "--as", "reviewer", stdout=out
    )
    assert out.getvalue().strip() == f"batch {batch_id}: published"
    assert Fixture.objects.public().count() == 2


def test_review_batch_rejection_publishes_nothing(submitter, reviewer):
    batch_id = _submit(*PATHS, "--as", "submitter")
    call_command(
        "review_batch",
        batch_id,
        "--reject",
        "--reason",
        "no",
        "--as",
        "reviewer",
        stdout=StringIO(),
    )
    assert Batch.objects.get(pk=batch_id).state == BatchState.REJECTED
    assert not Fixture.objects.exists()


def test_review_batch_names_an_unknown_batch(reviewer):
    with pytest.raises(CommandError, match="No batch"):
        call_command("review_batch", "nope", "--reject", "--reason", "x", "--as", "reviewer")
