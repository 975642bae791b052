"""The cricket console: every page renders and nothing can be edited by hand."""

import json

import pytest

from ingest.cricsheet.importer import Importer
from sports.cricket.models import Delivery, DismissalKind, FixtureOfficial, Innings
from sports.cricket.tests.factories import cricsheet_match, seed_dismissal_kinds

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, admin_user):
    seed_dismissal_kinds()
    Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    client.force_login(admin_user)
    return client


@pytest.mark.parametrize("model", [DismissalKind, Innings, Delivery, FixtureOfficial])
def test_each_cricket_changelist_and_change_page_renders(console, model):
    base = f"/admin/cricket/{model._meta.model_name}/"
    assert console.get(base).status_code == 200
    row = model.objects.first()
    assert console.get(f"{base}{row.pk}/change/").status_code == 200


@pytest.mark.parametrize("model", [DismissalKind, Innings, Delivery, FixtureOfficial])
def test_cricket_rows_cannot_be_added_by_hand(console, model):
    assert console.get(f"/admin/cricket/{model._meta.model_name}/add/").status_code == 403
