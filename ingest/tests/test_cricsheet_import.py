"""The import over real Cricsheet files: a sample that hits every edge case listed in the
data README, imported once per module, compared with direct counts from the JSON."""

import json
import tarfile

import pytest
from django.db import transaction
from django.db.models import Count, Max, Q, Sum
from django.db.models.functions import Coalesce

from cricket.models import (
    Delivery,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
    FixtureOfficial,
    Innings,
    InningsMiscountedOver,
)
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import Importer, Outcome, match_id_of
from omnium.testing import SHARED_DATA
from sports.models import (
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    ParticipantAlias,
    Submission,
    TimelineItem,
)

TARBALL = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"

# Each id is here for the edge case beside it (README "Edge cases" and "Quirks").
SAMPLE = {
    "63963": "Test, draw, multi-fielder wickets, handled the ball",
    "64012": "Test, miscounted_overs with balls as a string, declarations",
    "64013": "Test with four innings, an over bowled by two bowlers",
    "64052": "penalty extras on a delivery, a short over that is not the last",
    "64053": "absent hurt",
    "64059": "wicket on a wide or no-ball",
    "64820": "winner by runs, D/L",
    "64864": "no result",
    "64924": "a plain tie",
    "213288": "supersubs, match replacements",
    "225258": "awarded",
    "237242": "tie decided by a bowl-out",
    "343729": "reviews",
    "366707": "tie decided by a super over",
    "543882": "penalty with wides on one delivery",
    "551066": "fielder with no name (a substitute)",
    "727927": "two wickets on one delivery (stumped, retired hurt)",
    "804705": "winner with no margin",
    "947101": "penalty runs after the innings",
    "947121": "penalty runs before the innings",
    "1075507": "byes with a no-ball",
    "1216517": "four super-over innings",
    "1226909": "NR Sciver (renamed later)",
    "1252666": "The Hundred: five-ball overs",
    "1383095": "two wickets on one delivery (caught, retired hurt)",
    "1383461": "method VJD",
    "1384429": "two wickets on one delivery (caught, timed out)",
    "1384544": "eight legal balls in an over",
    "1398272": "NR Sciver-Brunt (same registry id)",
    "1402765": "nineteen deliveries in one over",
    "1474411": "tie, eliminator, D/L",
    "wi_211973": "a match id that is not a number",
}


@pytest.fixture(scope="module")
def sample_dir(tmp_path_factory):
    if not TARBALL.is_file():
        pytest.skip(f"Cricsheet dev corpus not present at {TARBALL}")
    target = tmp_path_factory.mktemp("cricsheet")
    wanted = {f"{match_id}.json" for match_id in SAMPLE}
    with tarfile.open(TARBALL, "r|gz") as archive:
        for member in archive:
            if member.name in wanted:
                (target / member.name).write_bytes(archive.extractfile(member).read())
                wanted.discard(member.name)
                if not wanted:
                    break
    assert not wanted, f"missing from the corpus: {sorted(wanted)}"
    return target


@pytest.fixture(scope="module")
def documents(sample_dir):
    return {path.stem: json.loads(path.read_bytes()) for path in sample_dir.glob("*.json")}


@pytest.fixture(scope="module")
def imported(sample_dir, django_db_setup, django_db_blocker):
    """The sample imported once for the module, inside a transaction rolled back at the end
    (each test runs in a savepoint within it)."""
    with django_db_blocker.unblock(), transaction.atomic():
        seed_dismissal_kinds()
        summary = Importer().run([sample_dir])
        yield summary
        transaction.set_rollback(True)


@pytest.fixture
def fixtures_by_id(imported, db):
    rows = ExternalIdMap.objects.filter(source_code="cricsheet", entity_type=EntityType.FIXTURE)
    return {r.external_id: Fixture.objects.get(pk=r.internal_id) for r in rows}


def _legal(delivery: dict) -> bool:
    extras = delivery.get("extras", {})
    return extras.get("wides", 0) <= 0 and extras.get("noballs", 0) <= 0


def test_every_sample_file_is_imported_as_one_new_fixture(imported, db):
    assert imported.rejections == []
    assert (imported.new, imported.rejected) == (len(SAMPLE), 0)
    assert Fixture.objects.filter(sport__code="cricket").count() == len(SAMPLE)


