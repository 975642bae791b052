"""The database guards itself: the application's role cannot erase or rewrite history.

Every test here runs as the application role, as the whole suite does (omnium.testing's
``django_db_setup``); the owner appears only where a test says so.
"""

from __future__ import annotations

import pgtrigger
import pytest
from django.conf import settings
from django.db import DatabaseError, ProgrammingError, connection, transaction
from django.utils import timezone

from accounts.models import AuditEntry
from accounts.services.audit import audit_record
from accounts.tests.factories import UserFactory
from catalogue.collection_records import CollectionRun, RawRecord, RejectedObservation, Source
from catalogue.models import Brand
from catalogue.tests.factories import BrandFactory, ListingFactory, LocationFactory
from cricket.tests.factories import SubmissionFactory
from discussions.models import Comment, CommentEdit
from discussions.services import comment_edit
from discussions.tests.factories import CommentFactory
from omnium.db import as_owner
from sports.models import EntityType, ExternalIdMap, Submission

pytestmark = pytest.mark.django_db


def _refused(sql: str, params: list | None = None) -> None:
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params or [])


def _audit_row() -> AuditEntry:
    return audit_record(actor=None, action="test.entry", entity="test.thing", key="k")


def _one(sql: str, params: list | None = None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()


# --- the role ------------------------------------------------------------------------------


def test_the_application_connects_as_a_role_that_is_no_superuser_and_owns_no_table():
    user, superuser = _one(
        "SELECT current_user, usesuper FROM pg_user WHERE usename = current_user"
    )
    owned = _one(
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user"
    )[0]
    assert (user, superuser, owned) == (settings.DATABASE_APP_ROLE, False, 0)
    assert user != settings.DATABASE_OWNER["USER"]


def test_the_application_role_cannot_truncate_history():
    _audit_row()
    with (
        pytest.raises(ProgrammingError, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE accounts_auditentry")
    assert AuditEntry.objects.exists()


def test_the_application_role_cannot_disable_a_trigger():
    with (
        pytest.raises(ProgrammingError, match="must be owner"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("ALTER TABLE accounts_auditentry DISABLE TRIGGER ALL")


def test_the_application_role_cannot_set_session_replication_role():
    with (
        pytest.raises(ProgrammingError, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET session_replication_role = replica")


def test_pgtrigger_ignore_does_not_lift_an_append_only_guard():
    entry = _audit_row()
    with (
        pgtrigger.ignore("accounts.AuditEntry:audit_append_only"),
        pytest.raises(DatabaseError, match="Cannot update or delete"),
        transaction.atomic(),
    ):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with (
        pytest.raises(DatabaseError, match="Cannot update or delete"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "SELECT set_config('pgtrigger.ignore', '{' || string_agg(tgname, ',') || '}', "
            "true) FROM pg_trigger WHERE tgrelid = 'accounts_auditentry'::regclass"
        )
        cursor.execute("DELETE FROM accounts_auditentry")
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_the_owner_cannot_truncate_history_either(transactional_db):
    _audit_row()
    with (
        as_owner(),
        pytest.raises(DatabaseError, match="history is never truncated"),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE accounts_auditentry CASCADE")
    assert AuditEntry.objects.exists()


def test_every_table_that_refuses_deletes_also_refuses_truncate():
    """A new append-only table without its TRUNCATE guard fails here (omnium.triggers)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname FROM pg_class c
            WHERE EXISTS (
                SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal
                  AND t.tgname LIKE 'pgtrigger_%%' AND t.tgtype & 8 = 8)
              AND NOT EXISTS (
                SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgtype & 32 = 32)
            """
        )
        unguarded = [name for (name,) in cursor.fetchall()]
    assert unguarded == []


def test_a_table_the_owner_creates_later_is_granted_to_the_application_role():
    grants = _one(
        """
        SELECT array_agg(DISTINCT a.privilege_type ORDER BY a.privilege_type)
        FROM pg_default_acl d, aclexplode(d.defaclacl) a
        WHERE d.defaclrole = %s::regrole AND d.defaclobjtype = 'r'
          AND a.grantee = %s::regrole
        """,
        [settings.DATABASE_OWNER["USER"], settings.DATABASE_APP_ROLE],
    )[0]
    assert grants == ["DELETE", "INSERT", "SELECT", "UPDATE"]


# --- submissions ---------------------------------------------------------------------------


def test_an_accepted_submission_cannot_be_unaccepted():
    submission = SubmissionFactory(accepted=True)
    with pytest.raises(DatabaseError, match="never changes"), transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(accepted=False, accepted_at=None)


def test_an_accepted_submission_keeps_its_checksum():
    submission = SubmissionFactory(accepted=True)
    with pytest.raises(DatabaseError, match="never changes"), transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(sha256="0" * 64)


def test_acceptance_is_the_one_change_a_pending_submission_takes_and_is_stamped():
    submission = SubmissionFactory(accepted=False, accepted_at=None)
    with pytest.raises(DatabaseError, match="one change allowed"), transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(sha256="1" * 64)
    Submission.objects.filter(pk=submission.pk).update(
        accepted=True, accepted_at=timezone.now() - timezone.timedelta(days=300)
    )
    submission.refresh_from_db()
    assert submission.accepted
    assert submission.accepted_at > timezone.now() - timezone.timedelta(minutes=5)


def test_an_accepted_submission_cannot_be_deleted():
    submission = SubmissionFactory(accepted=True)
    _refused("DELETE FROM sports_submission WHERE id = %s", [submission.pk])


# --- collection records, history, the external-id map, comments ------------------------------


def _source(slug: str = "guard-feed") -> Source:
    return Source.objects.create(
        slug=slug, name="Guard feed", feed_format="generic_csv", location=LocationFactory()
    )


def _run():
    return CollectionRun.objects.create(source=_source(), started_at=timezone.now())


def test_raw_records_are_append_only():
    record = RawRecord.objects.create(
        listing=ListingFactory(), payload={"a": 1}, parser_version="1"
    )
    _refused("UPDATE ingest_rawrecord SET payload = '{}' WHERE id = %s", [record.pk])
    _refused("DELETE FROM ingest_rawrecord WHERE id = %s", [record.pk])


def test_rejected_observations_are_append_only():
    rejection = RejectedObservation.objects.create(stage="collect", reason="r", message="m")
    _refused("UPDATE ingest_rejectedobservation SET reason = 'x' WHERE id = %s", [rejection.pk])
    _refused("DELETE FROM ingest_rejectedobservation WHERE id = %s", [rejection.pk])


def test_a_finished_collection_run_is_final():
    run = _run()
    CollectionRun.objects.filter(pk=run.pk).update(rows_read=0, status="succeeded")
    _refused("UPDATE ingest_collectionrun SET rows_read = 5 WHERE id = %s", [run.pk])
    _refused("UPDATE ingest_collectionrun SET status = 'running' WHERE id = %s", [run.pk])
    _refused("DELETE FROM ingest_collectionrun WHERE id = %s", [run.pk])


def test_a_collection_run_starts_running():
    source = _source("guard-feed-2")
    with pytest.raises(DatabaseError, match="starts running"), transaction.atomic():
        CollectionRun.objects.create(source=source, started_at=timezone.now(), status="succeeded")


def test_historical_rows_of_curated_records_are_append_only():
    brand = BrandFactory()
    history = Brand.history.model.objects.filter(id=brand.pk)  # type: ignore[attr-defined]
    assert history.exists()
    table = Brand.history.model._meta.db_table  # type: ignore[attr-defined]
    _refused(f"UPDATE {table} SET name = 'rewritten'")  # noqa: S608
    _refused(f"DELETE FROM {table}")  # noqa: S608


def test_the_external_id_map_is_append_only():
    link = ExternalIdMap.objects.create(
        source_code="cricsheet",
        entity_type=EntityType.PARTICIPANT,
        external_id="abc",
        internal_id="00000000-0000-0000-0000-000000000001",
    )
    _refused(
        "UPDATE sports_externalidmap SET internal_id = gen_random_uuid() WHERE id = %s", [link.pk]
    )
    _refused("DELETE FROM sports_externalidmap WHERE id = %s", [link.pk])


def test_a_comments_text_changes_only_through_a_recorded_edit():
    comment = CommentFactory()
    _refused("UPDATE discussions_comment SET body = 'rewritten' WHERE id = %s", [comment.pk])
    _refused("DELETE FROM discussions_comment WHERE id = %s", [comment.pk])
    comment_edit(comment=comment, body="second thoughts", actor=comment.author)
    edit = CommentEdit.objects.get(comment=comment)
    assert (edit.body_after, Comment.objects.get(pk=comment.pk).body) == ("second thoughts",) * 2
    _refused("UPDATE discussions_commentedit SET body_before = 'x' WHERE id = %s", [edit.pk])


def test_a_user_can_still_be_created_and_edited_by_the_application():
    user = UserFactory()
    user.first_name = "Changed"
    user.save(update_fields=["first_name"])
    assert type(user).objects.get(pk=user.pk).first_name == "Changed"


# --- planner statistics ---------------------------------------------------------------------


def _reltuples(table: str) -> float:
    return _one("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [table])[0]


def test_the_application_role_refreshes_planner_statistics_through_omnium_analyze():
    from omnium.db import analyze

    BrandFactory.create_batch(37)
    rows = Brand.objects.count()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE catalogue_brand")  # skipped: the role does not own it
    assert _reltuples("catalogue_brand") != rows
    analyze("catalogue_brand")
    assert _reltuples("catalogue_brand") == rows


def test_omnium_analyze_takes_only_the_projects_tables():
    from omnium.db import analyze

    with (
        pytest.raises(DatabaseError, match="not a table of this database"),
        transaction.atomic(),
    ):
        analyze("pg_authid")
