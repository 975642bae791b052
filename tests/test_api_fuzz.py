"""schemathesis over the API schema on a database holding real sample data: no 5xx and no
response the schema does not describe (status, headers, body).

Who asks: every GET operation (every list and every detail) as an anonymous client; every
operation that needs an account (the guarded reads and every write) as staff; the main
public reads again with a consumer's API key (its own rate-limit headers).

The samples are a subset of ``make run``'s (ingest/samples.py) loaded once for the module
through the real import code, inside a transaction rolled back at the end. Path ids are
drawn half from the real rows (so detail pages are exercised, not only their 404s) and half
generated. Examples per operation are few (``MAX_EXAMPLES``) to keep the suite quick.
"""

from __future__ import annotations

import json
import os
import random

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from omnium.testing import REPO_ROOT

# Examples per operation and persona: enough to reach every status an operation documents
# with real ids and bad ones, few enough that the module stays near a minute.
MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "2"))
SAMPLES = REPO_ROOT / "ingest" / "samples"
CRICKET_MATCHES = ["1075507.json", "1216517.json"]

DOCUMENT = json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(public=True)))
PUBLIC_READS = {
    path for path, item in DOCUMENT["paths"].items() if item.get("get", {}).get("security") == []
}
schema = schemathesis.openapi.from_dict(DOCUMENT)
schema.app = get_wsgi_application()

READS = schema.include(method="GET")
# A key changes only who is counted (and the RateLimit-* values), not the body: a few reads.
MAIN_READS = ("/api/v1/fixtures/", "/api/v1/cricket/leaderboards/batting/", "/api/v1/products/")
KEYED = schema.include(
    func=lambda ctx: ctx.operation.method.upper() == "GET" and ctx.operation.path in MAIN_READS
)
GUARDED = schema.exclude(
    func=lambda ctx: ctx.operation.method.upper() == "GET" and ctx.operation.path in PUBLIC_READS
)

# Real ids per path, filled by the ``samples`` fixture before any case is generated.
REAL_IDS: dict[str, list[str]] = {}


def _real_ids() -> dict[str, list[str]]:
    from catalogue.models import Brand, Location, Product
    from discussions.models import Article
    from sports.models import Competition, Fixture, Participant, Sport

    fixtures = [str(pk) for pk in Fixture.objects.values_list("pk", flat=True)[:50]]
    cricket = [
        str(pk) for pk in Fixture.objects.filter(sport__code="cricket").values_list("pk", flat=True)
    ]
    return {
        "/api/v1/sports/{code}/": list(Sport.objects.values_list("code", flat=True)),
        "/api/v1/competitions/{id}/": [
            str(pk) for pk in Competition.objects.values_list("pk", flat=True)
        ],
        "/api/v1/fixtures/{id}/": fixtures,
        "/api/v1/cricket/fixtures/{id}/": cricket,
        "/api/v1/participants/{id}/": [
            str(pk) for pk in Participant.objects.values_list("pk", flat=True)[:50]
        ],
        "/api/v1/products/{id}/": [str(pk) for pk in Product.objects.values_list("pk", flat=True)],
        "/api/v1/brands/{slug}/": list(Brand.objects.values_list("slug", flat=True)),
        "/api/v1/airports/{code}/": list(Location.objects.values_list("code", flat=True)),
        "/api/v1/articles/{slug}/": list(Article.objects.values_list("slug", flat=True)),
    }


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    path = context.operation.path
    for prefix, ids in REAL_IDS.items():
        name = prefix.rsplit("{", 1)[1].rstrip("/}")
        if path.startswith(prefix) and ids and name in path_parameters:
            return st.one_of(
                st.just(path_parameters),
                st.sampled_from(ids).map(lambda value, n=name: {**path_parameters, n: value}),
            )
    return st.just(path_parameters)


def _personas() -> dict:
    """A consumer's key and a staff member's key (limits out of reach): a key, not a session,
    so the writes are exercised past CSRF, as a program would call them."""
    from accounts.services import api_key_issue
    from accounts.tests.factories import ApiConsumerFactory, StaffFactory, UserFactory

    staff = StaffFactory(username="fuzz-editor", role="editor")
    consumer = ApiConsumerFactory(
        owner=UserFactory(username="fuzz-partner"), per_minute_limit=10**6, daily_quota=10**6
    )
    _key, plaintext = api_key_issue(consumer=consumer, actor=staff)
    desk = ApiConsumerFactory(owner=staff, per_minute_limit=10**6, daily_quota=10**6)
    _key, staff_key = api_key_issue(consumer=desk, actor=staff)
    return {
        "key": {"Authorization": f"Api-Key {plaintext}"},
        "staff": {"Authorization": f"Api-Key {staff_key}"},
    }


@pytest.fixture(scope="module")
def keep_connection():
    """The WSGI handler closes the database connection after each request, as a server
    should; here that connection holds the test's transaction, so keep it (as Django's own
    test client does)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def samples(django_db_setup, django_db_blocker, keep_connection):
    from cricket.tests.factories import seed_dismissal_kinds
    from ingest.collectors.sample import load_catalogue_sample
    from ingest.cricsheet.importer import import_paths
    from ingest.games import games_import

    with django_db_blocker.unblock(), transaction.atomic():
        seed_dismissal_kinds()
        games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
        load_catalogue_sample()
        summary = import_paths([SAMPLES / "cricket" / name for name in CRICKET_MATCHES])
        assert not summary.rejected, summary.rejections
        REAL_IDS.update(_real_ids())
        yield _personas()
        REAL_IDS.clear()
        transaction.set_rollback(True)


@pytest.fixture
def generous_limits(settings):
    settings.API_ANON_PER_MINUTE = 1_000_000
    settings.API_ANON_GLOBAL_PER_MINUTE = 1_000_000


FUZZ = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


# No 5xx, and every response as documented: its status, content type, headers and body.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@READS.parametrize()
@FUZZ
def test_every_read_as_anonymous(case, samples, db, generous_limits):
    case.call_and_validate(checks=CHECKS)


@KEYED.parametrize()
@settings(FUZZ, max_examples=1)
def test_main_reads_with_a_consumer_key(case, samples, db, generous_limits):
    case.call_and_validate(headers=samples["key"], checks=CHECKS)


@GUARDED.parametrize()
@FUZZ
def test_what_needs_an_account_as_staff(case, samples, db, generous_limits):
    case.call_and_validate(headers=samples["staff"], checks=CHECKS)


def test_the_fuzzed_reads_are_every_get_operation():
    gets = {path for path, item in DOCUMENT["paths"].items() if "get" in item}
    fuzzed = {operation.ok().path for operation in READS.get_all_operations()}
    assert fuzzed == gets


def test_real_ids_reach_the_detail_operations(samples, db):
    # The hook only helps if the samples gave it ids for the hot detail pages.
    for path in (
        "/api/v1/fixtures/{id}/",
        "/api/v1/cricket/fixtures/{id}/",
        "/api/v1/products/{id}/",
    ):
        assert REAL_IDS[path], path
    assert random.sample(REAL_IDS["/api/v1/fixtures/{id}/"], 1)
