"""The catalogue's read vocabulary: chainable filters and annotations shared by every reader."""

from __future__ import annotations

from django.db import models
from django.db.models import OuterRef, Q, Subquery


class LocationQuerySet(models.QuerySet):
    def visible(self):
        return self.filter(visible=True, is_catalogue_only=False)


class BrandQuerySet(models.QuerySet):
    def canonical(self):
        """Houses only: spellings that a person aliased elsewhere are left out."""
        return self.filter(canonical__isnull=True)


class ProductQuerySet(models.QuerySet):
    def canonical(self):
        """Live products: a merged row keeps answering only through its survivor."""
        return self.filter(merged_into__isnull=True)

    def visible(self):
        """Live products with at least one listing the public may see."""
        from catalogue.models import Listing

        return self.canonical().filter(
            pk__in=Listing.objects.visible().values("product_id"),
        )

    def search(self, text: str):
        text = (text or "").strip()
        if not text:
            return self
        query = Q(name__icontains=text) | Q(brand_name__icontains=text)
        query |= Q(brand__name__icontains=text)
        digits = "".join(ch for ch in text if ch.isdigit())
        if digits and len(digits) == len(text.replace(" ", "")):
            query |= Q(gtin=digits) | Q(gtin=digits.lstrip("0"))
        return self.filter(query)


class ListingQuerySet(models.QuerySet):
    def visible(self):
        """What the public site shows: visible storefronts, listings nobody set aside."""
        return self.filter(
            ignored_at__isnull=True,
            location__visible=True,
            location__is_catalogue_only=False,
        )

    def latest_prices(self):
        """Annotate each listing with its latest observation (price, currency, USD, date).

        Each annotation is one backward probe of the (listing, observed_at) unique index, so
        the cost is per listing shown, not per observation stored.
        """
        from catalogue.models import PriceObservation

        latest = PriceObservation.objects.filter(listing=OuterRef("pk")).order_by("-observed_at")
        return self.annotate(
            latest_observation_id=Subquery(latest.values("id")[:1]),
            latest_price=Subquery(latest.values("price")[:1]),
            latest_currency=Subquery(latest.values("currency")[:1]),
            latest_price_usd=Subquery(latest.values("price_usd")[:1]),
            latest_was_price=Subquery(latest.values("was_price")[:1]),
            latest_in_stock=Subquery(latest.values("in_stock")[:1]),
            latest_observed_at=Subquery(latest.values("observed_at")[:1]),
        )

    def priced(self):
        return self.latest_prices().filter(latest_observation_id__isnull=False)


class PriceObservationQuerySet(models.QuerySet):
    def latest_per_listing(self):
        """One row per listing, its newest observation (PostgreSQL DISTINCT ON)."""
        return self.order_by("listing_id", "-observed_at").distinct("listing_id")
