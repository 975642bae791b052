"""The API of a consumer's follows."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from catalogue.alert_records import Follow
from catalogue.services import follow_set
from catalogue.tests.factories import ProductFactory

pytestmark = pytest.mark.django_db

FOLLOWS = "/api/v1/follows/"


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_follows_need_a_signed_in_account(anon_client):
    assert anon_client.get(FOLLOWS).status_code == 403
    assert anon_client.post(FOLLOWS, {"product": str(ProductFactory().pk)}).status_code == 403


def test_the_list_shows_only_my_follows_newest_first(viewer, editor, django_assert_num_queries):
    older, newer = ProductFactory(name="Older"), ProductFactory(name="Newer")
    follow_set(user=viewer, product=older, actor=viewer)
    follow_set(user=viewer, product=newer, actor=viewer, drop_percent=Decimal("10"))
    follow_set(user=editor, product=older, actor=editor)
    with django_assert_num_queries(1):
        body = _client(viewer).get(FOLLOWS).json()
    assert [row["product"]["name"] for row in body["results"]] == ["Newer", "Older"]
    assert body["results"][0]["drop_percent"] == "10.00"
    assert set(body) == {"next", "previous", "results"}


def test_posting_follows_a_product_and_posting_again_changes_the_terms(viewer):
    product = ProductFactory()
    client = _client(viewer)
    first = client.post(FOLLOWS, {"product": str(product.pk)}, format="json").json()
    again = client.post(
        FOLLOWS,
        {"product": str(product.pk), "target_price": "70", "target_currency": "USD",
         "airports": ["lhr"]},
        format="json",
    ).json()  # fmt: skip
    assert first["id"] == again["id"]
    assert (again["target_price"], again["target_currency"], again["airports"]) == (
        "70.00", "USD", ["LHR"],
    )  # fmt: skip


def test_bad_terms_answer_the_one_error_body_naming_the_field(viewer):
    response = _client(viewer).post(
        FOLLOWS, {"product": str(ProductFactory().pk), "drop_percent": "120"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert [error["field"] for error in body["errors"]] == ["drop_percent"]
    assert not Follow.objects.exists()


def test_an_unknown_product_is_a_400_naming_the_field(viewer):
    response = _client(viewer).post(
        FOLLOWS, {"product": "01900000-0000-7000-8000-000000000000"}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert [error["field"] for error in response.json()["errors"]] == ["product"]


def test_deleting_unfollows_and_someone_elses_follow_is_a_404(viewer, editor):
    follow = follow_set(user=viewer, product=ProductFactory(), actor=viewer)
    assert _client(editor).delete(f"{FOLLOWS}{follow.pk}/").status_code == 404
    assert _client(viewer).delete(f"{FOLLOWS}{follow.pk}/").status_code == 204
    assert not Follow.objects.exists()
