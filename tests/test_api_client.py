"""A typed client generated from the OpenAPI document drives the main read flows against a
live server on the real database: competitions -> fixtures under a node (every page) -> a
scorecard -> a player's career -> a leaderboard (every page) -> products -> a product's
prices. The generated models parse every body strictly (a required field the schema names
and the response lacks is an error), and ``raise_on_unexpected_status`` turns any status
the schema does not document into a failure, so drift between the document and the
behaviour fails here.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.management import call_command

from catalogue.tests.factories import ListingFactory, PriceObservationFactory
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import ball, document, import_match, innings
from cricket.tests.factories import seed_dismissal_kinds

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "omnium_client"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def generated(tmp_path):
    """The client package, generated from the document the project serves."""
    schema = tmp_path / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    config = tmp_path / "generator.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run over the generated code
    subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(schema),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / PACKAGE),
            "--config",
            str(config),
            "--fail-on-warning",
        ],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.fixture
def data():
    seed_dismissal_kinds()
    bowled = [{"player_out": "B Batter", "kind": "bowled"}]
    for day in ("2024-05-01", "2024-05-08", "2024-05-15"):
        import_match(
            document(
                innings([ball(runs=4), ball("C Batter", runs=2), ball(wickets=bowled)]),
                day=day,
            )
        )
    statistics_rebuild_all(reason="test", actor="integration:test")
    for price in ("41.00", "39.50"):
        listing = ListingFactory()
        PriceObservationFactory(listing=listing, price=Decimal(price))


def _cursor(next_url: str | None) -> str | None:
    return parse_qs(urlparse(next_url).query)["cursor"][0] if next_url else None


def _every_page(call, **params):
    """Every row of a cursor-paged operation, following ``next`` through the client."""
    rows, pages, cursor = [], 0, None
    while True:
        page = call(**params, **({"cursor": cursor} if cursor else {}))
        rows.extend(page.results)
        pages += 1
        cursor = _cursor(page.next_)
        if cursor is None:
            return rows, pages


def test_the_generated_client_reads_the_main_flows(generated, data, live_server):
    api = importlib.import_module(f"{PACKAGE}.api")
    client = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    sports = importlib.import_module(f"{api.__name__}.sports")
    cricket = importlib.import_module(f"{api.__name__}.cricket")
    catalogue = importlib.import_module(f"{api.__name__}.catalogue")

    def op(package, name):
        return importlib.import_module(f"{package.__name__}.{name}").sync

    nodes, _ = _every_page(
        lambda **kw: op(sports, "v1_competitions_list")(client=client, **kw), page_size=1
    )
    root = next(node for node in nodes if node.parent is None)

    fixtures, pages = _every_page(
        lambda **kw: op(sports, "v1_competitions_fixtures_list")(id=root.id, client=client, **kw),
        page_size=2,
    )
    assert len(fixtures) == 3 and pages == 2
    assert len({f.id for f in fixtures}) == 3

    card = op(cricket, "v1_cricket_fixtures_scorecard_retrieve")(id=fixtures[0].id, client=client)
    batter = card.innings[0].batting[0]
    assert batter.runs == 4

    career = op(cricket, "v1_cricket_players_career_retrieve")(
        id=batter.participant_id, client=client
    )
    assert career.id == batter.participant_id
    assert sum(row.runs for row in career.formats if row.format_ == "T20") == 12

    board, pages = _every_page(
        lambda **kw: op(cricket, "v1_cricket_leaderboards_batting_retrieve")(client=client, **kw),
        page_size=1,
        format_="T20",
    )
    assert pages == len(board) >= 3
    assert [row.rank for row in board] == list(range(1, len(board) + 1))
    assert board[0].participant_id == batter.participant_id

    products, _ = _every_page(
        lambda **kw: op(catalogue, "v1_products_list")(client=client, **kw), page_size=1
    )
    assert len(products) == 2
    detail = op(catalogue, "v1_products_retrieve")(id=products[0].id, client=client)
    assert detail.id == products[0].id
    assert detail.prices  # the prices by airport, parsed by the generated model
