"""Query filters of the batches API."""

from __future__ import annotations

from django_filters import rest_framework as filters

from ingest.batches.models import Batch, BatchState


class BatchFilter(filters.FilterSet):
    state = filters.ChoiceFilter(choices=BatchState.choices)
    competition = filters.UUIDFilter(
        field_name="competition", help_text="Batches staged for this competition node."
    )

    class Meta:
        model = Batch
        fields = ("state", "competition")
