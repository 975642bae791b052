"""Read-only catalogue API: products with prices by airport, brands, airports."""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.db.models import F
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from accounts.acting import request_actors
from catalogue.api_examples import PRODUCT_EXAMPLE, PRODUCTS_EXAMPLE
from catalogue.filters import ProductFilter
from catalogue.freshness import product_freshness
from catalogue.models import (
    Award,
    Brand,
    Location,
    Override,
    PriceObservation,
    Product,
    ProductMerge,
)
from catalogue.selectors import (
    brand_products,
    brand_resolve,
    location_listings,
    product_comparison,
    product_resolve,
)
from catalogue.serializers import (
    AwardRequestSerializer,
    AwardSerializer,
    BrandDetailSerializer,
    LocationListingSerializer,
    LocationPageSerializer,
    LocationSerializer,
    MergeRecordSerializer,
    MergeRequestSerializer,
    NoteSerializer,
    OverrideRequestSerializer,
    OverrideSerializer,
    PriceHistoryPageSerializer,
    PriceHistoryQuerySerializer,
    PriceHistoryRowSerializer,
    ProductDetailSerializer,
    ProductListSerializer,
)
from catalogue.services import (
    EDIT_PERMISSION,
    award_record,
    override_set,
    product_merge,
    product_unmerge,
)
from omnium.apis import ApiView
from omnium.conditional import conditional
from omnium.filters import unknown_parameters
from omnium.pagination import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    PAGE_SIZE_DESCRIPTION,
    CountedPagePagination,
    StableCursorPagination,
)


@extend_schema_view(list=extend_schema(examples=[PRODUCTS_EXAMPLE]))
class ProductViewSet(viewsets.ReadOnlyModelViewSet):
    """Products with at least one visible listing. A merged id answers under its survivor."""

    serializer_class = ProductListSerializer
    filterset_class = ProductFilter
    cursor_ordering = ("name", "id")

    def get_queryset(self):
        return Product.objects.visible().select_related("brand", "line").order_by("name", "id")

    @extend_schema(responses=ProductDetailSerializer, examples=[PRODUCT_EXAMPLE])
    @conditional(product_freshness, cache_seconds=300)
    def retrieve(self, request, pk=None):
        product = product_resolve(pk)
        comparison = product_comparison(product)
        serializer = ProductDetailSerializer(product, context={"comparison": comparison})
        return Response(serializer.data)


class BrandViewSet(viewsets.GenericViewSet):
    """A brand by slug; an alias's slug answers with its house."""

    serializer_class = BrandDetailSerializer
    lookup_field = "slug"
    queryset = Brand.objects.none()

    def retrieve(self, request, slug=None):
        brand, _ = brand_resolve(slug)
        brand.visible_products = brand_products(brand)
        return Response(BrandDetailSerializer(brand).data)


class LocationViewSet(viewsets.ReadOnlyModelViewSet):
    """Airports (visible storefronts) and what each carries at its latest price."""

    serializer_class = LocationSerializer
    lookup_field = "code"
    # A small list (a row per storefront): page numbers with the count.
    pagination_class = CountedPagePagination

    def get_queryset(self):
        return Location.objects.visible().select_related("retailer").order_by("iata", "code")

    @property
    def paginator(self):
        # What a shop carries can run to thousands: its detail pages its listings with a
        # cursor by product name, then id; the list of shops is small and counted.
        if not hasattr(self, "_paginator"):
            if self.action == "retrieve":
                self._paginator = StableCursorPagination()
                self._paginator.ordering = ("product_name", "id")
            else:
                self._paginator = CountedPagePagination()
        return self._paginator

    @extend_schema(
        operation_id="v1_airports_retrieve",
        parameters=[
            OpenApiParameter("cursor", str, description="The pagination cursor value."),
            OpenApiParameter(
                "page_size",
                {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_PAGE_SIZE,
                    "default": DEFAULT_PAGE_SIZE,
                },
                description=PAGE_SIZE_DESCRIPTION,
            ),
        ],
        responses=LocationPageSerializer,
    )
    def retrieve(self, request, code=None):
        location = self.get_object()
        unknown_parameters(request.query_params.keys(), ("cursor", "page_size"))
        paginator = self.paginator
        listings = location_listings(location).annotate(product_name=F("product__name"))
        page = paginator.paginate_queryset(listings, request)
        response = paginator.get_paginated_response(LocationListingSerializer(page, many=True).data)
        response.data["location"] = LocationSerializer(location).data
        return response


