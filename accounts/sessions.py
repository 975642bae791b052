"""Session store whose table keeps only a digest of each session key (``SESSION_ENGINE``).

Django's database store uses the cookie value as the primary key, so a leaked copy of the
table (a backup, a replica) would be a pile of live cookies. Here the key is hashed before
every lookup and write; the table holds the SHA-256 only. Rows also carry who signed in,
whom they act as, and a revocation an administrator can set; a revoked row loads as an
empty session, which signs the browser out on its next request.
"""

from __future__ import annotations

import hashlib
import uuid

from asgiref.sync import sync_to_async
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.base import CreateError, UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

# Session-data key holding the id of the account a support person is acting as.
ACTING_AS_SESSION_KEY = "_omnium_acting_as"


def key_digest(session_key: str) -> str:
    return hashlib.sha256(session_key.encode()).hexdigest()


def _uuid_or_none(value: object) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value)) if value else None
    except ValueError:
        return None


class SessionStore(DatabaseSessionStore):
    @classmethod
    def get_model_class(cls):
        # Imported when first asked, as Django's own database store does: the engine is
        # loaded by dotted path from settings and may be imported before the app registry
        # is ready, when importing models would fail.
        from accounts.models import AccountSession

        return AccountSession

    def _get_session_from_db(self):
        if not self.session_key:
            return None
        session = self.model.objects.filter(
            key_digest=key_digest(self.session_key),
            expire_date__gt=timezone.now(),
            revoked_at__isnull=True,
        ).first()
        if session is None:
            self._session_key = None
        return session

    def exists(self, session_key):
        return self.model.objects.filter(key_digest=key_digest(session_key)).exists()

    def _columns(self, data: dict) -> dict:
        return {
            "session_data": self.encode(data),
            "expire_date": self.get_expiry_date(),
            "user_id": _uuid_or_none(data.get(SESSION_KEY)),
            "acting_as_id": _uuid_or_none(data.get(ACTING_AS_SESSION_KEY)),
            "last_seen_at": timezone.now(),
        }

    def create_model_instance(self, data):
        return self.model(
            key_digest=key_digest(self._get_or_create_session_key()), **self._columns(data)
        )

    def save(self, must_create=False):
        if self.session_key is None:
            return self.create()
        data = self._get_session(no_load=must_create)
        digest = key_digest(self.session_key)
        if must_create:
            try:
                with transaction.atomic():
                    self.model.objects.create(key_digest=digest, **self._columns(data))
            except IntegrityError as error:
                raise CreateError from error
            return
        # An UPDATE limited to the data columns: created_at and any revocation set meanwhile
        # by an administrator must survive a request that was already in flight.
        try:
            updated = self.model.objects.filter(key_digest=digest, revoked_at__isnull=True).update(
                **self._columns(data)
            )
        except DatabaseError as error:
            raise UpdateError from error
        if not updated:
            raise UpdateError

    def delete(self, session_key=None):
        """Signing out (or a key cycled at sign-in) ends the session; its row stays, revoked."""
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        self.model.objects.filter(
            key_digest=key_digest(session_key), revoked_at__isnull=True
        ).update(revoked_at=timezone.now(), revoke_reason="ended")

    @classmethod
    def clear_expired(cls):
        cls.get_model_class().objects.filter(expire_date__lt=timezone.now()).delete()

    # The async interface runs the same code in a thread: one implementation to trust.
    async def aload(self):
        return await sync_to_async(self.load)()

    async def aexists(self, session_key):
        return await sync_to_async(self.exists)(session_key)

    async def asave(self, must_create=False):
        return await sync_to_async(self.save)(must_create)

    async def adelete(self, session_key=None):
        return await sync_to_async(self.delete)(session_key)

    async def acreate(self):
        return await sync_to_async(self.create)()

    @classmethod
    async def aclear_expired(cls):
        return await sync_to_async(cls.clear_expired)()
