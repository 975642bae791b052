"""The public gate: every writer that creates fixtures records the submission that first
brought them, and a fixture whose first submission is not accepted is absent from every
public page and every anonymous or viewer API read."""

import json

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.samples import SAMPLES
from sports.models import Fixture, FixtureCompetitor, Submission, SubmissionKind
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    fixture_create,
    fixture_results_record,
)
from sports.tests.factories import AthleticsFactory, FootballFactory, TeamFactory, publish

pytestmark = pytest.mark.django_db

SECRET_SCORE = 97  # a figure no published fixture has: its appearance anywhere is a leak


# --- every writer records the first submission ----------------------------------------------


def _openfootball(tmp_path):
    from ingest.openfootball import import_files

    folder = tmp_path / "2021-22"
    folder.mkdir()
    path = folder / "w.1.json"
    matches = [
        {"round": "R1", "date": "2021-08-01", "team1": "North", "team2": "South",
         "score": {"ft": [3, 1]}},
        {"round": "R2", "date": "2021-08-08", "team1": "South", "team2": "North"},
    ]  # fmt: skip
    path.write_text(json.dumps({"name": "Gate League 2021/22", "matches": matches}))
    import_files([path], code="gl", name="Gate League")
    return SubmissionKind.LEAGUE_IMPORT


def _games(tmp_path):
    from ingest.games import games_import

    games_import(directory=SAMPLES / "games", code="gate-games", name="Gate Games")
    return SubmissionKind.GAMES_IMPORT


def _cricsheet(tmp_path):
    from ingest.cricsheet.importer import import_paths

    seed_dismissal_kinds()
    path = tmp_path / "900001.json"
    path.write_text(json.dumps(cricsheet_match()))
    summary = import_paths([path])
    assert not summary.rejected, summary.rejections
    return SubmissionKind.CORPUS_IMPORT


@pytest.mark.parametrize("importer", [_openfootball, _games, _cricsheet])
def test_every_imported_fixture_records_its_accepted_first_submission(importer, tmp_path):
    kind = importer(tmp_path)
    fixtures = Fixture.objects.select_related("first_seen_in")
    assert fixtures.exists()
    assert not fixtures.filter(first_seen_in__isnull=True).exists()
    assert {(f.first_seen_in.kind, f.first_seen_in.accepted) for f in fixtures} == {(kind, True)}
    assert Fixture.objects.public().count() == fixtures.count()  # no imported sport disappears


