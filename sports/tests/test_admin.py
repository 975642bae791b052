"""The sports console: each page renders, each action goes through its service."""

from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from omnium.console import EstimatedCountPaginator
from omnium.dbroles import OWNER_ROLE, url_with_user
from omnium.testing import _database_url_for_test_db
from sports.models import (
    Competition,
    CompetitionStatus,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureAmendment,
    LedgerStream,
    Participant,
    SportDefinitionVersion,
    StatLine,
    TimelineItem,
    UnmatchedRow,
)
from sports.services import (
    CompetitorSpec,
    competition_create,
    external_id_link,
    fixture_amend,
    fixture_command,
    fixture_create,
    participant_merge,
    trees_check,
)
from sports.tests.factories import (
    FootballFactory,
    ParticipantFactory,
    SportFactory,
    TeamFactory,
    VenueFactory,
)

pytestmark = pytest.mark.django_db

CHECKBOX = "_selected_action"


@pytest.fixture
def console(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def tree():
    football = FootballFactory()
    league = competition_create(
        code="epl", name="Premier League", type="league", sport=football, actor="t"
    )
    season = competition_create(
        code="epl-2024", name="2024-25", type="season", parent=league, actor="t"
    )
    rounds = competition_create(
        code="epl-r1", name="Round 1", type="round", parent=season, actor="t"
    )
    cup = competition_create(code="fa-cup", name="FA Cup", type="cup", sport=football, actor="t")
    return {"football": football, "league": league, "season": season, "round": rounds, "cup": cup}


def fresh(obj):
    return type(obj).objects.get(pk=obj.pk)


def post_action(console, url, action, rows, follow=False, **data):
    payload = {"action": action, CHECKBOX: [str(r.pk) for r in rows], **data}
    return console.post(url, payload, follow=follow)


# --- competitions -----------------------------------------------------------------------

COMPETITIONS = "/admin/sports/competition/"


def test_competition_changelist_lists_the_tree_in_order_with_indentation(console, tree):
    response = console.get(COMPETITIONS)
    assert response.status_code == 200
    names = [c.name for c in response.context["cl"].result_list]
    assert names.index("Premier League") < names.index("2024-25") < names.index("Round 1")
    assert 'padding-left: 3.0em">Round 1' in response.content.decode()


def test_competition_changelist_filters_by_sport_and_type(console, tree):
    SportFactory(code="hockey")
    response = console.get(COMPETITIONS, {"sport__id__exact": tree["football"].pk, "type": "cup"})
    assert [c.code for c in response.context["cl"].result_list] == ["fa-cup"]


def test_competition_change_page_shows_parent_and_sport_but_does_not_edit_them(console, tree):
    response = console.get(f"{COMPETITIONS}{tree['season'].pk}/change/")
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert "parent" not in form.fields and "sport" not in form.fields
    assert "Premier League" in response.content.decode()


def test_editing_a_plain_field_keeps_the_tree_sound(console, tree):
    season = tree["season"]
    response = console.post(
        f"{COMPETITIONS}{season.pk}/change/",
        {"code": "epl-2024", "name": "Season 2024-25", "type": "season", "config": "{}"},
    )
    assert response.status_code == 302
    assert fresh(season).name == "Season 2024-25"
    assert fresh(season).parent_id == tree["league"].pk
    assert trees_check() == []


def test_adding_a_competition_goes_through_the_service_and_takes_the_parents_sport(
    console, tree, admin_user
):
    response = console.post(
        f"{COMPETITIONS}add/",
        {"parent": tree["season"].pk, "code": "epl-r2", "name": "Round 2", "type": "round"},
    )
    assert response.status_code == 302
    node = Competition.objects.get(code="epl-r2")
    assert node.parent_id == tree["season"].pk and node.sport_id == tree["football"].pk
    assert TimelineItem.objects.filter(
        event_type="competition.create", actor=admin_user.username, payload__code="epl-r2"
    ).exists()
    assert trees_check() == []


def test_adding_a_competition_with_another_sport_than_its_parent_is_refused(console, tree):
    response = console.post(
        f"{COMPETITIONS}add/",
        {
            "parent": tree["season"].pk,
            "sport": SportFactory(code="rugby").pk,
            "code": "x",
            "name": "X",
            "type": "round",
        },
    )
    assert response.status_code == 200
    assert "sport" in response.context["adminform"].form.errors
    assert not Competition.objects.filter(code="x").exists()


def test_move_action_shows_a_confirmation_page(console, tree):
    response = post_action(console, COMPETITIONS, "move", [tree["round"]], index="0")
    assert response.status_code == 200
    assert "Move competitions" in response.content.decode()
    assert "new_parent" in response.context["form"].fields
    assert fresh(tree["round"]).parent_id == tree["season"].pk


def test_confirming_a_move_moves_the_node_through_the_service(console, tree, admin_user):
    response = post_action(
        console,
        COMPETITIONS,
        "move",
        [tree["round"]],
        confirm="yes",
        new_parent=str(tree["league"].pk),
        reason="rounds hang off the league",
    )
    assert response.status_code == 302
    assert fresh(tree["round"]).parent_id == tree["league"].pk
    item = TimelineItem.objects.get(event_type="competition.move")
    assert item.actor == admin_user.username
    assert item.payload["reason"] == "rounds hang off the league"
    assert trees_check() == []


def test_a_refused_move_undoes_the_moves_before_it(console, tree):
    cup_round = competition_create(
        code="fa-r1", name="FA Cup round 1", type="round", parent=tree["cup"], actor="t"
    )
    # In tree order the round (first tree) moves first and succeeds; then the cup cannot go
    # under its own child, and the whole action is rolled back.
    response = post_action(
        console,
        COMPETITIONS,
        "move",
        [tree["round"], tree["cup"]],
        confirm="yes",
        new_parent=str(cup_round.pk),
        follow=True,
    )
    messages = [str(m) for m in response.context["messages"]]
    assert any("Nothing moved" in m and "own descendant" in m for m in messages)
    assert fresh(tree["round"]).parent_id == tree["season"].pk
    assert not TimelineItem.objects.filter(event_type="competition.move").exists()
    assert trees_check() == []


def test_archive_action_shows_a_confirmation_page(console, tree):
    response = post_action(console, COMPETITIONS, "archive", [tree["season"]], index="0")
    assert response.status_code == 200
    assert "reason" in response.context["form"].fields


def test_archiving_without_a_reason_is_refused(console, tree):
    response = post_action(console, COMPETITIONS, "archive", [tree["season"]], confirm="yes")
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    assert fresh(tree["season"]).status == CompetitionStatus.ACTIVE


def test_confirming_an_archive_archives_the_subtree(console, tree, admin_user):
    response = post_action(
        console, COMPETITIONS, "archive", [tree["season"]], confirm="yes", reason="season over"
    )
    assert response.status_code == 302
    assert fresh(tree["round"]).status == CompetitionStatus.ARCHIVED
    assert fresh(tree["league"]).status == CompetitionStatus.ACTIVE
    assert TimelineItem.objects.get(event_type="competition.archive").actor == admin_user.username


# --- fixtures ---------------------------------------------------------------------------

FIXTURES = "/admin/sports/fixture/"


@pytest.fixture
def match(tree, editor):
    home, away = TeamFactory(name="Arsenal"), TeamFactory(name="Chelsea")
    player = ParticipantFactory(name="Bukayo Saka")
    fixture = fixture_create(
        competition=tree["round"],
        code="ars-che",
        name="Arsenal v Chelsea",
        scheduled_start=datetime(2024, 8, 17, 14, tzinfo=UTC),
        actor=editor,
        competitors=[
            CompetitorSpec(
                participant=home,
                alignment="home",
                members=[CompetitorSpec(participant=player, slot="7")],
            ),
            CompetitorSpec(participant=away, alignment="away"),
            CompetitorSpec(placeholder_label="Winner of QF1", alignment="neutral"),
        ],
    )
    return fresh(fixture)


def _inline_data(page) -> dict:
    """What a browser posts back for the page's inlines: management forms and the rows."""
    data = {}
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        for name in formset.management_form.fields:
            data[formset.management_form.add_prefix(name)] = formset.management_form[name].value()
        for form in formset.forms:
            for name in form.fields:
                value = form[name].value()
                data[form.add_prefix(name)] = "" if value is None else str(value)
    return data


def _amend_payload(console, fixture, **changes):
    page = console.get(f"{FIXTURES}{fixture.pk}/change/")
    data = {
        "name": fixture.name,
        "scheduled_start_0": "2024-08-17",
        "scheduled_start_1": "14:00:00",
        "venue": "",
        "status": fixture.status,
        "coverage_tier": fixture.coverage_tier,
        "seen_version": page.context["adminform"].form["seen_version"].value(),
        "meta": page.context["adminform"].form["meta"].value(),
        "pin": "on",
        "reason": "",
        **_inline_data(page),
    }
    data.update(changes)
    return data


def test_fixture_changelist_query_count_does_not_grow_with_rows(
    console, tree, django_assert_max_num_queries
):
    for n in range(30):
        fixture_create(competition=tree["round"], code=f"m{n}", actor="t")
    # session, user, page rows (sport and competition joined), sport filter choices, and
    # the count: the same for 30 rows as for 3.
    with django_assert_max_num_queries(6):
        response = console.get(FIXTURES)
    assert len(response.context["cl"].result_list) == 30


def test_fixture_changelist_filters_by_status(console, match, tree):
    fixture_create(competition=tree["round"], code="other", actor="t")
    fixture_amend(fixture=match, changes={"status": "POSTPONED"}, reason="rain", actor="t")
    response = console.get(FIXTURES, {"status__exact": "POSTPONED"})
    assert [f.code for f in response.context["cl"].result_list] == ["ars-che"]


def test_fixture_change_page_shows_competitors_pins_amendments_and_the_timeline(console, match):
    fixture_amend(fixture=match, changes={"name": "The derby"}, reason="renamed", actor="t")
    page = console.get(f"{FIXTURES}{match.pk}/change/").content.decode()
    for text in ("Arsenal", "Chelsea", "Bukayo Saka", "Winner of QF1", "renamed", "The derby"):
        assert text in page
    assert f"/admin/sports/timelineitem/?fixture__id__exact={match.pk}" in page
    assert "[&quot;name&quot;]" in page  # the pinned field list


def test_the_timeline_link_lists_only_that_fixtures_items(console, match, tree):
    fixture_create(competition=tree["round"], code="other", actor="t")
    response = console.get("/admin/sports/timelineitem/", {"fixture__id__exact": match.pk})
    assert response.status_code == 200
    assert {i.fixture_id for i in response.context["cl"].result_list} == {match.pk}


def test_changing_a_fixture_in_the_form_records_an_amendment_with_the_reason(
    console, match, admin_user
):
    response = console.post(
        f"{FIXTURES}{match.pk}/change/",
        _amend_payload(console, match, status="POSTPONED", reason="waterlogged pitch"),
    )
    assert response.status_code == 302
    amendment = FixtureAmendment.objects.get(fixture=match)
    assert (amendment.field, amendment.old_value, amendment.new_value) == (
        "status",
        "SCHEDULED",
        "POSTPONED",
    )
    assert amendment.reason == "waterlogged pitch"
    assert amendment.actor == admin_user
    assert fresh(match).pinned == ["status"]
    assert TimelineItem.objects.filter(fixture=match, event_type="fixture.amend").count() == 1


def test_a_fixture_change_without_a_reason_is_refused(console, match):
    response = console.post(
        f"{FIXTURES}{match.pk}/change/", _amend_payload(console, match, name="X")
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["reason"]
    assert fresh(match).name == "Arsenal v Chelsea"
    assert not FixtureAmendment.objects.exists()


def test_a_fixture_change_made_on_a_stale_page_is_refused(console, match):
    stale = _amend_payload(console, match, name="Late edit", reason="typo")
    fixture_amend(fixture=match, changes={"name": "Meanwhile"}, reason="other editor", actor="t")
    response = console.post(f"{FIXTURES}{match.pk}/change/", stale, follow=True)
    # The service refuses it under the fixture's row lock; the page reloads with the news.
    assert response.redirect_chain[-1][0].endswith(f"{match.pk}/change/")
    assert "changed since version 0: it is now at version 1" in response.content.decode()
    assert fresh(match).name == "Meanwhile"
    assert FixtureAmendment.objects.filter(fixture=match).count() == 1


def test_adding_a_fixture_goes_through_the_service(console, tree):
    venue = VenueFactory()
    response = console.post(
        f"{FIXTURES}add/",
        {
            "competition": tree["round"].pk,
            "code": "new-match",
            "name": "New match",
            "scheduled_start_0": "2024-09-01",
            "scheduled_start_1": "15:00:00",
            "venue": venue.pk,
            "coverage_tier": "EOD",
        },
    )
    assert response.status_code == 302
    fixture = Fixture.objects.get(code="new-match")
    assert fixture.sport_id == tree["football"].pk and fixture.archetype == "HEAD_TO_HEAD"
    assert fixture.definition_version.version == 1
    assert TimelineItem.objects.get(fixture=fixture).event_type == "fixture.create"


def test_fixtures_cannot_be_deleted_in_the_console(console, match):
    assert console.post(f"{FIXTURES}{match.pk}/delete/").status_code == 403


# --- participants -----------------------------------------------------------------------

PARTICIPANTS = "/admin/sports/participant/"


def test_participant_changelist_query_count_does_not_grow_with_rows(
    console, django_assert_max_num_queries
):
    survivor = ParticipantFactory(name="Survivor")
    for n in range(30):
        ParticipantFactory(name=f"Runner {n}", merged_into=survivor if n % 2 else None)
    # session, user, page rows (sport and survivor joined), sport filter choices, count.
    with django_assert_max_num_queries(6):
        response = console.get(PARTICIPANTS)
    assert len(response.context["cl"].result_list) == 31


def test_participant_changelist_shows_the_survivor_of_a_merged_row(console):
    survivor, loser = ParticipantFactory(name="Ana Survivor"), ParticipantFactory(name="Ana Dup")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same")
    response = console.get(PARTICIPANTS, {"merged": "yes"})
    assert [p.name for p in response.context["cl"].result_list] == ["Ana Dup"]
    assert f'/admin/sports/participant/{survivor.pk}/change/">Ana Survivor</a>' in (
        response.content.decode()
    )


def test_participant_changelist_finds_a_participant_by_an_alias(console):
    survivor, loser = ParticipantFactory(name="Mo Farah"), ParticipantFactory(name="M. Farah")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same")
    response = console.get(PARTICIPANTS, {"q": "M. Farah", "merged": "no"})
    assert [p.name for p in response.context["cl"].result_list] == ["Mo Farah"]


def test_participant_page_shows_aliases_and_external_ids_including_merged_rows(console):
    survivor, loser = ParticipantFactory(name="Ana Id"), ParticipantFactory(name="Ana I.")
    for who, external_id in ((survivor, "A-1"), (loser, "B-2")):
        external_id_link(
            source_code="olympics",
            entity_type=EntityType.PARTICIPANT,
            external_id=external_id,
            internal_id=who.pk,
            actor="t",
        )
    ExternalIdMap.objects.create(
        source_code="other", entity_type=EntityType.FIXTURE, external_id="F-9", internal_id=loser.pk
    )
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same")
    response = console.get(f"{PARTICIPANTS}{survivor.pk}/change/")
    page = response.content.decode()
    assert "A-1" in page and "B-2" in page and f"merged row {loser.pk}" in page
    assert "F-9" not in page
    assert "Ana I." in page  # the loser's name, now an alias


def test_participant_identity_fields_are_read_only(console):
    person = ParticipantFactory()
    form = console.get(f"{PARTICIPANTS}{person.pk}/change/").context["adminform"].form
    assert set(form.fields) == {"code", "meta"}


def test_adding_a_participant_goes_through_the_service(console):
    response = console.post(
        f"{PARTICIPANTS}add/",
        {"type": "PERSON", "name": "Léon Marchand", "country": "FRA", "meta": "{}"},
    )
    assert response.status_code == 302
    person = Participant.objects.get(name="Léon Marchand")
    assert person.identity_hash and person.aliases.filter(name="Léon Marchand").exists()


def test_adding_a_known_participant_again_adds_nothing(console):
    data = {"type": "PERSON", "name": "Léon Marchand", "country": "FRA", "meta": "{}"}
    console.post(f"{PARTICIPANTS}add/", data)
    response = console.post(f"{PARTICIPANTS}add/", {**data, "name": "leon marchand"}, follow=True)
    assert Participant.objects.count() == 1
    assert any("already exists" in str(m) for m in response.context["messages"])


def test_merge_action_shows_a_confirmation_page_with_a_survivor_choice(console):
    a, b = ParticipantFactory(name="A"), ParticipantFactory(name="B")
    response = post_action(console, PARTICIPANTS, "merge", [a, b], index="0")
    assert response.status_code == 200
    assert set(response.context["form"].fields["survivor"].queryset) == {a, b}


def test_confirming_a_merge_points_the_others_at_the_survivor(console):
    a, b, c = (ParticipantFactory(name=n) for n in ("A", "B", "C"))
    response = post_action(
        console, PARTICIPANTS, "merge", [a, b, c], confirm="yes", survivor=str(b.pk), note="dupes"
    )
    assert response.status_code == 302
    assert fresh(a).merged_into_id == b.pk and fresh(c).merged_into_id == b.pk
    assert fresh(b).merged_into_id is None


def test_a_merge_without_a_note_is_refused(console):
    a, b = ParticipantFactory(), ParticipantFactory()
    response = post_action(
        console, PARTICIPANTS, "merge", [a, b], confirm="yes", survivor=str(a.pk)
    )
    assert response.status_code == 200
    assert response.context["form"].errors["note"]
    assert fresh(b).merged_into_id is None


def test_a_merge_the_service_refuses_merges_nothing(console):
    team, person, other = TeamFactory(), ParticipantFactory(), ParticipantFactory()
    response = post_action(
        console,
        PARTICIPANTS,
        "merge",
        [person, other, team],
        confirm="yes",
        survivor=str(person.pk),
        note="x",
        follow=True,
    )
    assert any("Nothing merged" in str(m) for m in response.context["messages"])
    assert fresh(other).merged_into_id is None


def test_merging_a_single_participant_is_refused(console):
    response = post_action(console, PARTICIPANTS, "merge", [ParticipantFactory()], follow=True)
    assert any("at least two" in str(m) for m in response.context["messages"])


# --- read-only and reference pages -------------------------------------------------------


@pytest.fixture
def logged(match, editor):
    fixture_amend(fixture=match, changes={"name": "Derby"}, reason="renamed", actor=editor)
    UnmatchedRow.objects.create(
        source_code="feed", entity_type="participant", batch="b1", name="Nobody", reason="why"
    )
    UnmatchedRow.objects.create(
        source_code="feed",
        entity_type="participant",
        batch="b1",
        name="Linked",
        reason="why",
        resolved_internal_id=ParticipantFactory().pk,
        resolved_at=datetime(2024, 1, 1, tzinfo=UTC),
    )
    external_id_link(
        source_code="feed",
        entity_type="fixture",
        external_id="M-77",
        internal_id=match.pk,
        actor="t",
    )
    return match


READ_ONLY = (
    "timelineitem",
    "fixtureamendment",
    "statline",
    "unmatchedrow",
    "externalidmap",
    "ledgerstream",
)


@pytest.mark.parametrize("model", READ_ONLY)
def test_read_only_changelists_render(console, logged, model):
    response = console.get(f"/admin/sports/{model}/")
    assert response.status_code == 200


@pytest.mark.parametrize("model", READ_ONLY)
def test_read_only_pages_refuse_adding(console, model):
    assert console.get(f"/admin/sports/{model}/add/").status_code == 403


def test_a_timeline_item_page_is_read_only(console, logged):
    item = TimelineItem.objects.filter(fixture=logged).first()
    response = console.get(f"/admin/sports/timelineitem/{item.pk}/change/")
    assert response.status_code == 200
    assert not response.context["adminform"].form.fields
    assert console.post(f"/admin/sports/timelineitem/{item.pk}/delete/").status_code == 403


def test_an_amendment_page_is_read_only(console, logged):
    amendment = FixtureAmendment.objects.get(fixture=logged)
    response = console.get(f"/admin/sports/fixtureamendment/{amendment.pk}/change/")
    assert response.status_code == 200 and "renamed" in response.content.decode()


def test_unmatched_rows_filter_by_source_and_resolution(console, logged):
    response = console.get("/admin/sports/unmatchedrow/", {"source_code": "feed", "resolved": "no"})
    assert [r.name for r in response.context["cl"].result_list] == ["Nobody"]


def test_external_ids_are_searchable_and_link_their_target(console, logged):
    response = console.get("/admin/sports/externalidmap/", {"q": "M-77"})
    assert [r.external_id for r in response.context["cl"].result_list] == ["M-77"]
    assert f"/admin/sports/fixture/{logged.pk}/change/" in response.content.decode()


@pytest.mark.parametrize("model", ("sport", "venue", "sportdefinitionversion"))
def test_reference_pages_render_and_allow_adding(console, logged, model):
    assert console.get(f"/admin/sports/{model}/").status_code == 200
    assert console.get(f"/admin/sports/{model}/add/").status_code == 200


def test_sport_and_venue_change_pages_render(console, logged):
    assert console.get(f"/admin/sports/sport/{logged.sport_id}/change/").status_code == 200
    venue = VenueFactory()
    assert console.get(f"/admin/sports/venue/{venue.pk}/change/").status_code == 200


def test_publishing_a_definition_takes_the_next_version_and_the_plugins_schemas(console, tree):
    response = console.post(
        "/admin/sports/sportdefinitionversion/add/",
        {
            "sport": tree["football"].pk,
            "plugin": "football",
            "meta_schema": "{}",
            "format_schema": "{}",
            "status_codes": "{}",
            "notes": "second edition",
        },
    )
    assert response.status_code == 302
    latest = SportDefinitionVersion.objects.get(sport=tree["football"], version=2)
    assert latest.meta_schema == SportDefinitionVersion.objects.get(version=1).meta_schema


def test_a_published_definitions_schemas_are_read_only(console, tree):
    definition = tree["football"].definitions.get()
    form = (
        console.get(f"/admin/sports/sportdefinitionversion/{definition.pk}/change/")
        .context["adminform"]
        .form
    )
    assert set(form.fields) == {"notes"}


def test_an_unknown_plugin_is_refused(console, tree):
    response = console.post(
        "/admin/sports/sportdefinitionversion/add/",
        {"sport": tree["football"].pk, "plugin": "curling", "notes": ""},
    )
    assert response.status_code == 200
    assert "no plugin 'curling'" in response.context["adminform"].form.errors["plugin"][0]


@pytest.mark.django_db(transaction=True)
def test_the_paginator_uses_the_planner_estimate_for_a_large_unfiltered_table(tree):
    for n in range(3):
        fixture_create(competition=tree["round"], code=f"e{n}", actor="t")
    # Only the tables' owner may ANALYZE; the rows are committed (a transactional test) so
    # the owner's session sees them.
    owner = url_with_user(_database_url_for_test_db(), OWNER_ROLE)
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("ANALYZE sports_fixture")

    class SmallThreshold(EstimatedCountPaginator):
        exact_below = 1

    with CaptureQueriesContext(connection) as queries:
        count = SmallThreshold(Fixture.objects.order_by("pk"), 10).count
    assert count == 3
    assert all("COUNT(" not in q["sql"].upper() for q in queries.captured_queries)


def test_the_paginator_counts_a_filtered_list_exactly(tree):
    fixture_create(competition=tree["round"], code="e1", actor="t")

    class SmallThreshold(EstimatedCountPaginator):
        exact_below = 1

    assert SmallThreshold(Fixture.objects.filter(code="nope"), 10).count == 0


def test_the_move_page_chooses_the_new_parent_through_the_competition_autocomplete(console, tree):
    page = post_action(console, COMPETITIONS, "move", [tree["round"]], index="0").content.decode()
    assert "admin/js/autocomplete.js" in page
    response = console.get(
        "/admin/autocomplete/",
        {"app_label": "sports", "model_name": "competition", "field_name": "parent", "term": "cup"},
    )
    assert [row["text"] for row in response.json()["results"]] == ["FA Cup"]


def test_competition_changelist_query_count_does_not_grow_with_nodes(
    console, tree, django_assert_max_num_queries
):
    for n in range(30):
        competition_create(
            code=f"r{n}", name=f"R{n}", type="round", parent=tree["season"], actor="t"
        )
    # session, user, count, page rows (sport joined), the sport and type filter choices
    with django_assert_max_num_queries(7):
        response = console.get(COMPETITIONS)
    assert len(response.context["cl"].result_list) == 34


@pytest.fixture
def statlines(match):
    fixture_command(fixture=match, command="start", payload={}, actor="t")
    fixture_command(fixture=match, command="goal", payload={"side": "home", "minute": 9}, actor="t")
    return match


@pytest.mark.parametrize("model", [StatLine, UnmatchedRow, ExternalIdMap, LedgerStream])
def test_read_only_change_pages_render_without_a_form(console, logged, statlines, model):
    row = model.objects.first()
    response = console.get(f"/admin/sports/{model._meta.model_name}/{row.pk}/change/")
    assert response.status_code == 200
    assert not response.context["adminform"].form.fields


def test_competition_merge_action_shows_a_confirmation_page(console, tree):
    response = post_action(console, COMPETITIONS, "merge", [tree["cup"], tree["league"]], index="0")
    assert response.status_code == 200
    assert set(response.context["form"].fields["survivor"].queryset) == {
        tree["cup"],
        tree["league"],
    }


def test_confirming_a_competition_merge_moves_children_under_the_survivor(console, tree):
    response = post_action(
        console,
        COMPETITIONS,
        "merge",
        [tree["cup"], tree["league"]],
        confirm="yes",
        survivor=str(tree["cup"].pk),
        note="one competition",
    )
    assert response.status_code == 302
    assert fresh(tree["league"]).merged_into_id == tree["cup"].pk
    assert fresh(tree["season"]).parent_id == tree["cup"].pk
    assert trees_check() == []


def test_a_competition_merge_without_a_reason_is_refused(console, tree):
    response = post_action(
        console,
        COMPETITIONS,
        "merge",
        [tree["cup"], tree["league"]],
        confirm="yes",
        survivor=str(tree["cup"].pk),
    )
    assert response.status_code == 200 and response.context["form"].errors["note"]
    assert fresh(tree["league"]).merged_into_id is None


def test_fixture_merge_action_shows_a_confirmation_page(console, match, tree):
    twin = fixture_create(competition=tree["round"], code="twin", actor="t")
    response = post_action(console, FIXTURES, "merge", [match, twin], index="0")
    assert response.status_code == 200
    assert set(response.context["form"].fields["survivor"].queryset) == {match, twin}


def test_confirming_a_fixture_merge_points_the_twin_at_the_survivor(console, match, tree):
    twin = fixture_create(competition=tree["round"], code="twin", actor="t")
    response = post_action(
        console, FIXTURES, "merge", [match, twin], confirm="yes", survivor=str(match.pk), note="dup"
    )
    assert response.status_code == 302
    assert fresh(twin).merged_into_id == match.pk
    assert TimelineItem.objects.get(fixture=twin, event_type="fixture.merge").payload["reason"] == (
        "dup"
    )


def test_a_fixture_merge_without_a_reason_is_refused(console, match, tree):
    twin = fixture_create(competition=tree["round"], code="twin", actor="t")
    response = post_action(
        console, FIXTURES, "merge", [match, twin], confirm="yes", survivor=str(match.pk)
    )
    assert response.status_code == 200 and response.context["form"].errors["note"]
    assert fresh(twin).merged_into_id is None


def test_pin_action_shows_a_confirmation_page(console, match):
    response = post_action(console, FIXTURES, "pin", [match], index="0")
    assert response.status_code == 200
    assert "result" in dict(response.context["form"].fields["names"].choices)


def test_pinning_and_unpinning_fields_go_through_the_services(console, match):
    post_action(console, FIXTURES, "pin", [match], confirm="yes", names=["result", "venue"])
    assert fresh(match).pinned == ["result", "venue"]
    post_action(console, FIXTURES, "unpin", [match], confirm="yes", names=["venue"])
    assert fresh(match).pinned == ["result"]
    assert list(
        TimelineItem.objects.filter(fixture=match, event_type__in=["fixture.pin", "fixture.unpin"])
        .order_by("seq")
        .values_list("event_type", flat=True)
    ) == ["fixture.pin", "fixture.unpin"]


def test_pinning_without_choosing_a_field_is_refused(console, match):
    response = post_action(console, FIXTURES, "pin", [match], confirm="yes")
    assert response.status_code == 200 and response.context["form"].errors["names"]
    assert fresh(match).pinned == []


def test_a_meta_the_fixtures_definition_refuses_is_shown_on_the_field_and_not_saved(console, match):
    response = console.post(
        f"{FIXTURES}{match.pk}/change/",
        _amend_payload(console, match, meta='{"attendance": -5}', reason="gate count"),
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["meta"]
    assert errors == ["meta/attendance: -5 is less than the minimum of 0"]
    assert fresh(match).meta == {}
    assert not FixtureAmendment.objects.filter(fixture=match).exists()
