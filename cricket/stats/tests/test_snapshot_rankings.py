"""A format's ranking of players read from the career snapshots equals the live fold of
the lines, whatever the state of the snapshots: valid, stale after a refresh, or left
behind by a merge."""

import pytest
from django.utils import timezone

from cricket.models import Delivery
from cricket.stats import figures
from cricket.stats.engine import lines_rebuild
from cricket.stats.query import StatsQuery
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Participant
from sports.services import participant_merge

pytestmark = pytest.mark.django_db

# (view, parameters): rankings the snapshots answer, by a format or by every format.
RANKINGS = [
    ("batting", {"format": "T20"}),
    ("batting", {"format": "t20", "min_innings": "2", "ordering": "-average"}),
    ("batting", {"ordering": "name"}),
    ("bowling", {"format": "T20", "min_balls": "2", "ordering": "economy"}),
    ("bowling", {"ordering": "-best_wickets"}),
    ("fielding", {"format": "ODI"}),
]


def _matches():
    out = {"player_out": "A Batter", "kind": "caught", "fielders": [{"name": "Z Keeper"}]}
    first = import_match(
        document(innings([ball(runs=4), ball(runs=1), ball(wickets=[out])]), match_type="T20")
    )
    import_match(
        document(
            innings([ball(runs=6), ball(bowler="Y Bowler", runs=2)]),
            innings([ball(batter="C Batter", runs=3)], team="Away"),
            match_type="T20",
            day="2024-06-01",
        )
    )
    import_match(document(innings([ball(runs=2), ball(wickets=[out])]), match_type="ODI"))
    statistics_rebuild_all(reason="test", actor="integration:test")
    return first


def _live(query: StatsQuery, monkeypatch) -> list[dict]:
    with monkeypatch.context() as patch:
        patch.setattr(figures, "_format_ranking", lambda query: None)
        return figures.player_rows(query, limit=50)


@pytest.mark.parametrize(("view", "params"), RANKINGS)
def test_a_format_ranking_from_valid_snapshots_equals_the_live_fold(
    view, params, monkeypatch, django_assert_num_queries
):
    _matches()
    query = StatsQuery.parse(params, view=view)
    with django_assert_num_queries(1):  # the ranking, stale snapshots and all
        rows = figures.player_rows(query, limit=50)
    assert rows
    assert rows == _live(query, monkeypatch)


def test_a_player_whose_snapshot_is_stale_is_folded_live_into_the_ranking(
    monkeypatch, django_assert_num_queries
):
    first = _matches()
    four = Delivery.objects.current().get(innings__fixture=first, runs_batter=4)
    Delivery.objects.filter(pk=four.pk).update(is_current=False, superseded_at=timezone.now())
    statistics_refresh(fixture_ids=[first.pk], reason="fix", actor="integration:test")
    lines_rebuild(fixture_ids=[first.pk])  # the lines move on; the snapshots wait for the run
    query = StatsQuery.parse({"format": "T20"}, view="batting")
    with django_assert_num_queries(1):  # the ranking, the stale player folded within
        rows = figures.player_rows(query, limit=50)
    assert {r["name"]: r["runs"] for r in rows}["A Batter"] == 9  # 13 in the stale snapshot
    assert rows == _live(query, monkeypatch)


def test_a_merge_after_the_build_folds_the_survivor_live(monkeypatch):
    _matches()
    loser = Participant.objects.get(name="C Batter")
    survivor = Participant.objects.get(name="A Batter")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one person")
    query = StatsQuery.parse({"format": "T20"}, view="batting")
    rows = figures.player_rows(query, limit=50)
    assert "C Batter" not in {r["name"] for r in rows}
    assert {r["name"]: r["runs"] for r in rows}["A Batter"] == 16
    assert rows == _live(query, monkeypatch)


def test_a_query_with_any_other_filter_folds_the_lines_live():
    assert figures._format_ranking(StatsQuery.parse({"format": "T20"}, view="batting"))
    for params in ({"format": "T20", "gender": "male"}, {"group_by": "season"},
                   {"season": "2024"}, {"as_of": "now"}, {"innings": "1"}):  # fmt: skip
        assert figures._format_ranking(StatsQuery.parse(params, view="batting")) is None