def test_a_fixture_entered_in_the_console_is_its_own_accepted_hand_entry(client, editor):
    league = competition_create(
        code="hand", name="Hand League", type="league", sport=FootballFactory(), actor="t"
    )
    from accounts.services import account_groups_sync

    account_groups_sync(user=editor)  # the console's permissions come with the role's group
    client.force_login(editor)
    response = client.post(
        "/admin/sports/fixture/add/",
        {"competition": league.pk, "code": "h1", "name": "Oak v Elm", "coverage_tier": "EOD"},
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    fixture = Fixture.objects.select_related("first_seen_in").get(code="h1")
    submission = fixture.first_seen_in
    assert (submission.kind, submission.submitted_by, submission.accepted) == (
        SubmissionKind.HAND_ENTRY, editor, True,
    )  # fmt: skip
    anonymous = APIClient()
    assert anonymous.get(f"/api/v1/fixtures/{fixture.pk}/").status_code == 200


def test_a_fixture_without_a_submission_is_not_public():
    league = competition_create(
        code="bare", name="Bare", type="league", sport=FootballFactory(), actor="t"
    )
    fixture = fixture_create(competition=league, code="b1", actor="t")
    assert not Fixture.objects.public().filter(pk=fixture.pk).exists()


# --- an unpublished fixture is absent from every public read ---------------------------------


def _pending_submission():
    return Submission.objects.create(kind=SubmissionKind.BATCH, source_code="batch")


def _football(league, home, away, score, code, *, published=True):
    fixture = fixture_create(
        competition=league,
        code=code,
        actor="t",
        name=f"{home} v {away}",
        competitors=[
            CompetitorSpec(participant=home, alignment="home"),
            CompetitorSpec(participant=away, alignment="away"),
        ],
    )
    if published:
        publish(fixture)
    else:
        Fixture.objects.filter(pk=fixture.pk).update(first_seen_in=_pending_submission())
    sides = {c.alignment: c for c in fixture.competitors.all()}
    h, a = score
    fixture_results_record(
        fixture=fixture,
        actor="t",
        status="COMPLETED",
        results={
            sides["home"].pk: EntrantResult(rank=1 if h >= a else 2, result={"score": h}),
            sides["away"].pk: EntrantResult(rank=1 if a >= h else 2, result={"score": a}),
        },
    )
    return fixture


@pytest.fixture
def world(tmp_path):
    """A football league, a Games medal event and a cricket match: one published and one
    unpublished fixture each (the unpublished ones from a pending batch submission)."""
    league = competition_create(
        code="gate", name="Gate League", type="league", sport=FootballFactory(), actor="t"
    )
    oak, elm, hidden_team = (TeamFactory(name=n) for n in ("Oak", "Elm", "Hiddenham"))
    _football(league, oak, elm, (2, 1), "open")
    secret = _football(league, hidden_team, oak, (SECRET_SCORE, 0), "secret", published=False)

    games = competition_create(code="gg", name="Gate Games", type="games", actor="t")
    event = competition_create(
        code="ath", name="Athletics", type="sport", parent=games, sport=AthleticsFactory(),
        actor="t",
    )  # fmt: skip
    medals = {}
    for code, country, published in (("final", "KEN", True), ("secret-final", "ZZZ", False)):
        fixture = fixture_create(
            competition=event,
            code=code,
            actor="t",
            name=f"{code} race",
            competitors=[CompetitorSpec(participant=TeamFactory(), entry={"country": country})],
        )
        if published:
            publish(fixture)
        else:
            Fixture.objects.filter(pk=fixture.pk).update(first_seen_in=_pending_submission())
        row = FixtureCompetitor.objects.get(fixture=fixture)
        fixture_results_record(
            fixture=fixture, actor="t",
            results={row.pk: EntrantResult(rank=1, result={"medal": "gold"})},
        )  # fmt: skip
        medals[code] = fixture

    from ingest.cricsheet.importer import import_paths

    seed_dismissal_kinds()
    path = tmp_path / "900002.json"
    path.write_text(json.dumps(cricsheet_match()))
    import_paths([path])
    cricket = Fixture.objects.get(sport__code="cricket")
    Fixture.objects.filter(pk=cricket.pk).update(first_seen_in=_pending_submission())
    return {
        "league": league,
        "secret": secret,
        "games": games,
        "event": event,
        "secret_final": medals["secret-final"],
        "cricket": cricket,
    }


@pytest.fixture(params=["anonymous", "viewer"])
def reader(request):
    """A browser and an API client for an anonymous reader or a signed-in plain viewer."""
    from django.test import Client

    page_client, api_client = Client(), APIClient()
    if request.param == "viewer":
        person = request.getfixturevalue("viewer")
        page_client.force_login(person)
        api_client.force_authenticate(person)
    return page_client, api_client


def _text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_the_fixture_pages_do_not_exist(reader, world):
    pages, _api = reader
    for fixture in (world["secret"], world["secret_final"]):
        assert pages.get(reverse("sports:fixture-detail", args=[fixture.pk])).status_code == 404
    assert pages.get(reverse("cricket:scorecard", args=[world["cricket"].pk])).status_code == 404


def test_the_competition_pages_do_not_list_them(reader, world):
    pages, _api = reader
    league = _text(pages.get(reverse("sports:competition-detail", args=[world["league"].pk])))
    assert "Hiddenham" not in league and "Oak v Elm" in league
    games = _text(pages.get(reverse("sports:competition-detail", args=[world["event"].pk])))
    assert "secret-final race" not in games and "final race" in games
    cricket_node = world["cricket"].competition
    cricket_page = _text(pages.get(reverse("sports:competition-detail", args=[cricket_node.pk])))
    assert world["cricket"].name not in cricket_page


def test_the_table_pages_leave_them_out(reader, world):
    pages, _api = reader
    standings = _text(pages.get(reverse("sports:standings", args=[world["league"].pk])))
    assert "Hiddenham" not in standings and f">{SECRET_SCORE}<" not in standings
    medals = _text(pages.get(reverse("sports:medal-table", args=[world["games"].pk])))
    assert "ZZZ" not in medals and "KEN" in medals


def test_the_fixture_api_does_not_list_or_show_them(reader, world):
    _pages, api = reader
    listed = {f["code"] for f in api.get("/api/v1/fixtures/?page_size=200").json()["results"]}
    assert listed and not listed & {"secret", "secret-final", world["cricket"].code}
    for fixture in (world["secret"], world["secret_final"], world["cricket"]):
        assert api.get(f"/api/v1/fixtures/{fixture.pk}/").status_code == 404
        assert api.get(f"/api/v1/fixtures/{fixture.pk}/timeline/").status_code == 404


def test_the_competition_api_leaves_them_out(reader, world):
    _pages, api = reader
    under = api.get(f"/api/v1/competitions/{world['league'].pk}/fixtures/").json()["results"]
    assert {f["code"] for f in under} == {"open"}
    standings = api.get(f"/api/v1/competitions/{world['league'].pk}/standings/").json()
    assert "Hiddenham" not in {row["team"] for row in standings}
    medals = api.get(f"/api/v1/competitions/{world['games'].pk}/medal-table/").json()
    assert {row["country"] for row in medals} == {"KEN"}


def test_the_cricket_api_does_not_answer(reader, world):
    _pages, api = reader
    pk = world["cricket"].pk
    assert api.get(reverse("cricket-fixture-scorecard", kwargs={"pk": pk})).status_code == 404
    assert api.get(reverse("cricket-fixture-deliveries", kwargs={"pk": pk})).status_code == 404


def test_accepting_the_submission_publishes_them(world):
    Submission.objects.filter(kind=SubmissionKind.BATCH).update(
        accepted=True, accepted_at=timezone.now()
    )
    api = APIClient()
    for fixture in (world["secret"], world["secret_final"], world["cricket"]):
        assert api.get(f"/api/v1/fixtures/{fixture.pk}/").status_code == 200
    pk = world["cricket"].pk
    assert api.get(reverse("cricket-fixture-scorecard", kwargs={"pk": pk})).status_code == 200


# --- who sees unpublished fixtures -------------------------------------------------------


def _api_as(person) -> APIClient:
    client = APIClient()
    client.force_authenticate(person)
    return client


def test_a_reviewer_sees_unpublished_fixtures_only_where_they_review(admin_user, reviewer, world):
    from accounts.access import competition_grant_set
    from accounts.models import Role

    api = _api_as(reviewer)
    assert api.get(f"/api/v1/fixtures/{world['secret'].pk}/").status_code == 404
    competition_grant_set(
        user=reviewer, competition=world["league"], role=Role.REVIEWER, actor=admin_user
    )
    assert api.get(f"/api/v1/fixtures/{world['secret'].pk}/").status_code == 200
    assert api.get(f"/api/v1/fixtures/{world['secret_final'].pk}/").status_code == 404


def test_a_submitter_sees_no_unpublished_fixture(admin_user, submitter, world):
    from accounts.access import competition_grant_set
    from accounts.models import Role

    competition_grant_set(user=submitter, competition=None, role=Role.SUBMITTER, actor=admin_user)
    assert _api_as(submitter).get(f"/api/v1/fixtures/{world['secret'].pk}/").status_code == 404


def test_editors_see_every_unpublished_fixture(editor, world):
    api = _api_as(editor)
    for fixture in (world["secret"], world["secret_final"], world["cricket"]):
        assert api.get(f"/api/v1/fixtures/{fixture.pk}/").status_code == 200
