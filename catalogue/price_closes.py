"""Price closes: each listing's last observation of each week (from Monday, UTC), what the
price-history chart draws past ``selectors.DAILY_UP_TO`` days
(``selectors.product_price_history``); a shorter chart's day points are read from the
observations' covering (listing, observed_at) index instead, so no day close is stored (one
would be stored for nearly every observation of a shop collected once a day).

Derived from the observations alone and kept by two statement-level triggers on them
(``PriceObservation.Meta.triggers``), in the statement that writes the observations: every
append (the collectors' one writer, ``services.prices``, and any bulk insert) and every USD
fill (``services.fx``, the only update an observation allows) updates the closes it
touches, so no write path can leave them behind. Observations are never deleted and what a
shop showed never changes, so nothing else can move a close. A close is keyed by listing,
so a product merge (which moves listings) carries its closes with it.

Loaded by ``catalogue.models``, so the model belongs to the catalogue app.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q


class PriceClose(models.Model):
    """A listing's last observation of one week (``starts``: the week's Monday), with the
    moment of the week's first observation (a shop's history starts at its first, not its
    first close)."""

    id = models.BigAutoField(primary_key=True)
    # No index of its own: the (listing, starts) constraint's index leads with it.
    listing = models.ForeignKey(
        "catalogue.Listing", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    starts = models.DateField()
    first_at = models.DateTimeField()
    # The last observation's moment and what it showed, with its USD (empty until filled).
    observed_at = models.DateTimeField()
    price = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    price_usd = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)

    class Meta:
        constraints = [
            # The index the history reads forwards, carrying what it converts.
            models.UniqueConstraint(
                fields=["listing", "starts"],
                include=["observed_at", "price", "currency", "price_usd", "first_at"],
                name="catalogue_priceclose_unique_week",
            ),
            models.CheckConstraint(
                condition=Q(first_at__lte=F("observed_at")),
                name="catalogue_priceclose_first_not_after_last",
            ),
            models.CheckConstraint(
                condition=Q(starts__iso_week_day=1),
                name="catalogue_priceclose_week_starts_monday",
            ),
        ]

    def __str__(self) -> str:
        return f"week of {self.starts}: {self.price} {self.currency}"


# Fold the observations a statement appended (its transition table ``added``) into the
# closes: per listing and week, the latest observation stands (observations of one listing
# never share a moment) and the earliest moment is kept; an observation older than a
# week's close only moves its first moment. The migration that made the table ran the same
# fold over every observation.
FOLD_SQL = """
INSERT INTO catalogue_priceclose AS c
    (listing_id, starts, first_at, observed_at, price, currency, price_usd)
SELECT DISTINCT ON (o.listing_id, w.starts)
       o.listing_id, w.starts,
       min(o.observed_at) OVER (PARTITION BY o.listing_id, w.starts),
       o.observed_at, o.price, o.currency, o.price_usd
FROM added o
CROSS JOIN LATERAL (SELECT date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date)
     AS w(starts)
ORDER BY o.listing_id, w.starts, o.observed_at DESC
ON CONFLICT (listing_id, starts) DO UPDATE SET
    first_at = least(c.first_at, excluded.first_at),
    observed_at = greatest(c.observed_at, excluded.observed_at),
    price = CASE WHEN excluded.observed_at > c.observed_at THEN excluded.price ELSE c.price END,
    currency = CASE WHEN excluded.observed_at > c.observed_at
                    THEN excluded.currency ELSE c.currency END,
    price_usd = CASE WHEN excluded.observed_at > c.observed_at
                     THEN excluded.price_usd ELSE c.price_usd END
WHERE excluded.first_at < c.first_at OR excluded.observed_at > c.observed_at;
RETURN NULL;
"""

# After a statement updated observations (their USD filled: the one update they allow;
# its transition table ``filled``), the closes that are those observations take the USD.
REFILL_SQL = """
UPDATE catalogue_priceclose c SET price_usd = o.price_usd
FROM filled o
WHERE c.listing_id = o.listing_id
  AND c.starts = date_trunc('week', o.observed_at AT TIME ZONE 'UTC')::date
  AND c.observed_at = o.observed_at AND c.price_usd IS DISTINCT FROM o.price_usd;
RETURN NULL;
"""
