"""Console pages of the category taxonomy (reference rows, read-only), the mappings people
decided from each feed's own category text, and the queue of texts no one has decided."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import urlencode

from catalogue.admin.common import CurationPermissions
from catalogue.collection_records import Source
from catalogue.models import Category, CategoryMapping
from catalogue.selectors import category_queue
from catalogue.services import category_map
from omnium.console import ReadOnlyAdmin, console_actor, error_text

QUEUE_SHOWN = 200


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "slug", "parent", "sort_order"]
    list_select_related = ["parent"]
    search_fields = ["name", "slug"]

    def get_queryset(self, request):
        return super().get_queryset(request).in_order()


class CategoryMappingForm(forms.Form):
    source = forms.ModelChoiceField(queryset=Source.objects.order_by("slug"))
    text = forms.CharField(label="The feed's category text", max_length=200)
    category = forms.ModelChoiceField(queryset=Category.objects.in_order(), label="Means")
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


@admin.register(CategoryMapping)
class CategoryMappingAdmin(CurationPermissions, ReadOnlyAdmin):
    list_display = ["text", "source", "category", "decided_by", "decided_at"]
    list_filter = ["source", "category__parent", "category"]
    list_select_related = ["source", "category", "category__parent", "decided_by"]
    search_fields = ["text", "text_key"]

    def has_add_permission(self, request, obj=None) -> bool:
        return self.has_curate_permission(request)

    def get_urls(self):
        queue = path(
            "queue/",
            self.admin_site.admin_view(self.queue_view),
            name="catalogue_categorymapping_queue",
        )
        return [queue, *super().get_urls()]

    def queue_view(self, request):
        """Every feed category text waiting for a person, most listings first, each with a
        link to decide it."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        waiting = category_queue()
        rows = [
            {
                **row,
                "decide_url": reverse("admin:catalogue_categorymapping_add")
                + "?"
                + urlencode({"source": row["source_id"], "text": row["text"]}),
            }
            for row in waiting[:QUEUE_SHOWN]
        ]
        return TemplateResponse(
            request,
            "catalogue/admin/category_queue.html",
            {
                **self.admin_site.each_context(request),
                "title": "Category texts waiting for a decision",
                "rows": rows,
                "count": waiting.count(),
                "shown": QUEUE_SHOWN,
                "can_decide": self.has_add_permission(request),
                "opts": self.model._meta,
            },
        )

    def add_view(self, request, form_url="", extra_context=None):
        """Deciding a text is a service call with an audit row, not a model form. The queue
        links here with the source and text filled in."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        bound = request.method == "POST"
        initial = {key: request.GET[key] for key in ("source", "text") if key in request.GET}
        form = CategoryMappingForm(request.POST if bound else None, initial=initial)
        if bound and form.is_valid():
            data = form.cleaned_data
            try:
                mapping = category_map(
                    source=data["source"],
                    text=data["text"],
                    category=data["category"],
                    actor=console_actor(request),
                    note=data["note"],
                )
            except ValidationError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, f"{mapping.source}: {mapping}", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:catalogue_categorymapping_queue"))
        return TemplateResponse(
            request,
            "catalogue/admin/form_page.html",
            {
                **self.admin_site.each_context(request),
                "title": "Say what a feed's category text means",
                "question": "Every listing of this source with this text (in any spacing or "
                "case) is filed under the category, now and at every later collection. "
                "Deciding a text again replaces its category.",
                "form": form,
                "verb": "Decide",
                "opts": self.model._meta,
            },
        )
