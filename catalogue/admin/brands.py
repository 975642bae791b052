"""Console pages of brands, product lines and variation wordings: aliasing one to another
re-keys the products and folds those that then agree."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from catalogue.admin.common import CuratedHistoryAdmin, CurationPermissions
from catalogue.models import Brand, ProductLine, VariationAlias
from catalogue.services import brand_alias_apply, line_alias_apply, variation_alias_set
from omnium.console import ReadOnlyAdmin, confirm_page, confirmed_form, error_text, request_actor


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
