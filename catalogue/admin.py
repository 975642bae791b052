"""The catalogue console: read-mostly, with merges, their undo and the candidate queue as
actions that ask for a note and call one service (aliases and overrides come next)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html

from catalogue.models import (
    AirportHours,
    Award,
    Brand,
    FxRate,
    Listing,
    Location,
    MergeCandidate,
    Override,
    PriceObservation,
    Product,
    ProductLine,
    ProductMerge,
    Retailer,
    Reverification,
    VariationAlias,
    VerificationCheck,
    VerificationRun,
)
from catalogue.services import (
    location_set_visible,
    merge_candidate_decide,
    product_merge,
    product_unmerge,
)


class EstimatedCountPaginator(Paginator):
    """Counting 10M rows on every changelist page is the slow part: an unfiltered list
    reads the planner's estimate instead."""

    @cached_property
    def count(self) -> int:
        query = self.object_list.query
        if query.where:
            return super().count
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE relname = %s",
                [self.object_list.model._meta.db_table],
            )
            row = cursor.fetchone()
        estimate = int(row[0]) if row else -1
        return super().count if estimate < 10_000 else estimate


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by collectors and rules: people read them here, services write them."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def admin_link(obj, label=None) -> str:
    if obj is None:
        return "—"
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html("<a href='{}'>{}</a>", url, label or str(obj))


@admin.register(Retailer)
class RetailerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "operator"]
    search_fields = ["name", "slug"]


def _set_visible(modeladmin, request, queryset, *, visible: bool):
    verb = "Show" if visible else "Hide"
    if "confirm" not in request.POST:
        return TemplateResponse(
            request,
            "catalogue/admin/confirm_action.html",
            {
                **modeladmin.admin_site.each_context(request),
                "title": f"{verb} locations",
                "question": f"{verb} these locations on the public site? "
                "Collection carries on either way.",
                "verb": verb,
                "action": "show_on_site" if visible else "hide_from_site",
                "items": queryset,
                "opts": modeladmin.model._meta,
            },
        )
    changed = 0
    for location in queryset:
        try:
            location_set_visible(location=location, visible=visible, actor=request.user)
            changed += 1
        except ValidationError as exc:
            modeladmin.message_user(request, f"{location}: {exc.messages[0]}", messages.ERROR)
    modeladmin.message_user(request, f"{verb}: {changed} location(s).", messages.SUCCESS)
    return None


@admin.register(Location)
class LocationAdmin(ReadOnlyAdmin):
    list_display = ["name", "code", "iata", "retailer", "currency", "visible", "is_catalogue_only"]
    list_filter = ["visible", "is_catalogue_only", "retailer"]
    list_select_related = ["retailer"]
    search_fields = ["name", "code", "iata"]
    actions = ["show_on_site", "hide_from_site"]

    def has_change_permission(self, request, obj=None) -> bool:
        # Actions need the change permission; the form stays read-only (no editable fields).
        return obj is None and request.user.has_perm("catalogue.change_location")

    @admin.action(description="Show the selected locations on the public site")
    def show_on_site(self, request, queryset):
        return _set_visible(self, request, queryset, visible=True)

    @admin.action(description="Hide the selected locations from the public site")
    def hide_from_site(self, request, queryset):
        return _set_visible(self, request, queryset, visible=False)


