import csv
import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from omnium.csvfiles import SafeWriter, csv_cell


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_text_cell_a_spreadsheet_would_evaluate_is_written_as_text(start):
    assert csv_cell(f"{start}HYPERLINK(1)") == f"'{start}HYPERLINK(1)"


def test_numbers_and_plain_text_are_written_as_they_are():
    assert [csv_cell(v) for v in (-5, 1.5, "Ann", "")] == [-5, 1.5, "Ann", ""]


def test_the_writer_neutralises_every_cell_of_every_row():
    out = io.StringIO()
    SafeWriter(out).writerows([["=1+1", "ok"], ["+cmd|x", 3]])
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [["'=1+1", "ok"], ["'+cmd|x", "3"]]


@pytest.mark.django_db
def test_export_subscribers_writes_a_formula_name_as_text(tmp_path):
    from accounts.models import Subscriber

    # The subscriber as a confirmed signup leaves it (the export reads subscribers only).
    Subscriber.objects.create(
        email="eve@example.org",
        consent_text="yes",
        consent_at=timezone.now(),
        first_name="=HYPERLINK(1)",
    )
    target = tmp_path / "list.csv"
    call_command("export_subscribers", output=str(target), stderr=io.StringIO())
    (row,) = csv.DictReader(target.open())
    assert row["first_name"] == "'=HYPERLINK(1)"
