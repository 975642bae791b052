"""The public trace page: each career figure links to the deliveries that make it."""

import pytest
from django.urls import reverse

from cricket.stats.refresh import statistics_lines_ensure
from cricket.stats.selectors import player_career
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import import_bytes
from omnium.testing import REPO_ROOT
from sports.models import Fixture

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"


@pytest.fixture
def odi():
    seed_dismissal_kinds()
    raw = (SAMPLES / "213288.json").read_bytes()
    result = import_bytes(raw, filename="213288.json")
    assert result.outcome == "new", result.error
    statistics_lines_ensure(fixture_ids=[result.fixture_id])
    return Fixture.objects.get(pk=result.fixture_id)


def _top(odi, field):
    from cricket.stats.models import CricketBattingLine, CricketBowlingLine

    model = CricketBattingLine if field == "runs" else CricketBowlingLine
    order = "-runs" if field == "runs" else "-wickets"
    return model.objects.filter(fixture=odi).order_by(order).first().participant


@pytest.mark.parametrize("figure", ["runs", "balls_faced", "fours", "wickets", "runs_conceded"])
def test_the_trace_adds_up_to_the_career_figure_it_is_linked_from(client, odi, figure):
    side = "runs" if figure in ("runs", "balls_faced", "fours") else "wickets"
    player = _top(odi, side)
    career = {row["format"]: row for row in player_career(player)["formats"]}["ODI"]
    response = client.get(
        reverse("cricket_stats:trace", args=[player.pk]), {"figure": figure, "match_type": "ODI"}
    )
    assert response.status_code == 200
    assert response.context["total"] == career[figure]
    assert reverse("cricket:scorecard", args=[odi.pk]) in response.content.decode()


def test_the_player_page_links_each_figure_to_its_trace(client, odi):
    player = _top(odi, "runs")
    html = client.get(reverse("cricket_stats:player", args=[player.pk])).content.decode()
    trace = reverse("cricket_stats:trace", args=[player.pk])
    assert f'href="{trace}?figure=runs&amp;match_type=ODI"' in html


def test_the_public_trace_names_no_submitter_reviewer_or_stored_object(client, odi):
    player = _top(odi, "runs")
    html = client.get(
        reverse("cricket_stats:trace", args=[player.pk]), {"figure": "runs"}
    ).content.decode()
    submission = odi.first_seen_in
    assert submission.original_filename in html
    for hidden in ("stored_object", "reviewed_by", "submitted_by"):
        assert hidden not in html


def test_an_unknown_figure_is_refused_naming_the_choices(client, odi):
    player = _top(odi, "runs")
    response = client.get(reverse("cricket_stats:trace", args=[player.pk]), {"figure": "x"})
    assert response.status_code == 400
    assert b"figure: must be one of" in response.content


def test_the_trace_page_costs_a_fixed_number_of_queries(client, odi, django_assert_num_queries):
    player = _top(odi, "runs")
    url = reverse("cricket_stats:trace", args=[player.pk])
    # The player, the rows merged into them, the scoped lines and the grouped deliveries.
    with django_assert_num_queries(4):
        client.get(url, {"figure": "runs"})
