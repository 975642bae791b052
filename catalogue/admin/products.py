"""Console pages of products: merge (and undo), override a field, and the merges' log."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.utils.html import format_html, format_html_join

from catalogue.admin.common import CuratedHistoryAdmin, CurationPermissions, NoteForm
from catalogue.models import Listing, Override, Product, ProductMerge
from catalogue.selectors import product_provenance
from catalogue.services import EDIT_PERMISSION, override_set, product_merge, product_unmerge
from omnium.console import (
    ReadOnlyAdmin,
    admin_link,
    confirm_page,
    confirmed_form,
    error_text,
    request_actor,
)


class ListingInline(admin.TabularInline):
    model = Listing
    fk_name = "product"
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["location", "source_sku", "listed_name", "latest_price", "latest_seen"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("location").latest_prices()

    @admin.display(description="latest price")
    def latest_price(self, obj) -> str:
        latest = getattr(obj, "latest", None)
        return f"{latest.price} {latest.currency}" if latest else "—"

    @admin.display(description="observed")
    def latest_seen(self, obj):
        latest = getattr(obj, "latest", None)
        return latest.observed_at if latest else "—"


class MergeForm(NoteForm):
    survivor = forms.ChoiceField(widget=forms.RadioSelect, label="Keep this one")
    confirm_two_barcodes = forms.BooleanField(
        required=False,
        label="They carry different barcodes and I have checked they are one product "
        "(the note says why; the kept product's barcode wins)",
    )
    field_order = ["survivor", "note", "confirm_two_barcodes"]

    def __init__(self, *args, products, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["survivor"].choices = [(str(p.pk), self.describe(p)) for p in products]

    @staticmethod
    def describe(p: Product) -> str:
        return f"{p} · {p.brand or '—'} · barcode {p.gtin or 'none'} · {p.listings_n} listing(s)"


class OverrideForm(forms.Form):
    field = forms.ChoiceField(choices=Override.Field.choices)
    value = forms.CharField(
        required=False,
        help_text="A name or category as text; a variation such as edt; a quantity such as "
        "100 ml; a line by its key under the product's house.",
    )
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


@admin.register(Product)
class ProductAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    actions = ["merge_products", "set_override"]
    readonly_fields = ["provenance"]
    list_display = ["name", "brand", "gtin", "quantity", "vertical", "listing_count", "merged"]
    list_filter = ["vertical", "quantity_state", "form", "identity_rules_version"]
    list_select_related = ["brand"]
    search_fields = ["name", "gtin", "match_key", "brand_name"]
    show_full_result_count = False
    inlines = [ListingInline]
    fieldsets = [
        ("Identity", {"fields": ["name", "brand", "brand_name", "line", "gtin", "gtin_source",
                                 "match_key", "name_key", "identity_rules_version",
                                 "merged_into"]}),
        ("Quantity", {"fields": ["quantity_value", "quantity_unit", "form", "pack_count",
                                 "pack_unit_value", "set_contents", "quantity_state",
                                 "size_value", "size_unit", "size_ml"]}),
        ("Facts", {"fields": ["vertical", "category", "abv", "attributes", "country_of_origin",
                              "is_exclusive"]}),
        ("Image", {"fields": ["image_url", "thumb_url", "image_source", "image_checked"]}),
        ("Where each value came from", {"fields": ["provenance"]}),
    ]  # fmt: skip

    @admin.display(description="provenance")
    def provenance(self, obj) -> str:
        rows = product_provenance(obj)
        return format_html(
            "<table><tr><th>field</th><th>value</th><th>from</th><th>detail</th></tr>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                ((r["field"], r["value"], r["source"], r["detail"]) for r in rows),
            ),
        )

    @admin.action(description="Set a value by hand (override)…", permissions=["curate"])
    def set_override(self, request, queryset):
        products = list(queryset[:2])
        if len(products) != 1:
            self.message_user(request, "Select exactly one product.", messages.ERROR)
            return None
        form = confirmed_form(request, OverrideForm)
        if form.is_bound and form.is_valid():
            try:
                override_set(
                    product=products[0],
                    field=form.cleaned_data["field"],
                    value=form.cleaned_data["value"],
                    actor=request_actor(request),
                    reason=form.cleaned_data["reason"],
                )
            except ValidationError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, f"Override set on {products[0]}.", messages.SUCCESS)
                return None
        return confirm_page(
            self, request, queryset, action="set_override", title="Override a value",
            question="Set this value by hand? No collection or rederive will overwrite it; the "
            "product is re-keyed and merged into any product it then agrees with.",
            verb="Set", form=form,
        )  # fmt: skip

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(listings_n=Count("listings"))

    @admin.display(description="quantity")
    def quantity(self, obj) -> str:
        if obj.quantity_value is None:
            return obj.quantity_state
        return f"{obj.quantity_value.normalize():f} {obj.quantity_unit}"

    @admin.display(description="listings", ordering="listings_n")
    def listing_count(self, obj) -> int:
        return obj.listings_n

    @admin.display(description="merged into")
    def merged(self, obj) -> str:
        return admin_link(obj.merged_into) if obj.merged_into_id else ""

    def has_merge_permission(self, request) -> bool:
        # Editors merge; a reviewer decides candidates but does not merge by hand.
        return request.user.has_perm(EDIT_PERMISSION)

    @admin.action(description="Merge two products into one…", permissions=["merge"])
    def merge_products(self, request, queryset):
        products = list(queryset.select_related("brand").order_by("created_at"))
        if len(products) != 2:
            self.message_user(request, "Select exactly two products to merge.", messages.ERROR)
            return None
        form = confirmed_form(request, MergeForm, products=products)
        if form.is_bound and form.is_valid():
            survivor = next(p for p in products if str(p.pk) == form.cleaned_data["survivor"])
            loser = next(p for p in products if p.pk != survivor.pk)
            try:
                product_merge(
                    loser=loser,
                    survivor=survivor,
                    actor=request_actor(request),
                    note=form.cleaned_data["note"],
                    confirm_two_barcodes=form.cleaned_data["confirm_two_barcodes"],
                )
            except ValidationError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, f"Merged {loser} into {survivor}.", messages.SUCCESS)
                return None
        return confirm_page(
            self,
            request,
            queryset,
            action="merge_products",
            title="Merge two products",
            question="Merge these into one product? The other keeps its row, forwarding to "
            "the one you keep; its listings and awards move, and the merge can be undone.",
            verb="Merge",
            form=form,
        )


@admin.register(ProductMerge)
class ProductMergeAdmin(ReadOnlyAdmin):
    list_display = ["merged_at", "from_link", "to_link", "merged_by", "reason", "undone_at"]
    list_select_related = ["from_product", "to_product", "merged_by"]
    list_filter = [("undone_at", admin.EmptyFieldListFilter)]
    actions = ["undo_merges"]

    @admin.display(description="merged")
    def from_link(self, obj) -> str:
        return admin_link(obj.from_product)

    @admin.display(description="into")
    def to_link(self, obj) -> str:
        return admin_link(obj.to_product)

    def has_unmerge_permission(self, request) -> bool:
        return request.user.has_perm("catalogue.add_productmerge")

    @admin.action(description="Undo the selected merges…", permissions=["unmerge"])
    def undo_merges(self, request, queryset):
        form = confirmed_form(request, NoteForm)
        if form.is_bound and form.is_valid():
            undone = 0
            for merge in queryset.order_by("-merged_at"):
                try:
                    product_unmerge(
                        merge=merge, actor=request_actor(request), note=form.cleaned_data["note"]
                    )
                    undone += 1
                except ValidationError as error:
                    self.message_user(request, f"{merge}: {error_text(error)}", messages.ERROR)
            self.message_user(request, f"Undid {undone} merge(s).", messages.SUCCESS)
            return None
        return confirm_page(
            self,
            request,
            queryset,
            action="undo_merges",
            title="Undo merges",
            question="Undo these merges? Both products, their listings and awards go back to "
            "what they were, except what someone changed since.",
            verb="Undo",
            form=form,
        )
