"""Who owns each level of the merge-candidate queue, and the proposers that fill it.

The queue lives below the apps whose rows it pairs (the catalogue's brands, lines and
products, the sports spine's participants), so it cannot import them. Each owning app
registers its levels and proposers from its ``AppConfig.ready()``; the queue's services,
console and API ask this registry, and never name a model of another app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from django.db import models


@dataclass(frozen=True)
class Proposal:
    """One pair a rule thinks is one row: an unordered pair, a score in 0..1, one line a
    person reads, and the rule's name (for the run's report)."""

    level: str
    left_id: object
    right_id: object
    score: float
    why: str
    rule: str

    @property
    def pair(self) -> tuple[str, str, str]:
        # Canonical UUID text sorts as the 128-bit value does, so this order is the one the
        # table's ordered-pair check holds.
        a, b = sorted((str(self.left_id), str(self.right_id)))
        return (self.level, a, b)


class Apply(Protocol):
    def __call__(
        self, *, loser: Any, survivor: Any, actor: Any, note: str, confirm_two_barcodes: bool
    ) -> None: ...


@dataclass(frozen=True)
class LevelResolver:
    """What the queue needs to know about one level.

    * ``model``: the table the pair's ids point into.
    * ``gone(ids)``: which of ``ids`` no longer stand alone (merged, aliased or deleted);
      an open pair with such a side is closed as superseded.
    * ``default_survivor(left, right)``: the side an accepted pair keeps unless the person
      chose; both sides are present.
    * ``apply(loser=, survivor=, actor=, note=, confirm_two_barcodes=)``: the owning app's
      own service for an accepted pair (a merge or an alias), run in the decision's
      transaction.
    * ``describe(ids)``: the sides of a page of pairs, keyed by id, loaded in a constant
      number of queries and ready for ``side_template`` (the console's side-by-side view).
    * ``facts(side)``: a described side's key facts as (label, value) pairs, in the order a
      person compares them (no query: ``describe`` loaded what they read); the console lines
      the two sides up fact by fact and marks the ones that differ.
    * ``confirmation(left, right)``: what a person must confirm besides the note before the
      pair may be accepted (the catalogue asks about two different barcodes), or "" when
      nothing; a described side each.
    """

    level: str
    model: type[models.Model]
    gone: Callable[[set[Any]], set[Any]]
    default_survivor: Callable[[Any, Any], Any]
    apply: Apply
    describe: Callable[[set[Any]], Mapping[Any, Any]]
    side_template: str
    facts: Callable[[Any], list[tuple[str, str]]] = lambda side: [("name", str(side))]
    confirmation: Callable[[Any, Any], str] = lambda left, right: ""


_levels: dict[str, LevelResolver] = {}
_proposers: dict[str, Callable[[], Iterable[Proposal]]] = {}


def level_register(resolver: LevelResolver) -> None:
    """Register (or, on a repeated ``ready()``, replace) the owner of one level."""
    _levels[resolver.level] = resolver


def proposer_register(name: str, proposer: Callable[[], Iterable[Proposal]]) -> None:
    """Register a pure read that yields ``Proposal`` rows; ``candidates_suggest`` runs every
    registered proposer, in registration order."""
    _proposers[name] = proposer


def level_resolver(level: str) -> LevelResolver:
    try:
        return _levels[level]
    except KeyError:
        raise LookupError(f"No app has registered the merge-candidate level {level!r}.") from None


def registered_levels() -> list[str]:
    return list(_levels)


def registered_proposers() -> list[tuple[str, Callable[[], Iterable[Proposal]]]]:
    return list(_proposers.items())
