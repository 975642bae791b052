"""Awards: recorded on a product by an editor (service, console, API), audited, shown on
the product's page."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue import services
from catalogue.models import Award
from catalogue.tests.factories import ListingFactory, PriceObservationFactory, ProductFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator(editor_client, editor):
    account_groups_sync(user=editor)
    return editor_client


@pytest.fixture
def product():
    product = ProductFactory(name="Glen Test 18")
    PriceObservationFactory(listing=ListingFactory(product=product))
    return product


def record(product, editor, **kwargs):
    values = {"competition": "San Francisco World Spirits Competition", "year": 2025,
              "medal": "gold", **kwargs}  # fmt: skip
    return services.award_record(product=product, actor=editor, **values)


def test_an_award_is_recorded_with_an_audit_row(product, editor):
    award = record(product, editor)
    assert (award.product, award.medal, award.year) == (product, "gold", 2025)
    entry = AuditEntry.objects.get(action="award.record")
    assert (entry.actor, entry.entity_key, entry.detail["award"]) == (
        editor,
        str(product.pk),
        str(award.pk),
    )


def test_recording_the_same_award_again_changes_nothing(product, editor):
    first = record(product, editor)
    assert record(product, editor, competition=" san francisco  World Spirits Competition").pk == (
        first.pk
    )
    assert Award.objects.count() == 1
    assert AuditEntry.objects.filter(action="award.record").count() == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"competition": " "}, "competition"),
        ({"medal": "platinum"}, "medal"),
        ({"year": 1700}, "year"),
        ({"medal": "", "score": None}, "medal"),
        ({"medal": "", "score": Decimal("101")}, "score"),
    ],
)
def test_a_bad_award_is_refused_naming_the_field(product, editor, kwargs, field):
    with pytest.raises(ValidationError) as refused:
        record(product, editor, **kwargs)
    assert field in refused.value.message_dict
    assert not Award.objects.exists()


def test_a_merged_product_takes_no_award(product, editor):
    merged = ProductFactory(merged_into=product)
    with pytest.raises(ValidationError, match="merged"):
        record(merged, editor)


def test_the_product_page_shows_its_awards(client, product, editor):
    record(product, editor)
    record(product, editor, competition="IWSC", medal="", score=Decimal("95.00"), year=2024)
    page = client.get(reverse("catalogue:product-detail", args=[product.pk])).content.decode()
    assert "Gold, San Francisco World Spirits Competition 2025" in page
    assert "Scored (95.00 points), IWSC 2024" in page


def test_an_editor_records_an_award_through_the_api(curator, product):
    response = curator.post(
        "/api/v1/curation/awards/",
        {"product": str(product.pk), "competition": "IWSC", "year": 2024, "medal": "silver"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert Award.objects.get().medal == "silver"
    assert AuditEntry.objects.filter(action="award.record").count() == 1


def test_the_api_refuses_a_viewer_and_a_bad_award(client, viewer, curator, product):
    client.force_login(viewer)
    denied = client.post("/api/v1/curation/awards/", {"product": str(product.pk),
                         "competition": "IWSC", "medal": "gold"})  # fmt: skip
    assert denied.status_code == 403
    bad = curator.post("/api/v1/curation/awards/", {"product": str(product.pk),
                             "competition": "IWSC"}, format="json")  # fmt: skip
    assert bad.status_code == 400 and "medal" in bad.content.decode()
    assert not Award.objects.exists()


def test_an_editor_records_an_award_in_the_console(client, editor, product):
    account_groups_sync(user=editor)
    client.force_login(editor)
    url = reverse("admin:catalogue_award_add")
    assert client.get(url, {"product": product.pk}).status_code == 200
    response = client.post(url, {"product": product.pk, "competition": "IWSC", "year": "2024",
                                 "medal": "bronze", "score": "", "source": ""})  # fmt: skip
    assert response.status_code == 302
    assert Award.objects.get().medal == "bronze"
    assert client.get(reverse("admin:catalogue_award_changelist")).status_code == 200
