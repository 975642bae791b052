"""The console kit: what every app's admin shares.

- ``ReadOnlyAdmin`` for append-only and derived tables (services write them, people read);
- ``ReadableAdmin``: every list, change page, action and lookup of a model holds only the
  rows its owner's reader admits for the person at the page (``omnium.readable``);
- ``EstimatedCountPaginator`` for tables too large to count on every changelist page;
- the confirm-then-service action flow: ``confirmed_form`` (bound only once the person
  confirmed) and ``confirm_page`` (one template for every app's confirmation page);
- ``ServiceErrorsMixin`` for add/change pages whose save calls a service;
- ``admin_link``, ``error_text``, ``request_actor`` (the person at the keyboard) and
  ``console_actor`` (the same, typed as the account a console page always has);
- the home page's queues: each app registers the queues it owns (``home_queue_register``,
  from its admin module) with the roles that work them; the console's home page
  (``accounts.console_home``) lists the queues of the role at the keyboard.

``omnium`` imports no app, so nothing here names a model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django import forms
from django.apps import apps
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.functional import cached_property
from django.utils.html import format_html

from omnium.actors import request_actor
from omnium.auth import signed_in
from omnium.readable import readable

__all__ = [
    "CONFIRM_TEMPLATE",
    "EntityNamesChangeList",
    "EstimatedCountPaginator",
    "HomeItem",
    "HomeQueue",
    "HomeRows",
    "ReadOnlyAdmin",
    "ReadableAdmin",
    "ServiceErrorsMixin",
    "admin_link",
    "confirm_page",
    "confirmed_form",
    "console_actor",
    "entity_label",
    "entity_links",
    "error_text",
    "home_queue_register",
    "home_queues",
    "request_actor",
]

CONFIRM_TEMPLATE = "admin/omnium/confirm_action.html"

# Generic over the account class so omnium names no app's user model.
_Account_co = TypeVar("_Account_co", bound=AbstractBaseUser, covariant=True)


class _AccountRequest(Protocol[_Account_co]):
    """A Django or DRF request, seen only through its ``user``."""

    @property
    def user(self) -> _Account_co | AnonymousUser: ...


def console_actor(request: _AccountRequest[_Account_co]) -> _Account_co:
    """``request_actor`` for a console page, typed as the account class of ``request.user``.

    The admin site serves only signed-in, active staff, so the person at the keyboard is
    always an account there; one missing means the page is outside that check and is
    refused. While acting as someone, this is the support person, not ``request.user``.
    """
    actor: _Account_co = signed_in(request_actor(request))
    return actor


def error_text(error: ValidationError) -> str:
    """A service's refusal as one line for a console message."""
    return "; ".join(error.messages)


def admin_link(obj: Model | None, label: str | None = None) -> str:
    """A link to ``obj``'s change page, labelled ``label`` or the row itself; a dash for
    no row."""
    if obj is None:
        return "—"
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else str(obj))


def entity_links(
    pairs: Iterable[tuple[str, str]], *, default_app: str = ""
) -> dict[tuple[str, str], str]:
    """Links, labelled by name, to the rows that (type, key) pairs name, keyed by the pair.

    A type is a model label (``"catalogue.product"``) or, with ``default_app``, a bare model
    name in that app (an override's ``"product"``). One query per type whatever the number
    of rows; a pair whose type is no model, whose key is of the wrong shape, whose row is
    gone or whose model has no console page is left out (the caller shows the raw pair)."""
    by_type: dict[str, set[str]] = {}
    for kind, key in pairs:
        if kind and key:
            by_type.setdefault(kind, set()).add(str(key))
    links: dict[tuple[str, str], str] = {}
    for kind, keys in by_type.items():
        label = kind if "." in kind or not default_app else f"{default_app}.{kind}"
        try:
            model = apps.get_model(label)
            rows = model._default_manager.in_bulk(list(keys))
        except (LookupError, ValueError, ValidationError):
            continue
        for pk, row in rows.items():
            try:
                links[(kind, str(pk))] = admin_link(row)
            except NoReverseMatch:
                continue
    return links


class EntityNamesChangeList(ChangeList):
    """A changelist whose rows name another row by (type, key) columns (an audit entry, an
    override): each page's rows get ``entity_link``, the named row by name with a link,
    loaded in one query per type. The admin says which columns through
    ``entity_fields = (type_attribute, key_attribute)`` and ``entity_default_app``."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        kind, key = getattr(self.model_admin, "entity_fields", ("entity_type", "entity_key"))
        default_app = getattr(self.model_admin, "entity_default_app", "")
        rows = list(self.result_list)
        links = entity_links(
            ((getattr(r, kind), str(getattr(r, key))) for r in rows), default_app=default_app
        )
        for row in rows:
            row.entity_link = links.get((getattr(row, kind), str(getattr(row, key))), "")


def entity_label(row: Any, *, default_app: str = "") -> str:
    """The row that ``row`` names, by name with a link, or its raw type and key. A row of an
    ``EntityNamesChangeList`` page carries the link already; any other (a change page's
    one row) costs one query."""
    kind, key = getattr(row, "entity_type", ""), str(getattr(row, "entity_key", ""))
    if hasattr(row, "entity_link"):
        link = row.entity_link
    else:
        link = entity_links([(kind, key)], default_app=default_app).get((kind, key), "")
    return link or f"{kind} {key}".strip() or "—"


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only and derived tables: rows are made by services, never by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadableAdmin(admin.ModelAdmin):
    """A console whose rows are those the model's registered reader lets the person read
    (``omnium.readable``): the changelist, the change page, actions, autocompletes and the
    discussion beside a row all start from ``get_queryset``. A row someone may not read is
    "not found", the same answer as a row that does not exist, so its existence stays
    hidden. The reader is asked about ``request.user``: while acting as someone, support
    sees what that account sees."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return readable(super().get_queryset(request), request.user)


