"""Exchange rates: how many US dollars a unit of a currency bought on a day, from a named
source (the ECB's reference rates, a dollar peg, an editor's entry). Loaded by
``catalogue.models``, so the model belongs to the catalogue app."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

# An ISO 4217 code: three capital letters.
CURRENCY_SHAPE = r"^[A-Z]{3}$"


class FxRate(models.Model):
    """How many US dollars one unit of ``currency`` bought on ``as_of``."""

    currency = models.CharField(max_length=3)
    rate_to_usd = models.DecimalField(max_digits=18, decimal_places=8)
    as_of = models.DateField()
    source = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["currency", "-as_of"]
        constraints = [
            models.UniqueConstraint(
                fields=["currency", "as_of", "source"], name="catalogue_fxrate_unique_day"
            ),
            models.CheckConstraint(
                condition=Q(rate_to_usd__gt=0), name="catalogue_fxrate_positive"
            ),
            models.CheckConstraint(
                condition=Q(currency__regex=CURRENCY_SHAPE), name="catalogue_fxrate_currency_shape"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.currency} {self.rate_to_usd} ({self.as_of})"
