"""Factories and helpers for staged-batch tests: real sample match files, staged through the
services (a batch is only ever made that way)."""

from __future__ import annotations

import itertools

import factory

from ingest.batches import services
from omnium.testing import REPO_ROOT

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"
# Small real matches: a women's T20 (10 kB) and a women's ODI (15 kB).
SMALL = ("1226909", "1398272")

_keys = itertools.count(1)


def sample(match_id: str) -> tuple[str, bytes]:
    return f"{match_id}.json", (SAMPLES / f"{match_id}.json").read_bytes()


def renamed(match_id: str, *, old_name: str, new_name: str, new_id: str) -> tuple[str, bytes]:
    """A copy of a real match in which one player goes by another name and registry id."""
    name, raw = sample(match_id)
    document = raw.decode()
    old_id = _registry_id(document, old_name)
    document = document.replace(f'"{old_name}"', f'"{new_name}"').replace(old_id, new_id)
    return name, document.encode()


def _registry_id(document: str, name: str) -> str:
    import json

    return json.loads(document)["info"]["registry"]["people"][name]


class BatchFactory(factory.Factory):
    """``BatchFactory(submitter=...)`` stages the small sample matches under a fresh key."""

    class Meta:
        model = dict

    submitter = None
    files = factory.LazyFunction(lambda: [sample(m) for m in SMALL])
    idempotency_key = factory.LazyFunction(lambda: f"key-{next(_keys)}")
    competition = None

    @classmethod
    def _create(cls, model_class, **kwargs):
        batch, _ = services.batch_submit(**kwargs)
        return batch

    _build = _create
