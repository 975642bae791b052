"""A revised source file for a known match, applied as corrections: only what changed."""

import copy
import json

import pytest

from cricket.models import Delivery, DeliveryCorrectionHistory, DeliveryWicket
from cricket.source_revisions import SOURCE_REVISION, fixture_corrections_from_source
from cricket.tests.factories import SubmissionFactory, seed_dismissal_kinds
from ingest.cricsheet.importer import import_bytes
from ingest.cricsheet.validate import load
from omnium.testing import REPO_ROOT
from sports.models import Fixture, Participant

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"
ACTOR = "integration:cricsheet"


def imported(match_id):
    seed_dismissal_kinds()
    raw = (SAMPLES / f"{match_id}.json").read_bytes()
    result = import_bytes(raw, filename=f"{match_id}.json")
    assert result.outcome == "new", result.error
    document = load(raw, filename=f"{match_id}.json", match_id=match_id)
    return Fixture.objects.get(pk=result.fixture_id), document


def revise(document, change):
    revised = copy.deepcopy(document)
    change(revised)
    # What the importer will hand over: the revised file, validated whole.
    return load(json.dumps(revised).encode(), filename="revised.json", match_id="x")


def apply(fixture, document):
    return fixture_corrections_from_source(
        fixture=fixture, document=document, submission=SubmissionFactory(), actor=ACTOR
    )


def rows(fixture):
    return Delivery.objects.filter(innings__fixture=fixture).count()


@pytest.mark.parametrize(
    "match_id",
    [
        "1226909",  # small women's match
        "1075507",  # reviews, byes with a no-ball
        "1383461",  # replacements
        "551066",  # a substitute fielder with no name
    ],
)
def test_the_same_file_again_corrects_nothing(match_id):
    fixture, document = imported(match_id)
    before = rows(fixture)
    assert apply(fixture, document).corrections == []
    assert rows(fixture) == before


def test_one_changed_ball_gets_one_new_revision_with_the_source_revision_reason():
    fixture, document = imported("1226909")

    def four_not_one(doc):
        doc["innings"][0]["overs"][0]["deliveries"][0]["runs"] = {
            "batter": 4,
            "extras": 0,
            "total": 4,
        }

    before = rows(fixture)
    submission = SubmissionFactory()
    result = fixture_corrections_from_source(
        fixture=fixture, document=revise(document, four_not_one), submission=submission, actor=ACTOR
    )
    assert len(result.corrections) == 1
    assert rows(fixture) == before + 1
    new = result.corrections[0].delivery
    assert (new.over_number, new.position, new.revision, new.runs_total) == (0, 0, 2, 4)
    history = DeliveryCorrectionHistory.objects.get()
    assert (history.reason, history.correction_submission) == (SOURCE_REVISION, submission)
    assert history.requested_by is None and history.requested_by_label == ACTOR
    assert result.participant_ids == result.corrections[0].participant_ids


def test_a_changed_catcher_corrects_the_wicket_only():
    fixture, document = imported("1226909")

    def other_catcher(doc):
        wicket = doc["innings"][0]["overs"][1]["deliveries"][3]["wickets"][0]
        wicket["fielders"] = [{"name": "MM Lanning"}]

    result = apply(fixture, revise(document, other_catcher))
    assert len(result.corrections) == 1
    wicket = DeliveryWicket.objects.get(delivery=result.corrections[0].delivery)
    assert [f.participant.name for f in wicket.fielders.all()] == ["MM Lanning"]
    assert wicket.player_out.name == "TT Beaumont"


