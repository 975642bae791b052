from __future__ import annotations

from django.apps import apps
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.signing import BadSignature, TimestampSigner
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts import access, services
from accounts.acting import acting_as_target, keyboard_user
from accounts.forms import (
    SUBSCRIBE_CONSENT,
    AccessRequestForm,
    ResetRequestForm,
    SetPasswordForm,
    SubscribeForm,
)
from accounts.models import AccessRequest, AccountGrant, AccountSession, Role
from accounts.sessions import key_digest
from omnium.auth import signed_in

_unsubscribe_signer = TimestampSigner(salt="accounts.unsubscribe")


def unsubscribe_token(email: str) -> str:
    return _unsubscribe_signer.sign(email.lower())


@require_http_methods(["GET", "POST"])
def token_redeem(request: HttpRequest, token: str) -> HttpResponse:
    """The welcome/reset link: choose a password. The token is spent only on success."""
    try:
        account_token = services.account_token_check(raw_token=token)
    except ValidationError as error:
        return render(request, "accounts/token_invalid.html", {"error": error}, status=404)
    form = SetPasswordForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.account_token_redeem(raw_token=token, password=form.cleaned_data["password"])
        except ValidationError as error:
            form.add_error("password", error)
        else:
            messages.success(request, "Your password is set. You can sign in now.")
            return redirect("admin:login")
    return render(
        request, "accounts/set_password.html", {"form": form, "purpose": account_token.purpose}
    )


@require_http_methods(["GET", "POST"])
def reset_request(request: HttpRequest) -> HttpResponse:
    form = ResetRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        services.password_reset_request(email=form.cleaned_data["email"])
        # The same answer whether or not an account has this address.
        return render(request, "accounts/reset_sent.html")
    return render(request, "accounts/reset_request.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def acting_as_stop(request: HttpRequest) -> HttpResponse:
    """Where a support person ends acting as someone (the console may be out of reach
    while they are someone without console access)."""
    if request.method == "POST":
        services.acting_as_stop(session=request.session, actor=signed_in(keyboard_user(request)))
        return redirect("admin:index")
    return render(request, "accounts/acting_as.html", {"acting_as": acting_as_target(request)})


@login_required
@require_http_methods(["GET", "POST"])
def my_sessions(request: HttpRequest) -> HttpResponse:
    """The browsers signed in as me, and a way to sign any of them out."""
    person = signed_in(keyboard_user(request))
    current = key_digest(request.session.session_key or "")
    live = AccountSession.objects.filter(user=person).live()
    if request.method == "POST":
        session = get_object_or_404(live, key_digest=request.POST.get("session", ""))
        services.session_revoke(
            session=session, actor=person, reason="signed out from another browser"
        )
        return redirect("accounts:my-sessions")
    sessions = live.order_by("-last_seen_at").only("key_digest", "created_at", "last_seen_at")
    return render(request, "accounts/my_sessions.html", {"sessions": sessions, "current": current})


@require_http_methods(["GET", "POST"])
def subscribe(request: HttpRequest) -> HttpResponse:
    form = SubscribeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if not data["website"]:
            services.subscriber_signup(
                email=data["email"],
                first_name=data["first_name"],
                last_name=data["last_name"],
                home_airport=data["home_airport"],
                interests=data["interests"],
                consent_text=SUBSCRIBE_CONSENT,
            )
        # A bot filling the honeypot sees the same page as a person, so it learns nothing.
        return render(request, "accounts/subscribed.html")
    return render(request, "accounts/subscribe.html", {"form": form})


@require_http_methods(["GET", "POST"])
def subscribe_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a new or changed subscription. Opening it shows a button; only the
    POST confirms, so a mail scanner that follows links confirms nothing."""
    try:
        pending = services.subscription_request_check(raw_token=token)
    except ValidationError as error:
        return render(request, "accounts/subscribe_confirm.html", {"error": error}, status=404)
    if request.method == "POST":
        try:
            services.subscriber_confirm(raw_token=token)
        except ValidationError as error:
            return render(request, "accounts/subscribe_confirm.html", {"error": error}, status=404)
        return render(request, "accounts/subscribe_confirm.html", {"done": True})
    return render(request, "accounts/subscribe_confirm.html", {"pending": pending})


@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        email = _unsubscribe_signer.unsign(token)
    except BadSignature:
        return render(request, "accounts/unsubscribe.html", {"invalid": True}, status=404)
    if request.method == "POST":
        services.subscriber_unsubscribe(email=email)
        return render(request, "accounts/unsubscribe.html", {"done": True})
    return render(request, "accounts/unsubscribe.html", {})


@login_required
@require_http_methods(["GET", "POST"])
def my_access(request: HttpRequest) -> HttpResponse:
    """What I may submit or review, my requests for submitter access and their answers,
    and a form to ask for a competition. Asking grants nothing until an administrator
    approves."""
    person = signed_in(keyboard_user(request))
    form = AccessRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            competition = access.competition_by_code(form.cleaned_data["competition"])
            access.access_request_create(
                user=person,
                competition=competition,
                actor=person,
                message=form.cleaned_data["message"],
            )
        except ValidationError as error:
            form.add_error("competition", error)
        else:
            messages.success(request, f"Asked for {competition}. An administrator will answer.")
            return redirect("accounts:my-access")
    grants = list(
        AccountGrant.objects.filter(
            user=person, subject_type__app_label="sports", subject_type__model="competition"
        ).order_by("granted_at")
    )
    nodes = apps.get_model("sports", "Competition").objects.select_related("sport")
    by_key = {
        str(node.pk): node
        for node in nodes.filter(pk__in=[g.subject_id for g in grants if g.subject_id != "*"])
    }
    requests = (
        AccessRequest.objects.filter(user=person)
        .select_related("competition")
        .order_by("-created_at")
    )
    return render(
        request,
        "accounts/my_access.html",
        {
            "form": form,
            "role": person.get_role_display(),
            "everywhere": access.effective_role(person) in (Role.EDITOR, Role.ADMIN),
            # (role, node) pairs; node None is the every-competition grant.
            "scopes": [(g.get_role_display(), by_key.get(g.subject_id)) for g in grants],
            "requests": requests,
        },
    )
