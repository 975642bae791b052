from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from accounts import access, services
from accounts.acting import keyboard_user, may_act_as_others
from accounts.forms import ReasonForm
from accounts.models import (
    ALL_SUBJECTS,
    AccessHistory,
    AccessRequest,
    AccessRequestStatus,
    AccountGrant,
    AccountSession,
    AccountStatus,
    ApiConsumer,
    ApiKey,
    ApiUsage,
    ApiUsagePeriod,
    AuditEntry,
    EmailSend,
    TokenPurpose,
    User,
)
from omnium.console import (
    EntityNamesChangeList,
    ReadOnlyAdmin,
    confirm_page,
    confirmed_form,
    console_actor,
    entity_label,
    reason_action,
)

if TYPE_CHECKING:
    # Typing-only: django-stubs' helper for a model row carrying queryset annotations.
    from django_stubs_ext import WithAnnotations


class _ConsumerCounts(TypedDict):
    """What ``ApiConsumerAdmin.get_queryset`` annotates on each consumer."""

    live_key_count: int
    requests_today_total: int | None


class InviteAdminForm(forms.ModelForm):
    """Adding an account in the console is inviting it: no password is typed here; the
    person chooses one through the welcome link."""

    class Meta:
        model = User
        fields = ("username", "email", "display_name", "role")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].required = True


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "display_name", "email", "role", "status", "last_login")
    list_filter = ("role", "status", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    fieldsets = (
        # Django's own user admin always sets its fieldsets; the stubs allow None.
        *(BaseUserAdmin.fieldsets or ()),
        (
            "omnium",
            {
                "fields": (
                    "display_name",
                    "role",
                    "status",
                    "invited_by",
                    "disabled_at",
                    "tombstoned_at",
                )
            },
        ),
    )
    readonly_fields = ("invited_by", "disabled_at", "tombstoned_at", "last_login")
    actions = ("act_as", "send_reset_link", "resend_welcome", "tombstone")
    add_form = InviteAdminForm
    add_fieldsets = ((None, {"fields": ("username", "email", "display_name", "role")}),)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Accounts are never deleted: they are the who-column of every record.
        return False

    def save_model(self, request, obj, form, change):
        # Status and role changes go through their services so they are audited and their
        # consequences (sessions revoked, groups synced) happen once, in one place.
        if not change:
            data = form.cleaned_data
            invited = services.account_invite(
                actor=console_actor(request),
                username=data["username"],
                email=data["email"],
                display_name=data.get("display_name", ""),
                role=data["role"],
            )
            # The admin continues with ``obj`` (its redirect needs the key): make it the row
            # the service created.
            obj.pk = invited.pk
            obj._state.adding = False
            obj.refresh_from_db()
        elif form.initial:
            new_status, new_role = obj.status, obj.role
            obj.status, obj.role = form.initial["status"], form.initial["role"]
            super().save_model(request, obj, form, change)
            services.account_status_set(user=obj, status=new_status, actor=console_actor(request))
            if new_role != obj.role:
                try:
                    access.account_role_change(
                        user=obj, role=new_role, actor=console_actor(request)
                    )
                except ValidationError as error:
                    # The form is past validation here: refuse the whole request; the change
                    # view's transaction then undoes the rest of this edit too.
                    raise PermissionDenied("; ".join(error.messages)) from error
            obj.refresh_from_db()
        else:
            super().save_model(request, obj, form, change)

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))

    @admin.action(description="Act as this account (support)", permissions=["administer"])
    def act_as(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if not may_act_as_others(keyboard_user(request)):
            raise PermissionDenied
        if queryset.count() != 1:
            self.message_user(request, "Choose exactly one account.", messages.ERROR)
            return None
        form = confirmed_form(request, ReasonForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self, request, queryset, title="Act as this account", action="act_as", form=form
            )
        try:
            services.acting_as_start(
                session=request.session,
                actor=console_actor(request),
                target=queryset.get(),
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            self.message_user(request, "; ".join(error.messages), messages.ERROR)
            return None
        # The console may now be out of reach (the account may have no console access):
        # the page that ends acting is on the site.
        return redirect("accounts:acting-as-stop")

    @admin.action(
        description="Delete account (tombstone: the row stays for provenance)",
        permissions=["administer"],
    )
    def tombstone(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = confirmed_form(request, ReasonForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self, request, queryset, title="Delete accounts", action="tombstone", form=form
            )
        count = 0
        actor = console_actor(request)
        for user in queryset:
            if user.pk == actor.pk:
                self.message_user(request, "You cannot delete your own account here.", "error")
                continue
            access.account_tombstone(user=user, actor=actor, reason=form.cleaned_data["reason"])
            count += 1
        self.message_user(request, f"{count} accounts deleted.")
        return None

    @admin.action(description="E-mail a password reset link", permissions=["administer"])
    def send_reset_link(self, request: HttpRequest, queryset) -> None:
        for user in queryset:
            services.account_token_issue(user=user, purpose="reset", actor=console_actor(request))
        self.message_user(request, f"Reset links sent to {queryset.count()} accounts.")

    @admin.action(
        description="Resend the welcome link (invited accounts)", permissions=["administer"]
    )
    def resend_welcome(self, request: HttpRequest, queryset) -> None:
        invited = list(queryset.filter(status=AccountStatus.INVITED))
        for user in invited:
            services.account_token_issue(
                user=user, purpose=TokenPurpose.WELCOME, actor=console_actor(request)
            )
        skipped = len(queryset) - len(invited)
        note = f"; {skipped} already accepted theirs and were left alone" if skipped else ""
        self.message_user(request, f"Welcome links sent to {len(invited)} accounts{note}.")


@admin.register(AccountSession)
class AccountSessionAdmin(ReadOnlyAdmin):
    """Signed-in browsers. Only the key's digest is here; revoke one with a reason."""

    list_display = (
        "short_digest",
        "user",
        "acting_as",
        "created_at",
        "last_seen_at",
        "expire_date",
        "revoked_at",
    )
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    list_select_related = ("user", "acting_as")
    search_fields = ("user__username",)
    fields = (
        "user",
        "acting_as",
        "created_at",
        "last_seen_at",
        "expire_date",
        "revoked_at",
        "revoked_by",
        "revoke_reason",
    )
    readonly_fields = fields
    actions = ("revoke",)
    show_full_result_count = False

    @admin.display(description="session")
    def short_digest(self, obj: AccountSession) -> str:
        return obj.key_digest[:12]

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))

    @admin.action(description="Revoke (sign out) with a reason", permissions=["administer"])
    def revoke(self, request: HttpRequest, queryset) -> HttpResponse | None:
        actor = console_actor(request)
        return reason_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            action="revoke",
            title="Revoke sessions",
            write=lambda session, reason: services.session_revoke(
                session=session, actor=actor, reason=reason
            ),
            done="{n} sessions revoked.",
        )


