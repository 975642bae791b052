"""Two editors correcting one delivery at once, on two real PostgreSQL connections."""

import json
import threading

import pytest
from django.db import connection

from cricket.corrections import CorrectionConflict, delivery_correct
from cricket.models import Delivery, DeliveryCorrectionHistory
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_concurrent_corrections_of_one_delivery_one_wins_the_other_conflicts(editor):
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    target = Delivery.objects.current().get(
        innings__fixture_id=result.fixture_id, over_number=1, position=0
    )
    barrier = threading.Barrier(2)
    outcomes: dict[int, object] = {}

    def correct(runs):
        try:
            barrier.wait(timeout=30)
            outcomes[runs] = delivery_correct(
                delivery=target,
                changes={"runs_batter": runs},
                reason=f"it was {runs}",
                actor=editor,
            )
        except Exception as exc:  # the test inspects it
            outcomes[runs] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=correct, args=(runs,)) for runs in (3, 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    conflicts = [o for o in outcomes.values() if isinstance(o, CorrectionConflict)]
    winners = [o for o in outcomes.values() if not isinstance(o, Exception)]
    assert len(conflicts) == 1 and len(winners) == 1, outcomes
    assert "already corrected" in str(conflicts[0])
    rows = Delivery.objects.filter(source_event_id=target.source_event_id)
    assert sorted(rows.values_list("revision", "is_current")) == [(1, False), (2, True)]
    assert rows.get(is_current=True).runs_batter == winners[0].delivery.runs_batter
    assert DeliveryCorrectionHistory.objects.count() == 1
