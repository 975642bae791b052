"""Categories across languages: each feed's own category text, mapped by a person onto one
curated taxonomy, and the texts no one has mapped waiting in the editor's queue."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue import services
from catalogue.collection_records import Source
from catalogue.identity.keys import Listed
from catalogue.models import Category, CategoryMapping, Product
from catalogue.selectors import category_queue
from catalogue.tests.factories import LocationFactory, taxonomy_ensure

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def taxonomy(db):
    taxonomy_ensure()


@pytest.fixture
def alko():
    return _source("alko", "hel", "EUR")


@pytest.fixture
def heinemann():
    return _source("heinemann", "lhr", "GBP")


def _source(slug, code, currency):
    location = LocationFactory(code=code, iata=code.upper(), currency=currency, visible=True)
    return Source.objects.create(slug=slug, name=slug.title(), feed_format="generic_csv",
                                 location=location)  # fmt: skip


def sight(source, sku, name, category, *, day=5):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=source.location,
            source_sku=sku,
            listed=Listed(brand="Glen Test", name=name, category=category),
            vertical="drinks",
            category=category,
            seen_at=datetime(2026, 1, day, tzinfo=UTC),
        )
    ).product


def whisky():
    return Category.objects.get(slug="whisky")


def in_category(slug):
    return set(Product.objects.visible().in_category(slug).values_list("pk", flat=True))


def test_the_migration_ships_the_taxonomy_with_whisky_under_spirits():
    assert str(Category.objects.select_related("parent").get(slug="whisky")) == "Spirits / Whisky"
    assert {"fragrance", "spirits", "wine", "confectionery", "cosmetics", "tobacco"} <= set(
        Category.objects.top().values_list("slug", flat=True)
    )


def test_finnish_and_english_texts_land_under_whisky_once_an_editor_maps_them(
    alko, heinemann, editor
):
    finnish = sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    english = sight(heinemann, "9", "Glen Test 18 70 cl", "Whisky")
    assert in_category("whisky") == set()
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    services.category_map(source=heinemann, text="Whisky", category=whisky(), actor=editor)
    assert in_category("whisky") == {finnish.pk, english.pk}
    # A top category takes in the ones under it.
    assert in_category("spirits") == {finnish.pk, english.pk}
    labels = Product.objects.visible().with_category().values_list("category_label", flat=True)
    assert set(labels) == {"Spirits / Whisky"}


def test_a_mapping_belongs_to_its_source(alko, heinemann, editor):
    sight(heinemann, "9", "Glen Test 18 70 cl", "Viskit")
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    assert in_category("whisky") == set()


def test_a_recollection_keeps_the_mapping_whatever_the_spacing_or_case(alko, editor):
    product = sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    again = sight(alko, "1", "Glen Test 12 70 cl", "  VISKIT ", day=6)
    newcomer = sight(alko, "2", "Glen Test 15 70 cl", "viskit", day=6)
    assert again.pk == product.pk
    assert in_category("whisky") == {product.pk, newcomer.pk}
    assert CategoryMapping.objects.count() == 1


def test_a_new_unknown_text_waits_in_the_editors_queue(alko, editor):
    sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    assert list(category_queue()) == []
    sight(alko, "2", "Fazer Sininen 200 g", "Suklaa", day=6)
    sight(alko, "3", "Fazer Sininen 400 g", "Suklaa", day=6)
    [row] = category_queue()
    assert (row["source_slug"], row["text"], row["listings"]) == ("alko", "Suklaa", 2)


def test_mapping_writes_an_audit_row_with_the_old_and_new_category(alko, editor):
    mapping = services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    liqueur = Category.objects.get(slug="liqueur")
    services.category_map(source=alko, text="viskit", category=liqueur, actor=editor, note="oops")
    entries = AuditEntry.objects.filter(action="category.map", entity_key=str(mapping.pk))
    assert [(e.detail["from"], e.detail["to"]) for e in entries.order_by("at", "pk")] == [
        (None, "whisky"),
        ("whisky", "liqueur"),
    ]
    assert all(e.actor == editor for e in entries)


def test_deciding_the_same_again_writes_nothing(alko, editor):
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    assert AuditEntry.objects.filter(action="category.map").count() == 1


def test_an_empty_text_is_refused(alko, editor):
    with pytest.raises(ValidationError, match="category text"):
        services.category_map(source=alko, text="  ", category=whisky(), actor=editor)
    assert not CategoryMapping.objects.exists()


def test_the_product_list_filters_by_the_taxonomy(client, alko, editor):
    product = sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    sight(alko, "2", "Fazer Sininen 200 g", "Suklaa")
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    response = client.get(reverse("catalogue:product-list"), {"category": "whisky"})
    assert [p.pk for p in response.context["page"].object_list] == [product.pk]
    assert "Spirits / Whisky" in response.content.decode()


def test_the_api_product_list_filters_by_the_taxonomy(anon_client, alko, editor):
    product = sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    for slug, found in (("whisky", [str(product.pk)]), ("spirits", [str(product.pk)]),
                        ("fragrance", [])):  # fmt: skip
        body = anon_client.get("/api/v1/products/", {"category": slug}).json()
        assert [p["id"] for p in body["results"]] == found


@pytest.fixture
def console(client, editor):
    account_groups_sync(user=editor)
    client.force_login(editor)
    return client


def test_the_console_queue_links_each_text_to_its_decision(console, alko):
    editor_client = console
    sight(alko, "1", "Glen Test 12 70 cl", "Viskit")
    response = editor_client.get(reverse("admin:catalogue_categorymapping_queue"))
    assert response.status_code == 200
    assert "Viskit" in response.content.decode()
    decide = response.context["rows"][0]["decide_url"]
    assert editor_client.get(decide).status_code == 200
    response = editor_client.post(
        decide, {"source": alko.pk, "text": "Viskit", "category": whisky().pk, "note": ""}
    )
    assert response.status_code == 302
    assert CategoryMapping.objects.get().category == whisky()
    assert list(category_queue()) == []


def test_the_console_lists_mappings_and_the_taxonomy(console, alko, editor):
    services.category_map(source=alko, text="Viskit", category=whisky(), actor=editor)
    for name in ("categorymapping", "category"):
        response = console.get(reverse(f"admin:catalogue_{name}_changelist"))
        assert response.status_code == 200
