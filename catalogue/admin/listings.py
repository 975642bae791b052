"""Console pages of listings (the three layers, pins and ignores), their price observations
and the currency rates."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.html import format_html

from catalogue.admin.common import CurationPermissions, ReasonForm
from catalogue.models import FxRate, Listing, PriceObservation, Product
from catalogue.services import (
    fx_rate_set,
    listing_ignore,
    listing_pin,
    listing_unignore,
    listing_unpin,
)
from omnium.console import (
    EstimatedCountPaginator,
    ReadOnlyAdmin,
    ServiceErrorsMixin,
    admin_link,
    confirm_page,
    confirmed_form,
    console_actor,
    error_text,
)


class PinForm(forms.Form):
    product = forms.UUIDField(label="Product id to pin to")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


def _listing_action(modeladmin, request, queryset, *, action, title, question, verb, call):
    """A reason asked once, then one service call per selected listing."""
    form_class = PinForm if action == "pin_listings" else ReasonForm
    form = confirmed_form(request, form_class)
    if form.is_bound and form.is_valid():
        extra = {}
        if action == "pin_listings":
            product = Product.objects.filter(pk=form.cleaned_data["product"]).first()
            if product is None:
                form.add_error("product", "No product with this id.")
            extra["product"] = product
        if form.is_valid():
            done = 0
            for listing in queryset:
                try:
                    call(listing=listing, reason=form.cleaned_data["reason"],
                         actor=console_actor(request), **extra)  # fmt: skip
                    done += 1
                except ValidationError as error:
                    modeladmin.message_user(
                        request, f"{listing}: {error_text(error)}", messages.ERROR
                    )
            modeladmin.message_user(request, f"{verb}: {done} listing(s).", messages.SUCCESS)
            return None
    return confirm_page(
        modeladmin, request, queryset, action=action, title=title, question=question,
        verb=verb, form=form,
    )  # fmt: skip


@admin.register(Listing)
class ListingAdmin(CurationPermissions, ReadOnlyAdmin):
    """The three layers side by side: what the shop said, what the rules made of it, and
    what a person decided."""

    list_display = ["listed_name", "location", "source_sku", "product_link", "last_seen_at",
                    "ignored_at"]  # fmt: skip
    list_filter = ["location", ("ignored_at", admin.EmptyFieldListFilter),
                   ("pinned_at", admin.EmptyFieldListFilter)]  # fmt: skip
    list_select_related = ["location", "product"]
    search_fields = ["listed_name", "source_sku", "listed_gtin"]
    actions = ["pin_listings", "unpin_listings", "ignore_listings", "unignore_listings"]

    @admin.action(description="Pin to a product…", permissions=["curate"])
    def pin_listings(self, request, queryset):
        return _listing_action(
            self, request, queryset, action="pin_listings", title="Pin listings",
            question="Pin these listings to one product? Every later collection keeps them "
            "there, whatever the rules say.", verb="Pin", call=listing_pin,
        )  # fmt: skip

    @admin.action(description="Release the pins…", permissions=["curate"])
    def unpin_listings(self, request, queryset):
        return _listing_action(
            self, request, queryset, action="unpin_listings", title="Release pins",
            question="Release these pins?", verb="Release", call=listing_unpin,
        )  # fmt: skip

    @admin.action(description="Hide from the site (ignore)…", permissions=["curate"])
    def ignore_listings(self, request, queryset):
        return _listing_action(
            self, request, queryset, action="ignore_listings", title="Ignore listings",
            question="Hide these listings from the site? Their prices keep being collected.",
            verb="Ignore", call=listing_ignore,
        )  # fmt: skip

    @admin.action(description="Show on the site again…", permissions=["curate"])
    def unignore_listings(self, request, queryset):
        return _listing_action(
            self, request, queryset, action="unignore_listings", title="Show listings again",
            question="Show these listings on the site again?", verb="Show",
            call=listing_unignore,
        )  # fmt: skip

    show_full_result_count = False
    readonly_fields = ["standard_layer", "raw_record"]
    fieldsets = [
        ("Listed (verbatim, as the shop showed it)", {"fields": [
            "location", "source_sku", "url", "listed_brand", "listed_name", "listed_variant",
            "listed_quantity_text", "listed_category", "listed_gtin", "listed_brand_key",
            "listed_name_key", "listed_quantity_value", "listed_quantity_unit", "raw_record",
            "last_seen_at"]}),
        ("Standard (what the rules made of it, on the product)", {"fields": [
            "product", "standard_layer"]}),
        ("Decided (a person's pin or ignore)", {"fields": [
            "pinned_product", "pinned_by", "pinned_at", "pin_reason", "ignored_at",
            "ignored_by", "ignore_reason"]}),
    ]  # fmt: skip

    @admin.display(description="product")
    def product_link(self, obj) -> str:
        return admin_link(obj.product)

    @admin.display(description="raw record")
    def raw_record(self, obj) -> str:
        return admin_link(obj.listed_record) if obj.listed_record_id else "—"

    @admin.display(description="standard layer")
    def standard_layer(self, obj) -> str:
        p = obj.product
        return format_html(
            "key <code>{}</code> · line {} · variation {} · quantity {} {} ({}) · rules v{}",
            p.match_key,
            p.line or "—",
            p.attributes.get("variation") or "—",
            p.quantity_value if p.quantity_value is not None else "unknown",
            p.quantity_unit,
            p.form,
            p.identity_rules_version,
        )


@admin.register(PriceObservation)
class PriceObservationAdmin(ReadOnlyAdmin):
    list_display = [
        "observed_at",
        "listing",
        "price",
        "currency",
        "price_usd",
        "fx_as_of",
        "fx_source",
        "fx_missing",
        "in_stock",
        "run",
    ]
    # The prices no rate converts (a currency no source covers, or a day past the rates).
    list_filter = ["fx_missing"]
    list_select_related = ["listing", "listing__location"]
    raw_id_fields = ["listing", "run"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    date_hierarchy = None
    ordering = ["-id"]


class FxRateForm(forms.ModelForm):
    class Meta:
        model = FxRate
        fields = ["currency", "rate_to_usd", "as_of", "source"]


@admin.register(FxRate)
class FxRateAdmin(ServiceErrorsMixin, admin.ModelAdmin):
    """Rates are appended, never edited or deleted here: prices already converted name the
    rate they used, so a new day's rate is a new row, recorded by ``fx_rate_set`` with its
    audit row."""

    list_display = ["currency", "rate_to_usd", "as_of", "source"]
    list_filter = ["currency"]
    form = FxRateForm

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        saved = fx_rate_set(
            currency=data["currency"],
            rate_to_usd=data["rate_to_usd"],
            as_of=data["as_of"],
            source=data["source"],
            actor=console_actor(request),
        )
        # The admin continues with ``obj`` (its log entry and redirect need the key).
        obj.pk = saved.pk
        obj._state.adding = False
        obj.refresh_from_db()
