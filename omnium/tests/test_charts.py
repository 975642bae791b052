"""The chart component's data: points drawn, the table fallback, and refused shapes."""

import pytest

from omnium.charts import Chart, Series


def test_points_count_only_drawn_values_per_series():
    chart = Chart(
        key="k",
        title="t",
        summary="s",
        labels=["1", "2", "3"],
        series=[Series("a", [1, 2, 3]), Series("b", [4, None, None])],
    )
    assert chart.points == "3,1"


def test_the_table_fallback_has_a_row_per_label_with_notes():
    chart = Chart(
        key="k",
        title="t",
        summary="s",
        labels=["1", "2"],
        series=[Series("a", [7, 3.5], marks=[1], notes=["", "1 wicket"])],
    )
    assert chart.rows == [("1", ["7"]), ("2", ["3.5 (1 wicket)"])]


def test_a_series_of_another_length_than_the_labels_is_refused():
    with pytest.raises(ValueError, match="has 1 points for 2 labels"):
        Chart(key="k", title="t", summary="s", labels=["1", "2"], series=[Series("a", [1])])


def test_a_mark_outside_the_series_is_refused():
    with pytest.raises(ValueError, match="mark is outside"):
        Series("a", [1, 2], marks=[2])
