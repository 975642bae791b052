from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.querysets import AccountGrantQuerySet, AccountSessionQuerySet, SubscriberQuerySet
from omnium.models import UUIDModel
from omnium.triggers import never_truncated


class Role(models.TextChoices):
    """Application role: authoritative for capability, checked on every write."""

    VIEWER = "viewer", "Viewer"
    SUBMITTER = "submitter", "Submitter"
    REVIEWER = "reviewer", "Reviewer"
    EDITOR = "editor", "Editor"
    ADMIN = "admin", "Administrator"


class AccountStatus(models.TextChoices):
    INVITED = "invited", "Invited"
    ACTIVE = "active", "Active"
    DISABLED = "disabled", "Disabled"


class User(UUIDModel, AbstractUser):
    """A person who signs in. Rows are never deleted: provenance must keep resolving."""

    display_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    status = models.CharField(
        max_length=16, choices=AccountStatus.choices, default=AccountStatus.ACTIVE
    )
    invited_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="invitees"
    )
    disabled_at = models.DateTimeField(null=True, blank=True)
    # Set once when the account is deleted (``accounts.access.account_tombstone``): the row
    # stays as the who-column of provenance, with no personal data and no way back in.
    tombstoned_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        indexes = [models.Index(fields=["role"], name="accounts_user_role_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status=AccountStatus.DISABLED, disabled_at__isnull=False)
                | (~Q(status=AccountStatus.DISABLED) & Q(disabled_at__isnull=True)),
                name="accounts_user_disabled_at_iff_disabled",
            ),
            # A deleted account can never be signed in to or hold a role beyond viewing.
            models.CheckConstraint(
                condition=Q(tombstoned_at__isnull=True)
                | Q(
                    status=AccountStatus.DISABLED,
                    is_active=False,
                    is_staff=False,
                    is_superuser=False,
                    role=Role.VIEWER,
                    display_name="",
                    email="",
                ),
                name="accounts_user_tombstone_is_inert",
            ),
        ]
        triggers = [
            # The one-way marker: once set, no statement (nor a buggy service) clears it.
            pgtrigger.Protect(
                name="user_tombstone_one_way",
                operation=pgtrigger.Update,
                condition=pgtrigger.Q(
                    old__tombstoned_at__isnull=False,
                    new__tombstoned_at__df=pgtrigger.F("old__tombstoned_at"),
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def can_sign_in(self) -> bool:
        return self.is_active and self.status == AccountStatus.ACTIVE and not self.tombstoned_at


class AuditEntry(models.Model):
    """One state change that names a person.

    ``actor`` is who really acted; ``acting_as`` is whom they were acting as (support), so
    a change made "as" someone never hides the person behind it. Append-only: the trigger
    refuses UPDATE and DELETE, so not even a buggy service can rewrite history.
    """

    id = models.BigAutoField(primary_key=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries",
    )
    acting_as = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries_as",
    )
    action = models.CharField(max_length=100)
    entity_type = models.CharField(max_length=100, blank=True)
    entity_key = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = "audit entry"
        verbose_name_plural = "audit log"
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["entity_type", "entity_key"], name="accounts_audit_entity_idx"),
            models.Index(fields=["actor", "at"], name="accounts_audit_actor_idx"),
            models.Index(fields=["action"], name="accounts_audit_action_idx"),
        ]
        triggers = [
            never_truncated("audit_no_truncate"),
            pgtrigger.Protect(
                name="audit_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.entity_type}:{self.entity_key}"


class TokenPurpose(models.TextChoices):
    WELCOME = "welcome", "Welcome (first password)"
    RESET = "reset", "Password reset"


class AccountToken(UUIDModel):
    """A welcome or reset link's token. Only its SHA-256 is stored; the token itself exists
    only in the e-mail. Single use (``used_at``), 48 hours (``expires_at``)."""

    token_hash = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tokens"
    )
    purpose = models.CharField(max_length=16, choices=TokenPurpose.choices)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tokens_issued",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("created_at")),
                name="accounts_token_expires_after_creation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.purpose} token for {self.user_id}"


class AccountSession(models.Model):
    """A signed-in browser (the session store's table; see ``accounts.sessions``).

    ``key_digest`` is the SHA-256 of the cookie's session key: a copy of this table cannot be
    replayed as cookies. Revocation keeps the row as the record of who ended it and why.
    """

    key_digest = models.CharField(max_length=64, primary_key=True)
    session_data = models.TextField()
    expire_date = models.DateTimeField(db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="sessions",
    )
    acting_as = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="sessions_acting_as",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="sessions_revoked",
    )
    revoke_reason = models.CharField(max_length=300, blank=True)

    objects = AccountSessionQuerySet.as_manager()

    class Meta:
        verbose_name = "session"
        constraints = [
            # A revocation without a reason is not a record; a reason without a time is noise.
            models.CheckConstraint(
                condition=Q(revoked_at__isnull=True, revoke_reason="")
                | (Q(revoked_at__isnull=False) & ~Q(revoke_reason="")),
                name="accounts_session_revoked_with_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"session {self.key_digest[:12]}…"

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None and self.expire_date > timezone.now()


class AccountGrant(models.Model):
    """A role held on one record only (a competition, a brand …), beside the app-wide role.

    The record is generic (content type + key) so any app's instances can be granted without
    accounts importing that app.
    """

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="grants"
    )
    subject_type = models.ForeignKey("contenttypes.ContentType", on_delete=models.PROTECT)
    subject_id = models.CharField(max_length=64)
    role = models.CharField(max_length=16, choices=Role.choices)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="grants_given",
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    objects = AccountGrantQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "subject_type", "subject_id"], name="accounts_grant_one_per_subject"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.role} on {self.subject_type_id}:{self.subject_id}"


