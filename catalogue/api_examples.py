"""Response examples for the schema's main catalogue reads: a page of products and one
product with its prices by airport. tests/test_api_examples.py checks each against its
documented schema."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

PRODUCT = {
    "id": "7e1d2c3b-4a59-4f68-8d7c-6b5a49382716",
    "name": "Glenfiddich 18 Year Old Single Malt",
    "brand": {"slug": "glenfiddich", "name": "Glenfiddich"},
    "line": "Glenfiddich Aged",
    "gtin": "5010327325125",
    "vertical": "drinks",
    "category": "Whisky",
    "quantity": {
        "value": 700.0,
        "unit": "ml",
        "form": "single",
        "pack_count": None,
        "state": "stated",
    },
}

PRODUCT_DETAIL = {
    **PRODUCT,
    "abv": "40.00",
    "size_ml": "700.000",
    "prices": [
        {
            "source_sku": "GF18-70",
            "url": "https://shop.example/dxb/glenfiddich-18",
            "location": {
                "code": "dxb-t3",
                "iata": "DXB",
                "name": "Dubai Duty Free, Terminal 3",
                "city": "Dubai",
                "country": "United Arab Emirates",
                "currency": "AED",
                "retailer": "Dubai Duty Free",
            },
            "latest": {
                "price": "329.00",
                "currency": "AED",
                "price_usd": "89.58",
                "was_price": None,
                "in_stock": True,
                "observed_at": "2025-01-14T06:00:00Z",
            },
        }
    ],
}

PRODUCTS_EXAMPLE = OpenApiExample(
    "A page of products", value=PRODUCT, response_only=True, status_codes=["200"]
)
PRODUCT_EXAMPLE = OpenApiExample(
    "A product and its prices by airport",
    value=PRODUCT_DETAIL,
    response_only=True,
    status_codes=["200"],
)
