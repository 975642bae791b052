"""The one refresh path: dependencies, data versions, snapshots and a precise rebuild."""

import time

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from cricket.models import Delivery
from cricket.stats.aggregates import (
    Scope,
    career_table,
    careers,
    participant_snapshots,
    snapshots_rebuild,
)
from cricket.stats.engine import lines_rebuild, lines_stale
from cricket.stats.models import (
    ParticipantAggregateSnapshot,
    ParticipantStatisticsVersion,
    RefreshScope,
    StatisticsRefresh,
)
from cricket.stats.refresh import (
    statistics_invalidate_all,
    statistics_rebuild_all,
    statistics_refresh,
    statistics_refresh_run,
)
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Participant

pytestmark = pytest.mark.django_db

A, X = "aaaa0001", "bbbb0001"


def _two_matches():
    first = import_match(document(innings([ball(runs=4), ball(runs=1)])))
    second = import_match(document(innings([ball(runs=2)]), day="2024-06-01"))
    statistics_rebuild_all(reason="test", actor="integration:test")
    return first, second


def _everything() -> dict:
    """Every figure of every participant in the default and super-over scopes."""
    return {
        (mode, row["registry_id"], figure): value
        for mode in ("exclude", "only")
        for row in careers(Scope(super_overs=mode))
        for figure, value in row.items()
        if figure not in ("participant_id", "name")
    }


def _correct(delivery: Delivery, **changes) -> Delivery:
    """A new live revision of ``delivery`` with ``changes`` (what the correction service
    does: supersede the live row, insert the next revision inheriting its identity)."""
    now = timezone.now()
    Delivery.objects.filter(pk=delivery.pk).update(is_current=False, superseded_at=now)
    fields = {
        f.attname: getattr(delivery, f.attname)
        for f in Delivery._meta.concrete_fields
        if f.attname not in ("id", "superseded_by_id", "superseded_at", "supersedes_id")
    }
    fields.update(changes, revision=delivery.revision + 1, is_current=True)
    fields["runs_total"] = fields["runs_batter"] + fields["runs_extras"]
    new = Delivery.objects.create(supersedes_id=delivery.pk, **fields)
    Delivery.objects.filter(pk=delivery.pk).update(superseded_by=new)
    return new


def _refresh_now(fixture, reason="correction"):
    refresh = statistics_refresh(fixture_ids=[fixture.pk], reason=reason, actor="editor:test")
    return statistics_refresh_run(refresh_id=refresh.pk)


def test_a_refresh_records_its_fixture_season_competition_and_career_scopes():
    first, _ = _two_matches()
    refresh = statistics_refresh(fixture_ids=[first.pk], reason="import", actor="integration:t")
    scopes = {(d.scope) for d in refresh.dependencies.all()}
    assert scopes == {"fixture", "season", "competition", "career"}
    season = refresh.dependencies.get(scope=RefreshScope.SEASON).competition
    assert (season.type, season.name) == ("season", "2024")
    assert refresh.dependencies.filter(scope=RefreshScope.CAREER).count() == 6


def test_a_refresh_bumps_the_data_version_of_exactly_the_named_participants():
    first, _ = _two_matches()
    before = dict(ParticipantStatisticsVersion.objects.values_list("participant", "data_version"))
    refresh = statistics_refresh(fixture_ids=[first.pk], reason="import", actor="integration:t")
    after = dict(ParticipantStatisticsVersion.objects.values_list("participant", "data_version"))
    named = set(refresh.dependencies.filter(scope="career").values_list("participant", flat=True))
    assert {p for p in after if after[p] != before.get(p)} == named


def test_a_refresh_makes_exactly_its_fixtures_lines_stale_until_its_run():
    first, second = _two_matches()
    assert lines_stale(fixture_ids=[first.pk, second.pk]) == []
    refresh = statistics_refresh(fixture_ids=[first.pk], reason="import", actor="integration:t")
    assert lines_stale(fixture_ids=[first.pk, second.pk]) == [str(first.pk)]
    statistics_refresh_run(refresh_id=refresh.pk)
    assert lines_stale(fixture_ids=[first.pk, second.pk]) == []


def test_the_task_is_enqueued_only_when_the_writing_transaction_commits(
    django_capture_on_commit_callbacks,
):
    first, _ = _two_matches()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        statistics_refresh(fixture_ids=[first.pk], reason="import", actor="integration:t")
    assert len(callbacks) == 1


def test_a_refresh_without_a_reason_is_refused_with_nothing_written():
    first, _ = _two_matches()
    with pytest.raises(ValidationError, match="reason"):
        statistics_refresh(fixture_ids=[first.pk], reason=" ", actor="integration:t")
    assert StatisticsRefresh.objects.filter(reason="").count() == 0


def test_correcting_one_delivery_changes_exactly_the_dependent_figures_and_back():
    first, _ = _two_matches()
    before = _everything()
    four = Delivery.objects.current().get(innings__fixture=first, runs_batter=4)
    corrected = _correct(four, runs_batter=6)
    _refresh_now(first)
    after = _everything()
    changed = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    assert changed == {
        ("exclude", A, "runs"): (7, 9),
        ("exclude", A, "fours"): (1, 0),
        ("exclude", A, "sixes"): (0, 1),
        ("exclude", A, "highest"): (5, 7),
        ("exclude", A, "strike_rate"): (233.33, 300.0),
        ("exclude", X, "runs_conceded"): (7, 9),
        ("exclude", X, "economy"): (14.0, 18.0),
    }
    _correct(corrected, runs_batter=4)
    _refresh_now(first)
    assert _everything() == before
    assert Delivery.objects.filter(source_event_id=four.source_event_id).count() == 3