class ProductPriceHistoryApi(ApiView):
    """A product's observations at every visible shop over time, in one display currency."""

    query_serializer_class = PriceHistoryQuerySerializer
    pagination_class = StableCursorPagination
    # Oldest first; observations are appended, so a page never shifts under a client.
    cursor_ordering = ("observed_at", "id")

    @extend_schema(
        operation_id="v1_products_prices_history",
        summary="A product's price history in one currency (USD, EUR, GBP or as listed)",
        responses=PriceHistoryPageSerializer,
    )
    def get(self, request, pk):
        product = product_resolve(pk)
        currency = self.query["currency"]
        observations = (
            PriceObservation.objects.of_product(product.pk)
            .select_related("listing__location__retailer")
            .in_currency(currency)
        )
        if self.query.get("date_from"):
            start = datetime.combine(self.query["date_from"], time.min, tzinfo=UTC)
            observations = observations.filter(observed_at__gte=start)
        page = self.paginator.paginate_queryset(observations, request, view=self)
        response = self.paginator.get_paginated_response(
            PriceHistoryRowSerializer(page, many=True).data
        )
        response.data = {"product": product.pk, "currency": currency, **response.data}
        return response


# --- Curation API: editors merge and override (queued pairs: ``curation.apis``) -------


class CanCurate(BasePermission):
    """Editors and administrators: merges, their undo and overrides."""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) and request.user.has_perm(
            EDIT_PERMISSION
        )


def _actor(request):
    """The person at the keyboard (not the account they act as, while acting)."""
    return request_actors(request)["actor"]


class MergeViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Merging two products and undoing a merge from its record."""

    serializer_class = MergeRecordSerializer
    permission_classes = (CanCurate,)
    queryset = ProductMerge.objects.select_related("merged_by", "undone_by")

    @extend_schema(request=MergeRequestSerializer, responses={201: MergeRecordSerializer})
    def create(self, request):
        data = MergeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        products = {
            p.pk: p
            for p in Product.objects.filter(
                pk__in=[data.validated_data["loser"], data.validated_data["survivor"]]
            )
        }
        loser = products.get(data.validated_data["loser"])
        survivor = products.get(data.validated_data["survivor"])
        missing = {
            field: "No such product."
            for field, found in (("loser", loser), ("survivor", survivor))
            if found is None
        }
        if missing:
            raise ValidationError(missing)
        merge = product_merge(
            loser=loser,
            survivor=survivor,
            actor=_actor(request),
            note=data.validated_data["note"],
            confirm_two_barcodes=data.validated_data["confirm_two_barcodes"],
        )
        merge = self.get_queryset().get(pk=merge.pk)
        return Response(MergeRecordSerializer(merge).data, status=201)

    @extend_schema(request=NoteSerializer, responses=MergeRecordSerializer)
    @action(detail=True, methods=["post"])
    def undo(self, request, pk=None):
        data = NoteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        merge = product_unmerge(
            merge=self.get_object(), actor=_actor(request), note=data.validated_data["note"]
        )
        return Response(MergeRecordSerializer(self.get_queryset().get(pk=merge.pk)).data)


class OverrideViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """A person's value over a collected one, with a reason."""

    serializer_class = OverrideSerializer
    permission_classes = (CanCurate,)
    queryset = Override.objects.select_related("set_by")

    @extend_schema(request=OverrideRequestSerializer, responses={201: OverrideSerializer})
    def create(self, request):
        data = OverrideRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        product = Product.objects.filter(pk=data.validated_data["product"]).first()
        if product is None:
            raise ValidationError({"product": "No such product."})
        override = override_set(
            product=product,
            field=data.validated_data["field"],
            value=data.validated_data["value"],
            actor=_actor(request),
            reason=data.validated_data["reason"],
        )
        return Response(
            OverrideSerializer(self.get_queryset().get(pk=override.pk)).data, status=201
        )


class AwardViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Recording a competition's award on a product (editors), and reading one back."""

    serializer_class = AwardSerializer
    permission_classes = (CanCurate,)
    queryset = Award.objects.all()

    @extend_schema(request=AwardRequestSerializer, responses={201: AwardSerializer})
    def create(self, request):
        data = AwardRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        product = Product.objects.filter(pk=values.pop("product")).first()
        if product is None:
            raise ValidationError({"product": "No such product."})
        values["source"] = values.pop("reference")
        award = award_record(product=product_resolve(product.pk), actor=_actor(request), **values)
        return Response(AwardSerializer(award).data, status=201)
