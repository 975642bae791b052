"""The API of a consumer's follows: what the signed-in account follows, and following or
unfollowing a product. Kept apart from the catalogue's read API; the same services as the
product page."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from catalogue.alert_records import Follow
from catalogue.models import Product
from catalogue.services import follow_remove, follow_set
from omnium.actors import request_actor
from omnium.auth import signed_in


class FollowedProductSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = ("id", "name")
        read_only_fields = fields


class FollowSerializer(serializers.ModelSerializer):
    product = FollowedProductSerializer(read_only=True)
    airports = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = Follow
        fields = (
            "id",
            "product",
            "target_price",
            "target_currency",
            "drop_percent",
            "airports",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


class FollowRequestSerializer(serializers.Serializer):
    """Terms are checked by the service (a target needs its currency, a drop is between 0
    and 100 per cent, airports are IATA codes); with none, any drop alerts."""

    product = serializers.UUIDField()
    target_price = serializers.DecimalField(
        max_digits=12, decimal_places=2, required=False, allow_null=True
    )
    target_currency = serializers.CharField(
        max_length=3, required=False, allow_null=True, allow_blank=True
    )
    drop_percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, required=False, allow_null=True
    )
    airports = serializers.ListField(
        child=serializers.CharField(max_length=3), required=False, max_length=50
    )


class FollowViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """The signed-in account's follows, newest first. POST follows a product (or changes the
    terms of its follow); DELETE unfollows."""

    serializer_class = FollowSerializer
    permission_classes = (IsAuthenticated,)
    cursor_ordering = ("-pk",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Follow.objects.none()
        return Follow.objects.filter(user=self.request.user).select_related("product")

    @extend_schema(request=FollowRequestSerializer, responses={200: FollowSerializer})
    def create(self, request: Request) -> Response:
        data = FollowRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        terms = data.validated_data
        product = Product.objects.filter(pk=terms["product"]).first()
        if product is None:
            raise ValidationError({"product": "No such product."})
        user = signed_in(request.user)
        follow = follow_set(
            user=user,
            product=product,
            actor=signed_in(request_actor(request)),
            target_price=terms.get("target_price"),
            target_currency=terms.get("target_currency") or None,
            drop_percent=terms.get("drop_percent"),
            airports=terms.get("airports", []),
        )
        return Response(FollowSerializer(self.get_queryset().get(pk=follow.pk)).data)

    def destroy(self, request: Request, *args, **kwargs) -> Response:
        follow = self.get_object()
        user = signed_in(request.user)
        follow_remove(user=user, product=follow.product, actor=signed_in(request_actor(request)))
        return Response(status=status.HTTP_204_NO_CONTENT)
