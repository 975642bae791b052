from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue.models import (
    Award,
    Brand,
    Listing,
    Location,
    Override,
    Product,
    ProductMerge,
)
from catalogue.rates import DEFAULT_DISPLAY, DISPLAY_CHOICES


class BrandRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Brand
        fields = ["slug", "name"]


class LocationSerializer(serializers.ModelSerializer):
    retailer = serializers.CharField(source="retailer.name")

    class Meta:
        model = Location
        fields = ["code", "iata", "name", "city", "country", "currency", "retailer"]


class QuantityMixin(serializers.Serializer):
    quantity = serializers.SerializerMethodField()

    def get_quantity(self, product: Product) -> dict:
        return {
            "value": product.quantity_value,
            "unit": product.quantity_unit or None,
            "form": product.form,
            "pack_count": product.pack_count,
            "state": product.quantity_state,
        }


class ProductListSerializer(QuantityMixin, serializers.ModelSerializer):
    brand = BrandRefSerializer(allow_null=True)
    line = serializers.CharField(source="line.name", allow_null=True, default=None)

    class Meta:
        model = Product
        fields = ["id", "name", "brand", "line", "gtin", "vertical", "category", "quantity"]


class PriceSerializer(serializers.Serializer):
    price = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    price_usd = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    was_price = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    in_stock = serializers.BooleanField(allow_null=True)
    observed_at = serializers.DateTimeField()


class ListingPriceSerializer(serializers.ModelSerializer):
    location = LocationSerializer()
    latest = PriceSerializer(allow_null=True)
    # Not a URLField: a listing whose source gives no page has "" (the model's blank).
    url = serializers.CharField(
        read_only=True, help_text="The shop's page for this listing; empty when it has none."
    )

    class Meta:
        model = Listing
        fields = ["source_sku", "url", "location", "latest"]


class ProductDetailSerializer(ProductListSerializer):
    prices = serializers.SerializerMethodField()

    class Meta(ProductListSerializer.Meta):
        fields = [*ProductListSerializer.Meta.fields, "abv", "size_ml", "prices"]

    @extend_schema_field(ListingPriceSerializer(many=True))
    def get_prices(self, product: Product) -> list[dict]:
        # many=True makes .data a list; the stubs type it as one row's dict.
        return ListingPriceSerializer(self.context["comparison"], many=True).data  # type: ignore[return-value]


class BrandDetailSerializer(serializers.ModelSerializer):
    aliases = serializers.SerializerMethodField()
    products = ProductListSerializer(many=True, source="visible_products")

    class Meta:
        model = Brand
        fields = ["slug", "name", "aliases", "products"]

    def get_aliases(self, brand: Brand) -> list[str]:
        return [alias.name for alias in brand.aliases.all()]


class LocationListingSerializer(serializers.ModelSerializer):
    product = ProductListSerializer()
    latest = PriceSerializer(allow_null=True)

    class Meta:
        model = Listing
        fields = ["source_sku", "product", "latest"]


class LocationPageSerializer(serializers.Serializer):
    """One airport and a page of what it carries at its latest prices."""

    location = LocationSerializer()
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page; null first.")
    results = LocationListingSerializer(many=True)


# --- Curation API (reviewers and editors) ---------------------------------------------


class MergeRecordSerializer(serializers.ModelSerializer):
    merged_by = serializers.CharField(source="merged_by.username")
    undone_by = serializers.CharField(source="undone_by.username", allow_null=True, default=None)

    class Meta:
        model = ProductMerge
        fields = [
            "id",
            "from_product",
            "to_product",
            "merged_by",
            "merged_at",
            "reason",
            "undone_at",
            "undone_by",
            "undo_reason",
        ]


class MergeRequestSerializer(serializers.Serializer):
    loser = serializers.UUIDField(help_text="The product that will forward to the survivor.")
    survivor = serializers.UUIDField()
    note = serializers.CharField()
    confirm_two_barcodes = serializers.BooleanField(default=False)


class NoteSerializer(serializers.Serializer):
    note = serializers.CharField()


class OverrideSerializer(serializers.ModelSerializer):
    set_by = serializers.CharField(source="set_by.username", allow_null=True, default=None)
    value = serializers.JSONField()
    collected_value = serializers.JSONField()

    class Meta:
        model = Override
        fields = [
            "id",
            "entity_type",
            "entity_key",
            "field",
            "value",
            "collected_value",
            "set_by",
            "set_at",
            "reason",
            "collector_disagrees_since",
        ]


class OverrideRequestSerializer(serializers.Serializer):
    product = serializers.UUIDField()
    field = serializers.ChoiceField(choices=Override.Field.choices)
    value = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()


# --- Price history --------------------------------------------------------------------


class PriceHistoryQuerySerializer(serializers.Serializer):
    currency = serializers.ChoiceField(
        choices=[value for value, _ in DISPLAY_CHOICES],
        default=DEFAULT_DISPLAY,
        help_text="The display currency: USD, EUR, GBP, or `listed` for each shop's own. "
        "Each price converts at the latest rate on or before its own day.",
    )
    date_from = serializers.DateField(
        required=False, help_text="The first day (UTC, inclusive), YYYY-MM-DD."
    )


class HistoryLocationSerializer(serializers.ModelSerializer):
    retailer = serializers.CharField(source="retailer.name")

    class Meta:
        model = Location
        fields = ["code", "iata", "name", "retailer"]


class PriceHistoryRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    observed_at = serializers.DateTimeField()
    location = HistoryLocationSerializer(source="listing.location")
    price = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    price_type = serializers.CharField()
    in_stock = serializers.BooleanField(allow_null=True)
    display_price = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        allow_null=True,
        help_text="The price in display_currency; null when no rate is known for its day.",
    )
    display_currency = serializers.CharField()


class PriceHistoryPageSerializer(serializers.Serializer):
    """A page of a product's observations, oldest first, in one display currency."""

    product = serializers.UUIDField()
    currency = serializers.CharField()
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page; null first.")
    results = PriceHistoryRowSerializer(many=True)


# --- Awards ---------------------------------------------------------------------------


class AwardSerializer(serializers.ModelSerializer):
    class Meta:
        model = Award
        fields = ["id", "product", "competition", "year", "medal", "score", "source"]


class AwardRequestSerializer(serializers.Serializer):
    product = serializers.UUIDField()
    competition = serializers.CharField(max_length=200)
    year = serializers.IntegerField(required=False, allow_null=True, default=None)
    medal = serializers.ChoiceField(
        choices=Award.Medal.choices, required=False, default="", allow_blank=True
    )
    score = serializers.DecimalField(
        max_digits=5, decimal_places=2, required=False, allow_null=True, default=None
    )
    # Where the result is published (the award's ``source``, a name Serializer fields own).
    reference = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