@admin.register(Brand)
class BrandAdmin(ReadOnlyAdmin):
    list_display = ["name", "slug", "canonical", "decided_by", "decided_at", "product_count"]
    list_select_related = ["canonical", "decided_by"]
    search_fields = ["name", "slug"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(products_n=Count("products"))

    @admin.display(description="products", ordering="products_n")
    def product_count(self, obj) -> int:
        return obj.products_n


@admin.register(ProductLine)
class ProductLineAdmin(ReadOnlyAdmin):
    list_display = ["name", "brand", "key", "canonical", "product_count"]
    list_select_related = ["brand", "canonical"]
    search_fields = ["name", "key", "brand__name"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(products_n=Count("products"))

    @admin.display(description="products", ordering="products_n")
    def product_count(self, obj) -> int:
        return obj.products_n


@admin.register(VariationAlias)
class VariationAliasAdmin(ReadOnlyAdmin):
    list_display = ["raw", "canonical", "vertical", "kind", "decided_by", "decided_at"]
    list_filter = ["vertical", "kind"]
    search_fields = ["raw", "canonical"]


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


def _confirm_page(modeladmin, request, queryset, *, action, title, question, verb, form):
    return TemplateResponse(
        request,
        "catalogue/admin/confirm_action.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "question": question,
            "verb": verb,
            "action": action,
            "items": queryset,
            "form": form,
            "opts": modeladmin.model._meta,
        },
    )


class NoteForm(forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


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


def _error_text(error: ValidationError) -> str:
    return "; ".join(error.messages)


@admin.register(Product)
class ProductAdmin(ReadOnlyAdmin):
    actions = ["merge_products"]
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
    ]  # fmt: skip

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
        return request.user.has_perm("catalogue.add_productmerge")

    @admin.action(description="Merge two products into one…", permissions=["merge"])
    def merge_products(self, request, queryset):
        products = list(queryset.select_related("brand").order_by("created_at"))
        if len(products) != 2:
            self.message_user(request, "Select exactly two products to merge.", messages.ERROR)
            return None
        bound = "confirm" in request.POST
        form = MergeForm(request.POST if bound else None, products=products)
        if bound and form.is_valid():
            survivor = next(p for p in products if str(p.pk) == form.cleaned_data["survivor"])
            loser = next(p for p in products if p.pk != survivor.pk)
            try:
                product_merge(
                    loser=loser,
                    survivor=survivor,
                    actor=request.user,
                    note=form.cleaned_data["note"],
                    confirm_two_barcodes=form.cleaned_data["confirm_two_barcodes"],
                )
            except ValidationError as error:
                form.add_error(None, _error_text(error))
            else:
                self.message_user(request, f"Merged {loser} into {survivor}.", messages.SUCCESS)
                return None
        return _confirm_page(
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


@admin.register(Listing)
class ListingAdmin(ReadOnlyAdmin):
    """The three layers side by side: what the shop said, what the rules made of it, and
    what a person decided."""

    list_display = ["listed_name", "location", "source_sku", "product_link", "last_seen_at",
                    "ignored_at"]  # fmt: skip
    list_filter = ["location"]
    list_select_related = ["location", "product"]
    search_fields = ["listed_name", "source_sku", "listed_gtin"]
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
    list_display = ["observed_at", "listing", "price", "currency", "price_usd", "in_stock", "run"]
    list_select_related = ["listing", "listing__location"]
    raw_id_fields = ["listing", "run"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    date_hierarchy = None
    ordering = ["-id"]


@admin.register(FxRate)
class FxRateAdmin(admin.ModelAdmin):
    list_display = ["currency", "rate_to_usd", "as_of", "source"]
    list_filter = ["currency"]


@admin.register(Override)
class OverrideAdmin(ReadOnlyAdmin):
    list_display = ["entity_type", "entity_key", "field", "value", "set_by", "set_at"]
    list_select_related = ["set_by"]


@admin.register(Award)
class AwardAdmin(ReadOnlyAdmin):
    list_display = ["product", "competition", "year", "medal"]
    list_select_related = ["product"]


@admin.register(Reverification)
class ReverificationAdmin(ReadOnlyAdmin):
    list_display = ["reason", "product", "listing", "queued_at", "done_at"]
    list_select_related = ["product", "listing", "listing__location"]


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "finished_at", "mode", "n"]


@admin.register(VerificationCheck)
class VerificationCheckAdmin(ReadOnlyAdmin):
    list_display = ["checked_at", "listing", "verdict", "cleared_at"]
    list_select_related = ["listing", "listing__location"]


@admin.register(AirportHours)
class AirportHoursAdmin(ReadOnlyAdmin):
    list_display = ["location", "text", "source_kind", "observed_at", "entered_by"]
    list_select_related = ["location", "entered_by"]


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
        bound = "confirm" in request.POST
        form = NoteForm(request.POST if bound else None)
        if bound and form.is_valid():
            undone = 0
            for merge in queryset.order_by("-merged_at"):
                try:
                    product_unmerge(merge=merge, actor=request.user, note=form.cleaned_data["note"])
                    undone += 1
                except ValidationError as error:
                    self.message_user(request, f"{merge}: {_error_text(error)}", messages.ERROR)
            self.message_user(request, f"Undid {undone} merge(s).", messages.SUCCESS)
            return None
        return _confirm_page(
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


@admin.register(MergeCandidate)
class MergeCandidateAdmin(ReadOnlyAdmin):
    """The queue, highest score first; deciding a pair is a person's call with a note."""

    list_display = ["level", "left_id", "right_id", "score", "why", "status", "decided_by"]
    list_filter = ["level", "status"]
    list_select_related = ["decided_by"]
    show_full_result_count = False
    actions = ["accept_candidates", "reject_candidates"]

    def has_decide_permission(self, request) -> bool:
        return request.user.has_perm("catalogue.change_mergecandidate")

    def _decide(self, request, queryset, *, accept: bool):
        verb = "Accept" if accept else "Reject"
        bound = "confirm" in request.POST
        form = NoteForm(request.POST if bound else None)
        if bound and form.is_valid():
            decided = 0
            for candidate in queryset:
                try:
                    merge_candidate_decide(
                        candidate=candidate,
                        accept=accept,
                        actor=request.user,
                        note=form.cleaned_data["note"],
                    )
                    decided += 1
                except ValidationError as error:
                    self.message_user(request, f"{candidate}: {_error_text(error)}", messages.ERROR)
            self.message_user(request, f"{verb}ed {decided} candidate(s).", messages.SUCCESS)
            return None
        return _confirm_page(
            self,
            request,
            queryset,
            action="accept_candidates" if accept else "reject_candidates",
            title=f"{verb} candidates",
            question=f"{verb} these pairs? A decided pair is never proposed again.",
            verb=verb,
            form=form,
        )

    @admin.action(description="Accept the selected pairs…", permissions=["decide"])
    def accept_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=True)

    @admin.action(description="Reject the selected pairs…", permissions=["decide"])
    def reject_candidates(self, request, queryset):
        return self._decide(request, queryset, accept=False)
