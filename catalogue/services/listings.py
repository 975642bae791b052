"""Listings: a person's pins and ignores, which no collection overwrites."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import audit_record
from catalogue.models import (
    Listing,
    Product,
)

if TYPE_CHECKING:
    from accounts.models import User


def product_follow_merges(product: Product) -> Product:
    """The live product an id answers to, following ``merged_into`` to its end."""
    seen: set[UUID] = set()
    while product.merged_into_id and product.pk not in seen:
        seen.add(product.pk)
        product = Product.objects.get(pk=product.merged_into_id)
    return product


@transaction.atomic
def listing_pin(*, listing: Listing, product: Product, reason: str, actor: User) -> Listing:
    """Pin a listing to a product; ingest honours the pin at every later sighting."""
    if not reason.strip():
        raise ValidationError({"reason": "Say why this listing is pinned."})
    product = product_follow_merges(product)
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    listing.pinned_product = product
    listing.pinned_by = actor
    listing.pinned_at = timezone.now()
    listing.pin_reason = reason
    listing.product = product
    listing.save(
        update_fields=[
            "pinned_product",
            "pinned_by",
            "pinned_at",
            "pin_reason",
            "product",
            "updated_at",
        ]
    )
    audit_record(
        actor=actor,
        action="listing.pin",
        entity=listing,
        key=listing.pk,
        detail={"product": product.pk, "reason": reason},
    )
    return listing


@transaction.atomic
def listing_unpin(*, listing: Listing, reason: str, actor: User) -> Listing:
    """Release a pin: the listing stays with its product until a person or a merge moves it,
    and later sightings follow the listing's product as for any other listing."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the pin is released."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.pinned_product_id is None:
        return listing
    was = listing.pinned_product_id
    listing.pinned_product, listing.pinned_by, listing.pinned_at = None, None, None
    listing.pin_reason = ""
    listing.save(
        update_fields=["pinned_product", "pinned_by", "pinned_at", "pin_reason", "updated_at"]
    )
    audit_record(
        actor=actor,
        action="listing.unpin",
        entity=listing,
        key=listing.pk,
        detail={"was_pinned_to": was, "reason": reason},
    )
    return listing


@transaction.atomic
def listing_ignore(*, listing: Listing, reason: str, actor: User) -> Listing:
    """Hide a listing from the site; its prices keep being collected."""
    if not reason.strip():
        raise ValidationError({"reason": "Say why this listing is ignored."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.ignored_at:
        return listing
    listing.ignored_at = timezone.now()
    listing.ignored_by = actor
    listing.ignore_reason = reason
    listing.save(update_fields=["ignored_at", "ignored_by", "ignore_reason", "updated_at"])
    audit_record(
        actor=actor, action="listing.ignore", entity=listing, key=listing.pk,
        detail={"reason": reason},
    )  # fmt: skip
    return listing


@transaction.atomic
def listing_unignore(*, listing: Listing, reason: str, actor: User) -> Listing:
    """Show an ignored listing on the site again."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the listing is shown again."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.ignored_at is None:
        return listing
    listing.ignored_at, listing.ignored_by, listing.ignore_reason = None, None, ""
    listing.save(update_fields=["ignored_at", "ignored_by", "ignore_reason", "updated_at"])
    audit_record(
        actor=actor, action="listing.unignore", entity=listing, key=listing.pk,
        detail={"reason": reason},
    )  # fmt: skip
    return listing