class AccountPreference(models.Model):
    """Per-person settings the inbox reads; a missing row means the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.PROTECT,
        related_name="preference",
    )
    mail_notifications = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class Subscriber(UUIDModel):
    """Someone who asked for the newsletter: the fields asked for and their consent, nothing
    more (no address, no user agent). Unsubscribing keeps the row as the record.

    The list leaves the database only through ``manage.py export_subscribers``.
    """

    email = models.EmailField(unique=True)
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    home_airport = models.CharField(max_length=3, blank=True)
    interests = models.JSONField(default=list, blank=True)
    consent_text = models.TextField()
    consent_at = models.DateTimeField()
    source = models.CharField(max_length=50, default="site")
    created_at = models.DateTimeField(auto_now_add=True)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)

    objects = SubscriberQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(email=Lower("email")),
                name="accounts_subscriber_email_lowercase",
            ),
            models.CheckConstraint(
                condition=~Q(consent_text=""), name="accounts_subscriber_consent_text_present"
            ),
        ]

    def __str__(self) -> str:
        return f"subscriber {self.pk}"


class EmailSend(models.Model):
    """The mail caps' ledger: one row per message sent, keyed by the bucket it counts
    against (``auth:<account>`` for sign-in links, ``notify:<account>`` for notifications).
    Append-only: a cap that could be reset by deleting rows would be no cap."""

    id = models.BigAutoField(primary_key=True)
    bucket = models.CharField(max_length=120)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["bucket", "sent_at"], name="accounts_email_bucket_idx")]
        triggers = [
            never_truncated("email_sends_no_truncate"),
            pgtrigger.Protect(
                name="email_sends_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bucket} at {self.sent_at}"


# --- API consumers and their keys --------------------------------------------------------


class ApiConsumerKind(models.TextChoices):
    ORGANISATION = "organisation", "Organisation"
    PERSON = "person", "Person"


class ApiConsumerStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SUSPENDED = "suspended", "Suspended"


class ApiConsumer(UUIDModel):
    """A program's owner that calls the API with keys: a data partner or a person.

    Requests made with its keys act as ``owner``, so the role and grant checks that protect
    the API for people protect it for programs too. The limits are per consumer, whichever
    of its keys made the request: rotating a key must not reset or double a budget.
    """

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=ApiConsumerKind.choices)
    contact_name = models.CharField(max_length=200, blank=True)
    contact_email = models.EmailField()
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_consumers"
    )
    status = models.CharField(
        max_length=16, choices=ApiConsumerStatus.choices, default=ApiConsumerStatus.ACTIVE
    )
    per_minute_limit = models.PositiveIntegerField(default=60)
    daily_quota = models.PositiveIntegerField(default=10_000)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "API consumer"
        constraints = [
            # Zero would lock a consumer out silently; suspending it says so.
            models.CheckConstraint(
                condition=Q(per_minute_limit__gt=0), name="accounts_apiconsumer_minute_limit_pos"
            ),
            models.CheckConstraint(
                condition=Q(daily_quota__gt=0), name="accounts_apiconsumer_daily_quota_pos"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ApiKey(UUIDModel):
    """One credential of a consumer: ``<prefix>.<secret>``, shown once when issued.

    Only the SHA-256 of the secret is stored. The secret is 32 random bytes, so a fast hash
    is as safe as a slow one here (there is nothing to guess), and it keeps the check cheap
    on every request where the password hasher would cost tens of milliseconds. The prefix
    is not secret: it finds the row and lets people name a key in the console and in logs.
    """

    consumer = models.ForeignKey(ApiConsumer, on_delete=models.PROTECT, related_name="keys")
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_keys_issued"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="api_keys_revoked",
    )
    revoke_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_at__isnull=True) | Q(expires_at__gt=models.F("created_at")),
                name="accounts_apikey_expires_after_creation",
            ),
            # Same rule as sessions: a revocation records who, when and why, or nothing.
            models.CheckConstraint(
                condition=Q(revoked_at__isnull=True, revoked_by__isnull=True, revoke_reason="")
                | (Q(revoked_at__isnull=False, revoked_by__isnull=False) & ~Q(revoke_reason="")),
                name="accounts_apikey_revoked_with_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.consumer_id})"

    def is_live(self, at=None) -> bool:
        at = at or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > at)


class ApiUsagePeriod(models.TextChoices):
    MINUTE = "minute", "Minute"
    DAY = "day", "Day"


class ApiUsage(models.Model):
    """Requests one key made in one UTC minute or day: the limits' counters and the usage
    the console shows.

    Rows live in PostgreSQL, not a cache: they survive restarts, and every web process
    increments the same row with one atomic upsert (``api_usage_admit``), so the count is
    consistent across processes without a coordinator. Written only by that service.
    """

    id = models.BigAutoField(primary_key=True)
    consumer = models.ForeignKey(ApiConsumer, on_delete=models.PROTECT, related_name="usage")
    key = models.ForeignKey(ApiKey, on_delete=models.PROTECT, related_name="usage")
    period = models.CharField(max_length=8, choices=ApiUsagePeriod.choices)
    bucket_start = models.DateTimeField()
    count = models.PositiveIntegerField()

    class Meta:
        verbose_name = "API usage"
        verbose_name_plural = "API usage"
        constraints = [
            # The upsert's conflict target: one counter per key, period and bucket.
            models.UniqueConstraint(
                fields=["key", "period", "bucket_start"], name="accounts_apiusage_one_per_bucket"
            ),
            models.CheckConstraint(condition=Q(count__gt=0), name="accounts_apiusage_count_pos"),
        ]
        indexes = [
            # The consumer's total over its keys, read on every keyed request.
            models.Index(
                fields=["consumer", "period", "bucket_start"], name="accounts_apiusage_consumer_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key_id} {self.period} {self.bucket_start:%Y-%m-%d %H:%M}: {self.count}"


# --- Access: submitter requests, competition-scoped grants, access history ----------------
# Written only by ``accounts.access``. A grant on a competition is an ``AccountGrant`` whose
# subject is a ``sports.Competition`` node (it covers the node's subtree) or ``"*"`` (every
# competition, present and future).

ALL_SUBJECTS = "*"


class Capability(models.TextChoices):
    """What a check asks for; each needs at least one role (``accounts.access``)."""

    SUBMIT = "submit", "Submit match data"
    REVIEW = "review", "Review submitted data"
    EDIT = "edit", "Edit data directly"
    ADMINISTER = "administer", "Administer accounts and access"


class AccessRequestStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"


class AccessRequest(UUIDModel):
    """Someone asks to submit data for one competition; an administrator decides.

    A decided request keeps its decision (who, when, why). Asking again after a rejection
    is a new row, so each request and each answer stays on the record.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="access_requests"
    )
    competition = models.ForeignKey(
        "sports.Competition", on_delete=models.PROTECT, related_name="+"
    )
    message = models.TextField(blank=True)
    status = models.CharField(
        max_length=16, choices=AccessRequestStatus.choices, default=AccessRequestStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="access_requests_decided",
    )
    decision_reason = models.TextField(blank=True)

    class Meta:
        verbose_name = "access request"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "competition"],
                condition=Q(status=AccessRequestStatus.PENDING),
                name="accounts_accessrequest_one_pending",
            ),
            models.CheckConstraint(
                condition=Q(status=AccessRequestStatus.PENDING, decided_at__isnull=True)
                | (~Q(status=AccessRequestStatus.PENDING) & Q(decided_at__isnull=False)),
                name="accounts_accessrequest_decided_iff_not_pending",
            ),
            models.CheckConstraint(
                condition=~Q(status=AccessRequestStatus.REJECTED, decision_reason=""),
                name="accounts_accessrequest_rejection_has_reason",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="accounts_accessreq_queue")]

    def __str__(self) -> str:
        return f"{self.user} asks to submit for {self.competition} ({self.status})"


