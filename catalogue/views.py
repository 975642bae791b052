"""Public catalogue pages: products, a product's prices by airport, brands, airports."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from catalogue.filters import ProductFilter
from catalogue.models import Location, Product
from catalogue.selectors import (
    brand_products,
    brand_resolve,
    location_listings,
    product_comparison,
    product_resolve,
)

PAGE_SIZE = 50


def product_list(request):
    products = Product.objects.visible().select_related("brand").order_by("name", "id")
    filters = ProductFilter(request.GET, queryset=products)
    page = Paginator(filters.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "catalogue/product_list.html",
        {"page": page, "filters": filters, "query": request.GET.get("q", "")},
    )


def product_detail(request, product_id):
    product = product_resolve(product_id)
    if str(product.pk) != str(product_id):
        return redirect("catalogue:product-detail", product_id=product.pk, permanent=True)
    comparison = product_comparison(product)
    if not comparison:
        # Only hidden locations or ignored listings carry it: not a public product.
        raise Http404("No visible listing for this product.")
    return render(
        request, "catalogue/product_detail.html", {"product": product, "comparison": comparison}
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
