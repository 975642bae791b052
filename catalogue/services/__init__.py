"""Every catalogue write with an invariant: one function per operation.

Collectors, the admin, the API and management commands call these and nothing else. A
human decision (a listing pin, an alias, an override) is read first and never overwritten.
The package has one module per kind of write; every name callers use is re-exported here.
"""

from __future__ import annotations

from catalogue.collection_records import IdentityMode
from catalogue.services.alerts import (
    AlertReport,
    alert_check,
    follow_remove,
    follow_set,
)
from catalogue.services.aliases import (
    AliasReport,
    brand_alias_apply,
    line_alias_apply,
    products_fold,
    products_rederive_and_fold,
    variation_alias_set,
)
from catalogue.services.awards import award_record
from catalogue.services.book import (
    IdentityBook,
    identity_book,
    standard_for,
)
from catalogue.services.categories import category_map
from catalogue.services.common import (
    CENT,
    EDIT_PERMISSION,
)
from catalogue.services.fx import (
    RatesLoaded,
    UsdFilled,
    fx_rates_load,
    observation_days,
    price_observations_fill_usd,
)
from catalogue.services.listings import (
    listing_ignore,
    listing_pin,
    listing_unignore,
    listing_unpin,
    product_follow_merges,
)
from catalogue.services.merges import (
    _row,
    product_merge,
    product_unmerge,
)
from catalogue.services.overrides import (
    override_remove,
    override_set,
)
from catalogue.services.places import (
    location_ensure,
    location_set_visible,
    retailer_ensure,
)
from catalogue.services.prices import (
    FxBook,
    FxQuote,
    ObservedPrice,
    fx_rate_record,
    fx_rate_set,
    price_observation_record,
    price_refusal,
    time_refusal,
)
from catalogue.services.rederive import (
    RederiveReport,
    products_rederive,
)
from catalogue.services.reverify import (
    CheckRead,
    reverification_done,
    reverifications_queue_changed_data,
    reverifications_queue_old_rules,
    verification_record,
)
from catalogue.services.sightings import (
    RawFragment,
    Sighting,
    SightingResult,
    listing_record_sighting,
)

__all__ = [
    "CENT",
    "EDIT_PERMISSION",
    "AlertReport",
    "AliasReport",
    "CheckRead",
    "FxBook",
    "FxQuote",
    "IdentityBook",
    "IdentityMode",
    "ObservedPrice",
    "RatesLoaded",
    "RawFragment",
    "RederiveReport",
    "Sighting",
    "SightingResult",
    "UsdFilled",
    "_row",
    "alert_check",
    "award_record",
    "brand_alias_apply",
    "category_map",
    "follow_remove",
    "follow_set",
    "fx_rate_record",
    "fx_rate_set",
    "fx_rates_load",
    "identity_book",
    "line_alias_apply",
    "listing_ignore",
    "listing_pin",
    "listing_record_sighting",
    "listing_unignore",
    "listing_unpin",
    "location_ensure",
    "location_set_visible",
    "observation_days",
    "override_remove",
    "override_set",
    "price_observation_record",
    "price_observations_fill_usd",
    "price_refusal",
    "product_follow_merges",
    "product_merge",
    "product_unmerge",
    "products_fold",
    "products_rederive",
    "products_rederive_and_fold",
    "retailer_ensure",
    "reverification_done",
    "reverifications_queue_changed_data",
    "reverifications_queue_old_rules",
    "standard_for",
    "time_refusal",
    "variation_alias_set",
    "verification_record",
]