def test_innings_and_deliveries_equal_what_the_files_contain(documents, fixtures_by_id):
    for match_id, doc in documents.items():
        fixture = fixtures_by_id[match_id]
        innings = list(fixture.innings.order_by("ordinal"))
        assert [i.super_over for i in innings] == [
            bool(i.get("super_over")) for i in doc["innings"]
        ], match_id
        for row, inning in zip(innings, doc["innings"], strict=True):
            in_file = sum(len(o["deliveries"]) for o in inning.get("overs", []))
            assert row.deliveries.count() == in_file, (match_id, row.ordinal)
    expected = sum(
        len(o["deliveries"]) for d in documents.values() for i in d["innings"] for o in i["overs"]
    )
    assert Delivery.objects.current().count() == expected


def test_every_innings_total_wickets_and_legal_balls_equal_a_direct_count(
    documents, fixtures_by_id
):
    legal = (Q(deliveries__extra_wides__isnull=True) | Q(deliveries__extra_wides=0)) & (
        Q(deliveries__extra_noballs__isnull=True) | Q(deliveries__extra_noballs=0)
    )
    for match_id, doc in documents.items():
        stored = {
            row["ordinal"]: row
            for row in Innings.objects.filter(fixture=fixtures_by_id[match_id])
            .annotate(
                runs=Coalesce(Sum("deliveries__runs_total"), 0),
                legal=Count("deliveries", filter=legal),
            )
            .values("ordinal", "runs", "legal", "penalty_runs_pre", "penalty_runs_post")
        }
        wickets = dict(
            DeliveryWicket.objects.filter(delivery__innings__fixture=fixtures_by_id[match_id])
            .values_list("delivery__innings__ordinal")
            .annotate(n=Count("id"))
        )
        for ordinal, inning in enumerate(doc["innings"], start=1):
            balls = [d for o in inning.get("overs", []) for d in o["deliveries"]]
            penalty = sum((inning.get("penalty_runs") or {}).values())
            row = stored[ordinal]
            total = row["runs"] + (row["penalty_runs_pre"] or 0) + (row["penalty_runs_post"] or 0)
            assert total == sum(d["runs"]["total"] for d in balls) + penalty, (match_id, ordinal)
            assert row["legal"] == sum(_legal(d) for d in balls), (match_id, ordinal)
            assert wickets.get(ordinal, 0) == sum(len(d.get("wickets", [])) for d in balls)


def test_the_nineteen_delivery_over_keeps_every_ball_at_its_own_position(fixtures_by_id):
    over = Delivery.objects.filter(
        innings__fixture=fixtures_by_id["1402765"], innings__ordinal=1, over_number=5
    ).order_by("position")
    assert [d.position for d in over] == list(range(19))
    labels = [d.ball_label for d in over]
    assert labels.count(labels[0]) > 1  # the printed label repeats: identity is the array position
    assert [d.sequence for d in over] == sorted(d.sequence for d in over)


def test_four_super_over_innings_are_kept_and_flagged(fixtures_by_id):
    innings = fixtures_by_id["1216517"].innings.order_by("ordinal")
    assert [i.super_over for i in innings] == [False, False, True, True, True, True]


def test_two_wickets_on_one_delivery_are_two_rows(fixtures_by_id):
    # Counted by wicket, not by an aggregate over delivery rows: deliveries are partitioned,
    # so their primary key is (id, occurred_on) and PostgreSQL groups by it, not by id.
    twice = (
        DeliveryWicket.objects.filter(delivery__innings__fixture=fixtures_by_id["1384429"])
        .values("delivery_id")
        .annotate(n=Count("id"))
        .filter(n=2)
        .values("delivery_id")
    )
    doubled = Delivery.objects.get(pk__in=twice)
    assert sorted(w.kind_raw for w in doubled.wickets.all()) == ["caught", "timed out"]


def test_a_nameless_fielder_is_a_substitute_with_no_participant(fixtures_by_id):
    fielders = DeliveryWicketFielder.objects.filter(
        wicket__delivery__innings__fixture=fixtures_by_id["551066"], participant__isnull=True
    )
    assert fielders.exists()
    assert all(f.substitute for f in fielders)


def test_a_wicket_can_name_several_fielders(fixtures_by_id):
    assert (
        DeliveryWicket.objects.filter(delivery__innings__fixture=fixtures_by_id["63963"])
        .annotate(n=Count("fielders"))
        .filter(n__gt=1)
        .exists()
    )


