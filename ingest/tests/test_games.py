"""The Games importer on the hand-made sample (ingest/samples/games): tree, results, medals,
idempotence, pins, provenance and refusal of bad input. Real-data acceptance tests are in
test_games_paris.py."""

from __future__ import annotations

import gzip
import json
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from ingest.games import GamesInputError, games_import
from ingest.samples import SAMPLE_LOADERS, SAMPLES
from sports.models import (
    Archetype,
    Competition,
    CompetitionEntry,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    Membership,
    Participant,
    ParticipantType,
    ResultStatus,
    StatLine,
    SubmissionKind,
    TableKind,
    UnmatchedRow,
)
from sports.services import fixture_amend, stat_table

GAMES = SAMPLES / "games"
SNAPSHOT_MODELS = (
    Competition,
    Fixture,
    FixtureCompetitor,
    Participant,
    ExternalIdMap,
    CompetitionEntry,
    Membership,
    StatLine,
    UnmatchedRow,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sample(django_db_setup, django_db_blocker):
    """One import for the module, in a transaction rolled back at its end; each test runs
    in a savepoint inside it, so a test may change rows freely."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield games_import(directory=GAMES, code="sample", name="Sample Games")
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture
def sample_copy(tmp_path):
    target = tmp_path / "games"
    shutil.copytree(GAMES, target)
    return target


def _fixture(code: str) -> Fixture:
    return Fixture.objects.get(code=f"sample.{code}")


def _row_state():
    """Row count and newest update time of every table the import writes."""
    state = {}
    for model in SNAPSHOT_MODELS:
        qs = model.objects.all()
        latest = None
        if hasattr(model, "updated_at"):
            latest = qs.order_by("-updated_at").values_list("updated_at", flat=True).first()
        state[model.__name__] = (qs.count(), latest)
    return state


def test_the_root_has_no_sport_and_each_discipline_node_has_its_sport(sample):
    root = Competition.objects.get(code="sample")
    assert root.sport is None and root.type == "games"
    disciplines = {n.name: n.sport.code for n in root.get_children()}
    assert disciplines == {"Athletics": "athletics", "Judo": "judo", "Swimming": "swimming"}


def test_swimming_sits_under_the_aquatics_sport(sample):
    swimming = Competition.objects.get(code="sample.swimming").sport
    assert swimming.parent is not None and swimming.parent.code == "aquatics"


def test_units_hang_off_phase_nodes_under_their_event(sample):
    final = _fixture("JUDW57KG--------------FNL-000100--")
    phase = final.competition
    assert (phase.type, phase.name) == ("phase", "Final")
    assert (phase.parent.type, phase.parent.name) == ("event", "Women -57 kg")


def test_a_two_sided_unit_is_head_to_head_and_a_field_is_ranked(sample):
    assert _fixture("JUDW57KG--------------FNL-000100--").archetype == Archetype.HEAD_TO_HEAD
    assert _fixture("SWMM100MBR------------FNL-000100--").archetype == Archetype.RANKED_FIELD


def test_win_and_loss_become_ranks_and_are_not_stored(sample):
    final = _fixture("JUDW57KG--------------FNL-000100--")
    sides = {c.participant.name: c for c in final.competitors.filter(parent__isnull=True)}
    assert (sides["TANAKA Yui"].rank, sides["MARTIN Lea"].rank) == (1, 2)
    # The source's W/L travels only as the rank: no outcome word lands in the result.
    assert all(set(c.result) <= {"mark", "mark_type", "score"} for c in sides.values())


def test_dead_heat_keeps_both_ranks(sample):
    final = _fixture("SWMM100MBR------------FNL-000100--")
    ranks = sorted(c.rank for c in final.competitors.filter(rank__isnull=False))
    assert ranks == [1, 2, 2, 4]


def test_dns_is_the_canonical_status_with_the_source_word_kept(sample):
    final = _fixture("SWMM100MBR------------FNL-000100--")
    dns = final.competitors.get(participant__name="KIPRONO Eli")
    assert (dns.result_status, dns.status_code, dns.rank) == (ResultStatus.DNS, "DNS", None)


def test_athletics_dq_is_stored_as_dsq_with_dq_kept(sample):
    final = _fixture("ATHW4X100M------------FNL-000100--")
    kenya = final.competitors.get(participant__name__startswith="Kenya", parent__isnull=True)
    assert (kenya.result_status, kenya.status_code) == (ResultStatus.DSQ, "DQ")


def test_relay_teams_carry_their_members_from_teams_csv(sample):
    final = _fixture("ATHW4X100M------------FNL-000100--")
    usa = final.competitors.get(participant__name__startswith="United States", parent__isnull=True)
    members = sorted(m.participant.name for m in usa.members.all())
    assert members == [f"USASPRINTER {n}" for n in ("Ada", "Bea", "Cleo", "Dora")]
    assert Membership.objects.filter(team=usa.participant).count() == 4


def test_each_entry_carries_the_country_it_represented(sample):
    final = _fixture("SWMM100MBR------------FNL-000100--")
    refugee = final.competitors.get(participant__name="HADDAD Sami")
    assert refugee.entry == {"country": "EOR"}
    entry = CompetitionEntry.objects.get(participant=refugee.participant)
    assert (entry.country.code, entry.competition.type) == ("EOR", "event")


def test_countries_are_commons_participants_keyed_by_noc(sample):
    eor = Participant.objects.get(code="EOR", sport__isnull=True)
    assert eor.type == ParticipantType.COUNTRY and not eor.sports.exists()


def test_athletes_and_teams_carry_olympics_external_ids(sample):
    tanaka = Participant.objects.get(name="TANAKA Yui")
    link = ExternalIdMap.objects.get(source_code="olympics", internal_id=tanaka.pk)
    assert link.external_id == "9000011"
    team = ExternalIdMap.objects.get(source_code="olympics", external_id__endswith="USA01")
    assert team.external_id == "sample/ATHW4X100M--USA01"  # team codes repeat across Games


def test_medal_table_counts_a_dead_heat_and_two_bronzes(sample):
    table = {
        r["country"]: (r["gold"], r["silver"], r["bronze"])
        for r in stat_table(node=Competition.objects.get(code="sample"), kind=TableKind.MEDALS)
    }
    assert table["GBR"] == (0, 2, 0)  # swimming silver in a dead heat + relay silver
    assert (table["BRA"], table["CAN"]) == ((0, 0, 1), (0, 0, 1))  # judo's two bronzes
    assert sum(g + s + b for g, s, b in table.values()) == 10


def test_medal_table_shares_ranks_for_equal_counts(sample):
    rows = stat_table(node=Competition.objects.get(code="sample"), kind=TableKind.MEDALS)
    rank = {r["country"]: r["rank"] for r in rows}
    assert rank["ITA"] == rank["JPN"] == 2
    assert rank["GBR"] == 4


def test_medal_table_folds_over_a_single_discipline(sample):
    judo = Competition.objects.get(code="sample.judo")
    rows = stat_table(node=judo, kind=TableKind.MEDALS)
    assert {r["country"] for r in rows} == {"JPN", "FRA", "BRA", "CAN"}


def test_each_run_records_an_accepted_submission_its_fixtures_are_first_seen_in(sample):
    submission = sample.submission
    assert submission.accepted and submission.kind == SubmissionKind.GAMES_IMPORT
    assert not Fixture.objects.filter(first_seen_in__isnull=True).exists()
    assert set(Fixture.objects.values_list("first_seen_in", flat=True)) == {submission.pk}


def test_a_second_run_changes_no_row(sample):
    before = _row_state()
    again = games_import(directory=GAMES, code="sample", name="Sample Games")
    assert _row_state() == before
    assert again.submission.pk == sample.submission.pk
    assert (again.fixtures_created, again.results_changed, again.nodes_created) == (0, 0, 0)


def test_a_field_an_editor_pinned_survives_a_reimport(sample, editor):
    final = _fixture("JUDW57KG--------------FNL-000100--")
    fixture_amend(fixture=final, changes={"name": "Judo final (edited)"}, actor=editor, reason="x")
    loser = final.competitors.get(rank=2)
    FixtureCompetitor.objects.filter(pk=loser.pk).update(rank=3, pinned=["rank"])
    games_import(directory=GAMES, code="sample", name="Sample Games")
    final.refresh_from_db()
    loser.refresh_from_db()
    assert final.name == "Judo final (edited)"
    assert loser.rank == 3


def test_changed_source_results_are_written_on_reimport(sample, sample_copy):
    path = sample_copy / "results" / "Swimming.csv"
    path.write_text(path.read_text().replace(",58.90,", ",58.80,"))
    summary = games_import(directory=sample_copy, code="sample", name="Sample Games")
    winner = _fixture("SWMM100MBR------------FNL-000100--").competitors.get(rank=1)
    assert winner.result["mark"] == "58.80"
    assert summary.results_changed == 1


def test_bad_input_names_the_file_row_and_rule_and_writes_nothing(db, sample_copy):
    path = sample_copy / "medals.csv"
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace("Silver Medal,2,", "Silver Medal,3,")
    path.write_text("\n".join(lines) + "\n")
    before = _row_state()
    with pytest.raises(GamesInputError) as caught:
        games_import(directory=sample_copy, code="other", name="Other Games")
    assert "medals.csv, row 4: medal_code '3' contradicts medal_type" in caught.value.problems
    assert _row_state() == before


def test_a_broken_head_to_head_pair_is_refused(db, sample_copy):
    path = sample_copy / "results" / "Judo.csv"
    path.write_text(path.read_text().replace(",0,POINTS,,L", ",0,POINTS,,W", 1))
    before = _row_state()
    with pytest.raises(GamesInputError) as caught:
        games_import(directory=sample_copy, code="other", name="Other Games")
    assert any("W/L/T pair" in p and "Judo.csv, row 3" in p for p in caught.value.problems)
    assert _row_state() == before


def test_a_team_member_no_file_names_is_kept_as_unmatched_with_a_reason(db, sample_copy):
    path = sample_copy / "teams.csv"
    # Give the Kenyan team a fifth code while its names list keeps four: no file names it.
    path.write_text(path.read_text().replace("'9000116']", "'9000116', '9000999']"))
    games_import(directory=sample_copy, code="other", name="Other Games")
    row = UnmatchedRow.objects.get(external_id="9000999")
    assert row.source_code == "olympics" and "teams.csv" in row.reason


def test_import_games_command_prints_the_summary(db):
    out = StringIO()
    call_command("import_games", str(GAMES), code="cmd", name="Cmd Games", verbosity=0, stdout=out)
    assert out.getvalue().startswith("games cmd: 3 disciplines, 3 events, 10 medals")


def test_import_games_command_reports_bad_input_as_an_error(db, tmp_path):
    with pytest.raises(CommandError, match="holds none of the Games files"):
        call_command("import_games", str(tmp_path), code="x", name="X", verbosity=0)


def test_medal_table_command_prints_json_rows(sample):
    out = StringIO()
    call_command("medal_table", "sample.swimming", json=True, stdout=out)
    rows = json.loads(out.getvalue())
    assert rows[0] == {"rank": 1, "country": "ITA", "gold": 1, "silver": 0, "bronze": 0, "total": 1}
    assert [r["rank"] for r in rows] == [1, 2, 2]


def test_medal_table_command_refuses_an_unknown_code(db):
    with pytest.raises(CommandError, match="No competition has the code"):
        call_command("medal_table", "nowhere")


def test_import_games_task_runs_the_importer(db):
    from ingest.sports_tasks import import_games_task

    line = import_games_task.apply(args=[str(GAMES), "task", "Task Games"]).get()
    assert line.startswith("games task:")
    assert Competition.objects.filter(code="task", sport__isnull=True).exists()


def test_the_sample_games_loader_is_registered_and_idempotent(db):
    loader = dict(SAMPLE_LOADERS)["Sample Games (hand-made)"]
    loader()
    before = _row_state()
    loader()
    assert _row_state() == before


def test_medal_table_command_refuses_a_node_outside_a_games_tree(db):
    from sports.services import competition_create
    from sports.tests.factories import FootballFactory

    competition_create(
        code="league-x", name="League", type="league", sport=FootballFactory(), actor="test"
    )
    with pytest.raises(CommandError, match="multi-sport Games tree"):
        call_command("medal_table", "league-x")


def test_a_file_present_both_plain_and_gzipped_is_refused(db, sample_copy):
    plain = sample_copy / "medals.csv"
    (sample_copy / "medals.csv.gz").write_bytes(gzip.compress(plain.read_bytes()))
    with pytest.raises(GamesInputError, match="keep one of the two"):
        games_import(directory=sample_copy, code="other", name="Other Games")


def test_gzipped_files_are_read_like_plain_ones(sample, tmp_path):
    target = tmp_path / "gz"
    (target / "results").mkdir(parents=True)
    for path in GAMES.rglob("*.csv"):
        packed = target / path.relative_to(GAMES).with_suffix(".csv.gz")
        packed.write_bytes(gzip.compress(path.read_bytes()))
    summary = games_import(directory=target, code="gz", name="Gzipped Games")
    assert (summary.events, summary.medals, summary.fixtures_created) == (3, 10, 8)


def test_events_csv_naming_a_discipline_its_own_way_joins_the_results_discipline(db, sample_copy):
    path = sample_copy / "events.csv"
    path.write_text(path.read_text().replace(",Swimming,SWM,", ",Swimming Pool,SWM,"))
    games_import(directory=sample_copy, code="other", name="Other Games")
    names = set(Competition.objects.get(code="other").get_children().values_list("name", flat=True))
    assert names == {"Athletics", "Judo", "Swimming"}
    link = ExternalIdMap.objects.get(source_code="olympics", external_id="other/SWM")
    assert Competition.objects.get(pk=link.internal_id).name == "Swimming"


def test_a_row_with_more_fields_than_the_header_is_refused(db, sample_copy):
    path = sample_copy / "nocs.csv"
    path.write_text(path.read_text().replace("AUS,Australia,", "AUS,Australia,extra,", 1))
    with pytest.raises(GamesInputError) as caught:
        games_import(directory=sample_copy, code="other", name="Other Games")
    assert caught.value.problems == ["nocs.csv, row 2: has more fields than the header has columns"]
