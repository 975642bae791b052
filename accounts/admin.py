from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse

from accounts import services
from accounts.acting import may_act_as_others
from accounts.forms import ReasonForm
from accounts.models import AccountGrant, AccountSession, AuditEntry, EmailSend, User


def _reason_confirmation(request: HttpRequest) -> ReasonForm | None:
    """The intermediate page of an action that needs a person's reason: a bound valid form
    once confirmed, otherwise None (the caller then renders the page)."""
    if "confirm" in request.POST:
        form = ReasonForm(request.POST)
        if form.is_valid():
            return form
    return None


def _render_reason_page(modeladmin, request, queryset, *, title: str, action: str):
    form = ReasonForm(request.POST if "confirm" in request.POST else None)
    return TemplateResponse(
        request,
        "admin/accounts/reason_confirmation.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "action": action,
            "queryset": queryset,
            "form": form,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        },
    )


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
        *BaseUserAdmin.fieldsets,
        ("omnium", {"fields": ("display_name", "role", "status", "invited_by", "disabled_at")}),
    )
    readonly_fields = ("invited_by", "disabled_at", "last_login")
    actions = ("act_as", "send_reset_link")
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
                actor=request.real_user,
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
            services.account_status_set(user=obj, status=new_status, actor=request.real_user)
            services.account_role_set(user=obj, role=new_role, actor=request.real_user)
            obj.refresh_from_db()
        else:
            super().save_model(request, obj, form, change)

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(request.real_user)

    @admin.action(description="Act as this account (support)", permissions=["administer"])
    def act_as(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if not may_act_as_others(request.real_user):
            raise PermissionDenied
        if queryset.count() != 1:
            self.message_user(request, "Choose exactly one account.", messages.ERROR)
            return None
        form = _reason_confirmation(request)
        if form is None:
            return _render_reason_page(
                self, request, queryset, title="Act as this account", action="act_as"
            )
        try:
            services.acting_as_start(
                session=request.session,
                actor=request.real_user,
                target=queryset.get(),
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            self.message_user(request, "; ".join(error.messages), messages.ERROR)
            return None
        # The console may now be out of reach (the account may have no console access):
        # the page that ends acting is on the site.
        return redirect("accounts:acting-as-stop")

    @admin.action(description="E-mail a password reset link", permissions=["administer"])
    def send_reset_link(self, request: HttpRequest, queryset) -> None:
        for user in queryset:
            services.account_token_issue(user=user, purpose="reset", actor=request.real_user)
        self.message_user(request, f"Reset links sent to {queryset.count()} accounts.")


@admin.register(AccountSession)
class AccountSessionAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_administer_permission(self, request: HttpRequest) -> bool:
        return may_act_as_others(request.real_user)

    @admin.action(description="Revoke (sign out) with a reason", permissions=["administer"])
    def revoke(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = _reason_confirmation(request)
        if form is None:
            return _render_reason_page(
                self, request, queryset, title="Revoke sessions", action="revoke"
            )
        for session in queryset:
            services.session_revoke(
                session=session, actor=request.real_user, reason=form.cleaned_data["reason"]
            )
        self.message_user(request, f"{queryset.count()} sessions revoked.")
        return None


@admin.register(AccountGrant)
class AccountGrantAdmin(admin.ModelAdmin):
    list_display = ("user", "role", "subject_type", "subject_id", "granted_by", "granted_at")
    list_filter = ("role", "subject_type")
    list_select_related = ("user", "subject_type", "granted_by")
    readonly_fields = ("user", "role", "subject_type", "subject_id", "granted_by", "granted_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Browse and filter the audit log. Rows are written only by services, never here."""

    list_display = ("at", "actor", "acting_as", "action", "entity_type", "entity_key")
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
    readonly_fields = ("at", "actor", "acting_as", "action", "entity_type", "entity_key", "detail")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(EmailSend)
class EmailSendAdmin(admin.ModelAdmin):
    """The mail caps' ledger, read-only."""

    list_display = ("sent_at", "bucket")
    search_fields = ("bucket",)
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
