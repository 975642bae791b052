"""The catalogue console: read-mostly. Every curation write (merge and undo, aliases at three
levels, overrides, listing pins and ignores) is an action or page that asks for a note on a
confirmation page and calls one service, which writes the audit row.

Editors curate (merge, alias, override, pin); viewers read. Queued pairs are decided in the
merge-candidate console (``curation.admin``).
The curated models keep a history (django-simple-history) naming the person and reason;
reverting from the history page is off, since it would bypass the services.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from simple_history.admin import SimpleHistoryAdmin

from catalogue.models import (
    AirportHours,
    Award,
    Brand,
    FxRate,
    Listing,
    Location,
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
from catalogue.selectors import product_provenance
from catalogue.services import (
    EDIT_PERMISSION,
    brand_alias_apply,
    line_alias_apply,
    listing_ignore,
    listing_pin,
    listing_unignore,
    listing_unpin,
    location_set_visible,
    override_remove,
    override_set,
    product_merge,
    product_unmerge,
    variation_alias_set,
)
from omnium.console import (
    EstimatedCountPaginator,
    ReadOnlyAdmin,
    admin_link,
    confirm_page,
    confirmed_form,
    error_text,
    request_actor,
)


class CuratedHistoryAdmin(SimpleHistoryAdmin):
    """History of a curated row, with who and why. Reverting is off: it would write the
    row around the services (no audit row, no re-key, no fold)."""

    history_list_display = ["history_change_reason"]
    # The read-only history form is still a model form; say which scheme a bare URL means.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def revert_disabled(self, request, obj=None) -> bool:
        return True

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        if request.method == "POST":
            raise PermissionDenied("History is read-only; change the row through its actions.")
        return super().history_form_view(request, object_id, version_id, extra_context)


@admin.register(Retailer)
class RetailerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "operator"]
    search_fields = ["name", "slug"]


def _set_visible(modeladmin, request, queryset, *, visible: bool):
    verb = "Show" if visible else "Hide"
    if "confirm" not in request.POST:
        return confirm_page(
            modeladmin,
            request,
            queryset,
            action="show_on_site" if visible else "hide_from_site",
            title=f"{verb} locations",
            question=f"{verb} these locations on the public site? "
            "Collection carries on either way.",
            verb=verb,
        )
    changed = 0
    for location in queryset:
        try:
            location_set_visible(location=location, visible=visible, actor=request_actor(request))
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


class AliasForm(forms.Form):
    canonical = forms.ChoiceField(
        widget=forms.RadioSelect, label="Keep this one (the other becomes its alias)"
    )
    preferred_name = forms.CharField(
        required=False, label="Preferred name for the kept one (optional)"
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")

    def __init__(self, *args, rows, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["canonical"].choices = [
            (str(r.pk), f"{r} ({r.products_n} products)") for r in rows
        ]


def _alias_action(modeladmin, request, queryset, *, action, title, apply):
    """Two rows selected, the person keeps one and the other becomes its alias."""
    rows = list(queryset.order_by("pk"))
    if len(rows) != 2:
        modeladmin.message_user(request, "Select exactly two to alias.", messages.ERROR)
        return None
    form = confirmed_form(request, AliasForm, rows=rows)
    if form.is_bound and form.is_valid():
        kept = next(r for r in rows if str(r.pk) == form.cleaned_data["canonical"])
        alias = next(r for r in rows if r.pk != kept.pk)
        try:
            report = apply(
                alias=alias,
                canonical=kept,
                actor=request_actor(request),
                note=form.cleaned_data["note"],
                preferred_name=form.cleaned_data["preferred_name"],
            )
        except ValidationError as error:
            form.add_error(None, error_text(error))
        else:
            modeladmin.message_user(
                request,
                f"{alias} is now an alias of {kept}: {report.moved_products} product(s) re-keyed"
                f", {report.folded} folded, {report.left_for_a_person} left for a person.",
                messages.SUCCESS,
            )
            return None
    return confirm_page(
        modeladmin,
        request,
        queryset,
        action=action,
        title=title,
        question="Make one of these an alias of the other? What hangs off the alias moves to "
        "the one you keep, products are re-keyed, and those that then agree are merged.",
        verb="Alias",
        form=form,
    )


class CurationPermissions:
    def has_curate_permission(self, request) -> bool:
        return request.user.has_perm(EDIT_PERMISSION)


@admin.register(Brand)
class BrandAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    list_display = ["name", "slug", "canonical", "decided_by", "decided_at", "product_count"]
    list_select_related = ["canonical", "decided_by"]
    search_fields = ["name", "slug"]
    actions = ["alias_brands"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(products_n=Count("products"))

    @admin.display(description="products", ordering="products_n")
    def product_count(self, obj) -> int:
        return obj.products_n

    @admin.action(description="Make one brand an alias of the other…", permissions=["curate"])
    def alias_brands(self, request, queryset):
        return _alias_action(
            self,
            request,
            queryset,
            action="alias_brands",
            title="Alias two brands",
            apply=brand_alias_apply,
        )


@admin.register(ProductLine)
class ProductLineAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    list_display = ["name", "brand", "key", "canonical", "product_count"]
    list_select_related = ["brand", "canonical"]
    search_fields = ["name", "key", "brand__name"]
    actions = ["alias_lines"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(products_n=Count("products"))

    @admin.display(description="products", ordering="products_n")
    def product_count(self, obj) -> int:
        return obj.products_n

    @admin.action(description="Make one line an alias of the other…", permissions=["curate"])
    def alias_lines(self, request, queryset):
        return _alias_action(
            self,
            request,
            queryset,
            action="alias_lines",
            title="Alias two lines",
            apply=line_alias_apply,
        )


class VariationAliasForm(forms.Form):
    vertical = forms.ChoiceField(choices=VariationAlias._meta.get_field("vertical").choices)
    raw = forms.CharField(label="Wording as seen", max_length=200)
    canonical = forms.CharField(label="Means (canonical variation)", max_length=100)
    display = forms.CharField(required=False, max_length=200)
    kind = forms.ChoiceField(
        required=False, choices=[("", "—"), *VariationAlias._meta.get_field("kind").choices]
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


@admin.register(VariationAlias)
class VariationAliasAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    list_display = ["raw", "canonical", "vertical", "kind", "decided_by", "decided_at"]
    list_filter = ["vertical", "kind"]
    search_fields = ["raw", "canonical"]

    def has_add_permission(self, request, obj=None) -> bool:
        return self.has_curate_permission(request)

    def add_view(self, request, form_url="", extra_context=None):
        """Deciding a wording is a service call (re-key and fold), not a model form."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        bound = request.method == "POST"
        form = VariationAliasForm(request.POST if bound else None)
        if bound and form.is_valid():
            data = form.cleaned_data
            try:
                alias, report = variation_alias_set(
                    vertical=data["vertical"],
                    raw=data["raw"],
                    canonical=data["canonical"],
                    display=data["display"],
                    kind=data["kind"],
                    actor=request_actor(request),
                    note=data["note"],
                )
            except ValidationError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(
                    request,
                    f"{alias}: {report.moved_products} product(s) re-keyed, "
                    f"{report.folded} folded.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:catalogue_variationalias_changelist"))
        return TemplateResponse(
            request,
            "catalogue/admin/form_page.html",
            {
                **self.admin_site.each_context(request),
                "title": "Say what a variation wording means",
                "question": "Products naming this wording are re-keyed, and those that then "
                "agree on every key part are merged.",
                "form": form,
                "verb": "Decide",
                "opts": self.model._meta,
            },
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


class PinForm(forms.Form):
    product = forms.UUIDField(label="Product id to pin to")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Why")


class ReasonForm(forms.Form):
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
                         actor=request_actor(request), **extra)  # fmt: skip
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
class OverrideAdmin(CurationPermissions, CuratedHistoryAdmin, ReadOnlyAdmin):
    list_display = ["entity_type", "entity_key", "field", "value", "set_by", "set_at", "reason",
                    "collector_disagrees_since"]  # fmt: skip
    list_filter = ["field"]
    list_select_related = ["set_by"]
    search_fields = ["entity_key", "reason"]
    actions = ["withdraw_overrides"]

    @admin.action(description="Withdraw the selected overrides…", permissions=["curate"])
    def withdraw_overrides(self, request, queryset):
        form = confirmed_form(request, ReasonForm)
        if form.is_bound and form.is_valid():
            done = 0
            for override in queryset:
                override_remove(override=override, actor=request_actor(request),
                                reason=form.cleaned_data["reason"])  # fmt: skip
                done += 1
            self.message_user(request, f"Withdrew {done} override(s).", messages.SUCCESS)
            return None
        return confirm_page(
            self, request, queryset, action="withdraw_overrides", title="Withdraw overrides",
            question="Withdraw these values? The rules' own values come back.", verb="Withdraw",
            form=form,
        )  # fmt: skip


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