def test_a_renamed_player_is_one_participant_with_both_names_as_aliases(fixtures_by_id):
    link = ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id="f3a18a0c"
    )
    names = set(
        ParticipantAlias.objects.filter(participant_id=link.internal_id).values_list(
            "name", flat=True
        )
    )
    assert {"NR Sciver", "NR Sciver-Brunt"} <= names
    for match_id in ("1226909", "1398272"):
        assert FixtureCompetitor.objects.filter(
            fixture=fixtures_by_id[match_id], participant_id=link.internal_id
        ).exists()


def test_extras_keep_penalty_alongside_wides_and_innings_penalty_runs(fixtures_by_id):
    assert Delivery.objects.filter(
        innings__fixture=fixtures_by_id["543882"], extra_penalty__gt=0, extra_wides__gt=0
    ).exists()
    assert fixtures_by_id["947121"].innings.filter(penalty_runs_pre__gt=0).exists()
    assert fixtures_by_id["947101"].innings.filter(penalty_runs_post__gt=0).exists()


def test_miscounted_overs_are_typed_whether_the_file_wrote_a_string_or_a_number(
    documents, fixtures_by_id
):
    stored = {
        (m.innings.ordinal, m.over_number): m.balls
        for m in InningsMiscountedOver.objects.filter(
            innings__fixture=fixtures_by_id["64012"]
        ).select_related("innings")
    }
    expected = {
        (i, int(over)): int(value["balls"])
        for i, inning in enumerate(documents["64012"]["innings"], start=1)
        for over, value in (inning.get("miscounted_overs") or {}).items()
    }
    assert stored == expected and stored


def test_the_hundred_keeps_five_balls_per_over_in_format(fixtures_by_id):
    assert fixtures_by_id["1252666"].format["balls_per_over"] == 5


@pytest.mark.parametrize(
    ("match_id", "outcome", "ranks"),
    [
        ("63963", "draw", [1, 1]),
        ("64924", "draw", [1, 1]),
        ("64864", "no_result", [None, None]),
        ("366707", "win", [1, 2]),
        ("237242", "win", [1, 2]),
        ("804705", "win", [1, 2]),
    ],
)
def test_every_outcome_shape_becomes_ranks_and_a_result(fixtures_by_id, match_id, outcome, ranks):
    fixture = fixtures_by_id[match_id]
    assert fixture.result["outcome"] == outcome
    sides = fixture.competitors.filter(parent__isnull=True)
    assert sorted(sides.values_list("rank", flat=True), key=lambda r: r or 0) == ranks


def test_a_tie_decided_by_a_super_over_says_so(fixtures_by_id):
    result = fixtures_by_id["366707"].result
    assert (result["tie"], result["decided_by"]) == (True, "eliminator")


def test_an_awarded_match_carries_the_awarded_win_method(fixtures_by_id):
    winner = fixtures_by_id["225258"].competitors.get(parent__isnull=True, rank=1)
    assert winner.win_method == "AWARDED"


def test_side_tables_are_filled_from_the_files(fixtures_by_id):
    assert DeliveryReview.objects.filter(
        delivery__innings__fixture=fixtures_by_id["343729"]
    ).exists()
    assert DeliveryReplacement.objects.filter(
        delivery__innings__fixture=fixtures_by_id["213288"], kind="match"
    ).exists()
    assert (
        FixtureCompetitor.objects.filter(fixture=fixtures_by_id["213288"], slot="supersub").count()
        == 2
    )
    assert (
        FixtureOfficial.objects.filter(fixture=fixtures_by_id["63963"], role="umpire").count() == 2
    )


def test_each_file_is_a_submission_and_the_fixtures_first_appearance(documents, fixtures_by_id):
    for fixture in fixtures_by_id.values():
        submission = fixture.first_seen_in
        assert submission.accepted and submission.kind == "corpus_import"
        assert len(submission.sha256) == 64 and submission.byte_size > 0
        assert (
            TimelineItem.objects.filter(fixture=fixture, event_type="cricket.import").count() == 1
        )


