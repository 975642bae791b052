"""After a run of requests from one client, its raw address is nowhere: in no table (every
column, JSON included), no log line, no Redis key or cached value."""

import logging

import pytest
import redis
from axes.models import AccessAttempt, AccessFailureLog
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import AnonymousSourceMinute, ApiUsage, AuditEntry
from accounts.services import api_key_issue, audit_record
from accounts.tests.factories import ApiConsumerFactory
from omnium.testing import cache_clear_own

pytestmark = pytest.mark.django_db

IPV4 = "203.0.113.57"
IPV6 = "2001:db8:abcd:12::57"
# What must not appear: the addresses, and the IPv6 /64 the limits count by.
NEEDLES = (IPV4, IPV6, "2001:db8:abcd:12:")


def _tables_holding(*needles: str) -> list[str]:
    """Every table of the database with a row whose text form contains one of ``needles``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        )
        tables = [name for (name,) in cursor.fetchall()]
        found = []
        for table in tables:
            quoted = connection.ops.quote_name(table)
            cursor.execute(
                f"SELECT EXISTS (SELECT 1 FROM {quoted} t WHERE t::text LIKE ANY (%s))",  # noqa: S608
                [[f"%{needle}%" for needle in needles]],
            )
            if cursor.fetchone()[0]:
                found.append(table)
    return found


def _redis_entries_holding(needle: str) -> list[str]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    found = []
    for key in client.scan_iter(count=500):
        text = key.decode(errors="replace")
        value = client.get(key) if client.type(key) == b"string" else b""
        if needle in text or needle.encode() in (value or b""):
            found.append(text)
    return found


def _traffic(address: str, consumer_key: str, admin_password: str) -> None:
    anonymous = APIClient(REMOTE_ADDR=address)
    for path in ("/api/v1/", "/api/v1/sports/", "/api/v1/fixtures/", "/api/v1/products/"):
        anonymous.get(path)
    for _ in range(3):  # over the limit: the 429 path too
        anonymous.get("/api/v1/sports/")
    anonymous.get("/api/v1/fixtures/00000000-0000-0000-0000-000000000000/")  # a 404
    keyed = APIClient(REMOTE_ADDR=address)
    keyed.credentials(HTTP_AUTHORIZATION=f"Api-Key {consumer_key}")
    keyed.get("/api/v1/sports/")
    bad_key = APIClient(REMOTE_ADDR=address)
    bad_key.credentials(HTTP_AUTHORIZATION="Api-Key nope.nope")
    bad_key.get("/api/v1/sports/")  # a 401
    browser = APIClient(REMOTE_ADDR=address)
    browser.post("/admin/login/", {"username": "administrator", "password": "wrong"})
    browser.post("/admin/login/", {"username": "administrator", "password": admin_password})
    browser.get("/admin/")


@pytest.mark.parametrize("address", [IPV4, IPV6])
def test_no_table_log_line_or_redis_entry_holds_the_client_address(
    address, settings, caplog, viewer, admin_user
):
    settings.API_ANON_PER_MINUTE = 5
    admin_user.set_password("a-long-password-for-tests")
    admin_user.save()
    cache_clear_own()
    caplog.set_level(logging.DEBUG)
    _key, plaintext = api_key_issue(consumer=ApiConsumerFactory(owner=viewer), actor=admin_user)
    _traffic(address, plaintext, "a-long-password-for-tests")

    # The run left its traces (under pseudonyms), so the scans below read real rows.
    assert AnonymousSourceMinute.objects.exists()
    assert ApiUsage.objects.exists()
    assert AccessAttempt.objects.exists() or AccessFailureLog.objects.exists()
    assert caplog.records
    assert _tables_holding(*NEEDLES) == []
    for needle in NEEDLES:
        assert needle not in caplog.text, needle
        assert _redis_entries_holding(needle) == [], needle


def test_the_scan_finds_an_address_where_one_is_stored(viewer):
    # The check above is only worth something if the scan can see a planted address.
    audit_record(
        actor=viewer, action="test.plant", entity=viewer, key=viewer.pk, detail={"ip": IPV4}
    )
    assert _tables_holding(IPV4) == [AuditEntry._meta.db_table]


def test_the_redis_scan_finds_an_address_where_one_is_stored():
    cache.set(f"planted:{IPV4}", "x", 30)
    try:
        assert _redis_entries_holding(IPV4)
    finally:
        cache.delete(f"planted:{IPV4}")
