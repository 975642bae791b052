"""The scorecard's worm and manhattan, against figures read straight from the source file."""

import json

import pytest
from django.urls import reverse

from cricket.charts import scorecard_charts
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import import_bytes
from omnium.testing import REPO_ROOT
from sports.models import Fixture

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"


def imported(match_id: str):
    seed_dismissal_kinds()
    raw = (SAMPLES / f"{match_id}.json").read_bytes()
    result = import_bytes(raw, filename=f"{match_id}.json")
    assert result.outcome == "new", result.error
    return Fixture.objects.get(pk=result.fixture_id), json.loads(raw)


def _file_overs(document):
    """Per regular innings: runs per over and whether a dismissal (not a retirement) fell."""
    out = []
    for innings in document["innings"]:
        if innings.get("super_over"):
            continue
        overs = []
        for over in innings["overs"]:
            runs = sum(d["runs"]["total"] for d in over["deliveries"])
            out_ = any(
                w["kind"] not in ("retired hurt", "retired not out")
                for d in over["deliveries"]
                for w in d.get("wickets", [])
            )
            overs.append((runs, out_))
        out.append(overs)
    return out


def test_the_worm_ends_at_each_innings_total_of_its_deliveries_over_by_over():
    fixture, document = imported("213288")
    worm, _ = scorecard_charts(fixture.pk, {1: "England", 2: "Australia"})
    for series, overs in zip(worm.series, _file_overs(document), strict=True):
        drawn = [v for v in series.values if v is not None]
        assert len(drawn) == len(overs)
        running = 0
        for value, (runs, _) in zip(drawn, overs, strict=True):
            running += runs
            assert value == running


def test_the_manhattan_marks_exactly_the_overs_in_which_a_batter_was_dismissed():
    fixture, document = imported("213288")
    _, manhattan = scorecard_charts(fixture.pk, {1: "England", 2: "Australia"})
    for series, overs in zip(manhattan.series, _file_overs(document), strict=True):
        assert list(series.marks) == [i for i, (_, fell) in enumerate(overs) if fell]
        assert [v for v in series.values if v is not None] == [runs for runs, _ in overs]


def test_a_side_batting_twice_is_named_by_its_innings():
    fixture, _ = imported("64013")
    worm, _ = scorecard_charts(
        fixture.pk, {1: "England", 2: "Australia", 3: "England", 4: "Australia"}
    )
    assert [s.label for s in worm.series] == [
        "England, 1st innings",
        "Australia, 1st innings",
        "England, 2nd innings",
        "Australia, 2nd innings",
    ]


def test_super_overs_are_left_out_of_the_charts():
    fixture, _ = imported("1216517")
    worm, manhattan = scorecard_charts(fixture.pk, {1: "Mumbai Indians", 2: "Kings XI Punjab"})
    assert len(worm.series) == len(manhattan.series) == 2
    assert worm.labels == [str(n) for n in range(1, 21)]


def test_the_scorecard_page_holds_both_charts_with_their_table_fallbacks(client):
    fixture, _ = imported("213288")
    page = client.get(reverse("cricket:scorecard", args=[fixture.pk]))
    html = page.content.decode()
    assert 'data-chart="worm" data-points="50,35"' in html
    assert 'data-chart="manhattan" data-points="50,35"' in html
    assert html.count("The figures as a table") == 2