@admin.register(AccountGrant)
class AccountGrantAdmin(admin.ModelAdmin):
    """Grants are given by approving a request (or ``manage.py set_role``); here they are
    read and revoked with a reason, which the access history keeps."""

    list_display = ("user", "role", "subject_type", "subject_id", "granted_by", "granted_at")
    list_filter = ("role", "subject_type")
    list_select_related = ("user", "subject_type", "granted_by")
    readonly_fields = ("user", "role", "subject_type", "subject_id", "granted_by", "granted_at")
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Deleting here would skip the access history; revoking records it.
        return False

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))

    @admin.action(description="Revoke competition access with a reason", permissions=["administer"])
    def revoke(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = confirmed_form(request, ReasonForm)
        if not form.is_bound or not form.is_valid():
            return confirm_page(
                self,
                request,
                queryset,
                title="Revoke competition access",
                action="revoke",
                form=form,
            )
        revoked = 0
        for grant in queryset.select_related("subject_type"):
            model = grant.subject_type.model_class()
            if model is None or model._meta.label_lower != "sports.competition":
                self.message_user(request, f"{grant}: not a competition grant.", "error")
                continue
            competition = (
                None if grant.subject_id == ALL_SUBJECTS else model.objects.get(pk=grant.subject_id)
            )
            access.competition_grant_revoke(
                user=grant.user,
                competition=competition,
                actor=console_actor(request),
                reason=form.cleaned_data["reason"],
            )
            revoked += 1
        self.message_user(request, f"{revoked} grants revoked.")
        return None


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Browse and filter the audit log. Rows are written only by services, never here."""

    list_display = ("at", "actor", "acting_as", "action", "record")
    list_filter = (
        "action",
        "entity_type",
        ("actor", admin.RelatedOnlyFieldListFilter),
        ("acting_as", admin.EmptyFieldListFilter),
    )
    search_fields = ("action", "entity_type", "entity_key", "actor__username")
    list_select_related = ("actor", "acting_as")
    date_hierarchy = "at"
    show_full_result_count = False

    def get_changelist(self, request, **kwargs):
        return EntityNamesChangeList

    @admin.display(description="record")
    def record(self, obj: AuditEntry) -> str:
        return entity_label(obj)

    readonly_fields = (
        "at", "actor", "acting_as", "action", "record", "entity_type", "entity_key", "detail",
    )  # fmt: skip


@admin.register(EmailSend)
class EmailSendAdmin(ReadOnlyAdmin):
    """The mail caps' ledger, read-only."""

    list_display = ("sent_at", "bucket")
    search_fields = ("bucket",)
    show_full_result_count = False


# --- API consumers, keys and usage -------------------------------------------------------


class AdministratorsOnly:
    """Consumers and keys are credentials to the whole API: only administrators see them."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return may_act_as_others(keyboard_user(request))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return may_act_as_others(keyboard_user(request))

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Keys and usage are records of who could call and who did: never deleted.
        return False

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(keyboard_user(request))


def _key_issued_page(modeladmin, request, issued: list, *, continue_url: str) -> HttpResponse:
    """The one page that shows plaintext keys. Rendered directly, never through the messages
    framework, whose cookie or session would keep a copy; and marked not to be cached."""
    response = TemplateResponse(
        request,
        "admin/accounts/api_key_issued.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "API key issued" if len(issued) == 1 else "API keys issued",
            "issued": issued,
            "continue_url": continue_url,
            "opts": modeladmin.model._meta,
        },
    )
    response["Cache-Control"] = "no-store"
    return response


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    fk_name = "consumer"
    fields = ("prefix", "created_at", "created_by", "expires_at", "revoked_at", "revoke_reason")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(ApiConsumer)
class ApiConsumerAdmin(AdministratorsOnly, admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "owner",
        "status",
        "per_minute_limit",
        "daily_quota",
        "live_keys",
        "requests_today",
    )
    list_filter = ("status", "kind")
    list_select_related = ("owner",)
    search_fields = ("name", "contact_name", "contact_email", "owner__username")
    autocomplete_fields = ("owner",)
    fields = (*services.API_CONSUMER_FIELDS, "created_at")
    readonly_fields = ("created_at",)
    inlines = (ApiKeyInline,)
    actions = ("issue_key",)

    def get_queryset(self, request: HttpRequest):
        now = timezone.now()
        today, _end = services.usage_bucket(now, ApiUsagePeriod.DAY)
        usage_today = (
            ApiUsage.objects.filter(
                consumer=OuterRef("pk"), period=ApiUsagePeriod.DAY, bucket_start=today
            )
            .values("consumer")
            .annotate(total=Sum("count"))
            .values("total")
        )
        return (
            super()
            .get_queryset(request)
            .annotate(
                live_key_count=Count(
                    "keys",
                    filter=Q(keys__revoked_at__isnull=True)
                    & (Q(keys__expires_at__isnull=True) | Q(keys__expires_at__gt=now)),
                ),
                requests_today_total=Subquery(usage_today),
            )
        )

    @admin.display(description="live keys", ordering="live_key_count")
    def live_keys(self, obj: WithAnnotations[ApiConsumer, _ConsumerCounts]) -> int:
        return obj.live_key_count

    @admin.display(description="requests today (UTC)", ordering="requests_today_total")
    def requests_today(self, obj: WithAnnotations[ApiConsumer, _ConsumerCounts]) -> int:
        return obj.requests_today_total or 0

    def save_model(self, request, obj, form, change):
        # Writes go through the services so they are validated and audited in one place.
        values = {name: form.cleaned_data[name] for name in services.API_CONSUMER_FIELDS}
        if change:
            saved = services.api_consumer_change(
                consumer=obj, actor=console_actor(request), **values
            )
        else:
            saved = services.api_consumer_create(actor=console_actor(request), **values)
            # The admin continues with ``obj`` (its redirect needs the key).
            obj.pk = saved.pk
            obj._state.adding = False
        obj.refresh_from_db()

    @admin.action(
        description="Issue a new key (rotation: the old keys stay live)", permissions=["administer"]
    )
    def issue_key(self, request: HttpRequest, queryset) -> HttpResponse:
        issued = [
            services.api_key_issue(consumer=consumer, actor=console_actor(request))
            for consumer in queryset
        ]
        return _key_issued_page(
            self, request, issued, continue_url=reverse("admin:accounts_apiconsumer_changelist")
        )


class ApiKeyAddForm(forms.ModelForm):
    class Meta:
        model = ApiKey
        fields = ("consumer", "expires_at")

    def clean_expires_at(self):
        # The service refuses it too; checking here shows the error on the form.
        expires_at = self.cleaned_data["expires_at"]
        if expires_at is not None and expires_at <= timezone.now():
            raise ValidationError("The expiry must be in the future.")
        return expires_at


@admin.register(ApiKey)
class ApiKeyAdmin(AdministratorsOnly, admin.ModelAdmin):
    """Keys: issue one (its plaintext is shown once, on the page after saving), revoke with
    a reason. Nothing else about a key can change."""

    list_display = ("prefix", "consumer", "created_at", "expires_at", "revoked_at", "live")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    list_select_related = ("consumer",)
    search_fields = ("prefix", "consumer__name")
    autocomplete_fields = ("consumer",)
    readonly_fields = (
        "consumer",
        "prefix",
        "created_at",
        "created_by",
        "expires_at",
        "revoked_at",
        "revoked_by",
        "revoke_reason",
    )
    actions = ("revoke",)
    form = ApiKeyAddForm

    @admin.display(boolean=True)
    def live(self, obj: ApiKey) -> bool:
        return obj.is_live()

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj=None):
        return self.readonly_fields if obj is not None else ("consumer", "expires_at")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        # The change page is for reading; revoking is the action, with its reason.
        return False

    def save_model(self, request, obj, form, change):
        key, plaintext = services.api_key_issue(
            consumer=form.cleaned_data["consumer"],
            actor=console_actor(request),
            expires_at=form.cleaned_data["expires_at"],
        )
        obj.pk = key.pk
        obj._state.adding = False
        obj.refresh_from_db()
        # Kept on the request only, for response_add's page; never stored.
        request._issued_api_key = (key, plaintext)

    def response_add(self, request, obj, post_url_continue=None):
        return _key_issued_page(
            self,
            request,
            [request._issued_api_key],
            continue_url=reverse("admin:accounts_apikey_change", args=[obj.pk]),
        )

    @admin.action(description="Revoke with a reason", permissions=["administer"])
    def revoke(self, request: HttpRequest, queryset) -> HttpResponse | None:
        actor = console_actor(request)
        return reason_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            action="revoke",
            title="Revoke API keys",
            write=lambda key, reason: services.api_key_revoke(key=key, actor=actor, reason=reason),
            done="{n} keys revoked.",
        )


@admin.register(ApiUsage)
class ApiUsageAdmin(AdministratorsOnly, admin.ModelAdmin):
    """The limits' counters, read-only: who called how much, per UTC minute and day."""

    list_display = ("bucket_start", "period", "consumer", "key", "count")
    list_filter = ("period", ("consumer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("consumer", "key")
    date_hierarchy = "bucket_start"
    show_full_result_count = False
    readonly_fields = ("consumer", "key", "period", "bucket_start", "count")
    ordering = ("-bucket_start",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# --- access: requests for submitter access and the access history ------------------------


@admin.register(AccessRequest)
class AccessRequestAdmin(AdministratorsOnly, admin.ModelAdmin):
    """Requests for submitter access: approve (grants the competition) or reject with a
    reason. Requests are made by the people themselves, never here."""

    list_display = ("created_at", "user", "competition", "status", "decided_by", "decided_at")
    list_filter = ("status",)
    list_select_related = ("user", "competition", "decided_by")
    search_fields = ("user__username", "competition__name", "competition__code")
    readonly_fields = (
        "user",
        "competition",
        "message",
        "status",
        "created_at",
        "decided_at",
        "decided_by",
        "decision_reason",
    )
    actions = ("approve", "reject")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Approve (grant submitter access)", permissions=["administer"])
    def approve(self, request: HttpRequest, queryset) -> None:
        done = 0
        for item in queryset.filter(status=AccessRequestStatus.PENDING):
            try:
                access.access_request_approve(request=item, actor=console_actor(request))
                done += 1
            except ValidationError as error:
                self.message_user(request, f"{item}: {'; '.join(error.messages)}", "error")
        self.message_user(request, f"{done} requests approved.")

    @admin.action(description="Reject with a reason", permissions=["administer"])
    def reject(self, request: HttpRequest, queryset) -> HttpResponse | None:
        actor = console_actor(request)
        return reason_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            action="reject",
            title="Reject access requests",
            write=lambda item, reason: access.access_request_reject(
                request=item, actor=actor, reason=reason
            ),
            done="{n} requests rejected.",
            rows=queryset.filter(status=AccessRequestStatus.PENDING),
        )


@admin.register(AccessHistory)
class AccessHistoryAdmin(AdministratorsOnly, admin.ModelAdmin):
    """Every request, decision, grant, revocation, role change and deletion: read-only."""

    list_display = (
        "at",
        "user",
        "event",
        "role_before",
        "role_after",
        "competition",
        "every_competition",
        "actor",
    )
    list_filter = ("event", "role_after")
    list_select_related = ("user", "actor", "competition")
    search_fields = ("user__username", "actor__username", "reason")
    date_hierarchy = "at"
    show_full_result_count = False
    readonly_fields = (
        "at",
        "user",
        "actor",
        "event",
        "role_before",
        "role_after",
        "competition",
        "every_competition",
        "request",
        "reason",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# The job pages (their own module: the long work of every app, not accounts' rows).
from accounts import job_admin  # noqa: E402, F401
