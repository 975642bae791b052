"""The site-wide search, as the catalogue's product list reads it.

The search app sits above the catalogue (it reads every app's records), so the catalogue
cannot import it. Its ``AppConfig.ready()`` registers the one function the list needs:
the ids of the products a query finds, best first, with its typo tolerance, accents
forgiven and the names of merged products and aliased brands followed.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

ProductFinder = Callable[[str], list[UUID]]

_finder: list[ProductFinder] = []


def product_finder_register(finder: ProductFinder) -> None:
    """Register (or, on a repeated import, replace) the site search's product finder."""
    _finder[:] = [finder]


def products_found(text: str) -> list[UUID] | None:
    """The ids the site search finds for ``text``, best first; None when no search is
    registered or the text is not one it searches (too short, say)."""
    return _finder[0](text) if _finder else None
