"""Who may submit, review or edit which competitions, and every change to that.

The one selector every check uses is ``user_can(user, capability, competition)``:

- The account's **role** is authoritative: a capability needs a role that has it (the
  role table, ``accounts.roles.ROLE_TABLE``, which also decides the console's Django
  permissions), whatever grants the account holds. Demoting an account to viewer
  therefore ends its submitting everywhere at once, grants or not.
- Submitters and reviewers are **scoped**: they act only on competitions they hold a grant
  for (an ``AccountGrant`` on a competition node covers the node's whole subtree; a grant on
  ``"*"`` covers every competition). The grant's own role caps it too: a submitter grant
  never lets a reviewer review there.
- Editors and administrators are not scoped: they act on every competition.
- An account that cannot sign in (disabled, invited, deleted) can do nothing.

Every write here runs in one transaction with its ``AccessHistory`` row and its audit row.
``actor`` is the administrator acting, or None for an operator at the command line
(``manage.py set_role``), who is trusted as whoever runs the shell.
"""

from __future__ import annotations

import secrets
from typing import TypeAlias

from django.contrib.auth.models import AnonymousUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import CharField, Q
from django.db.models.functions import Cast
from django.utils import timezone
from mptt.models import MPTTModel

from accounts.acting import may_act_as_others
from accounts.models import (
    ALL_SUBJECTS,
    AccessEvent,
    AccessRequest,
    AccessRequestStatus,
    AccountGrant,
    AccountSession,
    AccountStatus,
    AccountToken,
    ApiKey,
    Capability,
    RevokedSubject,
    Role,
    TokenPurpose,
    User,
)
from accounts.roles import ROLE_TABLE, role_may, roles_with
from accounts.services import (
    access_history_record,
    account_groups_sync,
    api_key_revoke,
    audit_record,
    session_revoke,
)
from accounts.subjects import subject_digest

# A sports.Competition: accounts names that model only through its foreign keys (see
# ``_competition_model``): importing it, even for mypy alone, would be an arrow up the
# import contract. The nearest class this layer may name is its base, a django-mptt node
# (the tree reads here need ``get_ancestors`` and the nested-set columns). django-mptt
# ships no types, so mypy checks competition values no further than that.
Competition: TypeAlias = MPTTModel

SCOPED_ROLES = tuple(role for role, rights in ROLE_TABLE.items() if rights.scoped)
TOMBSTONE_PREFIX = "deleted-"


def _competition_model() -> type[Competition]:
    # The competition model is reached through the access request's foreign key, whose
    # target is a lazy string: accounts then depends on sports only through its schema,
    # never through an import, so sports (and cricket above it) may import accounts.
    return AccessRequest._meta.get_field("competition").related_model


def _competition_type() -> ContentType:
    return ContentType.objects.get_for_model(_competition_model())


# --- reading: the one selector ------------------------------------------------------------


def _able_account(user: User | AnonymousUser | None) -> User | None:
    """``user`` when it is an account that can sign in; None for anyone who may do nothing
    beyond reading publicly (anonymous, disabled, invited, deleted)."""
    return user if isinstance(user, User) and user.can_sign_in else None


def _role_of(account: User) -> str:
    return Role.ADMIN if account.is_superuser else account.role


def effective_role(user: User | AnonymousUser | None) -> str | None:
    """The role checks use, or None for anyone who may do nothing beyond reading publicly
    (anonymous, disabled, invited, deleted)."""
    account = _able_account(user)
    return None if account is None else _role_of(account)


def _capable(user: User | AnonymousUser | None, capability: str) -> tuple[User, str] | None:
    """The account and its effective role when that role has ``capability`` at all."""
    account = _able_account(user)
    if account is None:
        return None
    role = _role_of(account)
    if not role_may(role, Capability(capability)):
        return None
    return account, role


def _scoped_grants(user: User, capability: str) -> models.QuerySet[AccountGrant]:
    return AccountGrant.objects.filter(
        user=user,
        subject_type=_competition_type(),
        role__in=roles_with(capability),
    )