class AccessEvent(models.TextChoices):
    REQUESTED = "requested", "Access requested"
    APPROVED = "approved", "Request approved"
    REJECTED = "rejected", "Request rejected"
    WITHDRAWN = "withdrawn", "Request withdrawn"
    GRANTED = "granted", "Competition grant given"
    REVOKED = "revoked", "Competition grant revoked"
    ROLE_CHANGED = "role_changed", "Role changed"
    TOMBSTONED = "tombstoned", "Account deleted (tombstoned)"


GRANT_EVENTS = (AccessEvent.GRANTED, AccessEvent.REVOKED)
REQUEST_EVENTS = (
    AccessEvent.REQUESTED,
    AccessEvent.APPROVED,
    AccessEvent.REJECTED,
    AccessEvent.WITHDRAWN,
)


class AccessHistory(models.Model):
    """One change to what an account may do, with who made it and when.

    Written in the transaction of the change it records; append-only (the trigger refuses
    UPDATE and DELETE), so the history of who could submit or review what cannot be edited.
    """

    id = models.BigAutoField(primary_key=True)
    at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="access_history"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="access_changes_made",
        help_text="Empty when an operator acted from the command line.",
    )
    event = models.CharField(max_length=16, choices=AccessEvent.choices)
    role_before = models.CharField(max_length=16, choices=Role.choices, blank=True)
    role_after = models.CharField(max_length=16, choices=Role.choices, blank=True)
    competition = models.ForeignKey(
        "sports.Competition", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    every_competition = models.BooleanField(default=False)
    request = models.ForeignKey(
        AccessRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="history"
    )
    reason = models.TextField(blank=True)

    class Meta:
        verbose_name = "access history entry"
        verbose_name_plural = "access history"
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "at"], name="accounts_accesshist_user_idx")]
        constraints = [
            # A grant or revocation names its scope: one node, or every competition.
            models.CheckConstraint(
                condition=~Q(event__in=GRANT_EVENTS)
                | Q(competition__isnull=False, every_competition=False)
                | Q(competition__isnull=True, every_competition=True),
                name="accounts_accesshist_grant_has_scope",
            ),
            models.CheckConstraint(
                condition=~Q(event__in=REQUEST_EVENTS) | Q(request__isnull=False),
                name="accounts_accesshist_request_event_names_request",
            ),
            models.CheckConstraint(
                condition=~Q(event=AccessEvent.ROLE_CHANGED) | ~Q(role_after=""),
                name="accounts_accesshist_role_change_has_role",
            ),
            models.CheckConstraint(
                condition=~Q(event=AccessEvent.REJECTED) | ~Q(reason=""),
                name="accounts_accesshist_rejection_has_reason",
            ),
        ]
        triggers = [
            never_truncated("access_history_no_truncate"),
            pgtrigger.Protect(
                name="access_history_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_event_display()} ({self.user_id})"


class RevokedSubject(models.Model):
    """A login subject (username or e-mail) of a deleted account, kept only as its SHA-256.

    One-way: the digest cannot be turned back into the address, and the trigger refuses
    UPDATE and DELETE. Signing in or inviting with a revoked subject is refused, so a deleted
    account cannot be brought back under its old name.
    """

    digest = models.CharField(max_length=64, primary_key=True)
    revoked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "revoked login subject"
        constraints = [
            models.CheckConstraint(
                condition=Q(digest__regex=r"^[0-9a-f]{64}$"), name="accounts_revokedsubject_shape"
            ),
        ]
        triggers = [
            never_truncated("revoked_subject_no_truncate"),
            pgtrigger.Protect(
                name="revoked_subject_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"revoked subject {self.digest[:12]}…"


class AnonymousMinute(models.Model):
    """Anonymous API requests admitted in one UTC minute, over every source: the global row.

    Every anonymous admission locks this row first and its source's row second, so two
    concurrent requests always take their locks in one order and cannot deadlock; the
    global cap is checked under the lock, so several web processes or replicas sharing the
    database never admit more than it. Written only by ``api_anonymous_admit``.
    """

    id = models.BigAutoField(primary_key=True)
    bucket_start = models.DateTimeField(unique=True)
    count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "anonymous API minute"

    def __str__(self) -> str:
        return f"{self.bucket_start:%Y-%m-%d %H:%M}: {self.count}"


class AnonymousSourceMinute(models.Model):
    """Anonymous API requests one source made in one UTC minute (admitted or refused).

    ``source`` is a pseudonym: the HMAC of the client's network (an IPv4 address or an IPv6
    /64) under a key derived from the server secret and the UTC date, so it changes every
    day and a row cannot be joined to another day's or turned back into an address without
    the secret. Rows are pruned within hours (``api_anonymous_usage_prune``).
    """

    id = models.BigAutoField(primary_key=True)
    bucket_start = models.DateTimeField()
    source = models.CharField(max_length=64)
    count = models.PositiveIntegerField()

    class Meta:
        verbose_name = "anonymous API source minute"
        constraints = [
            # The upsert's conflict target.
            models.UniqueConstraint(
                fields=["bucket_start", "source"], name="accounts_anonsource_one_per_bucket"
            ),
            models.CheckConstraint(condition=Q(count__gt=0), name="accounts_anonsource_count_pos"),
            # A pseudonym is a SHA-256 hex digest; anything else (an address) is refused.
            models.CheckConstraint(
                condition=Q(source__regex=r"^[0-9a-f]{64}$"), name="accounts_anonsource_is_digest"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source[:12]}… {self.bucket_start:%Y-%m-%d %H:%M}: {self.count}"


# Long work and its progress live in their own module, loaded here with the app's models.
from accounts.job_records import Job as Job  # noqa: E402
from accounts.job_records import JobKind as JobKind  # noqa: E402
from accounts.job_records import JobState as JobState  # noqa: E402
from accounts.job_records import OutboxMessage as OutboxMessage  # noqa: E402
from accounts.subscription_records import SubscriptionRequest as SubscriptionRequest  # noqa: E402
