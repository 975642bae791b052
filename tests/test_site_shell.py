"""The public site's shell: sections, search box, signed-in state, breadcrumbs, home panels."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from discussions.models import Notification
from sports.tests.factories import CompetitionFactory, FixtureFactory, FootballFactory, publish

pytestmark = pytest.mark.django_db


def _html(client, url="/"):
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_every_page_carries_the_sections_and_the_search_box(client):
    html = _html(client, reverse("sports:competition-list"))
    for label in ("Competitions", "Cricket", "Statistics", "Catalogue", "Articles"):
        assert f">{label}</a>" in html
    assert 'role="search"' in html
    assert 'name="q"' in html


def test_the_current_section_is_marked_for_assistive_technology(client):
    html = _html(client, reverse("catalogue:product-list"))
    assert f'href="{reverse("catalogue:product-list")}" aria-current="page"' in html


def test_a_visitor_is_offered_sign_in_and_no_console(client):
    html = _html(client)
    assert "Sign in" in html
    assert "Sign out" not in html
    assert ">Console<" not in html


def test_a_signed_in_reader_sees_their_name_unread_count_and_a_sign_out_form(client, viewer):
    for n in range(3):
        Notification.objects.create(
            recipient=viewer,
            kind="mention",
            source_type="test",
            source_id=str(n),
            dedupe_key=f"shell-{n}",
            read_at=timezone.now() if n == 0 else None,
        )
    client.force_login(viewer)
    html = _html(client)
    assert viewer.get_username() in html
    assert 'aria-label="2 unread"' in html
    assert f'action="{reverse("admin:logout")}"' in html
    assert ">Console<" not in html


def test_staff_see_the_console_link(client, editor):
    client.force_login(editor)
    assert ">Console<" in _html(client)


def test_the_home_page_groups_competitions_by_sport_and_lists_latest_results(client):
    football = FootballFactory()
    league = CompetitionFactory(sport=football, parent=None, name="Test League")
    fixture = FixtureFactory(
        sport=football,
        competition=league,
        name="Reds v Blues",
        scheduled_start=dt.datetime(2024, 5, 1, 15, tzinfo=dt.UTC),
        result={"score": {"home": 1, "away": 0}},
    )
    publish(fixture)
    html = _html(client)
    assert f">{football.name}</h3>" in html
    assert reverse("sports:competition-detail", args=[league.pk]) in html
    assert "1 fixture · May 2024" in html
    assert reverse("sports:fixture-detail", args=[fixture.pk]) in html


def test_the_home_page_costs_a_fixed_number_of_queries(client, django_assert_num_queries):
    football = FootballFactory()
    for n in range(3):
        league = CompetitionFactory(sport=football, parent=None, name=f"League {n}")
        publish(
            FixtureFactory(
                sport=football,
                competition=league,
                scheduled_start=dt.datetime(2024, 5, 1 + n, tzinfo=dt.UTC),
                result={"score": {"home": 1, "away": 0}},
            )
        )
    with django_assert_num_queries(5):
        client.get("/")


def test_a_refused_action_shows_its_reason_on_the_page_it_returns_to(client, editor):
    from django.contrib.contenttypes.models import ContentType

    from discussions.tests.factories import ArticleFactory

    article = ArticleFactory(status="published", published_at=timezone.now())
    page = reverse("discussions:article-detail", args=[article.slug])
    client.force_login(editor)
    kind = ContentType.objects.get_for_model(article).pk
    response = client.post(
        f"/discussions/{kind}/{article.pk}/", {"op": "no-such-op", "next": page}, follow=True
    )
    assert response.redirect_chain[-1][0] == page
    html = response.content.decode()
    assert 'class="messages" role="status"' in html
    assert "Unknown action &#x27;no-such-op&#x27;." in html
