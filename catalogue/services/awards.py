"""Awards: a competition's medal recorded on a product by a person."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from accounts.services import audit_record
from catalogue.models import Award, Product

if TYPE_CHECKING:
    from accounts.models import User


@transaction.atomic
def award_record(
    *,
    product: Product,
    competition: str,
    actor: User,
    year: int | None = None,
    medal: str = "",
    score: Decimal | None = None,
    source: str = "",
) -> Award:
    """Record that ``product`` won ``medal`` (or a ``score``) at ``competition`` in ``year``.

    The award goes on the live product (a merged id's survivor is the caller's to resolve:
    a merged product is refused). The same competition, year and medal on the same product
    is one award: recording it again changes nothing and writes no audit row. Holds a row
    lock on the product, so two people recording the same award make one row.
    """
    name = " ".join((competition or "").split())
    if not name:
        raise ValidationError({"competition": "Name the competition."})
    if medal and medal not in Award.Medal.values:
        raise ValidationError(
            {"medal": f"{medal!r} is not one of {', '.join(Award.Medal.values)}."}
        )
    if year is not None and not 1800 <= year <= 2200:
        raise ValidationError({"year": f"{year} is not a competition year."})
    if score is not None and not Decimal(0) <= score <= Decimal(100):
        raise ValidationError({"score": "A score is from 0 to 100."})
    if not medal and score is None:
        raise ValidationError({"medal": "Give the medal or the score."})
    product = Product.objects.select_for_update().get(pk=product.pk)
    if product.merged_into_id:
        raise ValidationError(f"{product} is merged; record the award on the product it joined.")
    slug = slugify(name)[:200]
    held = Award.objects.filter(
        product=product, competition_slug=slug, year=year, medal=medal
    ).first()
    if held is not None:
        return held
    award = Award.objects.create(
        product=product,
        competition=name[:200],
        competition_slug=slug,
        year=year,
        medal=medal,
        score=score,
        source=source.strip()[:500],
    )
    audit_record(
        actor=actor,
        action="award.record",
        entity="catalogue.product",
        key=product.pk,
        detail={
            "award": str(award.pk),
            "competition": award.competition,
            "year": year,
            "medal": medal,
            "score": None if score is None else str(score),
            "source": award.source,
        },
    )
    return award
