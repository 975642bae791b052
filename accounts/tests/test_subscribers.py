import csv
import io

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.test import Client
from django.urls import get_resolver

from accounts.models import Subscriber
from accounts.services import subscriber_signup, subscriber_unsubscribe
from accounts.views import unsubscribe_token

CONSENT = "I agree to the newsletter."


def _form(**extra):
    return {"email": "Ann@Example.ORG", "consent": "on", "first_name": "Ann", **extra}


@pytest.mark.django_db
def test_signup_lowercases_the_email_and_keeps_the_consent_sentence(client):
    response = client.post("/newsletter/", _form(home_airport="lhr", interests=["spirits"]))
    assert response.status_code == 200
    subscriber = Subscriber.objects.get()
    assert subscriber.email == "ann@example.org"
    assert subscriber.home_airport == "LHR"
    assert "newsletter" in subscriber.consent_text
    assert subscriber.consent_at is not None


@pytest.mark.django_db
def test_the_subscriber_table_has_no_address_or_user_agent_column():
    names = {field.name for field in Subscriber._meta.get_fields()}
    assert not names & {"ip", "ip_address", "user_agent", "client"}


@pytest.mark.django_db
def test_signup_without_consent_is_refused(client):
    client.post("/newsletter/", {"email": "bob@example.org"})
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_a_filled_honeypot_stores_nothing(client):
    response = client.post("/newsletter/", _form(website="http://spam.example"))
    assert response.status_code == 200
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_the_signup_form_requires_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/newsletter/", _form()).status_code == 403
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_signing_up_twice_keeps_one_row():
    subscriber_signup(email="Ann@example.org", consent_text=CONSENT)
    subscriber_signup(email="ann@EXAMPLE.org", consent_text=CONSENT)
    assert Subscriber.objects.count() == 1


@pytest.mark.django_db
def test_unsubscribing_keeps_the_row_with_the_date(client):
    subscriber_signup(email="ann@example.org", consent_text=CONSENT)
    client.post(f"/newsletter/unsubscribe/{unsubscribe_token('ann@example.org')}/")
    subscriber = Subscriber.objects.get()
    assert subscriber.unsubscribed_at is not None


@pytest.mark.django_db
def test_a_forged_unsubscribe_link_is_refused(client):
    subscriber_signup(email="ann@example.org", consent_text=CONSENT)
    assert client.post("/newsletter/unsubscribe/ann@example.org:forged/").status_code == 404
    assert Subscriber.objects.get().unsubscribed_at is None


@pytest.mark.django_db
def test_export_subscribers_writes_the_current_list(tmp_path):
    subscriber_signup(email="ann@example.org", consent_text=CONSENT, interests=["sport"])
    subscriber_signup(email="bob@example.org", consent_text=CONSENT)
    subscriber_unsubscribe(email="bob@example.org")
    target = tmp_path / "list.csv"
    call_command("export_subscribers", output=str(target), stderr=io.StringIO())
    rows = list(csv.DictReader(target.open()))
    assert [row["email"] for row in rows] == ["ann@example.org"]
    assert rows[0]["interests"] == "sport"


def test_subscribers_have_no_admin_page():
    assert Subscriber not in admin.site._registry


def test_no_url_route_reads_subscribers():
    def walk(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern.callback

    for route, callback in walk(get_resolver().url_patterns):
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        queryset = getattr(view, "queryset", None)
        assert getattr(queryset, "model", None) is not Subscriber, route
        if "subscri" in route:
            assert route.startswith(("newsletter/",)), route
