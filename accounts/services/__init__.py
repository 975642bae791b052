"""Writes on accounts, one module per concern; every function is the one place its
operation is implemented.

The modules layer bottom-up: ``audit`` (the audit log and the access history) under
everything; ``sessions`` under ``status`` under ``tokens``; ``api_usage`` under
``anonymous``. ``accounts.access`` (roles, grants, requests, deletion) builds on this
package and is never imported by it. Callers import from here, not from the modules:
the split is this package's business.
"""

from accounts.services.anonymous import (
    API_ANON_GLOBAL_RETENTION,
    API_ANON_SOURCE_RETENTION,
    api_anonymous_admit,
    api_anonymous_usage_prune,
)
from accounts.services.api_keys import (
    API_CONSUMER_FIELDS,
    API_KEY_PREFIX_BYTES,
    api_consumer_change,
    api_consumer_create,
    api_key_authenticate,
    api_key_digest,
    api_key_issue,
    api_key_revoke,
)
from accounts.services.api_usage import (
    API_USAGE_MINUTE_RETENTION,
    Admission,
    api_usage_admit,
    api_usage_prune,
    usage_bucket,
)
from accounts.services.audit import access_history_record, audit_record
from accounts.services.jobs import (
    JOB_TASKS,
    job_execute,
    job_retry,
    job_start,
    job_targets,
    job_targets_register,
    jobs_dispatch_unsent,
    jobs_sweep_stale,
    task_enqueue,
)
from accounts.services.mail import email_send_reserve, mail_cap
from accounts.services.preferences import preference_mail_set
from accounts.services.sessions import acting_as_start, acting_as_stop, session_revoke
from accounts.services.status import (
    account_groups_sync,
    account_status_set,
    admin_account_ensure,
)
from accounts.services.subscribers import (
    subscriber_confirm,
    subscriber_signup,
    subscriber_unsubscribe,
    subscription_request_check,
)
from accounts.services.tokens import (
    TOKEN_LIFETIME,
    account_invite,
    account_token_check,
    account_token_issue,
    account_token_redeem,
    password_reset_request,
    token_digest,
)

__all__ = [
    "API_ANON_GLOBAL_RETENTION",
    "API_ANON_SOURCE_RETENTION",
    "API_CONSUMER_FIELDS",
    "API_KEY_PREFIX_BYTES",
    "API_USAGE_MINUTE_RETENTION",
    "JOB_TASKS",
    "TOKEN_LIFETIME",
    "Admission",
    "access_history_record",
    "account_groups_sync",
    "account_invite",
    "account_status_set",
    "account_token_check",
    "account_token_issue",
    "account_token_redeem",
    "acting_as_start",
    "acting_as_stop",
    "admin_account_ensure",
    "api_anonymous_admit",
    "api_anonymous_usage_prune",
    "api_consumer_change",
    "api_consumer_create",
    "api_key_authenticate",
    "api_key_digest",
    "api_key_issue",
    "api_key_revoke",
    "api_usage_admit",
    "api_usage_prune",
    "audit_record",
    "email_send_reserve",
    "job_execute",
    "job_retry",
    "job_start",
    "job_targets",
    "job_targets_register",
    "jobs_dispatch_unsent",
    "jobs_sweep_stale",
    "mail_cap",
    "password_reset_request",
    "preference_mail_set",
    "session_revoke",
    "subscriber_confirm",
    "subscriber_signup",
    "subscriber_unsubscribe",
    "subscription_request_check",
    "task_enqueue",
    "token_digest",
    "usage_bucket",
]
