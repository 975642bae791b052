"""Which names find a record (its own, its aliases, the names of what was merged into it,
its accented spelling) and which records stay hidden (what the public pages hide)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from catalogue.services import brand_alias_apply, product_merge
from catalogue.tests.factories import BrandFactory, ListingFactory, LocationFactory, ProductFactory
from discussions.tests.factories import ArticleFactory
from search.selectors import site_search
from sports.services import alias_observe, competition_merge, participant_merge
from sports.tests.factories import (
    CompetitionFactory,
    CompetitorFactory,
    CountryFactory,
    FixtureFactory,
    ParticipantFactory,
    TeamFactory,
    VenueFactory,
    publish,
)

pytestmark = pytest.mark.django_db


def _seen(*participants, accepted=True, venue=None):
    """Show ``participants`` in one fixture, public once its submission is accepted."""
    fixture = FixtureFactory(venue=venue)
    publish(fixture, accepted=accepted)
    for participant in participants:
        CompetitorFactory(fixture=fixture, participant=participant)
    return fixture


def _shown(product):
    ListingFactory(product=product, location=LocationFactory(visible=True))
    return product


def _names(query, group=None):
    return [(hit.group, hit.name) for found in site_search(query).groups for hit in found.hits
            if group is None or hit.group == group]  # fmt: skip


def test_a_players_alias_finds_the_player():
    player = ParticipantFactory(name="NR Sciver")
    _seen(player)
    alias_observe(participant=player, name="Nat Sciver-Brunt", source_code="press")

    top = site_search("nat sciver brunt").top

    assert (top.group, top.name, top.matched) == ("people", "NR Sciver", "Nat Sciver-Brunt")


def test_a_merged_players_name_finds_the_survivor():
    survivor = ParticipantFactory(name="Sachin Ramesh Tendulkar")
    loser = ParticipantFactory(name="SR Tendulkar")
    _seen(survivor, loser)
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one person")

    found = _names("sr tendulkar", "people")

    assert found == [("people", "Sachin Ramesh Tendulkar")]


def test_a_merged_players_aliases_find_the_survivor_through_a_chain_of_merges():
    first = ParticipantFactory(name="Sachin Tendulkar")
    middle = ParticipantFactory(name="S Tendulkar")
    last = ParticipantFactory(name="SR Tendulkar")
    _seen(first, middle, last)
    alias_observe(participant=first, name="Little Master", source_code="press")
    participant_merge(loser=first, survivor=middle, actor="t", note="one person")
    participant_merge(loser=middle, survivor=last, actor="t", note="one person")

    top = site_search("litle master").top

    assert (top.name, top.matched) == ("SR Tendulkar", "Little Master")


def test_a_merged_row_without_copied_names_still_leads_to_its_survivor():
    # Rows merged before names were copied across: the loser's own name is followed.
    survivor = TeamFactory(name="Royal Challengers Bengaluru")
    loser = TeamFactory(name="Bangalore Royals XI", merged_into=survivor)
    _seen(survivor)

    top = site_search("bangalore royals").top

    assert (top.id, top.matched) == (str(survivor.pk), loser.name)


def test_the_loser_of_a_merge_is_never_a_result_itself():
    survivor = TeamFactory(name="Kings XI Punjab")
    loser = TeamFactory(name="Kings Eleven Punjab")
    _seen(survivor, loser)
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one club")

    assert _names("kings punjab", "teams") == [("teams", "Kings XI Punjab")]


def test_an_unaccented_query_finds_an_accented_brand_and_product():
    house = BrandFactory(slug="lancome", name="Lancôme")
    _shown(ProductFactory(brand=house, name="La Vie Est Belle Eau de Parfum"))

    assert _names("Lancome", "brands") == [("brands", "Lancôme")]
    assert _names("lancome la vie est belle", "products") == [
        ("products", "La Vie Est Belle Eau de Parfum")
    ]


def test_an_accented_query_finds_an_unaccented_name():
    _seen(TeamFactory(name="Atletico Madrid"))

    assert site_search("Atlético Madrid").top.name == "Atletico Madrid"


def test_a_brand_spelling_aliased_to_a_house_finds_the_house(editor):
    house = BrandFactory(slug="john-walker-and-sons", name="John Walker & Sons")
    spelling = BrandFactory(slug="johnnie-walker", name="Johnnie Walker")
    brand_alias_apply(alias=spelling, canonical=house, actor=editor, note="same house")

    top = site_search("johnie walker").top

    assert (top.group, top.name, top.matched) == ("brands", "John Walker & Sons", "Johnnie Walker")


def test_a_merged_products_name_finds_the_survivor(editor):
    survivor = _shown(ProductFactory(name="Sauvage Eau de Toilette 100 ml"))
    loser = _shown(ProductFactory(name="DIOR SAUVAGE EDT 100ML"))
    product_merge(loser=loser, survivor=survivor, actor=editor, note="one bottle")

    assert _names("dior sauvage edt", "products") == [("products", survivor.name)]


def test_a_merged_competitions_name_finds_the_survivor():
    survivor = CompetitionFactory(name="ICC Men's T20 World Cup")
    loser = CompetitionFactory(name="World Twenty20", sport=survivor.sport)
    competition_merge(loser=loser, survivor=survivor, actor="t", reason="renamed")

    assert _names("world twenty20", "competitions") == [("competitions", survivor.name)]


def test_a_participant_seen_only_in_a_submission_not_yet_accepted_is_hidden():
    _seen(ParticipantFactory(name="Zebedee Quartermaine"), accepted=False)

    assert site_search("zebedee quartermaine").groups == []


def test_a_country_is_found_before_any_fixture_shows_it():
    CountryFactory(name="Papua New Guinea")

    assert site_search("papua new guinee").top.group == "countries"


def test_a_venue_is_found_once_a_public_fixture_was_played_there():
    played = VenueFactory(name="Eden Park, Auckland")
    VenueFactory(name="Eden Gardens Annexe")
    _seen(TeamFactory(), venue=played)

    assert _names("eden", "venues") == [("venues", "Eden Park, Auckland")]


def test_a_product_without_a_visible_listing_is_hidden():
    hidden = ProductFactory(name="Glenfiddich 21 Year Old")
    ListingFactory(product=hidden, location=LocationFactory(visible=False))
    _shown(ProductFactory(name="Glenfiddich 12 Year Old"))

    assert _names("glenfiddich", "products") == [("products", "Glenfiddich 12 Year Old")]


def test_only_published_articles_are_found():
    ArticleFactory(title="Duty free at Heathrow", status="published", published_at=timezone.now())
    ArticleFactory(title="Duty free at Heathrow, a draft")

    assert _names("heathrow", "articles") == [("articles", "Duty free at Heathrow")]


def test_an_article_is_found_by_a_word_of_its_body():
    ArticleFactory(
        title="Where to shop",
        body_md="The whisky counter at Terminal 5 is the largest.",
        status="published",
        published_at=timezone.now(),
    )

    assert _names("whisky terminal", "articles") == [("articles", "Where to shop")]


def test_a_group_asked_for_alone_gives_more_than_five():
    for n in range(7):
        _seen(TeamFactory(name=f"Harbour Rovers {n}"))

    assert len(site_search("harbour rovers").groups[0].hits) == 5
    assert len(site_search("harbour rovers", group="teams").groups[0].hits) == 7


def test_a_renamed_product_is_found_by_its_new_name_and_no_longer_by_its_old():
    product = _shown(ProductFactory(name="Quorvane Intense", brand_name="Maison Elbe"))

    product.name = "Zentaro Intense"
    product.save(update_fields=["name"])

    assert ("products", "Zentaro Intense") in _names("zentaro intens", "products")
    assert _names("quorvane", "products") == []


def test_a_word_seen_only_in_a_new_name_can_be_misspelled_at_once():
    _shown(ProductFactory(name="Brivastelle Eau de Parfum", brand_name="Maison Elbe"))

    # Two letters swapped: an edit distance of two from a word the list learnt on insert.
    found = _names("bivrastelle", "products")

    assert found and found[0] == ("products", "Brivastelle Eau de Parfum")
