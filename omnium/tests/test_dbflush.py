"""The suite's flush empties what a transactional test wrote and keeps the truncate guards."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from sports.models import Competition, Fixture, Sport, TimelineItem
from sports.services import timeline_append
from sports.tests.factories import FixtureFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _flush():
    # What a transactional test's teardown asks for.
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)


def _triggers_enabled() -> set[str]:
    """The states of the schema's own triggers (the append-only guards among them)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tgenabled FROM pg_trigger WHERE NOT tgisinternal")
        return {state for (state,) in cursor.fetchall()}


def test_the_flush_empties_written_tables_append_only_and_partitioned_ones_included():
    fixture = FixtureFactory()
    timeline_append(fixture=fixture, event_type="test.tick", actor="writer")
    _flush()
    assert not TimelineItem.objects.exists()
    assert not Fixture.objects.exists() and not Competition.objects.exists()
    assert not Sport.objects.exists()
    assert _triggers_enabled() == {"O"}


def test_the_flush_restores_what_post_migrate_makes():
    _flush()
    assert ContentType.objects.filter(app_label="sports", model="fixture").exists()