def test_a_renamed_player_with_the_same_registry_id_changes_nothing():
    fixture, document = imported("1226909")

    def rename(doc):
        registry = doc["info"]["registry"]["people"]
        registry["NR Sciver-Brunt"] = registry.pop("NR Sciver")
        players = doc["info"]["players"]["Melbourne Stars"]
        players[players.index("NR Sciver")] = "NR Sciver-Brunt"
        for over in doc["innings"][0]["overs"]:
            for ball in over["deliveries"]:
                for key in ("batter", "bowler", "non_striker"):
                    if ball[key] == "NR Sciver":
                        ball[key] = "NR Sciver-Brunt"
                for wicket in ball.get("wickets", []):
                    for fielder in wicket.get("fielders", []):
                        if fielder.get("name") == "NR Sciver":
                            fielder["name"] = "NR Sciver-Brunt"

    before = rows(fixture)
    assert apply(fixture, revise(document, rename)).corrections == []
    assert rows(fixture) == before
    sciver = Participant.objects.get(aliases__name="NR Sciver-Brunt")
    assert sciver.aliases.filter(name="NR Sciver").exists()


def test_a_changed_review_is_a_correction_of_its_ball():
    fixture, document = imported("1075507")
    place = next(
        (i, k, d)
        for i, inning in enumerate(document["innings"])
        for k, over in enumerate(inning["overs"])
        for d, ball in enumerate(over["deliveries"])
        if "review" in ball
    )

    def overturn(doc):
        i, k, d = place
        review = doc["innings"][i]["overs"][k]["deliveries"][d]["review"]
        review["decision"] = "upheld" if review["decision"] != "upheld" else "struck down"

    result = apply(fixture, revise(document, overturn))
    (correction,) = result.corrections
    assert correction.delivery.review.decision != correction.previous.review.decision
    assert correction.history.reason == SOURCE_REVISION


def test_a_ball_turned_into_a_wide_relabels_the_over_and_all_is_one_transaction():
    fixture, document = imported("1226909")

    def wide(doc):
        ball = doc["innings"][0]["overs"][0]["deliveries"][1]
        ball["extras"] = {"wides": 1}
        ball["runs"] = {"batter": 0, "extras": 1, "total": 1}
        later = doc["innings"][0]["overs"][0]["deliveries"][4]
        later["runs"] = {"batter": 2, "extras": 0, "total": 2}

    result = apply(fixture, revise(document, wide))
    assert [c.delivery.position for c in result.corrections] == [1, 4]
    labels = list(
        Delivery.objects.current()
        .filter(innings__fixture=fixture, over_number=0)
        .order_by("position")
        .values_list("ball_label", flat=True)
    )
    assert labels == ["0.1", "0.2", "0.2", "0.3", "0.4", "0.5"]
    live_fifth = Delivery.objects.current().get(innings__fixture=fixture, over_number=0, position=4)
    assert (live_fifth.runs_batter, live_fifth.revision) == (2, 3)  # relabelled, then corrected


def _first(document, key):
    return next(
        (i, k, d)
        for i, inning in enumerate(document["innings"])
        for k, over in enumerate(inning["overs"])
        for d, ball in enumerate(over["deliveries"])
        if key in ball
    )


def test_changed_replacements_are_a_correction_of_their_ball():
    fixture, document = imported("1383461")
    i, k, d = _first(document, "replacements")

    def other_reason(doc):
        entries = doc["innings"][i]["overs"][k]["deliveries"][d]["replacements"]
        kind = next(iter(entries))
        entries[kind][0]["reason"] = "a different reason"

    result = apply(fixture, revise(document, other_reason))
    (correction,) = result.corrections
    reasons = set(correction.delivery.replacements.values_list("reason", flat=True))
    assert "a different reason" in reasons
    assert correction.previous.replacements.exclude(reason="a different reason").exists()


def test_a_removed_wicket_in_the_file_removes_it_from_the_live_ball():
    fixture, document = imported("1226909")

    def not_out(doc):
        del doc["innings"][0]["overs"][2]["deliveries"][3]["wickets"]

    result = apply(fixture, revise(document, not_out))
    assert len(result.corrections) == 1
    assert not DeliveryWicket.objects.filter(delivery=result.corrections[0].delivery).exists()
    assert result.participant_ids >= {
        Participant.objects.get(aliases__name="R Trenaman").pk,
        Participant.objects.get(aliases__name="NR Sciver").pk,
    }