def test_a_second_import_writes_nothing(sample_dir, fixtures_by_id):
    tables = (
        Fixture,
        Innings,
        Delivery,
        DeliveryWicket,
        Submission,
        TimelineItem,
        ParticipantAlias,
    )
    before = [m.objects.count() for m in tables]

    def stamps():
        return (
            Fixture.objects.aggregate(Max("updated_at"), Max("last_seq")),
            Innings.objects.aggregate(Max("updated_at")),
            FixtureCompetitor.objects.aggregate(Max("updated_at")),
            ExternalIdMap.objects.aggregate(Max("updated_at")),
            ParticipantAlias.objects.aggregate(Max("last_seen")),
        )

    before_stamps = stamps()
    again = Importer().run([sample_dir])
    assert (again.unchanged, again.new, again.rejected) == (len(SAMPLE), 0, 0)
    assert [m.objects.count() for m in tables] == before
    assert stamps() == before_stamps


def _revised(sample_dir, change):
    doc = json.loads((sample_dir / "64924.json").read_bytes())
    change(doc)
    return json.dumps(doc).encode()


def _one_more_run(doc):
    ball = doc["innings"][0]["overs"][0]["deliveries"][0]
    ball["runs"]["batter"] += 1
    ball["runs"]["total"] += 1


def test_a_changed_file_for_a_known_match_corrects_exactly_the_balls_that_differ(
    sample_dir, fixtures_by_id
):
    fixture = fixtures_by_id["64924"]
    live = Delivery.objects.current().filter(innings__fixture=fixture)
    first = live.get(innings__ordinal=1, over_number=0, position=0)
    before = Delivery.objects.count()
    result = Importer().import_file(_revised(sample_dir, _one_more_run), filename="64924.json")
    assert result.outcome == Outcome.UPDATED, result.error
    assert Delivery.objects.count() == before + 1
    now = live.get(innings__ordinal=1, over_number=0, position=0)
    assert (now.revision, now.runs_batter) == (2, first.runs_batter + 1)
    assert now.source_event_id == first.source_event_id and now.sequence == first.sequence


def test_the_same_revised_file_again_changes_nothing(sample_dir, fixtures_by_id):
    raw = _revised(sample_dir, _one_more_run)
    Importer().import_file(raw, filename="64924.json")
    before = Delivery.objects.count(), Submission.objects.count()
    again = Importer().import_file(raw, filename="64924.json")
    assert again.outcome == Outcome.UNCHANGED
    assert (Delivery.objects.count(), Submission.objects.count()) == before


def test_a_revised_file_that_only_renames_a_player_corrects_nothing_and_keeps_the_new_name(
    sample_dir, fixtures_by_id
):
    doc = json.loads((sample_dir / "64924.json").read_bytes())
    old_name = next(iter(doc["info"]["registry"]["people"]))
    raw = json.dumps(doc).replace(f'"{old_name}"', '"A Renamed Player"').encode()
    before = Delivery.objects.count()
    result = Importer().import_file(raw, filename="64924.json")
    assert result.outcome == Outcome.UNCHANGED, result.error
    assert Delivery.objects.count() == before
    assert ParticipantAlias.objects.filter(name="A Renamed Player").exists()


def test_a_revised_file_that_drops_a_ball_removes_it_by_a_tombstone_and_deletes_nothing(
    sample_dir, fixtures_by_id
):
    def drop_a_ball(doc):
        doc["innings"][0]["overs"][0]["deliveries"].pop()

    fixture = fixtures_by_id["64924"]
    live = Delivery.objects.filter(innings__fixture=fixture, is_current=True)
    before_live, before_rows = live.count(), Delivery.objects.count()
    result = Importer().import_file(_revised(sample_dir, drop_a_ball), filename="64924.json")
    assert result.outcome == Outcome.UPDATED, result.error
    assert live.count() == before_live - 1
    assert Delivery.objects.count() > before_rows


def test_match_ids_are_taken_from_file_and_member_names():
    assert match_id_of("dev.tar.gz:wi_211973.json") == "wi_211973"
    assert match_id_of("/data/odis/1402765.json") == "1402765"


def test_the_competition_tree_is_event_then_season_or_a_node_per_format(fixtures_by_id):
    ipl = fixtures_by_id["1216517"].competition
    assert [n.name for n in ipl.get_ancestors(include_self=True)] == [
        "Indian Premier League",
        "2020/21",
    ]
    no_event = fixtures_by_id["237242"].competition.get_root()
    assert (no_event.name, no_event.type) == ("T20 matches (men, international)", "format")
    women = fixtures_by_id["1398272"].competition.get_root()
    assert women.name.endswith("(women)") or "Women" in women.name


