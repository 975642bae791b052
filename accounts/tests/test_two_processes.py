"""Two OS processes, each with its own database connection, hammer one consumer's (or one
anonymous source's) admission at once: the admitted total never passes the limit.

The documented margin is zero: the consumer's row lock (keyed) and the global-then-source
row locks (anonymous) serialise every admission of one budget in the database, whichever
process, replica or key it comes from.
"""

import os
import subprocess
import sys
import time

import pytest
from django.db import connection

from accounts.services import api_key_issue
from accounts.tests.factories import ApiConsumerFactory
from omnium.testing import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

ATTEMPTS = 150  # per process
LIMIT = 100  # below the two processes' 300 attempts, above either one's alone

CHILD = """
import sys, time
from datetime import UTC, datetime
import django
django.setup()
from accounts.models import ApiKey
from accounts.services import api_anonymous_admit, api_usage_admit

kind, target, start, attempts = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
at = datetime(2026, 3, 14, 12, 0, 1, tzinfo=UTC)
key = ApiKey.objects.select_related("consumer").get(pk=target) if kind == "key" else None
time.sleep(max(0.0, start - time.time()))  # both processes start hammering together
admitted = 0
for _ in range(attempts):
    if kind == "key":
        admitted += api_usage_admit(key=key, at=at).allowed
    else:
        admitted += api_anonymous_admit(address=target, at=at).allowed
print(admitted)
"""


def _hammer(jobs: list[tuple[str, str]], **env) -> list[int]:
    database = connection.settings_dict
    url = f"postgres://{database['HOST']}:{database['PORT']}/{database['NAME']}"
    start = time.time() + 3  # time for both interpreters to set Django up
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, kind, target, str(start), str(ATTEMPTS)],
            cwd=REPO_ROOT,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
                "DATABASE_URL": url,
                **env,
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kind, target in jobs
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        results.append(int(out.strip()))
    return results


def test_two_processes_on_one_key_admit_exactly_the_per_minute_limit(admin_user):
    consumer = ApiConsumerFactory(per_minute_limit=LIMIT, daily_quota=10_000)
    key, _plaintext = api_key_issue(consumer=consumer, actor=admin_user)
    admitted = _hammer([("key", str(key.pk)), ("key", str(key.pk))])
    assert sum(admitted) == LIMIT


def test_two_processes_on_two_keys_of_one_consumer_admit_exactly_its_limit(admin_user):
    # A rotation: both keys live, each process using one. The budget is the consumer's.
    consumer = ApiConsumerFactory(per_minute_limit=LIMIT, daily_quota=10_000)
    first, _ = api_key_issue(consumer=consumer, actor=admin_user)
    second, _ = api_key_issue(consumer=consumer, actor=admin_user)
    admitted = _hammer([("key", str(first.pk)), ("key", str(second.pk))])
    assert sum(admitted) == LIMIT


def test_two_processes_for_one_anonymous_source_admit_exactly_its_limit():
    admitted = _hammer(
        [("anonymous", "192.0.2.10"), ("anonymous", "192.0.2.10")],
        API_ANON_PER_MINUTE=str(LIMIT),
    )
    assert sum(admitted) == LIMIT


def test_two_processes_for_two_sources_admit_exactly_the_global_limit():
    admitted = _hammer(
        [("anonymous", "192.0.2.10"), ("anonymous", "198.51.100.20")],
        API_ANON_GLOBAL_PER_MINUTE=str(LIMIT),
    )
    assert sum(admitted) == LIMIT
