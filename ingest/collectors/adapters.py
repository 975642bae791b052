"""One feed adapter per source format: how to read a file's rows (the whole file is
decoded and checked first: a bad file is a ``FeedError`` before any row is yielded)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ingest.collectors import alko, ebay_perfume, generic, rs_maxi
from ingest.collectors.feeds import FeedRow, Rejection


@dataclass(frozen=True)
class Adapter:
    parser_version: str
    rows: Callable[..., Iterator[FeedRow | Rejection]]
    carries_prices: Callable[[dict], bool]


def _fixed(value: bool) -> Callable[[dict], bool]:
    return lambda mapping: value


ADAPTERS: dict[str, Adapter] = {
    "rs_maxi": Adapter(rs_maxi.PARSER_VERSION, rs_maxi.rows, _fixed(False)),
    "ebay_perfume": Adapter(ebay_perfume.PARSER_VERSION, ebay_perfume.rows, _fixed(True)),
    "alko": Adapter(alko.PARSER_VERSION, alko.rows, _fixed(True)),
    "generic_csv": Adapter(generic.PARSER_VERSION, generic.rows_csv, generic.carries_prices),
    "generic_json": Adapter(generic.PARSER_VERSION, generic.rows_json, generic.carries_prices),
}


def adapter_for(feed_format: str) -> Adapter:
    return ADAPTERS[feed_format]


def resolve_path(path: str | Path) -> Path:
    from django.conf import settings

    path = Path(path)
    return path if path.is_absolute() else Path(settings.BASE_DIR) / path
