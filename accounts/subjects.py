"""Login subjects of deleted accounts, kept only as one-way markers.

A tombstoned account's username and address are recorded as digests so that neither can
sign in or be taken again, while the table holds nothing that names the person. Both the
deletion (``accounts.access.account_tombstone``), the invitation service and the sign-in
backend ask here, which is why this sits below all of them.
"""

from __future__ import annotations

import hashlib

from accounts.models import RevokedSubject


def subject_digest(subject: str) -> str:
    """The one-way marker of a login subject: SHA-256 of its trimmed, lowercased text."""
    return hashlib.sha256(subject.strip().lower().encode()).hexdigest()


def subject_revoked(subject: str) -> bool:
    """Whether ``subject`` (a username or an e-mail address) belonged to a deleted account."""
    return bool(subject.strip()) and (
        RevokedSubject.objects.filter(digest=subject_digest(subject)).exists()
    )