def user_can(
    user: User | AnonymousUser | None, capability: str, competition: Competition | None = None
) -> bool:
    """Whether ``user`` may ``capability`` on ``competition`` (or, with None, on at least
    one competition: whether to show them the way in at all). At most one query."""
    capable = _capable(user, capability)
    if capable is None:
        return False
    account, role = capable
    if role not in SCOPED_ROLES:
        return True
    grants = _scoped_grants(account, capability)
    if competition is None:
        return grants.exists()
    covering = (
        competition.get_ancestors(include_self=True)
        .annotate(key=Cast("id", CharField()))
        .values("key")
    )
    return grants.filter(Q(subject_id=ALL_SUBJECTS) | Q(subject_id__in=covering)).exists()


def user_can_everywhere(user: User | AnonymousUser | None, capability: str) -> bool:
    """Whether ``user`` may ``capability`` on every competition, including ones not made
    yet: an unscoped role (editor, administrator), or a grant on ``"*"``. At most one query."""
    capable = _capable(user, capability)
    if capable is None:
        return False
    account, role = capable
    if role not in SCOPED_ROLES:
        return True
    return _scoped_grants(account, capability).filter(subject_id=ALL_SUBJECTS).exists()


def account_refusal(user: User | AnonymousUser | None) -> str:
    """Why ``user`` can do nothing beyond reading publicly, and what would change that;
    empty for an account that can sign in. One query for an invited account (the date of
    its latest welcome link), none otherwise.

    The console, the API and the CLI all show this text, so the person refused learns the
    rule that refused them and what to do about it."""
    if not isinstance(user, User):
        return "nobody is signed in; sign in first"
    name = user.username
    if user.tombstoned_at is not None:
        return f"{name}'s account was deleted on {user.tombstoned_at:%d %b %Y}"
    if user.status == AccountStatus.INVITED:
        sent = (
            AccountToken.objects.filter(user=user, purpose=TokenPurpose.WELCOME)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        when = f" sent on {sent:%d %b %Y}" if sent else ""
        return (
            f"{name} has not accepted the invitation{when}; resend it from Accounts "
            "(Users, action 'Resend the welcome link')"
        )
    if user.status == AccountStatus.DISABLED or not user.is_active:
        since = f" on {user.disabled_at:%d %b %Y}" if user.disabled_at else ""
        return f"{name}'s account was disabled{since}; an administrator can enable it in Accounts"
    return ""


def capability_refusal(user: User | AnonymousUser | None, capability: str) -> str:
    """Why ``user`` may not ``capability`` on any competition (empty when they may
    somewhere): the account cannot sign in, its role lacks the capability, or no grant of a
    scoped role carries it. At most two queries."""
    refusal = account_refusal(user)
    if refusal:
        return refusal
    account = user if isinstance(user, User) else None
    if account is None or user_can(account, capability):
        return ""
    role = _role_of(account)
    able = ", ".join(Role(r).label.lower() for r in roles_with(capability))
    what = Capability(capability).label.lower()
    if not role_may(role, capability):
        return (
            f"the {Role(role).label.lower()} role may not {what} (roles that may: {able}); "
            "an administrator can change the role in Accounts"
        )
    return (
        f"{account.username} holds no competition grant to {what}; an administrator can "
        "grant one in Accounts (Account grants)"
    )


def competitions_for(
    user: User | AnonymousUser | None, capability: str
) -> models.QuerySet[Competition]:
    """The competitions ``user`` may ``capability`` on, as a queryset (a reviewer's queue,
    a submitter's choice of target). Grants cover subtrees: one range condition each."""
    competitions = _competition_model().objects.all()
    capable = _capable(user, capability)
    if capable is None:
        return competitions.none()
    account, role = capable
    if role not in SCOPED_ROLES:
        return competitions
    keys = list(_scoped_grants(account, capability).values_list("subject_id", flat=True))
    if ALL_SUBJECTS in keys:
        return competitions
    nodes = competitions.filter(pk__in=keys).values_list("tree_id", "lft", "rght")
    match = Q(pk__in=[])
    for tree_id, lft, rght in nodes:
        match |= Q(tree_id=tree_id, lft__gte=lft, rght__lte=rght)
    return competitions.filter(match)


def competition_by_code(code: str) -> Competition:
    """The canonical competition a person names by ``CODE`` or ``SPORT:CODE`` (codes are
    unique within a sport); a ValidationError that says which when none or several match."""
    code = code.strip()
    nodes = _competition_model().objects.filter(merged_into__isnull=True)
    sport, colon, own = code.partition(":")
    nodes = nodes.filter(sport__code=sport, code=own) if colon else nodes.filter(code=code)
    matches = list(nodes.select_related("sport")[:2])
    if not matches:
        raise ValidationError(f"{code}: no competition has that code.")
    if len(matches) > 1:
        raise ValidationError(
            f"{code}: more than one competition has that code (codes are unique within a "
            f"sport); write it as SPORT:{code}."
        )
    return matches[0]


# --- writing ------------------------------------------------------------------------------


def _require_administrator(actor: User | None) -> None:
    if actor is not None and not may_act_as_others(actor):
        raise PermissionDenied("Only an administrator can change who may submit or review.")


@transaction.atomic
def account_role_change(*, user: User, role: str, actor: User | None, reason: str = "") -> User:
    """Set an account's application role: the one write of a role, for the console, the
    command line and request approval alike.

    Only an administrator (or an operator at the command line, ``actor=None``) may; a
    deleted account gets no role. Locks the account's row; a no-op returns early. Moves the
    account to its role's group and writes the access-history row and the audit row, all
    in this transaction.
    """
    _require_administrator(actor)
    if role not in Role.values:
        raise ValidationError({"role": f"Unknown role {role!r}; one of {', '.join(Role.values)}."})
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.tombstoned_at is not None:
        raise ValidationError("A deleted account cannot be given a role.")
    if user.role == role:
        return user
    old = user.role
    user.role = role
    user.save(update_fields=["role"])
    account_groups_sync(user=user)
    access_history_record(
        user=user, actor=actor, event=AccessEvent.ROLE_CHANGED, role_before=old, role_after=role,
        reason=reason,
    )  # fmt: skip
    audit_record(
        actor=actor, action="account.role", entity=user, key=user.pk, detail={"role": [old, role]}
    )
    return user


def _grant_subject(competition: Competition | None) -> tuple[str, dict]:
    if competition is None:
        return ALL_SUBJECTS, {"every_competition": True}
    return str(competition.pk), {"competition": competition}


@transaction.atomic
def competition_grant_set(
    *,
    user: User,
    competition: Competition | None,
    role: str,
    actor: User | None,
    reason: str = "",
    request: AccessRequest | None = None,
) -> AccountGrant:
    """Let ``user`` act as ``role`` (submitter or reviewer) on ``competition`` and every node
    below it; ``competition=None`` means every competition. Replaces an earlier grant on the
    same node. The account's role still decides what it may do at all."""
    _require_administrator(actor)
    if role not in SCOPED_ROLES:
        raise ValidationError(
            {"role": f"A competition grant is for a submitter or a reviewer, not {role!r}."}
        )
    if user.tombstoned_at is not None:
        raise ValidationError("A deleted account cannot be given access.")
    subject_id, scope = _grant_subject(competition)
    grant, created = AccountGrant.objects.select_for_update().get_or_create(
        user=user,
        subject_type=_competition_type(),
        subject_id=subject_id,
        defaults={"role": role, "granted_by": actor},
    )
    old = None if created else grant.role
    if not created:
        if grant.role == role:
            return grant
        grant.role, grant.granted_by = role, actor
        grant.save(update_fields=["role", "granted_by"])
    access_history_record(
        user=user,
        actor=actor,
        event=AccessEvent.GRANTED,
        role_before=old or "",
        role_after=role,
        request=request,
        reason=reason,
        **scope,
    )
    audit_record(
        actor=actor,
        action="access.grant",
        entity=user,
        key=user.pk,
        detail={"competition": subject_id, "role": [old, role], "reason": reason},
    )
    return grant


@transaction.atomic
def competition_grant_revoke(
    *, user: User, competition: Competition | None, actor: User | None, reason: str
) -> bool:
    """End ``user``'s grant on ``competition`` (None: the every-competition grant).
    Returns whether there was one. The history row keeps what was revoked."""
    _require_administrator(actor)
    return _grant_revoke(user=user, competition=competition, actor=actor, reason=reason)


def _grant_revoke(
    *, user: User, competition: Competition | None, actor: User | None, reason: str
) -> bool:
    """The revocation itself, for callers that have checked the actor (the account's own
    deletion revokes its grants without the owner being an administrator)."""
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why the access is being revoked."})
    subject_id, scope = _grant_subject(competition)
    grant = (
        AccountGrant.objects.select_for_update()
        .filter(user=user, subject_type=_competition_type(), subject_id=subject_id)
        .first()
    )
    if grant is None:
        return False
    grant.delete()
    access_history_record(
        user=user,
        actor=actor,
        event=AccessEvent.REVOKED,
        role_before=grant.role,
        reason=reason,
        **scope,
    )
    audit_record(
        actor=actor,
        action="access.revoke",
        entity=user,
        key=user.pk,
        detail={"competition": subject_id, "role": grant.role, "reason": reason},
    )
    return True


# --- requests for submitter access ---------------------------------------------------------


@transaction.atomic
def access_request_create(
    *, user: User, competition: Competition, actor: User, message: str = ""
) -> AccessRequest:
    """``user`` asks to submit data for ``competition``. Only the account itself asks;
    asking grants nothing. One pending request per competition."""
    if actor.pk != user.pk:
        raise PermissionDenied("People ask for access themselves.")
    if not user.can_sign_in:
        raise PermissionDenied("This account cannot ask for access.")
    if user_can(user, Capability.SUBMIT, competition):
        raise ValidationError("You can already submit data for this competition.")
    try:
        with transaction.atomic():
            request = AccessRequest.objects.create(
                user=user, competition=competition, message=message.strip()
            )
    except IntegrityError as error:
        if "accounts_accessrequest_one_pending" not in str(error):
            raise
        raise ValidationError(
            "You have already asked for this competition; an administrator will answer."
        ) from error
    access_history_record(
        user=user, actor=actor, event=AccessEvent.REQUESTED, competition=competition,
        request=request, reason=request.message,
    )  # fmt: skip
    audit_record(
        actor=actor,
        action="access.request",
        entity=request,
        key=request.pk,
        detail={"competition": competition.pk},
    )
    return request


def _pending(request: AccessRequest) -> AccessRequest:
    request = (
        AccessRequest.objects.select_for_update()
        .select_related("user", "competition")
        .get(pk=request.pk)
    )
    if request.status != AccessRequestStatus.PENDING:
        raise ValidationError(f"This request was already {request.status}.")
    return request


@transaction.atomic
def access_request_approve(
    *, request: AccessRequest, actor: User | None, reason: str = ""
) -> AccessRequest:
    """Approve: a viewer becomes a submitter, and the account gets a submitter grant on the
    requested competition (its subtree). Request, role change, grant and their history rows
    are one transaction: either all of them exist or none does."""
    _require_administrator(actor)
    request = _pending(request)
    user = User.objects.select_for_update().get(pk=request.user_id)
    if not user.can_sign_in:
        raise ValidationError("This account can no longer sign in; reject the request instead.")
    request.status = AccessRequestStatus.APPROVED
    request.decided_at, request.decided_by = timezone.now(), actor
    request.decision_reason = reason.strip()
    request.save(update_fields=["status", "decided_at", "decided_by", "decision_reason"])
    access_history_record(
        user=user, actor=actor, event=AccessEvent.APPROVED, competition=request.competition,
        request=request, reason=request.decision_reason,
    )  # fmt: skip
    if not role_may(user.role, Capability.SUBMIT):
        user = account_role_change(
            user=user, role=Role.SUBMITTER, actor=actor, reason="request approved"
        )
    # Editors and administrators act everywhere already; a reviewer who can review here can
    # submit here too, and replacing that grant with a submitter one would demote them.
    if user.role in SCOPED_ROLES and not user_can(user, Capability.SUBMIT, request.competition):
        competition_grant_set(
            user=user,
            competition=request.competition,
            role=Role.SUBMITTER,
            actor=actor,
            reason="request approved",
            request=request,
        )
    audit_record(
        actor=actor, action="access.approve", entity=request, key=request.pk,
        detail={"reason": request.decision_reason},
    )  # fmt: skip
    return request


@transaction.atomic
def access_request_reject(
    *, request: AccessRequest, actor: User | None, reason: str
) -> AccessRequest:
    """Reject with a reason (shown to the person). Nothing else changes; they may ask again."""
    _require_administrator(actor)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why the request is rejected."})
    request = _pending(request)
    request.status = AccessRequestStatus.REJECTED
    request.decided_at, request.decided_by, request.decision_reason = timezone.now(), actor, reason
    request.save(update_fields=["status", "decided_at", "decided_by", "decision_reason"])
    access_history_record(
        user=request.user, actor=actor, event=AccessEvent.REJECTED,
        competition=request.competition, request=request, reason=reason,
    )  # fmt: skip
    audit_record(
        actor=actor, action="access.reject", entity=request, key=request.pk,
        detail={"reason": reason},
    )  # fmt: skip
    return request


def _withdraw(request: AccessRequest, *, actor: User | None, reason: str) -> None:
    request.status = AccessRequestStatus.WITHDRAWN
    request.decided_at, request.decided_by, request.decision_reason = timezone.now(), actor, reason
    request.save(update_fields=["status", "decided_at", "decided_by", "decision_reason"])
    access_history_record(
        user=request.user, actor=actor, event=AccessEvent.WITHDRAWN,
        competition=request.competition, request=request, reason=reason,
    )  # fmt: skip


# --- account deletion ----------------------------------------------------------------------


@transaction.atomic
def account_tombstone(*, user: User, actor: User | None, reason: str) -> User:
    """Delete an account by tombstone; the row stays so provenance still resolves.

    Clears the names and the address, replaces the username with a random tombstone, sets
    the one-way ``tombstoned_at`` marker and records the old username and address as revoked
    subjects (digests only), removes the role and every grant, withdraws pending requests,
    and revokes every live session, API key and unused welcome/reset link. The account
    itself or an administrator may do it. Deleting twice changes nothing.
    """
    if actor is not None and actor.pk != user.pk:
        _require_administrator(actor)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why the account is being deleted."})
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.tombstoned_at is not None:
        return user
    now = timezone.now()
    # Who ends the credentials: the administrator, or the account itself when an operator
    # acts from the command line (the revocation services need a person).
    revoker = actor or user
    for session in AccountSession.objects.filter(user=user).live():
        session_revoke(session=session, actor=revoker, reason="account deleted")
    live_keys = ApiKey.objects.filter(consumer__owner=user, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )
    for key in live_keys:
        api_key_revoke(key=key, actor=revoker, reason="account deleted")
    tokens = AccountToken.objects.filter(user=user, used_at__isnull=True).update(used_at=now)
    grants = list(
        AccountGrant.objects.select_for_update()
        .filter(user=user, subject_type=_competition_type())
        .values_list("subject_id", "role")
    )
    for subject_id, _role in grants:
        competition = (
            None if subject_id == ALL_SUBJECTS else _competition_model().objects.get(pk=subject_id)
        )
        _grant_revoke(user=user, competition=competition, actor=actor, reason="account deleted")
    AccountGrant.objects.filter(user=user).delete()  # grants on other records (brands …)
    for request in AccessRequest.objects.select_for_update().filter(
        user=user, status=AccessRequestStatus.PENDING
    ):
        _withdraw(request, actor=actor, reason="account deleted")
    subjects = {s for s in (user.username, user.email) if s and s.strip()}
    RevokedSubject.objects.bulk_create(
        [RevokedSubject(digest=subject_digest(s), revoked_at=now) for s in subjects],
        ignore_conflicts=True,
    )
    old_role = Role.ADMIN if user.is_superuser else user.role
    user.username = f"{TOMBSTONE_PREFIX}{secrets.token_hex(16)}"
    user.display_name = user.first_name = user.last_name = user.email = ""
    user.set_unusable_password()
    user.role = Role.VIEWER
    user.status = AccountStatus.DISABLED
    user.disabled_at = user.disabled_at or now
    user.is_active = user.is_staff = user.is_superuser = False
    user.tombstoned_at = now
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    access_history_record(
        user=user, actor=actor, event=AccessEvent.TOMBSTONED, role_before=old_role,
        role_after=Role.VIEWER, reason=reason,
    )  # fmt: skip
    # No personal data in the audit row: it would outlive the deletion it records.
    audit_record(
        actor=actor,
        action="account.tombstone",
        entity=user,
        key=user.pk,
        detail={"reason": reason, "grants_revoked": len(grants), "tokens_spent": tokens},
    )
    return user
