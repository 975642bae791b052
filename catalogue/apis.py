"""Read-only catalogue API: products with prices by airport, brands, airports."""

from __future__ import annotations

from django.db.models import F
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from accounts.acting import request_actors
from catalogue.filters import ProductFilter
from catalogue.freshness import product_freshness
from catalogue.models import (
    Brand,
    Location,
    MergeCandidate,
    MergeLevel,
    Override,
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
    BrandDetailSerializer,
    CandidateDecisionSerializer,
    CandidateSerializer,
    LocationListingSerializer,
    LocationSerializer,
    MergeRecordSerializer,
    MergeRequestSerializer,
    NoteSerializer,
    OverrideRequestSerializer,
    OverrideSerializer,
    ProductDetailSerializer,
    ProductListSerializer,
)
from catalogue.services import (
    DECIDE_PERMISSION,
    EDIT_PERMISSION,
    merge_candidate_resolve,
    override_set,
    product_merge,
    product_unmerge,
)
from omnium.conditional import conditional


class ProductViewSet(viewsets.ReadOnlyModelViewSet):
    """Products with at least one visible listing. A merged id answers under its survivor."""

    serializer_class = ProductListSerializer
    filterset_class = ProductFilter

    def get_queryset(self):
        return Product.objects.visible().select_related("brand", "line").order_by("name", "id")

    @extend_schema(responses=ProductDetailSerializer)
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

    def get_queryset(self):
        return Location.objects.visible().select_related("retailer").order_by("iata", "code")

    @extend_schema(
        operation_id="v1_airports_retrieve", responses=LocationListingSerializer(many=True)
    )
    def retrieve(self, request, code=None):
        location = self.get_object()
        page = self.paginate_queryset(location_listings(location))
        data = LocationListingSerializer(page, many=True).data
        response = self.get_paginated_response(data)
        response.data["location"] = LocationSerializer(location).data
        return response


# --- Curation API: reviewers decide queued pairs, editors merge and override -----------


class CanDecide(BasePermission):
    """Reviewers, editors and administrators (the role groups' candidate permission)."""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) and request.user.has_perm(
            DECIDE_PERMISSION
        )


class CanCurate(BasePermission):
    """Editors and administrators: merges, their undo and overrides."""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) and request.user.has_perm(
            EDIT_PERMISSION
        )


def _actor(request):
    """The person at the keyboard (not the account they act as, while acting)."""
    return request_actors(request)["actor"]


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter("level", str, enum=MergeLevel.values),
            OpenApiParameter("status", str, enum=MergeCandidate.Status.values),
        ]
    )
)
class CandidateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The merge-candidate queue, highest score first (open pairs unless ``status`` says)."""

    serializer_class = CandidateSerializer
    permission_classes = (CanDecide,)
    filter_backends = ()

    def get_queryset(self):
        queryset = MergeCandidate.objects.select_related("decided_by").order_by(
            F("score").desc(nulls_last=True), "detected_at", "pk"
        )
        if self.action != "list":
            return queryset  # One pair by id, whatever its status.
        params = getattr(self.request, "query_params", {})
        status = params.get("status", MergeCandidate.Status.OPEN)
        queryset = queryset.filter(status=status)
        if params.get("level"):
            queryset = queryset.filter(level=params["level"])
        return queryset

    @extend_schema(request=CandidateDecisionSerializer, responses=CandidateSerializer)
    @action(detail=True, methods=["post"])
    def decide(self, request, pk=None):
        """Accept (the merge or alias is applied in the same step) or reject, with a note."""
        data = CandidateDecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        candidate = merge_candidate_resolve(
            candidate=self.get_object(),
            accept=data.validated_data["accept"],
            actor=_actor(request),
            note=data.validated_data["note"],
            survivor_id=data.validated_data.get("survivor"),
            confirm_two_barcodes=data.validated_data["confirm_two_barcodes"],
        )
        candidate = MergeCandidate.objects.select_related("decided_by").get(pk=candidate.pk)
        return Response(CandidateSerializer(candidate).data)


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
        if loser is None or survivor is None:
            raise NotFound("No such product.")
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
            raise NotFound("No such product.")
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
