"""The catalogue console: read-mostly. Every curation write (merge and undo, aliases at three
levels, overrides, listing pins and ignores) is an action or page that asks for a note on a
confirmation page and calls one service, which writes the audit row.

Editors curate (merge, alias, override, pin); viewers read. Queued pairs are decided in the
merge-candidate console (``curation.admin``).
The curated models keep a history (django-simple-history) naming the person and reason;
reverting from the history page is off, since it would bypass the services.

The pages live in one module per part of the catalogue; importing them here registers them
all when the admin autodiscovers ``catalogue.admin``.
"""

from catalogue.admin import (  # noqa: F401
    brands,
    categories,
    home,
    listings,
    places,
    products,
    records,
)
