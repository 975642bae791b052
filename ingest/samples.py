"""The sample data ``make run`` loads on a fresh machine, through the real import code.

Each entry is (label, callable). A loader must be idempotent: ``make run`` calls every loader
on every start, and a second call changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
    ("Cricket: 30 Cricsheet matches (cricsheet.org, ODC-By 1.0)", _cricket),
]