def test_every_scorecard_total_and_wicket_count_agrees_with_the_file(documents, fixtures_by_id):
    from cricket.selectors import fixture_scorecard

    kinds_not_out = {"retired hurt", "retired not out"}
    for match_id, doc in documents.items():
        cards = fixture_scorecard(fixtures_by_id[match_id])
        for card, inning in zip(cards, doc["innings"], strict=True):
            balls = [d for o in inning.get("overs", []) for d in o["deliveries"]]
            penalty = sum((inning.get("penalty_runs") or {}).values())
            out = sum(w["kind"] not in kinds_not_out for d in balls for w in d.get("wickets", []))
            assert card.runs == sum(d["runs"]["total"] for d in balls) + penalty, match_id
            assert card.wickets == out, (match_id, card.ordinal)
            assert card.legal_balls == sum(_legal(d) for d in balls), (match_id, card.ordinal)


_CREDITS_BOWLER = {"bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket"}
_NOT_OUT = {"retired hurt", "retired not out"}


def _card_from_file(doc: dict, inning: dict, participant_of: dict) -> dict:
    """One innings' scorecard counted straight from the file (not by the engine): batting
    order and figures, bowling order and figures, and each fall of wicket."""
    from cricket.selectors import overs_text

    people = {name: participant_of[rid] for name, rid in doc["info"]["registry"]["people"].items()}
    per_over = doc["info"].get("balls_per_over", 6)
    batting: dict = {}
    bowling: dict = {}
    falls = []
    score, legal = (inning.get("penalty_runs") or {}).get("pre", 0), 0
    for ball in (b for o in inning.get("overs", []) for b in o["deliveries"]):
        extras = ball.get("extras", {})
        wide, noball = extras.get("wides", 0) > 0, extras.get("noballs", 0) > 0
        striker = batting.setdefault(people[ball["batter"]], [0, 0])
        batting.setdefault(people[ball["non_striker"]], [0, 0])
        striker[0] += ball["runs"]["batter"]
        striker[1] += not wide
        bowler = bowling.setdefault(people[ball["bowler"]], [0, 0, 0])
        bowler[0] += not (wide or noball)
        bowler[1] += ball["runs"]["batter"] + extras.get("wides", 0) + extras.get("noballs", 0)
        if wide:
            bowler[1] += extras.get("byes", 0) + extras.get("legbyes", 0)
        score += ball["runs"]["total"]
        legal += not (wide or noball)
        for wicket in ball.get("wickets", []):
            out = people[wicket["player_out"]]
            batting.setdefault(out, [0, 0])
            bowler[2] += wicket["kind"] in _CREDITS_BOWLER
            if wicket["kind"] not in _NOT_OUT:
                falls.append((len(falls) + 1, score, out, overs_text(legal, per_over)))
    return {
        "batting": [(pid, *figures) for pid, figures in batting.items()],
        "bowling": [(pid, *figures) for pid, figures in bowling.items()],
        "falls": falls,
    }


def test_every_scorecard_line_and_fall_of_wicket_agrees_with_the_file(documents, fixtures_by_id):
    from cricket.selectors import fixture_scorecard

    participant_of = dict(
        ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.PARTICIPANT
        ).values_list("external_id", "internal_id")
    )
    for match_id, doc in documents.items():
        cards = fixture_scorecard(fixtures_by_id[match_id])
        for card, inning in zip(cards, doc["innings"], strict=True):
            expected = _card_from_file(doc, inning, participant_of)
            place = (match_id, card.ordinal)
            assert [(b.participant_id, b.runs, b.balls) for b in card.batting] == expected[
                "batting"
            ], place
            assert [
                (b.participant_id, b.legal_balls, b.runs, b.wickets) for b in card.bowling
            ] == expected["bowling"], place
            assert [
                (f.number, f.runs, f.participant_id, f.over) for f in card.fall_of_wickets
            ] == expected["falls"], place


def test_a_substitute_fielder_is_shown_as_a_substitute_on_the_scorecard(fixtures_by_id):
    from cricket.selectors import fixture_scorecard

    super_over = fixture_scorecard(fixtures_by_id["1216517"])[2]
    assert "c sub (AS Roy) b JJ Bumrah" in [line.how_out for line in super_over.batting]
