"""Retailers and their locations (airport shops)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from catalogue.models import (
    Location,
    Retailer,
)

if TYPE_CHECKING:
    from accounts.models import User


@transaction.atomic
def retailer_ensure(
    *, slug: str, name: str, actor: User | None = None, homepage: str = ""
) -> Retailer:
    retailer, _ = Retailer.objects.get_or_create(
        slug=slug, defaults={"name": name, "homepage": homepage}
    )
    return retailer


@transaction.atomic
def location_ensure(
    *,
    retailer: Retailer,
    code: str,
    name: str,
    currency: str,
    iata: str | None = None,
    city: str = "",
    country: str = "",
    is_catalogue_only: bool = False,
    visible: bool = False,
    actor: User | None = None,
) -> Location:
    """Create a location once; an existing one keeps whatever people since changed on it."""
    location, _ = Location.objects.get_or_create(
        code=code,
        defaults={
            "retailer": retailer,
            "name": name,
            "currency": currency,
            "iata": iata,
            "city": city,
            "country": country,
            "is_catalogue_only": is_catalogue_only,
            "visible": visible and not is_catalogue_only,
        },
    )
    return location


@transaction.atomic
def location_set_visible(*, location: Location, visible: bool, actor: User) -> Location:
    if location.visible == visible:
        return location
    if visible and location.is_catalogue_only:
        raise ValidationError(
            {"visible": "A catalogue-only location has no storefront to show on the site."}
        )
    location.visible = visible
    location.save(update_fields=["visible", "updated_at"])
    return location
