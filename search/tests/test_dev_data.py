"""Search over the data ``make run`` loads: a table of misspelled and unaccented queries,
each of which must find its record as the very first result.

The samples of ingest/samples.py (a Premier League season, the hand-made Games, the duty-free
catalogue, and the ten of its thirty Cricsheet matches that hold the cricket names below) are
loaded once for the module through the real import code, inside a transaction rolled back at
the end.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction
from django.urls import NoReverseMatch, reverse

from omnium.testing import REPO_ROOT
from search.selectors import site_search

SAMPLES = REPO_ROOT / "ingest" / "samples"
CRICKET_MATCHES = [
    "63963.json",
    "64013.json",
    "237242.json",
    "335982.json",
    "419121.json",
    "1226909.json",
    "1252667.json",
    "1383095.json",
    "1383461.json",
    "1474411.json",
]

# (query as a visitor might type it, the group of the record meant, its name)
MISSPELLED = [
    ("wolverhampton wanderes", "teams", "Wolverhampton Wanderers"),
    ("tottenham hotspurs", "teams", "Tottenham Hotspur"),
    ("manchester untied", "teams", "Manchester United"),
    ("newcastel united", "teams", "Newcastle United"),
    ("crystal palce", "teams", "Crystal Palace"),
    ("brighton hove albion", "teams", "Brighton & Hove Albion"),
    ("huddersfeild", "teams", "Huddersfield Town"),
    ("liverpol", "teams", "Liverpool FC"),
    ("southamton", "teams", "Southampton FC"),
    ("premier leage", "competitions", "Premier League"),
    ("mens 100m breastroke", "competitions", "Men's 100m Breaststroke"),
    ("womens 4x100 relay", "competitions", "Women's 4 x 100m Relay"),
    ("grate britain", "countries", "Great Britain"),
    ("refugee olympic", "countries", "Refugee Olympic Team"),
    ("brasil", "countries", "Brazil"),
    ("untied states", "countries", "United States"),
    ("eli kiprono", "people", "KIPRONO Eli"),
    ("yui tanaka", "people", "TANAKA Yui"),
    ("sami hadad", "people", "HADDAD Sami"),
    ("jonnie walker red", "products", "Johnnie Walker Red Label"),
    ("sauvgae", "products", "Sauvage Elixir"),
    ("sauvage eau de toillete", "products", "Sauvage Eau de Toilette"),
    ("glenfidich 18", "products", "Glenfiddich 18 Year Old"),
    ("tobleron", "brands", "Toblerone"),
    ("lindt excelence 85", "products", "Lindt Excellence Dark 85% 100 g"),
    ("paco rabane", "brands", "Paco Rabanne"),
    ("dolce gabana", "brands", "Dolce & Gabbana"),
    ("light blu pour home", "products", "Light Blue Pour Homme EDT"),
    ("1 milion royal", "products", "1 Million Royal Parfum for Men 100ml"),
    ("johny walker black", "products", "Johnnie Walker Black Label 12 Year Old"),
    ("willam grant", "brands", "William Grant & Sons"),
    ("dior sauvage elixr", "products", "Sauvage Elixir"),
    ("sachin tendulker", "people", "SR Tendulkar"),
    ("kohli", "people", "V Kohli"),
    ("muralidaran", "people", "M Muralitharan"),
    ("ponitng", "people", "RT Ponting"),
    ("fouche", "people", "S Fouché"),
    ("chennai super king", "teams", "Chennai Super Kings"),
    ("kolkatta knight riders", "teams", "Kolkata Knight Riders"),
    ("royal challengers bengaluru", "teams", "Royal Challengers Bangalore"),
    ("indian premier leage", "competitions", "Indian Premier League"),
    ("womens big bash", "competitions", "Women's Big Bash League"),
    ("chinaswamy", "venues", "M Chinnaswamy Stadium"),
    ("edgbaston birmingam", "venues", "Edgbaston, Birmingham"),
    ("sydney cricket grund", "venues", "Sydney Cricket Ground"),
    ("syed mustaq ali", "competitions", "Syed Mushtaq Ali Trophy"),
    # The cricket side plays for the country of the same name, which leads a tie.
    ("new zeland", "countries", "New Zealand"),
    ("west indes", "teams", "West Indies"),
    ("papua new guinee", "countries", "Papua New Guinea"),
    ("the hundred mens", "competitions", "The Hundred Men's Competition"),
    ("birmingham pheonix", "teams", "Birmingham Phoenix"),
    ("sciver brunt", "people", "NR Sciver"),
]


@pytest.fixture(scope="module")
def dev_data(django_db_setup, django_db_blocker):
    from cricket.tests.factories import seed_dismissal_kinds
    from ingest.collectors.sample import load_catalogue_sample
    from ingest.cricsheet.importer import import_paths
    from ingest.games import games_import
    from ingest.openfootball import import_files

    with django_db_blocker.unblock(), transaction.atomic():
        seed_dismissal_kinds()
        football = SAMPLES / "football" / "2018-19" / "en.1.json"
        import_files([football], code="epl", name="Premier League")
        games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
        load_catalogue_sample()
        summary = import_paths([SAMPLES / "cricket" / name for name in CRICKET_MATCHES])
        assert not summary.rejected, summary.rejections
        yield
        transaction.set_rollback(True)


def test_the_table_is_at_least_forty_queries_long():
    assert len(MISSPELLED) >= 40
    assert len({query for query, _group, _name in MISSPELLED}) == len(MISSPELLED)


@pytest.mark.parametrize(("query", "group", "name"), MISSPELLED)
def test_a_misspelled_query_finds_its_record_first(dev_data, db, query, group, name):
    top = site_search(query).top

    assert top is not None, f"{query!r} found nothing"
    assert (top.group, top.name) == (group, name)


def test_every_top_result_links_to_its_page(dev_data, db):
    missing = [query for query, _g, _n in MISSPELLED if not site_search(query).top.url]
    # Teams, countries and venues link once their pages exist; everything else always does.
    assert not [q for q in missing if q not in _waiting_for_pages()], missing


def _waiting_for_pages() -> set[str]:
    waiting = set()
    for route, groups in (
        ("sports:participant-detail", {"teams", "countries", "people"}),
        ("sports:venue-detail", {"venues"}),
    ):
        try:
            reverse(route, args=[uuid.uuid4()])
        except NoReverseMatch:
            waiting |= {query for query, group, _n in MISSPELLED if group in groups}
    return waiting


def test_an_exact_name_scores_above_its_misspelling(dev_data, db):
    exact = site_search("Premier League").top
    misspelled = site_search("premier leage").top

    assert exact.name == misspelled.name == "Premier League"
    assert exact.score > misspelled.score


def test_a_name_with_an_accent_is_found_by_its_accent_too(dev_data, db):
    assert site_search("Fouché").top.name == site_search("fouche").top.name == "S Fouché"
