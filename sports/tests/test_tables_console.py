"""The console and API around league and medal tables: endpoints, the public gate in the API,
awarded results, points adjustments, config edits and rebuilds from the admin."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from accounts.models import AuditEntry
from sports.models import (
    Competition,
    Fixture,
    PointsAdjustment,
    StatTable,
    TableKind,
)
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    fixture_create,
    fixture_results_record,
    stat_table,
)
from sports.tests.factories import AthleticsFactory, FootballFactory, TeamFactory, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():
    root = competition_create(
        code="shire", name="Shire League", type="league", sport=FootballFactory(), actor="t"
    )
    teams = {n: TeamFactory(name=n) for n in ("Hobbiton", "Bree", "Bywater")}
    results = [
        ("Hobbiton", "Bree", 2, 1, True),
        ("Bree", "Bywater", 0, 0, True),
        ("Bywater", "Hobbiton", 5, 0, False),
    ]  # the last one is not published
    for i, (home, away, h, a, published) in enumerate(results):
        fixture = fixture_create(
            competition=root,
            code=f"g{i}",
            actor="t",
            name=f"{home} v {away}",
            competitors=[
                CompetitorSpec(participant=teams[home], alignment="home"),
                CompetitorSpec(participant=teams[away], alignment="away"),
            ],
        )
        publish(fixture, accepted=published)
        sides = {c.alignment: c for c in fixture.competitors.all()}
        fixture_results_record(
            fixture=fixture,
            actor="t",
            status="COMPLETED",
            results={
                sides["home"].pk: EntrantResult(rank=1 if h >= a else 2, result={"score": h}),
                sides["away"].pk: EntrantResult(rank=1 if a >= h else 2, result={"score": a}),
            },
        )
    return root


def test_standings_endpoint_returns_typed_rows_from_published_fixtures_only(anon_client, league):
    rows = anon_client.get(f"/api/v1/competitions/{league.pk}/standings/").json()
    assert [(r["team"], r["played"], r["points"]) for r in rows] == [
        ("Hobbiton", 1, 3),
        ("Bywater", 1, 1),  # above Bree on goal difference (0 against -1)
        ("Bree", 2, 1),
    ]


def test_medal_table_endpoint_ranks_countries_with_shared_ranks(anon_client):
    games = competition_create(code="g", name="Games", type="games", actor="t")
    sport = competition_create(
        code="ath",
        name="Athletics",
        type="sport",
        parent=games,
        sport=AthleticsFactory(),
        actor="t",
    )
    countries = ["KEN", "ETH", "USA", "JAM"]
    for e, medals in enumerate([("KEN", "ETH", "USA"), ("ETH", "KEN", "JAM")]):
        fixture = fixture_create(
            competition=sport,
            code=f"e{e}",
            actor="t",
            competitors=[
                CompetitorSpec(participant=TeamFactory(), entry={"country": c}) for c in medals
            ],
        )
        publish(fixture)
        rows = list(fixture.competitors.order_by("ordinal"))
        fixture_results_record(
            fixture=fixture,
            actor="t",
            results={
                row.pk: EntrantResult(rank=i + 1, result={"medal": m})
                for i, (row, m) in enumerate(zip(rows, ("gold", "silver", "bronze"), strict=True))
            },
        )
    table = anon_client.get(f"/api/v1/competitions/{games.pk}/medal-table/").json()
    assert [(r["rank"], r["country"], r["total"]) for r in table] == [
        (1, "ETH", 2),
        (1, "KEN", 2),
        (3, "JAM", 1),
        (3, "USA", 1),
    ]
    assert set(countries) == {r["country"] for r in table}


def test_an_unpublished_fixture_is_invisible_to_anonymous_api_readers(anon_client, league):
    hidden = Fixture.objects.get(code="g2")
    assert anon_client.get(f"/api/v1/fixtures/{hidden.pk}/").status_code == 404
    codes = {f["code"] for f in anon_client.get("/api/v1/fixtures/").json()["results"]}
    assert codes == {"g0", "g1"}
    under = anon_client.get(f"/api/v1/competitions/{league.pk}/fixtures/").json()["results"]
    assert {f["code"] for f in under} == {"g0", "g1"}


def test_an_editor_sees_unpublished_fixtures_in_the_api(editor_client, league):
    hidden = Fixture.objects.get(code="g2")
    assert editor_client.get(f"/api/v1/fixtures/{hidden.pk}/").status_code == 200


def test_the_award_action_names_the_winner_and_pins_it(client, admin_user, league):
    client.force_login(admin_user)
    fixture = Fixture.objects.get(code="g1")
    away = fixture.competitors.get(alignment="away")
    url = reverse("admin:sports_fixture_changelist")
    data = {"action": "award", ACTION_CHECKBOX_NAME: [fixture.pk]}
    assert "Award the match" in client.post(url, data).content.decode()
    client.post(url, {**data, "confirm": "1", "winner": str(away.pk), "reason": "walkover"})
    away.refresh_from_db()
    assert (away.rank, away.win_method, "rank" in away.pinned) == (1, "AWARDED", True)


def test_the_award_action_requires_a_reason(client, admin_user, league):
    client.force_login(admin_user)
    fixture = Fixture.objects.get(code="g1")
    away = fixture.competitors.get(alignment="away")
    client.post(
        reverse("admin:sports_fixture_changelist"),
        {
            "action": "award",
            ACTION_CHECKBOX_NAME: [fixture.pk],
            "confirm": "1",
            "winner": str(away.pk),
            "reason": "",
        },
    )
    away.refresh_from_db()
    assert away.win_method == ""


def test_a_points_adjustment_made_in_the_admin_is_in_the_table(client, admin_user, league):
    client.force_login(admin_user)
    bree = TeamFactory._meta.model.objects.get(name="Bree")
    response = client.post(
        reverse("admin:sports_pointsadjustment_add"),
        {
            "competition": league.pk,
            "participant": bree.pk,
            "points": -1,
            "reason": "fielded an ineligible player",
        },
    )
    assert response.status_code == 302
    adjustment = PointsAdjustment.objects.get()
    assert adjustment.decided_by == admin_user
    assert AuditEntry.objects.filter(action="standings.adjust").exists()
    bree_row = next(
        r for r in stat_table(node=league, kind=TableKind.STANDINGS) if r["team"] == "Bree"
    )
    assert (bree_row["points"], bree_row["adjustment"]) == (0, -1)


def test_the_points_adjustment_changelist_renders(client, admin_user, league):
    client.force_login(admin_user)
    assert client.get(reverse("admin:sports_pointsadjustment_changelist")).status_code == 200


def test_editing_the_tie_break_config_clears_the_cached_tables(client, admin_user, league):
    stat_table(node=league, kind=TableKind.STANDINGS)
    assert StatTable.objects.filter(competition=league).exists()
    client.force_login(admin_user)
    page = client.get(reverse("admin:sports_competition_change", args=[league.pk]))
    form = page.context["adminform"].form
    data = {name: form[name].value() or "" for name in form.fields}
    data["config"] = '{"points": {"win": 2, "draw": 1, "loss": 0}}'
    response = client.post(reverse("admin:sports_competition_change", args=[league.pk]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not StatTable.objects.filter(competition=league).exists()
    hobbiton = next(
        r for r in stat_table(node=league, kind=TableKind.STANDINGS) if r["team"] == "Hobbiton"
    )
    assert hobbiton["points"] == 2
    assert AuditEntry.objects.filter(action="competition.update", actor=admin_user).exists()


def test_the_rebuild_action_stores_the_nodes_table(client, admin_user, league):
    client.force_login(admin_user)
    client.post(
        reverse("admin:sports_competition_changelist"),
        {"action": "rebuild_tables", ACTION_CHECKBOX_NAME: [league.pk]},
    )
    table = StatTable.objects.get(competition=league)
    assert table.kind == TableKind.STANDINGS and len(table.rows) == 3
    assert Competition.objects.get(pk=league.pk).status == "ACTIVE"
