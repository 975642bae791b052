"""Public catalogue pages: products, a product's prices by airport, brands, airports."""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe

from catalogue.alert_records import Follow
from catalogue.charts import price_history_chart
from catalogue.filters import ProductFilter
from catalogue.forms import FollowForm, HistoryForm
from catalogue.models import Location, PriceObservation, Product
from catalogue.querysets import PRODUCT_SORTS
from catalogue.selectors import (
    brand_products,
    brand_resolve,
    location_listings,
    product_comparison,
    product_price_answers,
    product_price_history,
    product_resolve,
)
from catalogue.services import follow_remove, follow_set
from omnium.actors import request_actor
from omnium.auth import signed_in

PAGE_SIZE = 50


def product_list(request):
    sort = request.GET.get("sort") or "name"
    if sort not in PRODUCT_SORTS:
        sort = "name"
    products = (
        Product.objects.visible().select_related("brand").with_price_summary().with_category()
    )
    filters = ProductFilter(request.GET, queryset=products)
    rows = filters.qs.sorted_by(sort) if filters.is_valid() else products.none()
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "catalogue/product_list.html",
        {
            "page": page,
            "filters": filters,
            "query": request.GET.get("q", ""),
            "sort": sort,
            "sorts": PRODUCT_SORTS,
            "crumbs": [("Catalogue", None)],
        },
    )


def product_detail(request, product_id):
    product = product_resolve(product_id)
    if str(product.pk) != str(product_id):
        return redirect("catalogue:product-detail", product_id=product.pk, permanent=True)
    comparison = product_comparison(product)
    if not comparison:
        # Only hidden locations or ignored listings carry it: not a public product.
        raise Http404("No visible listing for this product.")
    history = _history(request, product)
    answers = product_price_answers(
        product,
        comparison,
        currency=history["history_currency"],
        stale_days=settings.CATALOGUE_STALE_PRICE_DAYS,
        now=timezone.now(),
    )
    return render(
        request,
        "catalogue/product_detail.html",
        {
            "product": product,
            "comparison": comparison,
            "answers": answers,
            "awards": list(product.awards.order_by("-year", "competition", "pk")),
            **history,
        },
    )


def _history(request, product) -> dict:
    """The price-history block's context: the reader's currency and since, the chart."""
    form = HistoryForm(request.GET)
    currency, since = form.choice()
    history = product_price_history(product, currency=currency, since=since)
    return {
        "history_form": form,
        "history_currency": currency,
        "history_since": since,
        "history": history,
        "history_chart": price_history_chart(history),
    }


def product_prices(request, product_id):
    """Every observation of a product, newest first, in the reader's currency."""
    product = product_resolve(product_id)
    if str(product.pk) != str(product_id):
        return redirect("catalogue:product-prices", product_id=product.pk, permanent=True)
    context = _history(request, product)
    if not context["history"].shops:
        raise Http404("No visible listing for this product.")
    observations = (
        PriceObservation.objects.of_product(product.pk)
        .select_related("listing__location__retailer")
        .in_currency(context["history_currency"])
        .order_by("-observed_at", "-id")
    )
    if context["history_since"] is not None:
        observations = observations.filter(
            observed_at__gte=datetime.combine(context["history_since"], time.min, tzinfo=UTC)
        )
    page = Paginator(observations, PAGE_SIZE).get_page(request.GET.get("page"))
    crumbs = [
        ("Catalogue", reverse("catalogue:product-list")),
        (product.name, reverse("catalogue:product-detail", args=[product.pk])),
        ("Price history", None),
    ]
    return render(
        request,
        "catalogue/product_prices.html",
        {"product": product, "page": page, "crumbs": crumbs, "every_observation": True, **context},
    )


def brand_detail(request, slug):
    brand, aliased = brand_resolve(slug)
    if aliased:
        return redirect("catalogue:brand-detail", slug=brand.slug, permanent=True)
    page = Paginator(brand_products(brand), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "catalogue/brand_detail.html", {"brand": brand, "page": page})


def location_detail(request, code):
    location = get_object_or_404(Location.objects.visible().select_related("retailer"), code=code)
    page = Paginator(location_listings(location), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "catalogue/location_detail.html", {"location": location, "page": page})


# --- following ---------------------------------------------------------------------------


def _back_to(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


@login_required
def product_follow(request: HttpRequest, product_id) -> HttpResponse:
    """Follow a product (GET: the form with every term; POST: follow on those terms). Bad
    terms answer 400 with the form and what is wrong, and nothing is saved."""
    product = get_object_or_404(Product, pk=product_id)
    user = signed_in(request.user)
    form = FollowForm(request.POST if request.method == "POST" else None)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                follow_set(
                    user=user,
                    product=product,
                    actor=signed_in(request_actor(request)),
                    target_price=data["target_price"],
                    target_currency=data["target_currency"] or None,
                    drop_percent=data["drop_percent"],
                    airports=data["airports"],
                )
            except ValidationError as error:
                errors = error.message_dict
            else:
                return redirect(
                    _back_to(request, reverse("catalogue:product-detail", args=[product.pk]))
                )
        else:
            errors = {field: [str(m) for m in messages] for field, messages in form.errors.items()}
    context = {
        "product": product,
        "form": form,
        "errors": errors,
        "crumbs": [
            ("Catalogue", reverse("catalogue:product-list")),
            (product.name, reverse("catalogue:product-detail", args=[product.pk])),
            ("Follow", None),
        ],
    }
    return render(request, "catalogue/follow_edit.html", context, status=400 if errors else 200)


@login_required
@require_POST
def product_unfollow(request: HttpRequest, product_id) -> HttpResponse:
    """One click: stop following a product (a product merged since is found through its
    survivor)."""
    product = get_object_or_404(Product, pk=product_id)
    user = signed_in(request.user)
    follow_remove(user=user, product=product, actor=signed_in(request_actor(request)))
    return redirect(_back_to(request, reverse("catalogue:product-detail", args=[product.pk])))


@login_required
@require_safe
def follow_list(request: HttpRequest) -> HttpResponse:
    follows = (
        Follow.objects.filter(user=signed_in(request.user))
        .select_related("product")
        .order_by("-created_at", "pk")
    )
    return render(
        request,
        "catalogue/follow_list.html",
        {
            "follows": follows,
            "crumbs": [("Catalogue", reverse("catalogue:product-list")), ("Followed", None)],
        },
    )