def test_snapshots_go_stale_at_the_refresh_and_valid_again_after_its_run():
    first, _ = _two_matches()
    a_id = careers(Scope(), ordering="-runs", limit=1)[0]["participant_id"]
    assert participant_snapshots(a_id) is not None
    four = Delivery.objects.current().get(innings__fixture=first, runs_batter=4)
    _correct(four, runs_batter=0)
    refresh = statistics_refresh(fixture_ids=[first.pk], reason="fix", actor="integration:t")
    assert participant_snapshots(a_id) is None  # stale: the version moved on
    table = {row["participant_id"]: row for row in career_table()}
    assert table[a_id]["runs"] == 7  # lines not rebuilt yet: folded live, not from a snapshot
    statistics_refresh_run(refresh_id=refresh.pk)
    career = next(
        s["row"]
        for s in participant_snapshots(a_id)
        if s["level"] == "career" and not s["format_code"]
    )
    assert career["runs"] == 3
    assert {row["participant_id"]: row["runs"] for row in career_table()}[a_id] == 3


def test_the_wholesale_invalidation_removes_every_snapshot_and_reads_fold_live():
    _two_matches()
    expected = sorted((r["participant_id"], r["runs"]) for r in career_table())
    assert statistics_invalidate_all(reason="raw fix", actor="integration:t") > 0
    assert not ParticipantAggregateSnapshot.objects.exists()
    assert sorted((r["participant_id"], r["runs"]) for r in career_table()) == expected


def test_the_wholesale_invalidation_makes_every_fixtures_lines_stale():
    first, second = _two_matches()
    statistics_invalidate_all(reason="raw fix", actor="integration:t")
    assert lines_stale(fixture_ids=[first.pk, second.pk]) == sorted([str(first.pk), str(second.pk)])


def test_a_merged_participant_counts_for_the_survivor():
    _two_matches()
    other = import_match(
        document(
            innings([ball("Q Batter", runs=9)]),
            players={"Home": ["Q Batter", "B Batter"], "Away": ["X Bowler"]},
            registry={"Q Batter": "eeee0001", "B Batter": "aaaa0002", "X Bowler": X},
        )
    )
    lines_rebuild(fixture_ids=[other.pk])
    rows = {r["registry_id"]: r for r in careers(Scope())}
    survivor, loser = rows[A]["participant_id"], rows["eeee0001"]["participant_id"]
    Participant.objects.filter(pk=loser).update(merged_into=survivor)
    refresh = statistics_refresh(
        fixture_ids=[other.pk], participant_ids=[survivor, loser], reason="merge", actor="t:t"
    )
    statistics_refresh_run(refresh_id=refresh.pk)
    rows = {r["participant_id"]: r for r in careers(Scope())}
    assert loser not in rows
    assert (rows[survivor]["runs"], rows[survivor]["matches"]) == (16, 3)


def test_a_competition_scope_reads_its_whole_subtree():
    first, _ = _two_matches()
    root = first.competition.get_root()
    assert careers(Scope(competition_id=root.pk), participant_ids=None)[0]["runs"] == 7
    assert careers(Scope(competition_id=first.competition_id))[0]["runs"] == 7


def test_snapshots_are_rebuilt_for_the_named_participants_only():
    _two_matches()
    untouched = ParticipantAggregateSnapshot.objects.exclude(
        participant__in=Participant.objects.filter(name="A Batter")
    ).values_list("id", flat=True)
    ids_before = set(untouched)
    snapshots_rebuild(
        participant_ids=Participant.objects.filter(name="A Batter").values_list("pk", flat=True)
    )
    assert set(untouched) == ids_before


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_refresh_enqueued_on_commit(celery_worker_process, settings):
    from cricket.tests.factories import seed_dismissal_kinds

    seed_dismissal_kinds()
    settings.STATISTICS_REFRESH_QUEUE = celery_worker_process.queue
    fixture = import_match(document(innings([ball(runs=4)])))
    refresh = statistics_refresh(fixture_ids=[fixture.pk], reason="import", actor="integration:t")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        refresh.refresh_from_db()
        if refresh.status != "pending":
            break
        time.sleep(0.2)
    assert refresh.status == "done", refresh.error
    assert careers(Scope())[0]["runs"] == 4
    assert lines_stale(fixture_ids=[fixture.pk]) == []
    assert participant_snapshots(careers(Scope())[0]["participant_id"]) is not None


def test_a_new_definition_version_makes_every_snapshot_stale(monkeypatch):
    from cricket.stats import aggregates

    _two_matches()
    a_id = careers(Scope(), ordering="-runs", limit=1)[0]["participant_id"]
    assert participant_snapshots(a_id) is not None
    monkeypatch.setattr(aggregates, "DEFINITION_VERSION", aggregates.DEFINITION_VERSION + 1)
    assert participant_snapshots(a_id) is None
    assert {r["participant_id"]: r["runs"] for r in career_table()}[a_id] == 7
