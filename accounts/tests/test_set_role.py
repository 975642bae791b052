"""``manage.py set_role``: the same services as the console, clear failures on bad input."""

import io
import os
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from accounts.access import user_can
from accounts.models import AccessEvent, AccessHistory, AccountGrant, Capability, Role
from sports.services import competition_create
from sports.tests.factories import AthleticsFactory, FootballFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def leagues():
    football = FootballFactory()
    premier = competition_create(
        code="prem", name="Premier", type="league", sport=football, actor="t"
    )
    season = competition_create(
        code="prem-2024", name="2024", type="season", parent=premier, actor="t"
    )
    cup = competition_create(code="cup", name="Cup", type="cup", sport=football, actor="t")
    return {"premier": premier, "season": season, "cup": cup}


def _run(*args) -> str:
    out = io.StringIO()
    call_command("set_role", *args, stdout=out)
    return out.getvalue()


def test_sets_the_role_and_grants_the_named_subtree(viewer, leagues):
    output = _run("viewer", "submitter", "--grant", "prem")
    viewer.refresh_from_db()
    assert viewer.role == Role.SUBMITTER
    assert user_can(viewer, Capability.SUBMIT, leagues["season"])
    assert not user_can(viewer, Capability.SUBMIT, leagues["cup"])
    assert "granted prem" in output


def test_star_grants_every_competition(viewer, leagues):
    _run("viewer", "reviewer", "--grant", "*")
    viewer.refresh_from_db()
    assert all(user_can(viewer, Capability.REVIEW, node) for node in leagues.values())


def test_the_change_is_in_the_access_history_as_a_command_line_change(viewer, leagues):
    _run("viewer", "submitter", "--grant", "prem", "--grant", "cup")
    rows = list(AccessHistory.objects.order_by("id").values_list("event", "actor"))
    assert rows == [
        (AccessEvent.ROLE_CHANGED, None),
        (AccessEvent.GRANTED, None),
        (AccessEvent.GRANTED, None),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nobody", "submitter"), "No account has the username 'nobody'"),
        (("viewer", "superhero"), "Unknown role 'superhero'"),
        (("viewer", "submitter", "--grant", "nope"), "--grant nope: no competition"),
        (("viewer", "editor", "--grant", "prem"), "--grant is for a submitter or a reviewer"),
    ],
)
def test_bad_input_fails_clearly_and_changes_nothing(viewer, leagues, args, message):
    with pytest.raises(CommandError, match=message):
        _run(*args)
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER
    assert not AccountGrant.objects.exists()
    assert not AccessHistory.objects.exists()


def test_a_typo_in_a_later_grant_changes_nothing(viewer, leagues):
    with pytest.raises(CommandError):
        _run("viewer", "submitter", "--grant", "prem", "--grant", "typo")
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER


def test_a_code_two_sports_share_must_name_its_sport(viewer, leagues):
    competition_create(code="cup", name="Cup", type="cup", sport=AthleticsFactory(), actor="t")
    with pytest.raises(CommandError, match="SPORT:cup"):
        _run("viewer", "submitter", "--grant", "cup")
    _run("viewer", "submitter", "--grant", "football:cup")
    viewer.refresh_from_db()
    assert user_can(viewer, Capability.SUBMIT, leagues["cup"])


def test_the_command_exits_non_zero_on_an_unknown_user():
    from omnium.testing import REPO_ROOT, _database_url_for_test_db

    result = subprocess.run(
        [sys.executable, "manage.py", "set_role", "no-such-person-here", "submitter"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
            "DATABASE_URL": _database_url_for_test_db(),
        },
        check=False,
    )
    assert result.returncode != 0
    assert "No account has the username 'no-such-person-here'" in result.stderr
