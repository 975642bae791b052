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
    # Set by latest_prices(): after the listings are fetched, their latest observations are
    # fetched in one query by id and attached as ``listing.latest``.
    _with_latest = False

    def _clone(self):
        clone = super()._clone()
        clone._with_latest = self._with_latest
        return clone

    def _fetch_all(self):
        fresh = self._result_cache is None
        super()._fetch_all()
        if fresh and self._with_latest and self._result_cache:
            self._attach_latest(self._result_cache)

    @staticmethod
    def _attach_latest(listings) -> None:
        from catalogue.models import PriceObservation

        if not all(isinstance(listing, models.Model) for listing in listings):
            return
        ids = [listing.latest_observation_id for listing in listings]
        found = PriceObservation.objects.order_by().in_bulk([i for i in ids if i is not None])
        for listing in listings:
            listing.latest = found.get(listing.latest_observation_id)

    def visible(self):
        """What the public site shows: visible storefronts, listings nobody set aside."""
        return self.filter(
            ignored_at__isnull=True,
            location__visible=True,
            location__is_catalogue_only=False,
        )

    def latest_prices(self):
        """Each listing with its latest observation as ``listing.latest`` (None if unpriced).

        The id comes from one backward probe of the (listing, observed_at) unique index per
        listing, so the cost is per listing shown, not per observation stored; the rows
        themselves follow in one query by primary key.
        """
        from catalogue.models import PriceObservation

        latest = PriceObservation.objects.filter(listing=OuterRef("pk")).order_by("-observed_at")
        clone = self.annotate(latest_observation_id=Subquery(latest.values("id")[:1]))
        clone._with_latest = True
        return clone

    def priced(self):
        return self.latest_prices().filter(latest_observation_id__isnull=False)


class PriceObservationQuerySet(models.QuerySet):
    def latest_per_listing(self):
        """One row per listing, its newest observation (PostgreSQL DISTINCT ON)."""
        return self.order_by("listing_id", "-observed_at").distinct("listing_id")
