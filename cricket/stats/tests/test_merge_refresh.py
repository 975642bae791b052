"""A participant merge is a write to statistic inputs: it queues the refresh of the
survivor's career in its own transaction, reads until then fold the survivor live (over
both players' lines) and say the career is stale, and after the run the survivor's
snapshot holds both players' lines and the loser has no row of its own."""

import time

import pytest
from django.db import transaction
from django.urls import reverse

from cricket.stats.aggregates import (
    FIGURES,
    Scope,
    career_table,
    careers,
    participant_snapshots,
)
from cricket.stats.models import (
    ParticipantAggregateSnapshot,
    RefreshScope,
    RefreshStatus,
    StatisticsRefresh,
)
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh_run
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Participant
from sports.services import participant_merge

pytestmark = pytest.mark.django_db


def _two_players():
    """A Batter makes 4 + 1 and C Batter 3 (two matches), snapshots built; (loser, survivor)."""
    import_match(document(innings([ball(runs=4), ball(runs=1)])))
    import_match(document(innings([ball(batter="C Batter", runs=3)]), day="2024-06-01"))
    statistics_rebuild_all(reason="test", actor="integration:test")
    for owed in StatisticsRefresh.objects.filter(status=RefreshStatus.PENDING):
        statistics_refresh_run(refresh_id=owed.pk)  # the imports' own: nothing is owed
    return Participant.objects.get(name="C Batter"), Participant.objects.get(name="A Batter")


def _merge(loser, survivor):
    return participant_merge(loser=loser, survivor=survivor, actor="editor:t", note="one person")


def _merge_refresh() -> StatisticsRefresh:
    return StatisticsRefresh.objects.get(reason__startswith="participant merge")


def _figures(table) -> dict:
    """Every figure of every row, by participant (the stored rows carry no name)."""
    return {row["participant_id"]: {f: row[f] for f in FIGURES} for row in table}


def _runs(table) -> dict:
    return {row["participant_id"]: row["runs"] for row in table}


def test_a_merge_queues_a_refresh_of_the_survivors_career_sent_on_commit(
    django_capture_on_commit_callbacks,
):
    loser, survivor = _two_players()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _merge(loser, survivor)
    refresh = _merge_refresh()
    assert refresh.status == RefreshStatus.PENDING
    careers_owed = refresh.dependencies.filter(scope=RefreshScope.CAREER)
    assert set(careers_owed.values_list("participant_id", flat=True)) == {survivor.pk}
    assert len(callbacks) == 1  # the refresh's task, sent once the merge commits


def test_the_refresh_is_queued_in_the_merges_transaction_and_rolls_back_with_it():
    loser, survivor = _two_players()
    with pytest.raises(RuntimeError), transaction.atomic():
        _merge(loser, survivor)
        assert _merge_refresh().status == RefreshStatus.PENDING
        raise RuntimeError("the merge's transaction fails after the merge")
    assert not StatisticsRefresh.objects.filter(reason__startswith="participant merge").exists()


def test_after_the_refresh_the_survivors_career_is_the_live_fold_of_both_players():
    loser, survivor = _two_players()
    _merge(loser, survivor)
    statistics_refresh_run(refresh_id=_merge_refresh().pk)
    live = careers(Scope())
    assert _runs(live)[survivor.pk] == 8
    assert _figures(career_table()) == _figures(live)
    stored = participant_snapshots(survivor.pk)
    assert stored is not None  # the run made the survivor's snapshot valid again
    assert (
        next(s for s in stored if s["level"] == "career" and not s["format_code"])["row"]["runs"]
        == 8
    )


def test_after_the_refresh_the_loser_has_no_row_of_its_own():
    loser, survivor = _two_players()
    _merge(loser, survivor)
    statistics_refresh_run(refresh_id=_merge_refresh().pk)
    assert not ParticipantAggregateSnapshot.objects.filter(participant=loser).exists()
    assert loser.pk not in _runs(career_table())


def test_before_the_refresh_the_career_table_folds_the_survivor_over_both_players():
    loser, survivor = _two_players()
    _merge(loser, survivor)
    table = _runs(career_table())
    assert table[survivor.pk] == 8  # 5 in the survivor's stored snapshot
    assert loser.pk not in table  # its stored rows are still there, unread


def test_before_the_refresh_the_career_api_folds_live_and_says_it_is_stale(anon_client):
    loser, survivor = _two_players()
    _merge(loser, survivor)
    for pk in (survivor.pk, loser.pk):  # the loser's id answers as the survivor
        body = anon_client.get(reverse("cricket-player-career", kwargs={"pk": pk})).json()
        assert body["id"] == str(survivor.pk)
        assert body["stale"] is True
        assert body["refresh_queued_at"] is not None
        assert {row["format"]: row["runs"] for row in body["formats"]}["all"] == 8


def test_a_merge_recorded_without_a_refresh_is_still_folded_into_the_survivor():
    # A merge written before merges queued refreshes: the loser's rows stay, the survivor's
    # snapshot is valid by its version but lacks the loser's lines.
    loser, survivor = _two_players()
    Participant.objects.filter(pk=loser.pk).update(merged_into=survivor)
    assert participant_snapshots(survivor.pk) is None
    table = _runs(career_table())
    assert table[survivor.pk] == 8
    assert loser.pk not in table


def test_a_merge_of_a_pair_without_cricket_figures_queues_nothing():
    loser, _survivor = _two_players()
    other = Participant.objects.create(code="no-figures-1", name="No Figures", type=loser.type)
    twin = Participant.objects.create(code="no-figures-2", name="No Figures", type=loser.type)
    _merge(other, twin)
    assert not StatisticsRefresh.objects.filter(reason__startswith="participant merge").exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_refresh_a_merge_queued(celery_worker_process, settings):
    from cricket.tests.factories import seed_dismissal_kinds

    seed_dismissal_kinds()
    settings.STATISTICS_REFRESH_QUEUE = celery_worker_process.queue
    loser, survivor = _two_players()
    _merge(loser, survivor)
    refresh = _merge_refresh()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        refresh.refresh_from_db()
        if refresh.status != RefreshStatus.PENDING:
            break
        time.sleep(0.2)
    assert refresh.status == RefreshStatus.DONE, refresh.error
    assert participant_snapshots(survivor.pk) is not None
    assert not ParticipantAggregateSnapshot.objects.filter(participant=loser).exists()


def test_a_merge_changes_the_leaderboards_answer_and_says_it_is_stale_until_the_run(
    anon_client,
):
    loser, survivor = _two_players()
    url = reverse("cricket-leaderboard-batting")
    first = anon_client.get(url)
    assert first.json()["stale"] is False
    _merge(loser, survivor)
    after = anon_client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200  # not the stored answer that lists the loser apart
    body = after.json()
    assert body["stale"] is True
    runs = {r["name"]: r["runs"] for r in body["results"]}
    assert runs["A Batter"] == 8
    assert "C Batter" not in runs
    statistics_refresh_run(refresh_id=_merge_refresh().pk)
    assert anon_client.get(url).json()["stale"] is False