class EstimatedCountPaginator(Paginator):
    """Counts an unfiltered large table from PostgreSQL's planner estimate.

    ``COUNT(*)`` over millions of log rows takes seconds and is only used for the page
    links. Below ``exact_below`` estimated rows, and for any filtered list (the estimate is
    of the whole table), the count stays exact.
    """

    exact_below = 50_000

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        if isinstance(rows, QuerySet) and not rows.query.where:
            # By regclass oid, not relname: a name alone may match tables in other schemas.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                    [rows.model._meta.db_table],
                )
                found = cursor.fetchone()
            if found and found[0] >= self.exact_below:
                return int(found[0])
        return super().count


def confirmed_form(request: HttpRequest, form_class: type[forms.Form], **kwargs: Any) -> Any:
    """The action's form: bound to the POST once the confirmation page was submitted, else
    unbound (the changelist's first POST only chose the rows)."""
    data = request.POST if "confirm" in request.POST else None
    return form_class(data, **kwargs)


def confirm_page(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: Any,
    *,
    action: str,
    title: str,
    question: str = "",
    verb: str = "Confirm",
    form: forms.Form | None = None,
    labels: Iterable[str] | None = None,
) -> TemplateResponse:
    """The intermediate page of an action: the question, the chosen rows (each as its
    ``labels`` entry when given, in the queryset's order: a row whose own text is ids can be
    named for a person), the form (a note or reason, a choice) and a ``verb`` button that
    posts the action again with ``confirm=yes``."""
    media = modeladmin.media + form.media if form is not None else modeladmin.media
    return TemplateResponse(
        request,
        CONFIRM_TEMPLATE,
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "question": question,
            "verb": verb,
            "action": action,
            "queryset": queryset,
            "form": form,
            "labels": list(labels) if labels is not None else None,
            "media": media,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        },
    )


def reason_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: Any,
    *,
    form_class: type[forms.Form],
    action: str,
    title: str,
    write: Callable[[Any, str], object],
    done: str,
    rows: Iterable[Any] | None = None,
) -> TemplateResponse | None:
    """An action that writes each chosen row with a person's reason: the confirmation page
    until a valid ``reason`` is posted, then ``write(row, reason)`` for each of ``rows``
    (the chosen rows unless a narrower set is given) and ``done`` (``{n}``: how many) as
    the message. The caller's ``write`` is one service call, which writes the audit row."""
    form = confirmed_form(request, form_class)
    if not form.is_bound or not form.is_valid():
        return confirm_page(modeladmin, request, queryset, title=title, action=action, form=form)
    chosen = list(queryset if rows is None else rows)
    for row in chosen:
        write(row, form.cleaned_data["reason"])
    modeladmin.message_user(request, done.format(n=len(chosen)))
    return None


class ServiceErrorsMixin:
    """Shows a ``ValidationError`` raised by a service during save as a message.

    The forms check what they can before saving; what remains is a lost race (a row changed
    or locked meanwhile). Django's change view runs inside a transaction, so nothing of the
    failed save is kept.
    """

    #: The add page's form (new rows are created by a service in ``save_model``) and the
    #: fields a change page shows; admins without them keep Django's defaults.
    create_form: type[forms.ModelForm] | None = None
    fields_on_change: tuple[str, ...] | None = None

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:
            self.message_user(request, f"Nothing was saved: {error_text(error)}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None and self.create_form is not None:
            kwargs["form"] = self.create_form
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None and self.create_form is not None:
            return self.create_form.Meta.fields
        if obj is not None and self.fields_on_change is not None:
            return self.fields_on_change
        return super().get_fields(request, obj)


# --- the home page's queues -----------------------------------------------------------------


@dataclass(frozen=True)
class HomeItem:
    """One waiting row on the home page: what it is (by name), where to work it, since when."""

    label: str
    url: str
    since: datetime | None = None
    note: str = ""


@dataclass(frozen=True)
class HomeRows:
    """A queue as the home page shows it: how many wait, the first few, and the full list."""

    count: int
    items: Sequence[HomeItem]
    url: str


@dataclass(frozen=True)
class HomeQueue:
    """A queue some roles work, registered by the app that owns its rows.

    ``rows(request, limit)`` reads what waits for the person at the keyboard (their
    competitions only, where grants scope them), in the order the queue is worked (oldest
    first; a log of one's own changes newest first), in a fixed number of queries. A queue
    with ``hide_when_empty`` is left off the page while nothing waits in it (a queue that
    exists only where a feed produces such rows)."""

    key: str
    title: str
    roles: frozenset[str]
    rows: Callable[[HttpRequest, int], HomeRows]
    order: int = 100
    hide_when_empty: bool = False
    help: str = ""


_home_queues: dict[str, HomeQueue] = {}


def home_queue_register(queue: HomeQueue) -> None:
    """Register (or, on a repeated import, replace) one queue of the home page."""
    _home_queues[queue.key] = queue


def home_queues(role: str) -> list[HomeQueue]:
    """The queues ``role`` works, in page order."""
    chosen = [q for q in _home_queues.values() if role in q.roles]
    return sorted(chosen, key=lambda q: (q.order, q.key))
